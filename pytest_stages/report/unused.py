"""The unused-file report and the prune, from plain data: shared by one run and by the merge of its shards.

The rules are :mod:`pytest_stages.store.prune`'s: this module lists the snapshot tree, asks those
rules for the verdict, acts on it (deletes only what they allow) and renders it as lines (a refusal's
by :mod:`~pytest_stages.report.refusal_text`, imported at the first refusal).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_stages.core.errors import PREFIX, SnapshotError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CallRecord
from pytest_stages.core.run_view import RunView
from pytest_stages.report.render import PRUNE_HINT, inventory_lines
from pytest_stages.store.inventory import snapshot_files
from pytest_stages.store.prune import Evidence, Tree, module_file, refusal, take_inventory, used_files
from pytest_stages.store.storage import SnapshotStore

if TYPE_CHECKING:
    from pytest_stages.report import refusal_text as refusal_text_
    from pytest_stages.store import prune_reasons as prune_reasons_
else:
    prune_reasons_ = lazy_module("pytest_stages.store.prune_reasons")
    refusal_text_ = lazy_module("pytest_stages.report.refusal_text")


def project_tree(
    rootpath: Path, configs: Collection[str], selected: Collection[str], *, called: Collection[str] | None = None
) -> Tree:
    """The project facts a verdict needs, read from the checkout at ``rootpath``."""

    def module_exists(module: str) -> bool:
        path = module_file(module)
        return path is None or (rootpath / path).exists()

    return Tree(rootpath=rootpath, configs=configs, selected=selected, module_exists=module_exists, called=called)


@dataclass(frozen=True)
class Judgement:
    """What became of the snapshot tree: why it was not judged or not pruned (None: it was), and the lines to print."""

    refusal: prune_reasons_.Refusal | None
    lines: list[str]


def judge_snapshots(
    records: Sequence[CallRecord],
    view: RunView,
    tree: Tree,
    store: SnapshotStore,
    evidence: Evidence,
    *,
    prefix: str,
    prune_hint: str = PRUNE_HINT,
    announce: Callable[[list[str]], None] | None = None,
) -> Judgement:
    """List (and with ``evidence.prune`` delete) the files ``view`` observed unused, unless :func:`refusal` says no.

    The run's evidence is judged before the tree is listed; ``announce`` prints a prune's list before the
    first file is deleted.
    """
    refused = refusal(evidence)
    if refused is not None:
        return Judgement(refused, refusal_text_.refusal_lines(refused, evidence.prune, prefix, tree.rootpath))
    used = used_files((r.folder, r.name, r.status) for r in records)
    listing = snapshot_files(store.root)
    found = take_inventory(listing.own, used, view, tree)
    refused = refusal(replace(evidence, listing=listing))
    doomed = [*found.unused, *found.leftovers] if evidence.prune and refused is None else []
    lines = inventory_lines(found.unused, found.leftovers, doomed, prefix, prune_hint=prune_hint)
    if refused is not None:
        return Judgement(
            refused, [*lines, *refusal_text_.refusal_lines(refused, evidence.prune, prefix, tree.rootpath)]
        )
    if not doomed and not (evidence.prune and listing.empty):
        return Judgement(None, lines)
    if announce is not None:
        announce(lines)
        lines = []
    try:
        emptied = store.prune([store.root / path for path in doomed], [store.root / path for path in listing.empty])
    except SnapshotError as exc:
        return Judgement(None, [*lines, exc.shown()])
    return Judgement(None, [*lines, *([f"{PREFIX}removed {len(emptied)} emptied folder(s)"] if emptied else [])])
