"""Budgets: absolute ceilings on compiled figures, independent of snapshots (CI gates)."""

from __future__ import annotations

import contextlib
import fnmatch
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypedDict, cast

from pytest_stages.analyse import step_time
from pytest_stages.analyse.analyses import FIGURE_KEYS, cost_source, figure_name, staged_cost
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.records import Change, Finding, Kind, StepTime
from pytest_stages.core.text import close_match, listing
from pytest_stages.core.units import format_bytes, format_number, format_seconds, parse_count, parse_seconds, parse_size
from pytest_stages.ir.hlo import COLLECTIVES
from pytest_stages.stage.activation import DeviceMemory

SIZE_METRICS = {
    "temp_bytes": FIGURE_KEYS["temp_bytes"],
    "peak_bytes": "peak_bytes",  # arguments + outputs + generated code + temp - aliased: what the chip holds
    "xla_peak_bytes": FIGURE_KEYS["xla_peak_bytes"],  # XLA's own estimate, above the chip's peak (docs, Budgets)
    **{name: FIGURE_KEYS[name] for name in ("argument_bytes", "output_bytes", "alias_bytes", "code_bytes")},
}
# The parts of ``peak_bytes``, with their sign: their sum is the peak a chip holds (as measured on a
# TPU v5e chip: docs/budgets.md).
PEAK_PARTS = {
    "argument_size_in_bytes": 1,
    "output_size_in_bytes": 1,
    "generated_code_size_in_bytes": 1,
    "temp_size_in_bytes": 1,
    "alias_size_in_bytes": -1,
}
# Bytes the cross-slice collectives produce on one device per call (ops.json's networks.dcn.bytes).
DCN_METRIC: Final = "dcn_bytes"
COST_METRICS = {name: FIGURE_KEYS[name] for name in ("flops", "transcendentals", "bytes_accessed")}
TABLE_METRICS = ("collectives", "ops")
# Backend compiles per function inside ``stage_compiles`` (a number, or a table of function = maximum).
COMPILES_METRIC: Final = "compiles"
# Seconds to trace, lower and compile one staged call (opt-in: wall time is noisy).
SECONDS_METRIC: Final = "compile_seconds"
# A compile_seconds ceiling fails only above ceiling x (1 + margin): the margin is the spread
# benchmarks/compile_time_noise.py measured between repeated compiles of one call on this
# project's CI-sized machine (largest max/min - 1 seen, rounded up; see docs/compiles.md).
COMPILE_SECONDS_MARGIN = 0.5
# Each Pallas kernel's VMEM estimate (kernels.json): bytes, or a share of the TPU generation's VMEM.
VMEM_METRIC: Final = "vmem_bytes"
# The step-time estimate on the config's chip (cost.json's ``step``): seconds, or "2 ms", "150 us".
STEP_METRIC: Final = step_time.SECONDS
METRICS = (
    *COST_METRICS,
    STEP_METRIC,
    *SIZE_METRICS,
    VMEM_METRIC,
    DCN_METRIC,
    *TABLE_METRICS,
    COMPILES_METRIC,
    SECONDS_METRIC,
)


@dataclass(frozen=True)
class Share:
    """A memory ceiling as a share of one device's usable memory: ``peak_bytes = "90%"`` is ``Share(0.9)``."""

    fraction: float

    def __str__(self) -> str:
        return f"{self.fraction * 100:g}%"


class Budget(TypedDict, total=False):
    """A budget table as :func:`parse_budget` reads it: each metric's ceiling (docs/budgets.md)."""

    flops: float
    transcendentals: float
    bytes_accessed: float
    estimated_seconds: float
    temp_bytes: int | Share
    peak_bytes: int | Share
    xla_peak_bytes: int | Share
    argument_bytes: int | Share
    output_bytes: int | Share
    alias_bytes: int | Share
    code_bytes: int | Share
    vmem_bytes: int | Share
    dcn_bytes: int
    collectives: dict[str, float]
    ops: dict[str, float]
    compiles: int | dict[str, int]
    compile_seconds: float


def peak_bytes(memory: Mapping[str, Any]) -> int | None:
    """Arguments + outputs + generated code + temp - aliased bytes (None without those figures)."""
    if any(memory.get(part) is None for part in PEAK_PARTS):
        return None
    return int(sum(sign * memory[part] for part, sign in PEAK_PARTS.items()))


