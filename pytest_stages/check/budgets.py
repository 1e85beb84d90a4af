"""Budgets: absolute ceilings on compiled figures, independent of snapshots (CI gates)."""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pytest_stages.analyse.analyses import cost_source, staged_cost
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.records import Finding
from pytest_stages.core.units import (
    format_bytes,
    format_number,
    parse_count,
    parse_size,
)
from pytest_stages.ir.hlo import COLLECTIVES

SIZE_METRICS = {
    "temp_bytes": "temp_size_in_bytes",
    "peak_bytes": "peak_memory_in_bytes",
    "argument_bytes": "argument_size_in_bytes",
    "output_bytes": "output_size_in_bytes",
    "alias_bytes": "alias_size_in_bytes",
    "code_bytes": "generated_code_size_in_bytes",
}
COST_METRICS = {"flops": "flops", "transcendentals": "transcendentals", "bytes_accessed": "bytes accessed"}
TABLE_METRICS = ("collectives", "ops")
# Backend compiles per function inside ``stage_compiles`` (a number, or a table of function = maximum).
COMPILES_METRIC = "compiles"
# Seconds to trace, lower and compile one staged call (opt-in: wall time is noisy).
SECONDS_METRIC = "compile_seconds"
# A compile_seconds ceiling fails only above ceiling x (1 + margin): the margin is the spread
# benchmarks/compile_time_noise.py measured between repeated compiles of one call on this
# project's CI-sized machine (largest max/min - 1 seen, rounded up; see docs/compiles.md).
COMPILE_SECONDS_MARGIN = 0.5
METRICS = (*COST_METRICS, *SIZE_METRICS, *TABLE_METRICS, COMPILES_METRIC, SECONDS_METRIC)


def parse_budget(where: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Validate one budget table (marker kwargs or a ``[tool.pytest_stages.budgets]`` entry)."""
    budget: dict[str, Any] = {}
    for metric, value in raw.items():
        here = f"{where} {metric}"
        if metric in SIZE_METRICS:
            budget[metric] = parse_size(here, value)
        elif metric in COST_METRICS:
            budget[metric] = parse_count(here, value)
        elif metric == COMPILES_METRIC and isinstance(value, Mapping):
            budget[metric] = {str(k): int(parse_count(f"{here}.{k}", v)) for k, v in value.items()}
        elif metric == COMPILES_METRIC:
            budget[metric] = int(parse_count(here, value))
        elif metric == SECONDS_METRIC:
            budget[metric] = parse_count(here, value)
        elif metric in TABLE_METRICS:
            if not isinstance(value, Mapping):
                raise ConfigError(f'{here} must be a table of name = maximum count, e.g. {{"all-gather": 0}}.')
            if metric == "collectives":
                unknown = sorted(set(value) - set(COLLECTIVES))
                if unknown:
                    raise ConfigError(f"{here}: unknown collective {unknown[0]!r}; use one of {list(COLLECTIVES)}.")
            budget[metric] = {str(k): parse_count(f"{here}.{k}", v) for k, v in value.items()}
        else:
            raise ConfigError(f"{where}: unknown budget metric {metric!r}; use one of {list(METRICS)}.")
    return budget


def budget_for(nodeid: str, patterns: Mapping[str, Mapping[str, Any]], marker: Mapping[str, Any]) -> dict[str, Any]:
    """Budgets from every matching ``[tool.pytest_stages.budgets]`` pattern, then the marker's."""
    merged: dict[str, Any] = {}
    for pattern, budget in patterns.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            merged.update(budget)
    merged.update(marker)
    return merged


def needed_analyses(budget: Mapping[str, Any]) -> set[str]:
    """Analyses a budget reads (built even when not snapshotted)."""
    needed = set()
    for metric in budget:
        if metric in (COMPILES_METRIC, SECONDS_METRIC):
            continue
        needed.add("cost" if metric in COST_METRICS else "memory" if metric in SIZE_METRICS else "ops")
    return needed


def check_budget(
    budget: Mapping[str, Any], analyses: Mapping[str, Any], seconds: Mapping[str, float] | None = None
) -> list[Finding]:
    """One failing finding per metric above its ceiling (``compiles`` is judged by ``stage_compiles``, not here).

    ``seconds`` is the call's trace/lower/compile time; ``compile_seconds`` fails only beyond
    its ceiling plus :data:`COMPILE_SECONDS_MARGIN`.
    """
    findings: list[Finding] = []
    cost = staged_cost(analyses.get("cost", {}))
    counted = " (lowered)" if cost_source(analyses.get("cost", {})) == "lowered" else ""
    memory = analyses.get("memory", {})
    ops = analyses.get("ops", {})
    for metric, ceiling in budget.items():
        if metric == COMPILES_METRIC:
            continue
        if metric == SECONDS_METRIC:
            _check_seconds(findings, seconds, ceiling)
        elif metric in COST_METRICS:
            # XLA leaves a zero figure out of a cost analysis it did make: absent reads as 0 there.
            _check(
                findings, metric + counted, cost.get(COST_METRICS[metric], 0 if cost else None), ceiling, format_number
            )
        elif metric in SIZE_METRICS:
            _check(findings, metric, memory.get(SIZE_METRICS[metric]), ceiling, format_bytes)
        else:
            counts = (
                Counter(c["op"] for c in ops.get("collectives", []))
                if metric == "collectives"
                else Counter(ops.get("opcodes", {}))
            )
            for name, limit in ceiling.items():
                # No op structure without a compiled program (a platform lowered only): not measured.
                count = counts.get(name, 0) if ops else None
                _check(findings, f"{metric}[{name}]", count, limit, format_number)
    return findings


def _check(findings: list[Finding], metric: str, value: Any, ceiling: float, show: Any) -> None:
    if value is None:
        findings.append(Finding("budget", "budget", f"{metric}: not measured on this backend", failing=False))
    elif value > ceiling:
        findings.append(Finding("budget", "budget", f"{metric} {show(value)} exceeds the ceiling {show(ceiling)}"))


def _check_seconds(findings: list[Finding], seconds: Mapping[str, float] | None, ceiling: float) -> None:
    """``compile_seconds 3.1 s exceeds the ceiling 1.5 s (+50% noise margin: 2.25 s)``."""
    if not seconds:
        findings.append(Finding("budget", "budget", f"{SECONDS_METRIC}: not measured", failing=False))
        return
    total, allowed = sum(seconds.values()), ceiling * (1 + COMPILE_SECONDS_MARGIN)
    if total > allowed:
        findings.append(
            Finding(
                "budget",
                "budget",
                f"{SECONDS_METRIC} {total:.3g} s exceeds the ceiling {ceiling:.3g} s "
                f"(+{COMPILE_SECONDS_MARGIN:.0%} noise margin: {allowed:.3g} s)",
            )
        )
