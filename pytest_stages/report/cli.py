"""The command line, ``python -m pytest_stages merge REPORT...``: shard reports in, one run's outputs out.

It prints the summary a single run prints, writes the reports (``--report`` .json, .md, .html;
``$GITHUB_STEP_SUMMARY``), reports unused snapshot files only when the shards together judged
the whole tree, and with ``--prune`` deletes them. Its exit status is the gate of a CI run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import typing
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pytest_stages.config.discovery import load_pyproject
from pytest_stages.config.settings import parse_settings
from pytest_stages.core.errors import PREFIX, SnapshotError, StagesError
from pytest_stages.core.inputs import read_json
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import inside
from pytest_stages.core.run_view import PASSED_EXIT
from pytest_stages.report import diff_command, history_command, review_command
from pytest_stages.report.arguments import FAILED, INCOMPLETE, OK, USAGE, add_rootdir
from pytest_stages.report.errors import MergeError, OutputLost
from pytest_stages.report.merge import Merged, merge_reports, read_shard
from pytest_stages.report.outputs import append_step_summary, check_output, step_summary_refusal, write_report
from pytest_stages.report.render import REPORT_FORMATS, terminal_summary
from pytest_stages.report.unused import Judgement, judge_snapshots, project_tree
from pytest_stages.stage.plan import installed_version
from pytest_stages.store.inventory import checkout_state
from pytest_stages.store.prune import Evidence, module_file
from pytest_stages.store.storage import SnapshotStore, file_digest, snapshot_root

if TYPE_CHECKING:
    from pytest_stages.store import prune_reasons as prune_reasons_
else:
    prune_reasons_ = lazy_module("pytest_stages.store.prune_reasons")

MERGE_PRUNE_HINT = "`python -m pytest_stages merge --prune REPORT...` deletes them"


class _Writer:
    """The two calls of pytest's terminal reporter that the summary makes, on a plain stream."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def section(self, title: str) -> None:
        self.stream.write(f"{f' {title} ':=^80}\n")

    def write_line(self, line: str) -> None:
        self.stream.write(line + "\n")

    def announce(self, lines: list[str]) -> None:
        """Print a prune's list at once, before anything is deleted."""
        for line in lines:
            self.write_line(line)
        self.stream.flush()


def version_line() -> str:
    """``pytest-stages 0.2.0 (jax 0.10.2, jaxlib 0.10.2)``: the installed versions, as the JSON report records them."""
    plugin, *found = [
        f"{name} {installed_version(name) or '(not installed)'}" for name in ("pytest-stages", "jax", "jaxlib")
    ]
    return f"{plugin} ({', '.join(found)})"


def parser(prog: str = "pytest-stages") -> argparse.ArgumentParser:
    """The command line, named ``prog`` in its usage line (the console script's name by default)."""
    top = argparse.ArgumentParser(prog=prog, description="pytest-stages tools")
    top.add_argument("--version", action="version", version=version_line())
    commands = top.add_subparsers(dest="command", required=True)
    merge = commands.add_parser(
        "merge",
        help="merge the JSON reports of a split run's shards",
        description="Merge the JSON reports (--stages-report=PATH.json) of the shards of one run into the "
        "summary, reports and unused-file list one run of the whole suite gives.",
    )
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="a shard's JSON report")
    merge.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="PATH",
        help="write the merged report: PATH.json, PATH.md or PATH.html (repeatable)",
    )
    merge.add_argument(
        "--prune",
        action="store_true",
        help="delete the snapshot files no shard used (refused unless the shards together ran the whole suite)",
    )
    add_rootdir(merge, "the project root the shards ran in")
    diff_command.add_parser(commands)
    review_command.add_parsers(commands)
    history_command.add_parser(commands)
    return top


def main(argv: Sequence[str] | None = None, stream: TextIO | None = None, prog: str = "pytest-stages") -> int:
    """Run a command; returns the exit status (see ``OK``, ``FAILED``, ``USAGE``, ``INCOMPLETE``).

    What the terminal cannot encode is written escaped; a reader that goes away (``... | head``) ends the
    output quietly (status 1, the work done by then), and output that cannot be written ends it with one line
    on standard error (status 1).
    """
    if stream is None:
        stream = sys.stdout if sys.stdout is not None else open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        status = _command(argv, typing.cast(TextIO, _Output(stream)), prog)
        stream.flush()
    except BrokenPipeError:
        if stream is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILED
    except OutputLost as exc:
        with contextlib.suppress(OSError, AttributeError):  # standard error may be gone too
            sys.stderr.write(f"{PREFIX}could not write to standard output ({exc}); the output stops there.\n")
        return FAILED
    return status


_T = typing.TypeVar("_T")


