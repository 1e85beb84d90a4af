"""Which snapshot files a run used, and which it observed to be unused (pure: paths in, paths out)."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pytest_stages.analyse.artifacts import SUFFIXES
from pytest_stages.core.observed import RunView
from pytest_stages.store.storage import META_FILE, owned_names, read_meta_file, safe_component, temporary_of


@dataclass(frozen=True)
class Listing:
    """The snapshot tree as found: the files pytest-stages wrote, and everything it must leave alone.

    ``own`` are the files :func:`~pytest_stages.store.storage.owned_names` shows pytest-stages
    wrote; ``foreign`` every other entry (a file it did not write, a symlink, a FIFO); ``empty``
    the folders with nothing in them (left by an interrupted prune); ``unreadable`` the folders
    it could not list. All paths are relative to the root.
    """

    own: list[PurePosixPath] = field(default_factory=list)
    foreign: list[PurePosixPath] = field(default_factory=list)
    empty: list[PurePosixPath] = field(default_factory=list)
    unreadable: list[PurePosixPath] = field(default_factory=list)


def snapshot_files(root: Path) -> Listing:
    """Every entry under ``root``, sorted into pytest-stages' own files and the rest (symlinks never followed).

    One ``scandir`` per folder: the entries' types come with the listing, so a tree of nine
    files per test costs no ``stat`` per file (``Path.rglob`` plus ``is_file`` cost two); only a
    folder's metadata is read.
    """
    listing = Listing()
    pending = [PurePosixPath()] if root.is_dir() and not root.is_symlink() else []
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(root / folder) as scan:
                entries = list(scan)
        except OSError:
            listing.unreadable.append(folder)
            continue
        files: set[str] = set()
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(folder / entry.name)
            elif entry.is_file(follow_symlinks=False):
                files.add(entry.name)
            else:
                listing.foreign.append(folder / entry.name)
        if not entries and folder.parts:
            listing.empty.append(folder)
        meta = read_meta_file(root / folder / META_FILE) if META_FILE in files else None
        owned = owned_names(folder.name, files, meta)
        listing.own.extend(folder / name for name in owned)
        listing.foreign.extend(folder / name for name in files - owned)
    for found in (listing.own, listing.foreign, listing.empty, listing.unreadable):
        found.sort()
    return listing


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

    A folder ``<module>/<test>/<config>`` is judged by its owner:
    - owned by collected items that all passed: its files that no call used are unused;
      owned by an item that failed, errored or was skipped: kept (it judged nothing);
    - of a config that exists but was not selected: kept;
    - of a module collected in full but owned by no item (the test, or its use of the
      config, was removed): every file is unused;
    - of a module that exists but was not collected (``--ignore``, path arguments): kept;
    - of a module that no longer exists: unused when collection covered its path.
    Anything else (files outside that layout) is kept. Call it on complete views only.
    """
    owners: dict[str, list[str]] = {}
    for nodeid, owned in view.collection.items.items():
        if owned is not None:
            owners.setdefault(owned, []).append(view.outcomes.get(nodeid, "failed"))
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
    if len(folder.parts) < 3:
        return False
    key, config, module = folder.as_posix(), folder.parts[-1], PurePosixPath(*folder.parts[:-2]).as_posix()
    if key in owners:
        called = tree.called is None or key in tree.called
        return called and all(outcome == "passed" for outcome in owners[key])
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
