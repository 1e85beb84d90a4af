"""The unused-file report and the prune, from plain data: shared by one run and by the merge of its shards."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path, PurePosixPath

from pytest_stages.core.errors import PREFIX
from pytest_stages.core.observed import RunView
from pytest_stages.core.records import CallRecord
from pytest_stages.report.reporting import PRUNE_HINT, inventory_lines
from pytest_stages.store.inventory import Listing, Tree, snapshot_files, take_inventory, used_files
from pytest_stages.store.storage import OUTSIDE_ROOTDIR, REGISTERED_MODULE, SnapshotStore

# How many of the files pytest-stages did not write a refused prune names.
SHOWN = 5


def project_tree(
    rootpath: Path, configs: Collection[str], selected: Collection[str], *, called: Collection[str] | None = None
) -> Tree:
    """The project facts a verdict needs, read from the checkout at ``rootpath``."""

    def module_exists(module: str) -> bool:
        # Neither the registered functions' folder nor that of a module outside the rootdir has a
        # module file here: they are judged only when collected, never as a deleted module.
        if module == REGISTERED_MODULE or module.startswith(f"{OUTSIDE_ROOTDIR}/"):
            return True
        return (rootpath / f"{module}.py").exists()

    return Tree(rootpath=rootpath, configs=configs, selected=selected, module_exists=module_exists, called=called)


def judge_snapshots(
    records: Sequence[CallRecord],
    view: RunView,
    tree: Tree,
    store: SnapshotStore,
    *,
    prune: bool,
    prefix: str,
    prune_hint: str = PRUNE_HINT,
    announce: Callable[[list[str]], None] | None = None,
) -> list[str]:
    """List (and with ``prune`` delete) the files a complete ``view`` observed unused; ``view`` must be complete.

    Only files pytest-stages wrote are ever listed or deleted; a prune is refused whole while
    the snapshot folder holds anything else. ``announce`` prints the list of a prune before
    the first file is deleted (a prune killed midway has said what it was deleting).
    """
    used = used_files((r.folder, r.name, r.status) for r in records)
    listing = snapshot_files(store.root)
    found = take_inventory(listing.own, used, view, tree)
    refusal = _not_own_folder(listing, prefix) if prune else None
    doomed = [*found.unused, *found.leftovers] if prune and refusal is None else []
    lines = inventory_lines(found.unused, found.leftovers, doomed, prefix, prune_hint=prune_hint)
    if refusal is not None:
        return [*lines, refusal]
    if not doomed and not (prune and listing.empty):
        return lines
    if announce is not None:
        announce(lines)
        lines = []
    emptied = store.prune([store.root / path for path in doomed], [store.root / path for path in listing.empty])
    return [*lines, *([f"{PREFIX}removed {len(emptied)} emptied folder(s)"] if emptied else [])]


def _not_own_folder(listing: Listing, prefix: str) -> str | None:
    """Why a prune is refused when the snapshot folder holds what pytest-stages did not write (None if not)."""
    if listing.unreadable:
        shown = ", ".join(f"{prefix}/{path}" for path in listing.unreadable[:SHOWN])
        return (
            f"{PREFIX}--stages-prune refused: cannot list {len(listing.unreadable)} folder(s) ({shown}); "
            "nothing was deleted. Give the user running pytest read access to the snapshot folder."
        )
    if not listing.foreign:
        return None
    shown = ", ".join(_shown(prefix, path) for path in listing.foreign[:SHOWN])
    more = ", ..." if len(listing.foreign) > SHOWN else ""
    return (
        f"{PREFIX}--stages-prune refused: {prefix}/ holds {len(listing.foreign)} file(s) pytest-stages did "
        f"not write ({shown}{more}), so it is not a snapshot folder of its own; nothing was deleted. Move those "
        "files out (a file of a folder that lost its _stages.json: restore that from version control, or delete "
        'the folder), or give the snapshots a folder of their own (snapshot_dir = "snapshots").'
    )


def _shown(prefix: str, path: PurePosixPath) -> str:
    return f"{prefix}/{path}" if prefix not in ("", ".") else path.as_posix()
