"""The unused-file report and the prune, from plain data: shared by one run and by the merge of its shards."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from pytest_stages.core.observed import RunView
from pytest_stages.core.records import CallRecord
from pytest_stages.report.reporting import PRUNE_HINT, inventory_lines
from pytest_stages.store.inventory import Tree, snapshot_files, take_inventory, used_files
from pytest_stages.store.storage import OUTSIDE_ROOTDIR, REGISTERED_MODULE, SnapshotStore


def project_tree(rootpath: Path, configs: Collection[str], selected: Collection[str]) -> Tree:
    """The project facts a verdict needs, read from the checkout at ``rootpath``."""

    def module_exists(module: str) -> bool:
        # Neither the registered functions' folder nor that of a module outside the rootdir has a
        # module file here: they are judged only when collected, never as a deleted module.
        if module == REGISTERED_MODULE or module.startswith(f"{OUTSIDE_ROOTDIR}/"):
            return True
        return (rootpath / f"{module}.py").exists()

    return Tree(rootpath=rootpath, configs=configs, selected=selected, module_exists=module_exists)


def judge_snapshots(
    records: Sequence[CallRecord],
    view: RunView,
    tree: Tree,
    store: SnapshotStore,
    *,
    prune: bool,
    prefix: str,
    prune_hint: str = PRUNE_HINT,
) -> list[str]:
    """List (and with ``prune`` delete) the files a complete ``view`` observed unused; ``view`` must be complete."""
    used = used_files((r.folder, r.name, r.status) for r in records)
    found = take_inventory(snapshot_files(store.root), used, view, tree)
    doomed = [*found.unused, *found.leftovers] if prune else []
    emptied = store.prune([store.root / path for path in doomed]) if doomed else []
    return inventory_lines(found.unused, found.leftovers, doomed, len(emptied), prefix, prune_hint=prune_hint)
