"""What a session observed of collection and of each item's run, as plain data: the evidence a prune needs.

:mod:`pytest_stages.hooks.observe` fills these from pytest's hooks; the inventory
(``store.inventory``) and the reports read them without pytest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CollectionView:
    """One process's view of collection, as JSON-ready data.

    ``modules`` holds the rootdir-relative paths (no ``.py``) of modules collected in
    full; ``ignored`` the paths a ``pytest_ignore_collect`` implementation turned away;
    ``items`` every selected item's node id with its snapshot folder (``None`` for items
    that stage nothing).
    """

    modules: set[str] = field(default_factory=set)
    ignored: list[str] = field(default_factory=list)
    items: dict[str, str | None] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
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


@dataclass
class RunView:
    """Collection plus what happened to each item, and why the view is incomplete (if it is)."""

    collection: CollectionView
    roots: list[Path]
    outcomes: dict[str, str]
    finished: set[str]
    incomplete: list[str]