def parse_budget(where: str, raw: Mapping[str, object]) -> Budget:
    """Validate one budget table (marker kwargs or a ``[tool.pytest_stages.budgets]`` entry).

    A figure in JAX's spelling (``temp_size_in_bytes``) is read as its one name (``temp_bytes``):
    :func:`~pytest_stages.config.values.respellings` says which to write.
    """
    budget: dict[str, object] = {}
    for written, value in raw.items():
        metric = figure_name(str(written))
        parse = _PARSERS.get(metric)
        if parse is None:
            raise ConfigError(
                f"{where}: unknown budget metric {written!r}{close_match(str(written), METRICS)}; use one of "
                f"{listing(METRICS)}."
            )
        budget[metric] = parse(f"{where} {metric}", value)
    return cast(Budget, budget)  # each metric known, its ceiling read by its metric's parser


def _size_or_share(where: str, value: object) -> int | Share:
    """A byte ceiling, or a share of the device's memory when written as a percentage (``"90%"``)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        return _share(where, value)
    return parse_size(where, value)


def _compiles(where: str, value: object) -> int | dict[str, int]:
    """A ``compiles`` ceiling: a number, or a table of function = maximum."""
    if isinstance(value, Mapping):
        return {str(k): int(parse_count(f"{where}.{k}", v)) for k, v in value.items()}
    return int(parse_count(where, value))


def _table(where: str, value: object, known: Sequence[str] | None = None) -> dict[str, float]:
    """A table of name = maximum count (``ops``, ``collectives``); ``known``: the names allowed, if limited."""
    if not isinstance(value, Mapping):
        raise ConfigError(f'{where} must be a table of name = maximum count, e.g. {{"all-gather": 0}}.')
    if known is not None:
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ConfigError(
                f"{where}: unknown collective {unknown[0]!r}{close_match(unknown[0], known)}; use one of "
                f"{listing(known)}."
            )
    return {str(k): parse_count(f"{where}.{k}", v) for k, v in value.items()}


def _share(where: str, value: str) -> Share:
    """``"90%"`` -> ``Share(0.9)``; more than 100% of a device cannot fit, so it is refused."""
    fraction = math.nan
    with contextlib.suppress(ValueError):
        fraction = float(value.strip().removesuffix("%")) / 100
    if not math.isfinite(fraction) or not 0 < fraction <= 1:
        raise ConfigError(
            f'{where}: {value!r} is not a share of the device\'s memory; write a percentage from 0 to 100, e.g. "90%".'
        )
    return Share(fraction)


# How each metric's ceiling is read (``where``, ``value``): bytes (or a share), a count, or a table.
_PARSERS: dict[str, Callable[[str, object], object]] = {
    **dict.fromkeys(SIZE_METRICS, _size_or_share),
    VMEM_METRIC: _size_or_share,
    DCN_METRIC: parse_size,
    **dict.fromkeys(COST_METRICS, parse_count),
    STEP_METRIC: parse_seconds,
    COMPILES_METRIC: _compiles,
    SECONDS_METRIC: parse_seconds,
    "collectives": lambda where, value: _table(where, value, COLLECTIVES),
    "ops": _table,
}


def parse_budgets(tables: Mapping[str, Mapping[str, object]]) -> dict[str, Budget]:
    """``[tool.pytest_stages.budgets]``, each node-id pattern's table parsed (the session's and history's)."""
    return {pattern: parse_budget(f"[tool.pytest_stages.budgets] {pattern!r}", raw) for pattern, raw in tables.items()}


def budget_for(nodeid: str, patterns: Mapping[str, Budget], marker: Budget) -> Budget:
    """Budgets from every matching ``[tool.pytest_stages.budgets]`` pattern, then the marker's."""
    merged = Budget()
    for pattern, budget in patterns.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            merged.update(budget)
    merged.update(marker)
    return merged


def unmatched_patterns(patterns: Iterable[str], nodeids: Iterable[str]) -> list[str]:
    """The ``[tool.pytest_stages.budgets]`` patterns matching none of ``nodeids``: a typo, or tests since renamed."""
    ids = list(nodeids)
    return [pattern for pattern in patterns if not any(fnmatch.fnmatchcase(nodeid, pattern) for nodeid in ids)]


def needed_analyses(budget: Mapping[str, object]) -> set[str]:
    """Analyses a budget reads (built even when not snapshotted)."""
    needed = set()
    for metric in budget:
        if metric in (COMPILES_METRIC, SECONDS_METRIC):
            continue
        if metric == VMEM_METRIC:
            needed.add("kernels")
            continue
        costed = metric in COST_METRICS or metric == STEP_METRIC
        needed.add("cost" if costed else "memory" if metric in SIZE_METRICS else "ops")  # dcn: ops
    return needed


