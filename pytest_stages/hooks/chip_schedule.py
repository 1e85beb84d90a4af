"""xdist's load scheduling, with the items that need an attached accelerator sent to the worker that holds it.

Imported only by an xdist controller (``pytest_xdist_make_scheduler``): it subclasses xdist's
:class:`~xdist.scheduler.LoadScheduling`, which hands each worker chunks of the pending items.
Here a worker other than the holder (:func:`~pytest_stages.stage.chip.holds_chip`: ``gw0``, or the
worker xdist started in its place after a crash) is handed only items that do not need the chip,
and shuts down once none is left for it; the holder takes any item.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

from pytest_stages.stage.chip import HOLDER_VARIABLE, holds_chip, item_needs_chip


class ChipScheduling(LoadScheduling):  # type: ignore[misc]
    """``--dist load`` where the items of the configs ``names`` run on the holder worker alone."""

    # LoadScheduling's state, as xdist keeps it (indices into ``collection``).
    collection: list[str] | None
    pending: list[int]
    node2pending: dict[object, list[int]]
    maxschedchunk: int | None

    def __init__(self, config: object, log: object, names: Collection[str]) -> None:
        super().__init__(config, log)
        self.names = tuple(names)
        self.pinned: frozenset[int] = frozenset()

    def schedule(self) -> None:
        """As xdist's, but every node is filled through :meth:`check_schedule` (which knows the pinned items)."""
        assert self.collection_is_completed
        if self.collection is None:
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            collection: list[str] = next(iter(self.node2collection.values()))
            self.collection = collection
            self.pending[:] = range(len(collection))
            self.pinned = frozenset(i for i, nodeid in enumerate(collection) if item_needs_chip(nodeid, self.names))
            if self.maxschedchunk is None:
                self.maxschedchunk = len(collection)
        for node in self.nodes:
            self.check_schedule(node)

    def _available(self, node: Any) -> list[int]:
        """The pending items ``node`` may run: all on the holder, those not needing the chip elsewhere."""
        if holds_chip(node.gateway.id, node.gateway.spec.env.get(HOLDER_VARIABLE)):
            return list(self.pending)
        return [index for index in self.pending if index not in self.pinned]

    def check_schedule(self, node: Any, duration: float = 0) -> None:
        """xdist's heuristic over the items ``node`` may run; a node with none left is shut down."""
        if node.shutting_down:
            return
        available = self._available(node)
        if not available:
            node.shutdown()
            return
        count = len(self.node2pending)
        least = max(2, len(available) // count // 4)
        most = max(2, len(available) // count // 2)
        pending = self.node2pending[node]
        if len(pending) >= least or (duration >= 0.1 and len(pending) >= 2):
            return
        chunk = self.maxschedchunk or len(available)
        self._send_tests(node, min(most - len(pending), max(2 - len(pending), chunk)))

    def _send_tests(self, node: Any, num: int) -> None:
        chosen = self._available(node)[:num]
        if chosen:
            taken = set(chosen)
            self.pending[:] = [index for index in self.pending if index not in taken]
            self.node2pending[node].extend(chosen)
            node.send_runtest_some(chosen)
