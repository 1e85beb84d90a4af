"""A read history as people and machines read it: the moves per call as lines, the whole as JSON (pure)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from pytest_stages.analyse import step_time
from pytest_stages.core.text import clip
from pytest_stages.core.units import format_number, format_seconds
from pytest_stages.store.git_history import FETCH_MORE
from pytest_stages.store.history import BEFORE, Call, History, Move, Series

SUBJECT_WIDTH = 60


def value_text(figure: str, value: float) -> str:
    """A figure's value as the messages write it: seconds with their unit, other figures compact."""
    return format_seconds(value) if figure == step_time.SECONDS else format_number(value)


def change_text(change: float) -> str:
    """``+33.3%``; ``from 0`` for a figure that rose from zero."""
    return f"{change:+.1%}" if math.isfinite(change) else "from 0"


def short_subject(subject: str, width: int = SUBJECT_WIDTH) -> str:
    """A commit's subject cut to ``width`` characters, an ellipsis where it was cut."""
    return subject if len(subject) <= width else subject[: width - 1] + "…"


def move_line(history: History, move: Move) -> str:
    """``dffafed 2026-12-04 flops 4.39e6 -> 4.21e6 (-4.1%)  subject``: one move, on one line."""
    commit = history.commits[move.commit]
    values = f"{value_text(move.figure, move.old)} -> {value_text(move.figure, move.new)}"
    return clip(
        f"{commit.short} {commit.date[:10]} {move.figure} {values} ({change_text(move.change)})  "
        f"{short_subject(commit.subject)}"
    )


def read_line(history: History, seconds: float) -> str:
    """What was read: how many commits of which folder, from which to which, how long it took."""
    commits = history.commits
    parents = "first parent" if history.log.first_parent else "every parent"
    if not commits:
        return f"no commit of HEAD touched {history.folder}/ ({parents}): there is no history to read yet"
    span = f"{commits[0].short} ({commits[0].date[:10]}) to {commits[-1].short} ({commits[-1].date[:10]})"
    return f"read {len(commits)} commit(s) that touched {history.folder}/ ({parents}), {span}, in {seconds:.2f} s"


def paragraphs(history: History) -> list[str]:
    """The notes that apply to the whole read: a shallow clone, merge commits."""
    out = []
    if history.log.shallow:
        out.append(
            f"this clone is shallow: {len(history.commits)} commit(s) that touched {history.folder}/ were read, and "
            f"the history before {history.commits[0].short if history.commits else 'HEAD'} is not in it; "
            f"{FETCH_MORE}, and run `pytest-stages history` again."
        )
    merges = [c.short for c in history.commits if c.parents > 1]
    if merges:
        out.append(
            f"{len(merges)} merge commit(s) ({', '.join(merges[:5])}{', ...' if len(merges) > 5 else ''}) read as "
            "the change each brought to its first parent: a figure a merged branch moved is listed at the merge "
            "(pass --all-parents to list the branch's own commits too)."
        )
    for call, old in history.renamed.items():
        names = ", ".join(dict.fromkeys(o.label for o in old))
        out.append(f"{call.label} was renamed from {names} (git saw the rename): its figures are followed through it.")
    return out


def text_lines(history: History, moves: Sequence[Move], seconds: float) -> list[str]:
    """The command's output: the read line, each call's moves (oldest first), the notes."""
    by_call: dict[Call, list[Move]] = defaultdict(list)
    for move in moves:
        by_call[move.call].append(move)
    moved = f"{len(moves)} move(s) beyond tolerance in {len(by_call)} call(s)"
    lines = [f"pytest-stages history: {read_line(history, seconds)}; {moved}"]
    for call in sorted(by_call):
        lines += ["", call.label, *(f"  {move_line(history, move)}" for move in by_call[call])]
    notes = [*paragraphs(history), *history.notes]
    if notes:
        lines += ["", "notes:", *(f"  {note}" for note in notes)]
    return lines


def _number(value: float) -> float | None:
    return value if math.isfinite(value) else None


def json_data(history: History, moves: Sequence[Move], series: Sequence[Series], seconds: float) -> dict[str, object]:
    """The history for machines: commits, moves, each figure's points (``null`` commit: before the oldest read)."""
    commits = history.commits

    def sha(index: int) -> str | None:
        return None if index == BEFORE else commits[index].sha

    def call(c: Call) -> dict[str, str]:
        return {"nodeid": c.nodeid, "config": c.config, "name": c.name}

    return {
        "folder": history.folder,
        "first_parent": history.log.first_parent,
        "shallow": history.log.shallow,
        "seconds": round(seconds, 3),
        "commits": [{"sha": c.sha, "date": c.date, "subject": c.subject, "parents": c.parents} for c in commits],
        "moves": [
            {
                "commit": sha(m.commit),
                **call(m.call),
                "figure": m.figure,
                "old": m.old,
                "new": m.new,
                "change": _number(m.change),
                "tolerance": m.tolerance,
            }
            for m in moves
        ],
        "series": [
            {
                **call(s.call),
                "figure": s.figure,
                "ceiling": s.ceiling,
                "points": [[sha(p.commit), p.value] for p in s.points],
            }
            for s in series
        ],
        "notes": [*paragraphs(history), *history.notes],
    }