def check_budget(
    budget: Budget,
    analyses: Mapping[str, Any],
    seconds: Mapping[str, float] | None = None,
    device_memory: DeviceMemory | None = None,
) -> list[Finding]:
    """One failing finding per metric above its ceiling (``compiles`` is judged by ``stage_compiles``, not here).

    ``seconds`` is the call's trace/lower/compile time; ``compile_seconds`` fails only beyond
    its ceiling plus :data:`COMPILE_SECONDS_MARGIN`. A :class:`Share` ceiling is taken of
    ``device_memory``; it says the headroom left on the device, also when it passes (a note).
    """
    findings: list[Finding] = []
    cost = staged_cost(analyses.get("cost", {}))
    counted = " (lowered)" if cost_source(analyses.get("cost", {})) == "lowered" else ""
    memory = analyses.get("memory", {})
    ops = analyses.get("ops", {})
    ceilings: Mapping[str, Any] = budget  # read by name below: each ceiling of its metric's type (Budget)
    for metric, ceiling in ceilings.items():
        if metric == COMPILES_METRIC:
            continue
        if metric == SECONDS_METRIC:
            _check_seconds(findings, seconds, ceiling)
        elif metric in COST_METRICS:
            # XLA leaves a zero figure out of a cost analysis it did make: absent reads as 0 there.
            _check(
                findings, metric + counted, cost.get(COST_METRICS[metric], 0 if cost else None), ceiling, format_number
            )
        elif metric == STEP_METRIC:
            _check_step(findings, analyses.get("cost", {}).get(step_time.KEY), ceiling)
        elif metric in SIZE_METRICS:
            _check_size(findings, metric, memory, ceiling, device_memory)
        elif metric == VMEM_METRIC:
            _check_vmem(findings, analyses.get("kernels"), ceiling)
        elif metric == DCN_METRIC:
            # A compiled program on one slice has no networks entry: nothing crosses slices there.
            dcn = ops.get("networks", {}).get("dcn", {}).get("bytes", 0) if ops else None
            _check(findings, metric, dcn, ceiling, format_bytes)
        else:
            _check_table(findings, metric, ops, ceiling)
    return findings


def _check_step(findings: list[Finding], step: StepTime | None, ceiling: float) -> None:
    """``estimated_seconds 1.3 ms on TPU v5e (HBM-bound) exceeds the ceiling 1 ms``; within it, a note with both
    (``estimated_seconds 414 µs on TPU v5e, ceiling 300 s``: a unit slip shows in a passing run); an estimate that
    is unknown says why (not checked, a note)."""
    if not step or step_time.SECONDS not in step:
        reason = (step or {}).get("unknown", "the cost analysis was not built")
        _not_checked(findings, STEP_METRIC, f"{STEP_METRIC}: no estimate: {reason}")
        return
    value = step[step_time.SECONDS]
    over = (
        f"{STEP_METRIC} {format_seconds(value)} on {step.get('chip')} ({step.get('binding')}-bound) "
        f"exceeds the ceiling {format_seconds(ceiling)}"
    )
    within = f"{STEP_METRIC} {format_seconds(value)} on {step.get('chip')}, ceiling {format_seconds(ceiling)}"
    _judged(findings, STEP_METRIC, value, ceiling, over=over, within=within)


def _check_size(
    findings: list[Finding],
    metric: str,
    memory: Mapping[str, object],
    ceiling: float | Share,
    device: DeviceMemory | None,
) -> None:
    """A memory figure against its ceiling in bytes or as a share of the device."""
    value = peak_bytes(memory) if metric == "peak_bytes" else memory.get(SIZE_METRICS[metric])
    if isinstance(ceiling, Share):
        _check_share(findings, metric, value, ceiling, device)
    else:
        _check(findings, metric, value, ceiling, format_bytes)


def _check_table(findings: list[Finding], metric: str, ops: Mapping[str, Any], ceiling: Mapping[str, float]) -> None:
    """Each op (``ops``) or collective (``collectives``) count against its maximum."""
    counts = (
        Counter(c["op"] for c in ops.get("collectives", []))
        if metric == "collectives"
        else Counter(ops.get("opcodes", {}))
    )
    for name, limit in ceiling.items():
        # No op structure without a compiled program (a platform lowered only): not measured.
        count = counts.get(name, 0) if ops else None
        _check(findings, f"{metric}[{name}]", count, limit, format_number)


def _check(findings: list[Finding], metric: str, value: Any, ceiling: float, show: Any) -> None:
    """``flops 3e9 exceeds the ceiling 2.2e9``; within it a note with both (``flops 2.1e9, ceiling 2.2e9``)."""
    if value is None:
        _not_checked(findings, metric, f"{metric}: not measured on this backend")
        return
    over = f"{metric} {show(value)} exceeds the ceiling {show(ceiling)}"
    _judged(findings, metric, value, ceiling, over=over, within=f"{metric} {show(value)}, ceiling {show(ceiling)}")


