"""``pytest-stages history``: the commits that moved each call's figures, read from the committed snapshots.

The project's settings (snapshot folder, tolerances, budgets) are read from its pyproject.toml; the
history from git (:mod:`pytest_stages.store.history`). Out: the moves per call as lines, ``--json``
for machines, ``--html PATH`` for a page of charts. Every refusal is one paragraph and status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TextIO

from pytest_stages.check.budgets import parse_budgets
from pytest_stages.check.figure_text import metric_short
from pytest_stages.config.settings import Settings
from pytest_stages.core.errors import ConfigError, StagesError
from pytest_stages.core.paths import Use, checked_path, inside, shown_path, write_atomically
from pytest_stages.core.text import close_match, listing
from pytest_stages.report.arguments import USAGE, add_keyword, add_rootdir, project_settings
from pytest_stages.report.history_html import HEAD, page
from pytest_stages.report.history_text import json_data, text_lines
from pytest_stages.store.accept import check_keyword, keyword_matches, node_matches
from pytest_stages.store.git_history import repository_root
from pytest_stages.store.history import Call, History, Move, Series, read_history


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``history`` subcommand, on the command line's subparsers."""
    history = commands.add_parser(
        "history",
        help="the commits that moved each call's figures, from the committed snapshots",
        description="Read the commits of the current branch that touched the snapshot folder (through git, no "
        "checkout) and list, per call and config, the commits where a figure moved beyond its tolerance.",
    )
    history.add_argument("nodeids", nargs="*", metavar="NODEID", help="take only these tests (as pytest names them)")
    add_keyword(history)
    history.add_argument(
        "--figure", action="append", default=[], metavar="NAME", help="only this figure, e.g. flops (repeatable)"
    )
    history.add_argument("--since", metavar="REV", help="only the commits after REV (a commit, tag or branch)")
    history.add_argument("--max-count", type=_count, metavar="N", help="only the newest N commits")
    history.add_argument(
        "--all-parents", action="store_true", help="read the merged branches' commits too (default: first parent)"
    )
    history.add_argument("--json", action="store_true", help="print the history as JSON")
    history.add_argument("--html", metavar="PATH", help="write a page of charts, one per figure of each call")
    add_rootdir(history)


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of commits, e.g. --max-count 50")
    return int(text)


def run(args: argparse.Namespace, stream: TextIO) -> int:
    """Read, select and print (or write) the history; 0 when read, 2 with one paragraph when refused."""
    try:
        return _run(args, stream)
    except StagesError as exc:
        stream.write(f"pytest-stages history: {exc}\n")
        return USAGE


def _run(args: argparse.Namespace, stream: TextIO) -> int:
    settings, snapshots, repository = _project(args)
    output = _checked_page(Path(args.html), snapshots) if args.html else None
    started = time.perf_counter()
    folder = snapshots.relative_to(repository.resolve()).as_posix()
    history = read_history(
        repository,
        folder,
        settings.tolerance,
        parse_budgets(settings.budgets),  # the ceilings as the plugin reads them ("2 ms", JAX's names)
        since=args.since,
        max_count=args.max_count,
        first_parent=not args.all_parents,
    )
    seconds = time.perf_counter() - started
    chosen = {s.call for s in history.series if _chooses(args, s.call)}
    figures = _figures(args.figure, history)
    series = [s for s in history.series if s.call in chosen and (not figures or s.figure in figures)]
    moves = [m for m in history.moves if m.call in chosen and (not figures or m.figure in figures)]
    _write(args, stream, output, (history, series, moves, seconds))
    return 0


def _project(args: argparse.Namespace) -> tuple[Settings, Path, Path]:
    """The project's settings, its snapshot folder and the git repository holding it, checked."""
    rootdir, settings = project_settings(args)
    snapshots = (rootdir / settings.snapshot_dir).resolve()
    check_keyword(args.keyword)
    repository = repository_root(rootdir)
    if not inside(snapshots, repository):
        raise ConfigError(
            f"the snapshot folder {snapshots} is outside the git repository {repository}: its history is not there. "
            "Set snapshot_dir to a folder of the repository."
        )
    return settings, snapshots, repository


def _write(
    args: argparse.Namespace, stream: TextIO, output: Path | None, view: tuple[History, list[Series], list[Move], float]
) -> None:
    """The page (``--html``), then the JSON (``--json``) or the text on the stream."""
    history, series, moves, seconds = view
    if output is not None:
        write_atomically(output, page(history, series, moves, seconds))
    if args.json:
        stream.write(json.dumps(json_data(history, moves, series, seconds), separators=(",", ":")) + "\n")
    else:
        stream.writelines(line + "\n" for line in text_lines(history, moves, seconds))
        if output is not None:
            stream.write(f"pytest-stages history: wrote {output}\n")


def _chooses(args: argparse.Namespace, call: Call) -> bool:
    """Whether ``call`` is among the node ids and the ``-k`` expression given (all calls without either)."""
    nodeid = call.nodeid
    if not node_matches(nodeid, [n.removesuffix("::") for n in args.nodeids]):
        return False
    words = [*nodeid.replace("::", " ").split(), call.config, call.name]
    return args.keyword is None or keyword_matches(args.keyword, words)


def _figures(names: list[str], history: History) -> set[str]:
    """The figures ``--figure`` names, by their names or JAX's spellings; an unknown one is refused."""
    known = sorted({s.figure for s in history.series})
    chosen = set()
    for name in names:
        figure = metric_short(name)
        if figure not in known and history.series:
            raise ConfigError(
                f"--figure {name!r} is no figure of this history{close_match(figure, known)}; choose from "
                f"{listing(known[:40])}{' ...' if len(known) > 40 else ''}."
            )
        chosen.add(figure)
    return chosen


def _checked_page(path: Path, snapshots: Path) -> Path:
    """The ``--html`` page's path: a file outside the snapshot folder, replacing only a history page."""
    fix = "Name another file, e.g. --html stages-history.html."
    absolute = checked_path(path, Use(f"--html {shown_path(str(path))}", fix, folder=False))
    if path.suffix != ".html":
        raise ConfigError(f"--html {path}: name a .html file, e.g. --html stages-history.html.")
    if inside(absolute, snapshots):
        raise ConfigError(f"--html {path} is inside the snapshot folder {snapshots}, where only snapshots live. {fix}")
    if absolute.is_file() and absolute.stat().st_size:
        with absolute.open("rb") as existing:
            if existing.read(len(HEAD.encode())) != HEAD.encode():
                raise ConfigError(
                    f"--html {shown_path(str(path))} is a file that is not a page `pytest-stages history` wrote, and "
                    f"writing the page would replace it. {fix}"
                )
    return absolute
