"""``pytest-stages accept DIR...`` and ``pytest-stages review [DIR]``: pending snapshots applied or walked call by call.

``accept`` plans and applies the sets all or nothing (``--dry-run`` prints the plan); ``review`` shows each
call and asks accept / reject / skip / quit (docs/review.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

from pytest_stages.check.figure_text import percent_change
from pytest_stages.check.message import Labels, headline_lines
from pytest_stages.config.values import parse_selection
from pytest_stages.core.errors import ConfigError, StagesError
from pytest_stages.core.records import CallRecord
from pytest_stages.core.text import shown
from pytest_stages.core.units import format_number
from pytest_stages.report.arguments import INTERRUPTED, OK, USAGE, add_keyword, add_rootdir, project_settings
from pytest_stages.report.diff_command import diff_lines
from pytest_stages.store import accept as accept_
from pytest_stages.store.errors import PendingError
from pytest_stages.store.names import META_FILE
from pytest_stages.store.pending import PendingEntry, PendingSet, discard, project_name, unwritable
from pytest_stages.store.storage import SnapshotStore, snapshot_root

LIST_SCHEMA = "pytest-stages-review-list/1"
_CHOICES = {"a": "accept", "r": "reject", "s": "skip", "q": "quit"}


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``accept`` and ``review`` subcommands, on the command line's subparsers."""
    accept = commands.add_parser(
        "accept",
        help="apply pending snapshot sets (--stages-pending) from shards and runners, all or nothing",
        description="Apply the pending sets that compare runs wrote with --stages-pending DIR (CPU shards, an "
        "accelerator runner) in one step, as --stages-update would have written them. Refuses stale sets, sets "
        "recorded for another environment than the config's own and sets that disagree; writes nothing then.",
    )
    _selection(accept, "a pending folder; an argument with :: (or a .py file) selects tests")
    accept.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    accept.add_argument(
        "--keep", action="store_true", help="leave the accepted calls in their pending sets (by default dropped)"
    )
    accept.add_argument(
        "--recover", action="store_true", help="put back what an interrupted accept left (its journal), then stop"
    )
    review = commands.add_parser(
        "review",
        help="walk pending snapshots call by call: accept / reject / skip / quit",
        description="Show each pending call (headline, figures, renumbering-proof diff) and ask what to do with "
        "it, like `cargo insta review`. Without DIR, the pending_dir setting.",
    )
    _selection(review, "pending folders (default: pending_dir)")
    every = review.add_mutually_exclusive_group()
    every.add_argument("--accept-all", action="store_true", help="accept every selected call without asking")
    every.add_argument("--reject-all", action="store_true", help="reject every selected call without asking")
    every.add_argument(
        "--list",
        action="store_true",
        help="print each selected call's headline and figures, without diffs or questions; write nothing "
        "(for a CI log or a script, no terminal needed)",
    )
    review.add_argument("--json", action="store_true", help="with --list: one JSON document instead of text")


def _selection(parser: argparse.ArgumentParser, targets: str) -> None:
    """The arguments that choose calls: pending folders and node ids (``targets`` says which), -k, --configs."""
    parser.add_argument("targets", nargs="*", metavar="DIR|NODEID", help=targets)
    add_keyword(parser)
    parser.add_argument("--configs", metavar="NAMES", help="comma-separated configs to take")
    add_rootdir(parser)


def _project(args: argparse.Namespace) -> accept_.Project:
    rootdir, settings = project_settings(args)
    # an interrupted accept's journal stops all but --recover
    snapshot_root(rootdir, settings.snapshot_dir, recovering=getattr(args, "recover", False))
    with (rootdir / "pyproject.toml").open("rb") as stream:
        name = project_name(tomllib.load(stream))
    return accept_.Project(rootdir, settings, name)


