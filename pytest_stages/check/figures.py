"""Cost and memory figures against per-metric tolerances: a rise beyond it fails, a fall is an improvement.

Which figures an artifact holds is the artifact table's: cost records the compiled program's
figures with the lowered program's beside them (standing in where nothing was compiled), and
leaves a zero figure out (absent reads as 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_stages.analyse import step_time
from pytest_stages.analyse.artifacts import BY_NAME, check_kind
from pytest_stages.check.changed_paths import deep_diff, levels, show
from pytest_stages.check.figure_text import (
    LOWERED,
    figure_change,
    figure_values,
    informational,
    metric_label,
    per_operand,
)
from pytest_stages.config.values import OPERAND_PART
from pytest_stages.core.records import Change, Compared, Finding, Pair
from pytest_stages.core.units import format_seconds, format_tolerance, relative_change

DEFAULT_FLOAT_TOLERANCE = 0.001
# Integer figures XLA's allocator and code generator decide, which move by a few bytes between XLA versions for one
# program (``peak_memory_in_bytes 2763004 -> 2763008``): judged at DEFAULT_FLOAT_TOLERANCE, not exactly. The other
# integer figures (argument, output, aliased bytes) follow from the shapes and are judged exactly.
ALLOCATOR_FIGURES = (
    "temp_size_in_bytes",
    "peak_memory_in_bytes",
    "generated_code_size_in_bytes",
    "host_temp_size_in_bytes",
    "host_generated_code_size_in_bytes",
)
IMPROVEMENT_HINT = "run `pytest --stages-update` to accept it"
# Figures where more is better: bytes an output reuses from a donated input.
SAVINGS_METRICS = ("alias_size_in_bytes", "host_alias_size_in_bytes")


def compare_metrics(
    artifact: str, expected: Mapping[str, object], actual: Mapping[str, object], tolerances: Mapping[str, float]
) -> list[Finding]:
    """Cost/memory figures: rises beyond tolerance fail, falls are reported as improvements."""
    entry = BY_NAME[artifact]
    if entry.lowered_stand_in and compiled(expected) != compiled(actual):
        was, now = ("compiled", "lowered") if compiled(expected) else ("lowered", "compiled")
        message = (
            f"the snapshot counts the {was} program, this run the {now} one (only an attached platform "
            "has a compiled cost): the figures do not compare; run `pytest --stages-update` to record them"
        )
        return [Finding(check_kind(artifact), artifact, message, change=Change.INCOMPARABLE, before=was, after=now)]
    before, after = flatten_metrics(expected), flatten_metrics(actual)
    diff = deep_diff(before, after, ignore_numeric_type_changes=True)
    no_compiled = not compiled(expected) and not compiled(actual)
    findings = []
    for metric in sorted({level.path(output_format="list")[0] for level in levels(diff)}):
        if metric == step_time.METRIC:
            findings += _step_finding(artifact, before, after, tolerances)
        elif _judged(metric, no_compiled, tolerances):
            old, new = before.get(metric), after.get(metric)
            if entry.absent_is_zero and (_is_number(old) or _is_number(new)):
                old, new = old if old is not None else 0, new if new is not None else 0
            found = _metric_finding(artifact, metric, old, new, tolerances)
            findings += [found] if found else []
    return findings


def _step_finding(
    artifact: str, before: Mapping[str, Any], after: Mapping[str, Any], tolerances: Mapping[str, float]
) -> list[Finding]:
    """The estimated step time against its tolerance, named with its binding term and what drove it:
    ``estimated step on TPU v5e +7.2% (HBM-bound: bytes accessed +9.8%)``.

    Judged only where both sides hold an estimate: a snapshot from before the estimate (or a
    program whose estimate is unknown) is judged on its other figures alone.
    """
    old, new = before.get(step_time.METRIC), after.get(step_time.METRIC)
    if not isinstance(old, (int, float)) or not isinstance(new, (int, float)) or old <= 0:
        return []
    tolerance = metric_tolerance(step_time.SECONDS, old, new, tolerances)
    change = relative_change(old, new)
    if abs(change) <= tolerance:
        return []
    binding = after.get(step_time.KEY + " binding")
    driver = step_time.DRIVERS.get(str(binding))
    drove = f"{binding}-bound" if binding else "binding term unknown"
    if driver and _is_number(before.get(driver)) and _is_number(after.get(driver)) and before[driver]:
        drove += f": {driver} {figure_change(driver, before[driver], after[driver])}"
    chip = after.get(step_time.KEY + " chip", "its chip")
    headline = f"estimated step on {chip} {change:+.1%} ({drove})"
    values = f"{format_seconds(old)} -> {format_seconds(new)}"
    fields: dict[str, Any] = {"change": Change.FIGURE, "subject": step_time.METRIC, "before": old, "after": new}
    if change > 0:
        message = f"{headline}: {values}, tolerance {format_tolerance(tolerance)}"
        return [Finding(check_kind(artifact), artifact, message, **fields)]
    message = f"{headline}: {values}; improved; {IMPROVEMENT_HINT}"
    return [Finding(check_kind(artifact), artifact, message, failing=False, **fields)]


def _judged(metric: str, no_compiled: bool, tolerances: Mapping[str, float]) -> bool:
    """Whether a changed figure is judged: not informational, or a lowered figure standing in for compiled.

    XLA's per-operand byte figures (``bytes accessed1{}``) are judged only under a tolerance that names one: they
    move by 100% and more between XLA versions while the program's ``bytes_accessed`` falls (docs/budgets.md).
    """
    if per_operand(metric):
        return metric.removeprefix(LOWERED) in tolerances
    if not informational(metric):
        return True
    return no_compiled and metric.startswith(LOWERED) and not informational(metric.removeprefix(LOWERED))


def _metric_finding(artifact: str, metric: str, old: Any, new: Any, tolerances: Mapping[str, float]) -> Finding | None:
    """A rise beyond tolerance (failing), a fall (an improvement), or None within tolerance."""
    kind, label = check_kind(artifact), metric_label(metric)
    if not _is_number(old) or not _is_number(new):
        message = f"{label}: {show(old)} -> {show(new)}"
        return Finding(kind, artifact, message, change=Change.INCOMPARABLE, subject=metric, before=old, after=new)
    tolerance = metric_tolerance(metric, old, new, tolerances)
    change = relative_change(old, new)
    if abs(change) <= tolerance:
        return None
    moved = figure_change(metric, old, new) if old != 0 else "from 0"
    figures = f"{label} {figure_values(old, new)} ({moved}"
    within = f"tolerance {format_tolerance(tolerance)})"
    fields: dict[str, Any] = {"change": Change.FIGURE, "subject": metric, "before": old, "after": new}
    if metric in SAVINGS_METRICS and change < 0:
        return Finding(kind, artifact, f"{figures}, {within}: fewer bytes shared between inputs and outputs", **fields)
    if change > 0 and metric not in SAVINGS_METRICS:
        return Finding(kind, artifact, f"{figures}, {within}", **fields)
    return Finding(kind, artifact, f"{figures}): improved; {IMPROVEMENT_HINT}", failing=False, **fields)


def compiled(metrics: Mapping[str, object]) -> bool:
    """Whether a cost artifact holds compiled figures (else its lowered ones are the judged ones)."""
    figures = metrics.get("compiled")
    return not isinstance(figures, Mapping) or not figures.get("unavailable")


def flatten_metrics(data: Mapping[str, object]) -> dict[str, Any]:
    """``{"compiled": {"flops": 1}, "lowered": {...}}`` -> ``{"flops": 1, "lowered flops": ...}``."""
    flat: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            prefix = "" if key == "compiled" else f"{key} "
            flat.update({f"{prefix}{k}": v for k, v in flatten_metrics(value).items()})
        else:
            flat[key] = value
    return flat


def metric_tolerance(metric: str, old: Any, new: Any, tolerances: Mapping[str, float]) -> float:
    """The configured tolerance for ``metric``; by default 0.1%, exact for integers but those of the allocator.

    A lowered figure (``lowered flops``) falls back to the compiled one's tolerance, and a
    per-operand figure (``bytes accessed0{}``) to its family's (``bytes accessed``).
    """
    compiled_name = metric.removeprefix(LOWERED)
    for key in (metric, compiled_name, OPERAND_PART.sub("", compiled_name)):
        if key in tolerances:
            return tolerances[key]
    if "default" in tolerances:
        return tolerances["default"]
    both_integral = all(float(v).is_integer() for v in (old, new)) and not any(isinstance(v, float) for v in (old, new))
    return 0.0 if both_integral and compiled_name not in ALLOCATOR_FIGURES else DEFAULT_FLOAT_TOLERANCE


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def figures(pair: Pair) -> Compared:
    """Cost and memory figures against their tolerances; every numeric figure that moved is a delta."""
    old, new = flatten_metrics(pair.before), flatten_metrics(pair.after)
    deltas = {
        metric: [old[metric], new[metric]]
        for metric in sorted(set(old) & set(new))
        if _is_number(old[metric]) and _is_number(new[metric]) and old[metric] != new[metric]
    }
    return Compared(compare_metrics(pair.artifact, pair.before, pair.after, pair.tolerance), deltas)
