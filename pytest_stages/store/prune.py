"""The evidence for a safe prune and the rules that judge it, in one place (pure: plain data in, verdicts out).

Three rules decide what a prune may delete (docs/safety.md states them for users): ownership
(:func:`owned_names`), judged folders (:func:`take_inventory`) and refusals (:func:`refusal`, from one
:class:`Evidence` record). The I/O around them lives in ``store/inventory.py``, ``store/storage.py`` and the callers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pytest_stages.analyse.artifacts import SUFFIXES
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import temporary_of
from pytest_stages.core.run_view import PASSED_EXIT, CollectionView, ItemOutcome, RunFacts, RunView
from pytest_stages.store.names import (
    COMPILES_FOLDER,
    META_FILE,
    is_safe_component,
    module_source,
    safe_component,
    snapshot_folder,
)

if TYPE_CHECKING:
    from pytest_stages.store import prune_reasons as prune_reasons_
else:
    prune_reasons_ = lazy_module("pytest_stages.store.prune_reasons")

# --- 1. ownership -------------------------------------------------------------------------------

# The key of a folder's metadata that lists the files pytest-stages wrote there (its manifest).
MANIFEST_KEY = "files"


# Every artifact suffix, for one ``str.endswith`` that turns most foreign names away at once.
_OWN_SUFFIXES = tuple(SUFFIXES.values())


def own_name(name: str) -> bool:
    """Whether ``name`` is one pytest-stages gives an artifact file: ``<safe name><artifact suffix>``.

    A loop, not any() over a generator: a prune's inventory asks this of every file in the tree.
    """
    if not name.endswith(_OWN_SUFFIXES):
        return False
    for suffix in _OWN_SUFFIXES:  # noqa: SIM110
        if name.endswith(suffix) and is_safe_component(name[: -len(suffix)]):
            return True
    return False


def is_meta(data: object) -> bool:
    """Whether parsed JSON is a folder's metadata as pytest-stages writes it (an object with an integer ``format``)."""
    return isinstance(data, dict) and isinstance(data.get("format"), int) and not isinstance(data["format"], bool)


def owned_names(folder: str, names: set[str], meta: Mapping[str, object] | None) -> set[str]:
    """Which of a folder's file ``names`` pytest-stages can show it wrote, given the folder's metadata.

    Its files are the metadata and those its manifest lists (without a manifest, those of its own naming;
    a ``_compiles`` folder without metadata, its ``.compiles.json`` files), each with its temporary file.
    """
    owned = _legacy_compiles(folder, names) if meta is None else _manifest_owned(names, meta)
    return (owned & names) | {n for n in names if temporary_of(n) in owned}


def _legacy_compiles(folder: str, names: set[str]) -> set[str]:
    """What a folder without metadata owns: its ``.compiles.json`` files if it is ``_compiles`` holding only those."""
    owned = {n for n in names if n.endswith(SUFFIXES["compiles"]) and own_name(n)}
    if folder != COMPILES_FOLDER or owned != {n for n in names if temporary_of(n) is None}:
        return set()
    return owned


def _manifest_owned(names: set[str], meta: Mapping[str, object]) -> set[str]:
    """The files a folder with metadata owns: the metadata and its manifest's files (its own naming without one)."""
    listed = meta.get(MANIFEST_KEY)
    owned = {META_FILE}
    if isinstance(listed, list):
        owned |= {n for n in listed if isinstance(n, str) and own_name(n)} & names
    else:
        owned |= {n for n in names if own_name(n)}
    return owned


@dataclass(frozen=True)
class Listing:
    """The snapshot tree as found: the files pytest-stages wrote, and everything it must leave alone.

    ``own``: the files :func:`owned_names` shows it wrote; ``foreign``: every other entry; ``empty``: empty
    folders; ``unreadable``: folders it could not list. Paths relative to the root.
    """

    own: list[PurePosixPath] = field(default_factory=list)
    foreign: list[PurePosixPath] = field(default_factory=list)
    empty: list[PurePosixPath] = field(default_factory=list)
    unreadable: list[PurePosixPath] = field(default_factory=list)


# --- 2. judged folders --------------------------------------------------------------------------


def module_file(module: str) -> str | None:
    """The rootdir-relative file of a snapshot module (``tests/test_a`` -> ``tests/test_a.py``); None for
    the registered functions' folder and a module outside the rootdir, never judged as deleted."""
    return module_source(module)


def used_files(calls: Iterable[tuple[str, str, Iterable[str]]]) -> set[PurePosixPath]:
    """Files of ``(folder, name, artifacts)`` calls, with each folder's metadata file."""
    used = set()
    for folder, name, artifacts in calls:
        used.add(PurePosixPath(folder, META_FILE))
        for artifact in artifacts:
            if artifact in SUFFIXES:
                used.add(PurePosixPath(folder, f"{safe_component(name)}{SUFFIXES[artifact]}"))
    return used


