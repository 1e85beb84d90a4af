"""The fixture values' types, to annotate tests with: ``def test_x(stage_snapshot: StageSnapshotFixture)``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from pytest_stages.stage.jax_events import CompileLog
from pytest_stages.stage.staging import StageResult


class StageSnapshotFixture(Protocol):
    """The ``stage_snapshot`` fixture: stage ``fn(*args, **kwargs)`` on the active config, compare with its snapshots.

    ``name`` names the call's snapshot files (default: the function's name); ``static_scalars=True``
    bakes Python scalar arguments into the program (default: the ``static_scalars`` setting).
    """

    def __call__(
        self,
        fn: Callable[..., Any],
        *args: object,
        name: str | None = None,
        static_scalars: bool | None = None,
        **kwargs: object,
    ) -> StageResult: ...


class StageCompilesFixture(Protocol):
    """The ``stage_compiles`` fixture: ``with stage_compiles(*functions, name="compiles") as log:`` counts compiles.

    ``functions`` (jitted functions or their names) narrows the count to them; the counts are
    compared with ``<name>.compiles.json`` when the block ends.
    """

    def __call__(self, *functions: object, name: str = "compiles") -> AbstractContextManager[CompileLog]: ...
