"""Plain data that travels between the layers: findings and the record of one staged call.

A :class:`CallRecord` is built on the process that ran the test and reaches
the reports on the xdist controller as :meth:`CallRecord.to_dict` output (JSON-ready).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SKIPPED = "skipped"


@dataclass(frozen=True)
class Finding:
    """One difference between a snapshot and what was staged.

    ``kind`` is the check it belongs to (text, cost, memory, sharding, layout,
    budget, or ``skipped`` for an artifact that could not be built); ``failing``
    is False for improvements and notes; ``detail`` holds JSON-ready data for
    reports (the side-by-side diff of a drift).
    """

    kind: str
    artifact: str
    message: str
    failing: bool = True
    detail: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass
class CallRecord:
    """What one call found and wrote: the row of the summary table and the entry of the JSON report."""

    nodeid: str
    config: str
    name: str
    folder: str
    status: dict[str, str] = field(default_factory=dict)
    deltas: dict[str, list[float]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    versions: str = ""
    drift_cause: str | None = None
    # Wall seconds to trace, lower and compile the call ("trace", "lower", "compile"): a figure of
    # the reports, never of a snapshot; ``cached`` when the persistent cache answered the compile.
    compile_seconds: dict[str, float] = field(default_factory=dict)
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The report entry (schema ``pytest-stages-report/1``): plain dicts, lists and strings."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallRecord:
        fields = dict(data)
        fields["findings"] = [Finding(**finding) for finding in fields.get("findings", ())]
        return cls(**fields)
