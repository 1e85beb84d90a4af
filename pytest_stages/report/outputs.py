"""The report files a run writes (`--stages-report`, the step summary): checked, replaced only where ours."""

from __future__ import annotations

import errno
import mmap
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_stages.core.errors import PREFIX, ConfigError, PathError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import Use, checked_path, inside, shown_path, write_atomically
from pytest_stages.core.records import Mode
from pytest_stages.report.markdown import markdown
from pytest_stages.report.render import REPORT_FORMATS, RunReport, report_json, table_rows

if TYPE_CHECKING:
    from pytest_stages.report import history_trends as history_trends_
    from pytest_stages.report import html_report as html_report_
else:
    history_trends_ = lazy_module("pytest_stages.report.history_trends")
    html_report_ = lazy_module("pytest_stages.report.html_report")


def check_output(option: str, path: Path, snapshots: Path) -> None:
    """An output file a report goes to: a ``.json``/``.md``/``.html`` name, never inside the snapshot folder.

    A report written over a snapshot would replace the snapshot (or, appended to, corrupt it).
    """
    if path.suffix not in REPORT_FORMATS:
        raise ConfigError(f"{option}={path}: name a .json, .md or .html file.")
    fix = f"Write it elsewhere, e.g. {option}=stages-report{path.suffix}."
    checked_path(path, Use(f"{option}={shown_path(str(path))}", fix, folder=False))
    if inside(path, snapshots):
        raise ConfigError(
            f"{option}={path} is inside the snapshot folder {snapshots}, where only snapshots live (a report "
            f"there would replace or corrupt one); write it elsewhere, e.g. {option}=stages-report{path.suffix}."
        )
    problem = _not_a_report(path)
    if problem is not None:
        raise ConfigError(
            f"{option}={shown_path(str(path))} {problem}, and writing the report would replace it: pytest-stages "
            f"replaces only a report it wrote. Name a new file, e.g. {option}=stages-report{path.suffix}, or move "
            "that file away."
        )


# How each report begins as :func:`write_report` writes it; a JSON report also holds its schema on a line of its own.
_REPORT_HEADS = {
    ".json": b'{"calls":[',
    ".md": b"## pytest-stages\n",
    ".html": b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>pytest-stages review</title>',
}
_SCHEMA_LINE = re.compile(rb'\n"schema":"pytest-stages-report/')


def _not_a_report(path: Path) -> str | None:
    """Why the file at ``path`` is not a report pytest-stages wrote (None: there is none, it is empty, or it is one).

    Read without blocking (checked a plain file first); a JSON report is searched for its schema line
    through a memory map, so a large report is not read into memory.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the write says what is wrong with the path)
        return None
    except OSError as exc:
        return f"cannot be read to tell whether pytest-stages wrote it ({exc.strerror or exc})"
    with os.fdopen(handle, "rb") as stream:
        size = os.fstat(handle).st_size
        if size == 0:
            return None
        head = _REPORT_HEADS[path.suffix]
        if stream.read(len(head)) == head and (path.suffix != ".json" or _schema_line(handle, size)):
            return None
    kind = {".json": "JSON", ".md": "Markdown", ".html": "HTML"}[path.suffix]
    return f"is a file that is not a {kind} report pytest-stages wrote"


def _schema_line(handle: int, size: int) -> bool:
    with mmap.mmap(handle, size, access=mmap.ACCESS_READ) as mapped:
        return _SCHEMA_LINE.search(mapped) is not None


def write_report(path: Path, report: RunReport, snapshots: Path | None = None) -> None:
    """``--stages-report``: JSON for ``.json``, a review page for ``.html``, Markdown for ``.md`` (with the moved
    figures' recent history where the ``snapshots`` folder is in a git repository)."""
    text: str | Iterator[str]
    if path.suffix == ".json":
        text = report_json(report)
    elif path.suffix == ".html":
        text = html_report_.page(
            report.records, table_rows(report.records), report.environment, Mode.of(report.update), report.baseline
        )
    else:
        text = markdown(report, _trends(report, snapshots))
    write_atomically(path, text)


def _trends(report: RunReport, snapshots: Path | None) -> list[str]:
    """The moved figures' recent history from git; read (and its modules imported) only where a figure moved."""
    if snapshots is None or not any(record.deltas for record in report.records):
        return []
    return history_trends_.trend_lines(report.records, snapshots)


def step_summary_refusal(path: str) -> str:
    """What is said instead of appending the summary to a ``$GITHUB_STEP_SUMMARY`` inside the snapshot folder."""
    return (
        f"{PREFIX}not appending to $GITHUB_STEP_SUMMARY {path}: it is inside the snapshot folder, where only "
        "snapshots live; point it at a file outside (GitHub sets it to one)."
    )


def append_step_summary(path: Path, report: RunReport, snapshots: Path | None = None) -> None:
    """Append the Markdown summary to GitHub's ``$GITHUB_STEP_SUMMARY`` file (with the moved figures' recent
    history, as :func:`write_report`).

    Only a regular file (or none yet) is appended to: a FIFO would block the session until
    something reads it, a device may never take the text. Anything else raises ``OSError``
    saying so, opened without blocking and checked before the first write.
    """
    not_regular = OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device); point it at a file")
    if path.exists() and not path.is_file():
        raise not_regular
    try:
        checked_path(path, Use("it", "Point it at a file outside version control's folders.", folder=False))
    except PathError as exc:
        raise OSError(errno.EINVAL, str(exc)) from None
    handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    with os.fdopen(handle, "a", encoding="utf-8") as stream:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise not_regular
        stream.write(markdown(report, _trends(report, snapshots)))
