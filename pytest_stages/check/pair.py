"""What every comparison family takes and gives: a snapshot with its fresh artifact, and the findings."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_stages.core.records import Finding


@dataclass(frozen=True)
class Pair:
    """A snapshot and the fresh artifact, with what comparing them needs.

    ``before`` is the snapshot parsed (JSON artifacts) and ``after`` the fresh data;
    ``locations`` gives, on demand, the source location of each line of ``actual``, and
    ``loop_places`` that of each while loop of ``after`` (``ops.json``).
    """

    artifact: str
    expected: str
    actual: str
    before: Any = None
    after: Any = None
    tolerance: Mapping[str, float] = field(default_factory=dict)
    diff_lines: int = 60
    locations: Callable[[], Sequence[str | None] | None] | None = None
    loop_places: Callable[[], Sequence[str | None]] | None = None


@dataclass(frozen=True)
class Compared:
    """The findings of one pair, and the figures that moved (``metric: [old, new]``)."""

    findings: list[Finding]
    deltas: dict[str, list[float]] = field(default_factory=dict)