def _split(args: argparse.Namespace, project: accept_.Project) -> tuple[list[str], accept_.Selection]:
    """The pending folders and the selection among the arguments."""
    nodeids = [t for t in args.targets if "::" in t or t.endswith(".py")]
    folders = [t for t in args.targets if t not in nodeids]
    if not folders and project.settings.pending_dir:
        folders = [str(project.rootdir / project.settings.pending_dir)]
    if not folders:
        raise ConfigError(
            "name the pending folder(s) to take (the DIR of --stages-pending, or the CI artifacts that hold them), "
            "or set pending_dir in [tool.pytest_stages]."
        )
    configs = tuple(c.name for c in project.settings.configs)
    chosen = parse_selection("--configs", args.configs, configs) if args.configs is not None else ()
    accept_.check_keyword(args.keyword)
    nodes = tuple(n.removesuffix("::") for n in nodeids)
    return folders, accept_.Selection(nodes, args.keyword, chosen)


def run_accept(args: argparse.Namespace, stream: TextIO) -> int:
    """``pytest-stages accept``: the plan checked, then written all or nothing (or printed with ``--dry-run``)."""
    try:
        project = _project(args)
        if args.recover:
            done = accept_.recover(project.snapshots)
            stream.write(f"pytest-stages accept: {done or 'no interrupted accept to recover'}\n")
            return OK
        folders, selection = _split(args, project)
        sets = accept_.read_sets(folders)
        plan = accept_.plan(sets, project, selection, accept_.current_digests(project.snapshots))
        prefix = project.settings.snapshot_dir
        if args.dry_run:
            stream.writelines(f"{line}\n" for line in describe_plan(plan, prefix))
            stream.write("pytest-stages accept: dry run, nothing written\n")
            return OK
        taken = [] if args.keep else accept_.taken_from(sets, plan)
        written = accept_.apply(plan, SnapshotStore(project.snapshots))
    except (StagesError, OSError) as exc:
        stream.write(f"pytest-stages accept: {exc}\n")
        return USAGE
    _wrote(stream, written, project.rootdir, len(plan.calls))
    dropped = accept_.drop(taken)
    if dropped:
        stream.write(f"pytest-stages accept: {dropped}\n")
    return OK


def _wrote(stream: TextIO, written: Sequence[Path], rootdir: Path, calls: int) -> None:
    stream.write(f"pytest-stages accept: wrote {len(written)} file(s) of {calls} call(s):\n")
    stream.writelines(f"  {path.relative_to(rootdir).as_posix()}\n" for path in written)


def describe_plan(plan: accept_.Plan, prefix: str) -> list[str]:
    """The plan in lines: each call with the set it comes from, then each file it writes."""
    lines = [f"{len(plan.calls)} call(s) from {len({e.source for e in plan.calls})} pending set(s):"]
    lines += [f"  {entry.label}  ({entry.source})" for entry in plan.calls]
    lines.append(f"{sum(len(f) for f in plan.folders.values())} file(s) to write:")
    lines += [f"  {path}" for path in plan.paths(prefix)]
    return lines


# --- review -------------------------------------------------------------------------------------


def call_text(entry: PendingEntry, snapshots: Path, *, colour: bool = False) -> list[str]:
    """One pending call as review shows it: the headline pytest printed, the figures that moved, each file's diff.

    The headline is rendered from the findings the run recorded in the call's manifest; a file that is not
    UTF-8 text is shown with replacement characters, and said so.
    """
    summary = call_summary(entry)
    lines = [_paint(shown(f"{entry.label}  [{entry.source}]"), "1", colour)]
    lines += [f"  {shown(line)}" for line in [*summary.headline, *summary.figure_lines()]]
    for name, data in entry.texts.items():
        if name == META_FILE:
            continue
        path = snapshots / entry.folder / name
        names = (f"{snapshots.name}/{entry.folder}/{name}", f"{Path(entry.source).name}/{entry.folder}/{name}")
        raws = (path.read_bytes() if path.is_file() else b"", data)
        lines += [
            f"  {shown(where)} is not UTF-8 text: the bytes that are not are shown as U+FFFD"
            for where, raw in zip(names, raws, strict=True)
            if not _is_text(raw)
        ]
        for line in diff_lines(name, names, *(raw.decode("utf-8", "replace") for raw in raws)):
            lines.append(_paint(line, _colour_of(line), colour))
    return lines


