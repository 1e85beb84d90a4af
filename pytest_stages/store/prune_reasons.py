"""Why a prune is refused, as typed data: each reason's record, decided by :func:`pytest_stages.store.prune.refusal`.

Apart from :mod:`~pytest_stages.store.prune` and imported at the first refusal, so that a run that observed
the whole tree never builds these classes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import PurePosixPath


class Gap(enum.Enum):
    """What kept a run (or the shards of one) from observing the whole tree."""

    COLLECT_ONLY = "collect-only"
    COLLECTION_ERRORS = "collection errors"
    REMOVED = "items deselected or removed"
    LOST_WORKERS = "xdist workers lost"
    UNFINISHED = "items that did not run to the end"
    STOPPED_EARLY = "stopped early"
    EXIT_STATUS = "exit status"
    SHARDS_MISSING = "shards missing"
    RAN_IN_NO_SHARD = "items that ran in no shard"


@dataclass(frozen=True)
class Incomplete:
    """One reason a view does not cover the whole tree, with its facts.

    ``count``: how many (collection errors, removed or unfinished items), or the exit status;
    ``names``: the collection errors, the lost workers, the missing groups (``2/3``) or the items
    that ran in no shard; ``shard``: the report of the shard it is about (a merge's).
    """

    gap: Gap
    count: int = 0
    names: tuple[str, ...] = ()
    shard: str | None = None


@dataclass(frozen=True)
class SplitShard:
    """The run is group ``group`` of ``splits`` of a split suite: it judged its own items only."""

    splits: int
    group: int


@dataclass(frozen=True)
class IncompleteRun:
    """The run did not observe the whole tree; ``reasons`` say why (``prune.run_gaps``)."""

    reasons: tuple[Incomplete, ...]


@dataclass(frozen=True)
class IncompleteShards:
    """The merged shards together did not observe the whole tree; ``reasons`` say why (``prune.merge_gaps``)."""

    reasons: tuple[Incomplete, ...]


class Mismatch(enum.Enum):
    """How a module the shards collected differs from the checkout the merge runs in."""

    ABSENT = "not in the checkout"
    NO_DIGEST = "no digest in the reports"
    DIFFERS = "different bytes"


@dataclass(frozen=True)
class Disagreement:
    """The first module (in sorted order) the shards collected that the checkout does not hold as they saw it."""

    module: str
    mismatch: Mismatch


class Facet(enum.Enum):
    """What of the checkout a shard recorded that the merge's checkout must match."""

    COMMIT = "commit"
    SNAPSHOTS = "snapshot tree"


@dataclass(frozen=True)
class OtherState:
    """A shard ran another state of the checkout than the merge's: another commit, or another snapshot tree.

    ``recorded`` is what the shard's report says ("" when it says nothing: an older pytest-stages,
    or no git), ``found`` what the checkout the merge runs in holds.
    """

    shard: str
    facet: Facet
    recorded: str
    found: str


@dataclass(frozen=True)
class Unreadable:
    """Folders of the snapshot tree that could not be listed."""

    folders: tuple[PurePosixPath, ...]


@dataclass(frozen=True)
class Foreign:
    """Entries of the snapshot tree pytest-stages did not write: it is not a snapshot folder of its own."""

    files: tuple[PurePosixPath, ...]


Refusal = SplitShard | IncompleteRun | IncompleteShards | OtherState | Disagreement | Unreadable | Foreign