class _Output(io.TextIOBase):
    """A command's output stream: a write the stream cannot take raises :class:`OutputLost`, for one line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._guarded(lambda: self._stream.write(text))

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    def isatty(self) -> bool:
        return self._stream.isatty()

    def _guarded(self, write: Callable[[], _T]) -> _T:
        try:
            return write()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputLost(exc.strerror or str(exc)) from None


def _command(argv: Sequence[str] | None, stream: TextIO, prog: str) -> int:
    args = parser(prog).parse_args(argv)
    if args.command == "diff":
        return diff_command.run(args, stream)
    if args.command == "history":
        return history_command.run(args, stream)
    if args.command in ("accept", "review"):
        return (review_command.run_accept if args.command == "accept" else review_command.run_review)(args, stream)
    rootdir = Path(args.rootdir).resolve()
    try:
        merged = _merge(args.reports, args.report, rootdir)
    except StagesError as exc:  # a merge error, a setting, a path the resolver refuses
        stream.write(f"pytest-stages merge: {exc}\n")
        return USAGE
    return _outputs(merged, args.report, args.prune, rootdir, _Writer(stream))


def _merge(paths: Sequence[str], outputs: Sequence[str], rootdir: Path) -> Merged:
    """Read and merge the reports; checks the outputs' names and that ``rootdir`` is the shards' project."""
    for output in outputs:
        if Path(output).suffix not in REPORT_FORMATS:
            raise MergeError(f"--report={output}: name a .json, .md or .html file.")
        for path in paths:
            if Path(output).resolve() == Path(path).resolve():
                raise MergeError(
                    f"--report={output} is {path}, a shard report this merge reads: the merged report would replace "
                    "it. Write the merged report to a file of its own, e.g. --report=merged-report.json."
                )
    shards = [read_shard(path, _read_report(path)) for path in paths]
    merged = merge_reports(shards)
    if not rootdir.is_dir():
        raise MergeError(f"--rootdir {rootdir} is not a folder: run the merge from the project root the shards ran in.")
    snapshot_dir = parse_settings(load_pyproject(rootdir)).snapshot_dir
    if snapshot_dir != merged.settings["snapshot_dir"]:
        raise MergeError(
            f"the shards wrote their snapshots to {merged.settings['snapshot_dir']!r}, but {rootdir}/pyproject.toml "
            f"says snapshot_dir = {snapshot_dir!r}: run the merge from the project root the shards ran in (--rootdir)."
        )
    try:
        snapshots = snapshot_root(rootdir, snapshot_dir)
    except SnapshotError as exc:
        raise MergeError(str(exc)) from None
    for output in outputs:
        check_output("--report", Path(output), snapshots)
    return merged


def _read_report(path: str) -> Any:
    """A shard's report file as JSON; a missing, special (a FIFO) or unreadable file is refused."""
    fix = "Pass the JSON reports the shards wrote with --stages-report=PATH.json."
    try:
        return read_json(path)
    except (OSError, ValueError) as exc:
        raise MergeError(f"cannot read {path} ({exc}). {fix}") from None


def _outputs(merged: Merged, outputs: Sequence[str], prune: bool, rootdir: Path, writer: _Writer) -> int:
    """Print the summary and the shard set's verdict, judge the snapshot tree, write the reports; the exit status."""
    report = merged.report
    terminal_summary(writer, report)
    writer.write_line(f"{PREFIX}merged {len(report.shards)} shard report(s), {len(report.records)} call(s)")
    if merged.missing:
        writer.write_line(f"{PREFIX}shard(s) {', '.join(merged.missing)} missing: their items were not judged")
    snapshots = rootdir / merged.settings["snapshot_dir"]
    output = ""
    try:  # before any prune: a report that cannot be written stops the merge with nothing deleted
        for output in outputs:
            write_report(Path(output), report, snapshots)
        output = os.environ.get("GITHUB_STEP_SUMMARY", "")
        if output and report.records and inside(Path(output), snapshots):
            writer.write_line(step_summary_refusal(output))
        elif output and report.records:
            append_step_summary(Path(output), report, snapshots)
    except OSError as exc:
        writer.write_line(
            f"pytest-stages merge: cannot write {output} ({exc.strerror or exc}); nothing was pruned. "
            "Name a writable file."
        )
        return USAGE
    judgement = _inventory(merged, prune, rootdir, writer)
    for line in judgement.lines:
        writer.write_line(line)
    if merged.missing or (
        prune
        and isinstance(
            judgement.refusal, prune_reasons_.IncompleteShards | prune_reasons_.OtherState | prune_reasons_.Disagreement
        )
    ):
        return INCOMPLETE
    return OK if merged.facts.exit_status in PASSED_EXIT else FAILED


def _inventory(merged: Merged, prune: bool, rootdir: Path, writer: _Writer) -> Judgement:
    """The unused-file report (and prune) of the shards together, or why there is none."""
    settings = merged.settings
    tree = project_tree(
        rootdir, settings["configs"], settings["selected"], called={r.folder for r in merged.report.records}
    )
    store = SnapshotStore(rootdir / settings["snapshot_dir"])
    collection = merged.facts.collection
    evidence = Evidence(
        prune=prune,
        shards_incomplete=tuple(merged.incomplete),
        collected=collection,
        checkout=_checkout_digests(collection.modules, rootdir),
        states=merged.states,
        here=checkout_state(rootdir, rootdir / settings["snapshot_dir"]),
        wrote=merged.report.update,
    )
    return judge_snapshots(
        merged.report.records,
        merged.facts.view(rootdir),
        tree,
        store,
        evidence,
        prefix=settings["snapshot_dir"],
        prune_hint=MERGE_PRUNE_HINT,
        announce=writer.announce,
    )


def _checkout_digests(modules: Iterable[str], rootdir: Path) -> dict[str, str | None]:
    """The SHA-256 of each module's file in the checkout at ``rootdir`` (None: no such file), for the digest check."""
    digests: dict[str, str | None] = {}
    for module in modules:
        if (name := module_file(module)) is not None:
            path = rootdir / name
            digests[module] = file_digest(path) if path.is_file() else None
    return digests
