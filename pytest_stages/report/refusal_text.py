"""What the terminal says of a refused prune or unused-file report (one line per refusal record).

Apart from :mod:`~pytest_stages.report.unused` so that a run whose prune is not refused never
imports it, nor the records it renders (``report/__init__.py`` names the late import).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import assert_never

from pytest_stages.core.errors import PREFIX
from pytest_stages.store.prune_reasons import (
    Disagreement,
    Facet,
    Foreign,
    Gap,
    Incomplete,
    IncompleteRun,
    IncompleteShards,
    Mismatch,
    OtherState,
    Refusal,
    SplitShard,
    Unreadable,
)

# How many of the files pytest-stages did not write a refused prune names.
SHOWN = 5


def refusal_lines(refused: Refusal, prune: bool, prefix: str, rootdir: Path) -> list[str]:
    """What the terminal says about a refusal (a run that does not prune says nothing of an incomplete view)."""
    match refused:
        case SplitShard():
            return [_split_line(refused)]
        case IncompleteRun():
            return [_incomplete_run_line(refused)] if prune else []
        case IncompleteShards() | Disagreement():
            return [_merge_line(refused, prune, rootdir)]
        case OtherState():
            return [_other_state_line(refused, prune, rootdir)]
        case Unreadable() | Foreign():
            return [_not_own_folder_line(refused, prefix)]
        case _:
            assert_never(refused)


def _split_line(split: SplitShard) -> str:
    """What a shard says to ``--stages-prune``: it judged its own items only; the merge of all shards may prune."""
    return (
        f"{PREFIX}--stages-prune refused: this run is group {split.group} of {split.splits} of a split "
        f"suite (pytest-split --splits {split.splits} --group {split.group}) and judged only its own items; "
        "nothing was deleted. Write each shard's report (--stages-report=shard-N.json) and prune from all of them: "
        "`python -m pytest_stages merge --prune shard-*.json`."
    )


# What each reason a view is incomplete says; ``{names}`` joins the names, ``{first}`` is the first.
_GAPS = {
    Gap.COLLECT_ONLY: "--collect-only runs no test",
    Gap.COLLECTION_ERRORS: "{count} collection error(s) ({names})",
    Gap.REMOVED: "{count} collected item(s) were deselected or removed",
    Gap.LOST_WORKERS: "xdist worker(s) {names} went down without reporting",
    Gap.UNFINISHED: "{count} collected item(s) did not run to the end",
    Gap.STOPPED_EARLY: "the session stopped early",
    Gap.EXIT_STATUS: "the session ended with exit status {count}",
    Gap.SHARDS_MISSING: "shard(s) {names} missing",
    Gap.RAN_IN_NO_SHARD: (
        "{count} collected item(s) ran in no shard ({first}, ...): deselected, or their shard is missing"
    ),
}
# How many collection errors a reason names.
SHOWN_ERRORS = 3


def gap_text(gap: Incomplete) -> str:
    """One reason a view is incomplete, as the refusal names it: ``3 collection error(s) (a.py, b.py, c.py)``."""
    names = gap.names[:SHOWN_ERRORS] if gap.gap is Gap.COLLECTION_ERRORS else gap.names
    text = _GAPS[gap.gap].format(count=gap.count, names=", ".join(names), first=names[0] if names else "")
    return text if gap.shard is None else f"{gap.shard}: {text}"


def _reasons(reasons: Sequence[Incomplete]) -> str:
    return "; ".join(gap_text(gap) for gap in reasons)


def _incomplete_run_line(incomplete: IncompleteRun) -> str:
    return (
        f"{PREFIX}--stages-prune refused: {_reasons(incomplete.reasons)}; nothing was deleted. "
        "Run the whole suite, without selecting or stopping early, with --stages-prune."
    )


# What a disagreement of the shards' collection with the checkout says about its module.
_MISMATCH = {
    Mismatch.ABSENT: "{module}.py was collected but is not in this checkout",
    Mismatch.NO_DIGEST: "the reports carry no digest of {module}.py (written by an older pytest-stages)",
    Mismatch.DIFFERS: "{module}.py differs from the file the shards collected",
}


def _merge_line(refused: IncompleteShards | Disagreement, prune: bool, rootdir: Path) -> str:
    """Why the merge reports no unused file (and, with ``--prune``, deletes nothing)."""
    verdict = "merge --prune refused" if prune else "no unused-file report"
    if isinstance(refused, IncompleteShards):
        tail = "nothing was deleted. " if prune else ""
        return (
            f"{PREFIX}{verdict}: {_reasons(refused.reasons)}; {tail}Merge the reports of every shard of a "
            "run of the whole suite that collected and ran everything."
        )
    tail = "; nothing was deleted" if prune else ""
    detail = _MISMATCH[refused.mismatch].format(module=refused.module)
    return (
        f"{PREFIX}{verdict}: the shards' collection does not agree with the checkout in {rootdir} "
        f"({detail}){tail}. Merge the reports of shards that ran this checkout, from its root (--rootdir)."
    )


def _other_state_line(refused: OtherState, prune: bool, rootdir: Path) -> str:
    """Why the merge judges nothing when a shard ran another commit or another snapshot tree than the checkout's."""
    verdict = "merge --prune refused" if prune else "no unused-file report"
    tail = "; nothing was deleted" if prune else ""
    if refused.facet is Facet.COMMIT:
        ran = f"ran commit {refused.recorded[:12]}" if refused.recorded else "recorded no commit"
        here = f"commit {refused.found[:12]}" if refused.found else "no git commit"
        detail = f"{refused.shard} {ran}, the checkout in {rootdir} is at {here}"
    elif refused.recorded:
        detail = (
            f"{refused.shard} saw another snapshot tree than the one in {rootdir} (its files or _stages.json "
            "manifests differ)"
        )
    else:
        detail = f"{refused.shard} recorded no digest of its snapshot tree (written by an older pytest-stages)"
    return (
        f"{PREFIX}{verdict}: {detail}{tail}. Merge the reports of shards that ran this checkout, as it is now, "
        "from its root (--rootdir)."
    )


def _not_own_folder_line(refused: Unreadable | Foreign, prefix: str) -> str:
    """Why a prune is refused when the snapshot folder holds what pytest-stages did not write."""
    if isinstance(refused, Unreadable):
        shown = ", ".join(f"{prefix}/{path}" for path in refused.folders[:SHOWN])
        return (
            f"{PREFIX}--stages-prune refused: cannot list {len(refused.folders)} folder(s) ({shown}); "
            "nothing was deleted. Give the user running pytest read access to the snapshot folder."
        )
    shown = ", ".join(
        f"{prefix}/{path}" if prefix not in ("", ".") else path.as_posix() for path in refused.files[:SHOWN]
    )
    more = ", ..." if len(refused.files) > SHOWN else ""
    return (
        f"{PREFIX}--stages-prune refused: {prefix}/ holds {len(refused.files)} file(s) pytest-stages did "
        f"not write ({shown}{more}), so it is not a snapshot folder of its own; nothing was deleted. Move those "
        "files out (a file of a folder that lost its _stages.json: restore that from version control, or delete "
        'the folder), or give the snapshots a folder of their own (snapshot_dir = "snapshots").'
    )