@dataclass(frozen=True)
class CallSummary:
    """A pending call as ``review --list`` gives it: which call, its headline and the figures that moved."""

    label: str
    nodeid: str
    config: str
    name: str
    source: str
    folder: str
    headline: tuple[str, ...]
    figures: Mapping[str, tuple[float, float]]
    files: tuple[str, ...]

    def figure_lines(self) -> list[str]:
        """``alias_size_in_bytes: 0 -> 34730 (from 0)``: each figure that moved, as review prints it."""
        return [
            f"{metric}: {format_number(old)} -> {format_number(new)} ({percent_change(old, new)})"
            for metric, (old, new) in self.figures.items()
        ]


def call_summary(entry: PendingEntry) -> CallSummary:
    """A pending call's headline, rendered from the findings the run recorded in its manifest (the one
    pytest printed), and its figures that moved."""
    record = CallRecord.from_dict(entry.manifest["record"])
    failing = [f for f in record.findings if f.failing]
    headline = (
        headline_lines(failing, Labels({})) if failing else [f"{f.artifact}: {f.message}" for f in record.findings]
    )
    return CallSummary(
        label=entry.label,
        nodeid=entry.key[0],
        config=entry.key[1],
        name=entry.key[2],
        source=entry.source,
        folder=entry.folder,
        headline=tuple(headline),
        figures={metric: (before, after) for metric, (before, after) in record.deltas.items()},
        files=tuple(name for name in entry.texts if name != META_FILE),
    )


def list_calls(calls: Sequence[CallSummary], stream: TextIO, *, as_json: bool) -> None:
    """``review --list``: every call's label, headline and figures (or one JSON document); nothing asked or written."""
    if as_json:
        document = {"schema": LIST_SCHEMA, "calls": [asdict(call) for call in calls]}  # its tuples as JSON arrays
        stream.write(json.dumps(document, indent=2) + "\n")
        return
    for position, call in enumerate(calls, 1):
        stream.write(shown(f"({position}/{len(calls)}) {call.label}  [{call.source}]") + "\n")
        stream.writelines(f"  {shown(line)}\n" for line in [*call.headline, *call.figure_lines()])
    stream.write(f"pytest-stages review: {len(calls)} pending call(s) listed, nothing written\n")