def _judged(
    findings: list[Finding],
    metric: str,
    value: float,
    ceiling: float,
    *,
    over: str,
    within: str,
    allowed: float | None = None,
    noted: Change = Change.OTHER,
) -> None:
    """One ceiling's verdict: the breach ``over`` where the figure exceeds ``allowed`` (the ceiling, unless
    given), else the passing note ``within`` (a change ``noted``: a share's headroom)."""
    breach = value > (ceiling if allowed is None else allowed)
    change = Change.BREACH if breach else noted
    message = over if breach else within
    findings.append(
        Finding(Kind.BUDGET, "budget", message, breach, change=change, subject=metric, before=ceiling, after=value)
    )


def _not_checked(findings: list[Finding], metric: str, message: str) -> None:
    """A ceiling this run could not judge (no figure here): a note the reports list as not checked."""
    findings.append(Finding(Kind.BUDGET, "budget", message, failing=False, change=Change.SKIPPED, subject=metric))


def _check_share(findings: list[Finding], metric: str, value: Any, share: Share, device: DeviceMemory | None) -> None:
    """``peak_bytes 15.2 GiB is 96.5% of the device's 15.7 GiB, over the ceiling 90% (14.2 GiB): 0.5 GiB left``."""
    if value is None or device is None:
        what = "not measured on this backend" if value is None else "the device's memory is not known here"
        _not_checked(findings, metric, f"{metric} {share}: {what}")
        return
    ceiling = share.fraction * device.bytes
    used = value / device.bytes
    left = format_bytes(device.bytes - value)
    text = f"{metric} {format_bytes(value)} is {used:.1%} of the device's {format_bytes(device.bytes)}"
    over = f"{text}, over the ceiling {share} ({format_bytes(ceiling)}): {left} left on the device"
    within = f"{text}, within the ceiling {share}: headroom {format_bytes(ceiling - value)} to it, {left} left"
    _judged(findings, metric, value, ceiling, over=over, within=within, noted=Change.HEADROOM)


def _check_vmem(findings: list[Finding], specs: Mapping[str, Any] | None, ceiling: float | Share) -> None:
    """``vmem_bytes: kernel add_kernel VMEM est. 768.0 KiB exceeds the ceiling 512.0 KiB``, per kernel.

    A share is of ``vmem_capacity`` (JAX's TPU table for the device kind, recorded in kernels.json).
    A program without Pallas kernels has nothing to judge: no finding.
    """
    if not specs:
        return
    capacity = (specs.get("vmem_capacity") or {}).get("bytes")
    if isinstance(ceiling, Share):
        if capacity is None:
            _not_checked(
                findings, VMEM_METRIC, f"{VMEM_METRIC} {ceiling}: the VMEM size of this device is not known here"
            )
            return
        limit = ceiling.fraction * capacity
        shown = f"{ceiling} of {format_bytes(capacity)} VMEM ({format_bytes(limit)})"
    else:
        limit, shown = float(ceiling), format_bytes(ceiling)
    for name, kernel in specs["kernels"].items():
        value = kernel.get("vmem_estimate_bytes")  # none for a GPU kernel
        if value is not None and value > limit:
            message = f"{VMEM_METRIC}: kernel {name} VMEM est. {format_bytes(value)} exceeds the ceiling {shown}"
            findings.append(
                Finding(Kind.BUDGET, "budget", message, change=Change.BREACH, subject=name, before=limit, after=value)
            )


def _check_seconds(findings: list[Finding], seconds: Mapping[str, float] | None, ceiling: float) -> None:
    """``compile_seconds 3.1 s exceeds the ceiling 1.5 s (+50% noise margin: 2.25 s)``; within it, a note."""
    if not seconds:
        _not_checked(findings, SECONDS_METRIC, f"{SECONDS_METRIC}: not measured")
        return
    total, allowed = sum(seconds.values()), ceiling * (1 + COMPILE_SECONDS_MARGIN)
    over = (
        f"{SECONDS_METRIC} {format_seconds(total)} exceeds the ceiling {format_seconds(ceiling)} "
        f"(+{COMPILE_SECONDS_MARGIN:.0%} noise margin: {format_seconds(allowed)})"
    )
    within = f"{SECONDS_METRIC} {format_seconds(total)}, ceiling {format_seconds(ceiling)}"
    _judged(findings, SECONDS_METRIC, total, ceiling, over=over, within=within, allowed=allowed)
