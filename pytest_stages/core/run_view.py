"""What a session observed of collection and of each item's run, as plain data: the evidence a prune needs.

:mod:`pytest_stages.hooks.observe` fills these from pytest's hooks; the prune's rules
(``store.prune``) and the reports read them without pytest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any


@dataclass
class CollectionView:
    """One process's view of collection, as JSON-ready data.

    ``modules``: the modules collected in full (rootdir-relative, no ``.py``); ``removed``/``ignored``: the
    node ids dropped and paths turned away; ``items``: each selected item's snapshot folder (None: stages
    nothing); ``digests``: each module file's SHA-256, by which a merge checks the shards ran its checkout.
    """

    modules: set[str] = field(default_factory=set)
    ignored: list[str] = field(default_factory=list)
    items: dict[str, str | None] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {**self.__dict__, "modules": sorted(self.modules)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CollectionView:
        return cls(**{**data, "modules": set(data["modules"])})

    def merge(self, other: CollectionView) -> None:
        """Fold a worker's view in (every worker collects the whole selection)."""
        self.modules |= other.modules
        self.ignored = sorted({*self.ignored, *other.ignored})
        self.items.update(other.items)
        self.removed = sorted({*self.removed, *other.removed})
        self.errors = sorted({*self.errors, *other.errors})
        self.digests.update(other.digests)


@dataclass
class RunView:
    """Collection plus what happened to each item (whether it covers the whole tree is ``store.prune.run_gaps``)."""

    collection: CollectionView
    roots: list[Path]
    outcomes: dict[str, ItemOutcome]
    finished: set[str]


class ItemOutcome(StrEnum):
    """What happened to one item in a run (its worst phase): pytest's report outcomes."""

    PASSED = "passed"
    SKIPPED = "skipped"
    FAILED = "failed"


# Exit statuses of a run whose tests passed: pytest's OK and NO_TESTS_COLLECTED (a shard of a
# split suite may get no item).
PASSED_EXIT = (0, 5)
# How bad an exit status is, merging shards: passed < nothing collected < tests failed < the rest.
_EXIT_RANK = {0: 0, 5: 1, 1: 2}
_OUTCOME_RANK: dict[ItemOutcome, int] = {ItemOutcome.PASSED: 0, ItemOutcome.SKIPPED: 1, ItemOutcome.FAILED: 2}


def worse_exit(status: int, other: int) -> int:
    """The worse of two shards' exit statuses: ``worse_exit(5, 1) == 1``, ``worse_exit(0, 5) == 5``."""
    return max(status, other, key=lambda code: (_EXIT_RANK.get(code, 3), code))


def worse(outcome: ItemOutcome, other: ItemOutcome) -> ItemOutcome:
    """The worse of two outcomes of one item (its phases, or two runs of it): failed > skipped > passed."""
    return max(outcome, other, key=_OUTCOME_RANK.__getitem__)


@dataclass
class RunFacts:
    """Everything a run observed, in the form its JSON report carries (``"run"``) and a merge reads back.

    Paths (``roots``, ``collection.ignored``) are relative to the rootdir, so that shards run in
    different checkouts merge. ``split`` names the shard (``{"splits": 3, "group": 2}``) when a
    split plugin chose this run's items; ``None`` for a run of the whole collection.
    """

    collection: CollectionView
    roots: list[str]
    outcomes: dict[str, ItemOutcome]
    finished: list[str]
    lost_workers: list[str] = field(default_factory=list)
    collect_only: bool = False
    stopped_early: bool = False
    exit_status: int = 0
    split: dict[str, int] | None = None
    # The state of the checkout the run saw (``store.inventory.checkout_state``): its git commit and
    # the digest of its snapshot tree ("" where not recorded: outside git, or no JSON report asked).
    commit: str = ""
    snapshots: str = ""
    # The staged items pytest skipped, each with its skip reason: what the run did not check (docs/budgets.md).
    skipped: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {**self.__dict__, "collection": self.collection.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunFacts:
        outcomes = {nodeid: ItemOutcome(outcome) for nodeid, outcome in data["outcomes"].items()}
        return cls(**{**data, "collection": CollectionView.from_json(data["collection"]), "outcomes": outcomes})

    def view(self, rootpath: Path) -> RunView:
        """The inventory's view of these facts, paths resolved against ``rootpath``."""
        collection = CollectionView(
            **{**self.collection.__dict__, "ignored": [str(rootpath / p) for p in self.collection.ignored]}
        )
        roots = [(rootpath / root).resolve() for root in self.roots]
        return RunView(collection, roots, dict(self.outcomes), set(self.finished))