@dataclass(frozen=True)
class Inventory:
    """What a run found in the snapshot tree: files it observed unused, and temporary leftovers."""

    unused: list[PurePosixPath] = field(default_factory=list)
    leftovers: list[PurePosixPath] = field(default_factory=list)


@dataclass(frozen=True)
class Tree:
    """The facts about the project a verdict needs besides the run: configs and which modules exist."""

    rootpath: Path
    configs: Collection[str]
    selected: Collection[str]
    module_exists: Callable[[str], bool]
    # A merge's: the folders some shard's call record names. A folder its items own but no call
    # names is kept there (a report that lost its calls must not make a folder look unused).
    called: Collection[str] | None = None


def take_inventory(files: Iterable[PurePosixPath], used: set[PurePosixPath], view: RunView, tree: Tree) -> Inventory:
    """Sort pytest-stages' own snapshot files (:attr:`Listing.own`) of a complete run into unused and leftovers.

    A folder ``<module>/<test>/<config>`` is judged by its owner, as docs/safety.md states; anything
    outside that layout is kept. Call it on complete views only.
    """
    owners: dict[str, list[str]] = {}
    for nodeid, owned in view.collection.items.items():
        if owned is not None:
            owners.setdefault(owned, []).append(view.outcomes.get(nodeid, ItemOutcome.FAILED))
    verdicts: dict[PurePosixPath, bool] = {}
    unused, leftovers = [], []
    for path in files:
        if temporary_of(path.name) is not None:
            leftovers.append(path)
            continue
        folder = path.parent
        if folder not in verdicts:
            verdicts[folder] = _folder_is_judged(folder, owners, view, tree)
        if verdicts[folder] and path not in used:
            unused.append(path)
    return Inventory(unused, leftovers)


def _folder_is_judged(folder: PurePosixPath, owners: dict[str, list[str]], view: RunView, tree: Tree) -> bool:
    """True when the run observed enough of ``folder``'s owner to call its unused files unused."""
    if not snapshot_folder(folder.as_posix()):  # an interrupted accept's `.cpu1.accepted-<token>` copy: kept
        return False
    key, config, module = folder.as_posix(), folder.parts[-1], PurePosixPath(*folder.parts[:-2]).as_posix()
    if key in owners:
        called = tree.called is None or key in tree.called
        return called and all(outcome == ItemOutcome.PASSED for outcome in owners[key])
    if config in tree.configs and config not in tree.selected:
        return False
    if module in view.collection.modules:
        return True
    if "~" in module or tree.module_exists(module):
        return False
    return _covered(tree.rootpath / f"{module}.py", view)


def _covered(path: Path, view: RunView) -> bool:
    """True when collection started at or above ``path`` and nothing on the way was ignored."""

    def under(base: Path) -> bool:
        return path == base or base in path.parents

    return any(under(root) for root in view.roots) and not any(under(Path(p)) for p in view.collection.ignored)


# --- 3. refusals --------------------------------------------------------------------------------

# Exit statuses after which a run's outcomes still stand: a pass, no test collected, tests failed.
JUDGED_EXIT = (*PASSED_EXIT, 1)


def run_gaps(facts: RunFacts, *, count_removed: bool = True) -> list[prune_reasons_.Incomplete]:
    """Why ``facts`` do not cover the whole tree (empty when they do).

    ``count_removed=False`` leaves out the items that were deselected or removed: a shard of a
    split run removes those on purpose, and the merge checks that another shard ran them.
    """
    view, gaps = facts.collection, []
    if facts.collect_only:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.COLLECT_ONLY))
    if view.errors:
        gaps.append(
            prune_reasons_.Incomplete(prune_reasons_.Gap.COLLECTION_ERRORS, len(view.errors), tuple(view.errors))
        )
    if view.removed and count_removed:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.REMOVED, len(view.removed)))
    if facts.lost_workers:
        gaps.append(
            prune_reasons_.Incomplete(
                prune_reasons_.Gap.LOST_WORKERS, len(facts.lost_workers), tuple(facts.lost_workers)
            )
        )
    finished = set(facts.finished)
    unfinished = [nodeid for nodeid in view.items if nodeid not in finished]
    if unfinished and not facts.collect_only:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.UNFINISHED, len(unfinished)))
    if facts.stopped_early:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.STOPPED_EARLY))
    if facts.exit_status not in JUDGED_EXIT and not gaps:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.EXIT_STATUS, facts.exit_status))
    return gaps