def _is_text(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _colour_of(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "1"
    return "32" if line.startswith("+") else "31" if line.startswith("-") else ""


def _paint(line: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{line}\x1b[0m" if colour and code else line


def run_review(args: argparse.Namespace, stream: TextIO) -> int:
    """``pytest-stages review``: each selected call shown, then accepted, rejected, skipped; or quit.

    Ctrl-C at the prompt ends the walk as quit does: the answers given are applied, the calls not answered stay
    pending, and the exit status is 130.
    """
    terminal = stream.isatty() and sys.stdin.isatty()
    try:
        if args.json and not args.list:
            raise ConfigError("--json goes with --list: `pytest-stages review --list --json`.")
        project = _project(args)
        folders, selection = _split(args, project)
        sets = accept_.read_sets(folders)
    except (StagesError, OSError) as exc:
        stream.write(f"pytest-stages review: {exc}\n")
        return USAGE
    chosen = [(found, e) for found in sets for e in found.entries if selection.chooses(e)]
    if not chosen:  # as accept refuses it: a selection that chooses nothing is a mistake, not a review
        stream.write(f"pytest-stages review: {accept_.nothing_selected(sets)}\n")
        return USAGE
    if args.list:
        list_calls([call_summary(entry) for _, entry in chosen], stream, as_json=args.json)
        return OK
    return _decide(args, chosen, project, stream, terminal)


def _decide(
    args: argparse.Namespace,
    chosen: list[tuple[PendingSet, PendingEntry]],
    project: accept_.Project,
    stream: TextIO,
    terminal: bool,
) -> int:
    """``--accept-all`` or ``--reject-all`` decide every chosen call; otherwise each is asked on the terminal."""
    if not (args.accept_all or args.reject_all or terminal):
        stream.write(
            "pytest-stages review: review asks about each call on a terminal; here stdin/stdout is not one. Run it "
            "in a terminal, pass --accept-all or --reject-all, or list the calls with --list (add --json for a "
            "script).\n"
        )
        return USAGE
    decisions: dict[str, list[tuple[PendingSet, PendingEntry]]] = {"accept": [], "reject": [], "skip": []}
    if args.accept_all or args.reject_all:
        decisions["accept" if args.accept_all else "reject"] = chosen
        return _conclude(decisions, project, stream)
    return _walk(chosen, decisions, project, stream, terminal)


def _walk(
    chosen: Sequence[tuple[PendingSet, PendingEntry]],
    decisions: dict[str, list[tuple[PendingSet, PendingEntry]]],
    project: accept_.Project,
    stream: TextIO,
    terminal: bool,
) -> int:
    """Each call shown and asked about on the terminal; the answers applied at the end, or at Ctrl-C."""
    colour, interrupted = terminal and not os.environ.get("NO_COLOR"), False
    try:
        for position, (found, entry) in enumerate(chosen, 1):
            text = call_text(entry, project.snapshots, colour=colour)
            _show([f"({position}/{len(chosen)}) {text[0]}", *text[1:]], stream, terminal)
            choice = _ask(stream)
            if choice == "quit":
                break
            decisions[choice].append((found, entry))
    except KeyboardInterrupt:
        stream.write("\npytest-stages review: interrupted: the answers given are applied, the rest stay pending\n")
        interrupted = True
    decisions["skip"] += chosen[sum(map(len, decisions.values())) :]
    status = _conclude(decisions, project, stream)
    return INTERRUPTED if interrupted and status == OK else status


def _conclude(
    decisions: dict[str, list[tuple[PendingSet, PendingEntry]]], project: accept_.Project, stream: TextIO
) -> int:
    """Apply the accepted calls all or nothing, then drop the accepted and rejected ones from their sets.

    A pending folder those calls cannot be removed from is refused first, with nothing written.
    """
    accepted = _by_set(decisions["accept"])
    answered = [*accepted, *_by_set(decisions["reject"])]
    try:
        for found, entries in answered:
            if (folder := unwritable(found, entries)) is not None:
                raise PendingError(
                    f"the pending set {found.path} cannot drop the calls answered: {folder} is not writable. "
                    "Nothing was written; make it writable (or copy the set to a writable folder) and review again."
                )
        if accepted:
            sets = [PendingSet(found.path, entries) for found, entries in accepted]
            plan = accept_.plan(sets, project, accept_.Selection(), accept_.current_digests(project.snapshots))
            written = accept_.apply(plan, SnapshotStore(project.snapshots))
            _wrote(stream, written, project.rootdir, len(plan.calls))
        for found, entries in answered:
            discard(found, entries)
    except (StagesError, OSError) as exc:
        stream.write(f"pytest-stages review: {exc}\n")
        return USAGE
    stream.write(
        f"pytest-stages review: {len(decisions['accept'])} accepted, {len(decisions['reject'])} rejected, "
        f"{len(decisions['skip'])} skipped (left in their pending sets)\n"
    )
    return OK


def _by_set(calls: Sequence[tuple[PendingSet, PendingEntry]]) -> list[tuple[PendingSet, list[PendingEntry]]]:
    """The calls grouped by the set they come from, in order."""
    sets: dict[Path, tuple[PendingSet, list[PendingEntry]]] = {}
    for found, entry in calls:
        sets.setdefault(found.path, (found, []))[1].append(entry)
    return list(sets.values())


def _show(lines: list[str], stream: TextIO, terminal: bool) -> None:
    """The call's text: through ``$PAGER`` on a terminal where one is set, else written out."""
    text = "".join(f"{line}\n" for line in lines)
    pager = os.environ.get("PAGER", "").strip()
    if terminal and pager:  # a pager that fails (missing, exits non-zero) may not have shown it: printed then
        try:
            if subprocess.run(pager, shell=True, input=text, text=True, check=False).returncode == 0:
                return
        except OSError:
            pass
    stream.write(text)
    stream.flush()


def _ask(stream: TextIO) -> str:
    """The answer about one call, asked until it is one of :data:`_CHOICES`; quit at the end of input."""
    while True:
        stream.write("accept (a), reject (r), skip (s), quit (q)? ")
        stream.flush()
        line = sys.stdin.readline()
        answer = line.strip().lower()[:1] if line else "q"
        if answer in _CHOICES:
            return _CHOICES[answer]
        stream.write("answer a, r, s or q\n")
