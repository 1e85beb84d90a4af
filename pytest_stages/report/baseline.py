"""``--stages-baseline``: an earlier run's JSON report, read through the schema a merge reads shard reports with."""

from __future__ import annotations

from pathlib import Path

from pytest_stages.core.errors import ConfigError
from pytest_stages.core.inputs import read_json
from pytest_stages.core.records import CallRecord
from pytest_stages.report.render import REPORT_SCHEMA
from pytest_stages.store.schemas import call_schema, schema_mismatch

_FIX = "name a report an earlier run wrote with --stages-report=PATH.json."


def read_baseline(path: Path) -> list[CallRecord]:
    """The calls of the report at ``path``; a file that is not such a report is a :class:`ConfigError`."""
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--stages-baseline={path}: cannot read it as JSON ({exc}); {_FIX}") from None
    if not isinstance(data, dict) or data.get("schema") != REPORT_SCHEMA or not isinstance(data.get("calls"), list):
        raise ConfigError(
            f"--stages-baseline={path} is not a pytest-stages JSON report (schema {REPORT_SCHEMA}); {_FIX}"
        )
    # The part of a report a baseline is read for: its calls (their compile times).
    problem = schema_mismatch(data["calls"], {"type": "array", "items": call_schema()}, "the report['calls']")
    if problem:
        raise ConfigError(
            f"--stages-baseline={path} is not a report as pytest-stages writes it ({problem}): it was edited, "
            f"cut off, or written by another pytest-stages version; {_FIX}"
        )
    return [CallRecord.from_dict(call) for call in data["calls"]]