def merge_gaps(
    shards: Sequence[tuple[str, RunFacts]], missing: Sequence[str], union: RunFacts
) -> list[prune_reasons_.Incomplete]:
    """Why merged shards do not cover the whole tree: each shard's own gaps, missing groups, items no shard ran.

    ``shards`` are ``(report name, facts)``; a split shard's removed items are left to the
    others. ``missing`` are the groups no report stands for; ``union`` the facts of all together.
    """
    gaps = [
        replace(gap, shard=name) for name, facts in shards for gap in run_gaps(facts, count_removed=facts.split is None)
    ]
    if missing:
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.SHARDS_MISSING, len(missing), tuple(missing)))
    if union.collection.removed:
        removed = union.collection.removed
        gaps.append(prune_reasons_.Incomplete(prune_reasons_.Gap.RAN_IN_NO_SHARD, len(removed), tuple(removed)))
    return gaps


@dataclass(frozen=True)
class Evidence:
    """Everything a verdict on the snapshot tree rests on, as gathered by one run's reporter or by the merge.

    A run's: ``split`` and ``incomplete``. A merge's: ``shards_incomplete``, ``collected`` and ``checkout``
    (module digests), ``states`` (each shard's report, commit and tree digest), ``here`` (the checkout's)
    and ``wrote`` (the shards updated snapshots: only the commit is compared). ``listing``: None until listed.
    """

    prune: bool
    split: Mapping[str, int] | None = None
    incomplete: tuple[prune_reasons_.Incomplete, ...] = ()
    shards_incomplete: tuple[prune_reasons_.Incomplete, ...] = ()
    collected: CollectionView | None = None
    checkout: Mapping[str, str | None] = field(default_factory=dict)
    states: Sequence[tuple[str, str, str]] = ()
    here: tuple[str, str] | None = None
    wrote: bool = False
    listing: Listing | None = None


def refusal(evidence: Evidence) -> prune_reasons_.Refusal | None:
    """The first reason, in order, that the tree may not be judged (or, pruning, not pruned); None when it may.

    What the run observed comes first (each withholds the unused-file report too), then, pruning, the
    snapshot tree itself; the listing is gathered only when nothing before it refuses.
    """
    prune, split, listing = evidence.prune, evidence.split, evidence.listing
    listed = listing if prune and listing is not None else Listing()
    in_order: list[prune_reasons_.Refusal | None] = [
        prune_reasons_.SplitShard(split["splits"], split["group"]) if prune and split is not None else None,
        prune_reasons_.IncompleteRun(evidence.incomplete) if evidence.incomplete else None,
        prune_reasons_.IncompleteShards(evidence.shards_incomplete) if evidence.shards_incomplete else None,
        _other_state(evidence.states, evidence.here, wrote=evidence.wrote) if evidence.here is not None else None,
        _disagreement(evidence.collected, evidence.checkout) if evidence.collected is not None else None,
        prune_reasons_.Unreadable(tuple(listed.unreadable)) if listed.unreadable else None,
        prune_reasons_.Foreign(tuple(listed.foreign)) if listed.foreign else None,
    ]
    return next((reason for reason in in_order if reason is not None), None)


def _other_state(
    states: Sequence[tuple[str, str, str]], here: tuple[str, str], *, wrote: bool
) -> prune_reasons_.OtherState | None:
    """The first shard (by report name) that recorded another commit or snapshot tree than the checkout holds.

    Outside git neither side has a commit and only the trees are compared. A shard that recorded
    nothing (a report of an older pytest-stages) disagrees: its state is unknown.
    """
    commit, snapshots = here
    for name, recorded_commit, recorded_snapshots in sorted(states):
        if recorded_commit != commit:
            return prune_reasons_.OtherState(name, prune_reasons_.Facet.COMMIT, recorded_commit, commit)
        if not wrote and recorded_snapshots != snapshots:
            return prune_reasons_.OtherState(name, prune_reasons_.Facet.SNAPSHOTS, recorded_snapshots, snapshots)
    return None


def _disagreement(collected: CollectionView, checkout: Mapping[str, str | None]) -> prune_reasons_.Disagreement | None:
    """The first collected module whose file the checkout lacks or holds with other bytes (None: all agree).

    A module a shard collected in full must be in the checkout with the same bytes: else a report
    from another checkout (or project) would judge this one's folders by tests it never saw.
    """
    for module in sorted(collected.modules):
        if module_file(module) is None:
            continue
        on_disk, recorded = checkout.get(module), collected.digests.get(module)
        if on_disk is None:
            return prune_reasons_.Disagreement(module, prune_reasons_.Mismatch.ABSENT)
        if recorded is None:
            return prune_reasons_.Disagreement(module, prune_reasons_.Mismatch.NO_DIGEST)
        if recorded != on_disk:
            return prune_reasons_.Disagreement(module, prune_reasons_.Mismatch.DIFFERS)
    return None
