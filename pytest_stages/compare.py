"""Comparison: a snapshot and a fresh artifact in, findings out.

Texts compare exactly and report a bounded unified diff with a structural
summary (ops added/removed); metrics compare with per-metric relative
tolerances (a rise beyond it fails, a fall is an improvement); shardings and
layouts report each leaf whose placement, layout or donation changed. deepdiff
is imported where it is used: an unchanged snapshot never pays for it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .analyses import COLLECTIVES, shape_bytes, strip_layouts
from .textdiff import describe_sources, edit_script, side_by_side, sources, unified


DEFAULT_FLOAT_TOLERANCE = 0.001
REPORT_ROWS = 400
STAGE_TEXTS = ("jaxpr", "stablehlo", "hlo", "compiled")
TEXT_KIND_ARTIFACTS = (*STAGE_TEXTS, "ops")
IMPROVEMENT_HINT = "run `pytest --stages-update` to accept it"
_JAXPR_EQUATION = re.compile(r"^[ \t]*(?:\S+:\S+[ \t]+)+=[ \t]+([a-z_]\w*)", re.MULTILINE)
_HLO_OPCODE = re.compile(
    r"^[ \t]*(?:ROOT[ \t]+)?%?[^\s=]+ = (?:\((?:[^()\n]|\([^()\n]*\))*\)|[a-z][^\s(]*) ([a-z][\w-]*)\(",
    re.MULTILINE,
)
_HLO_COLLECTIVE = re.compile(
    r"^[ \t]*(?:ROOT[ \t]+)?%?[^\s=]+ = (\((?:[^()\n]|\([^()\n]*\))*\)|[a-z][^\s(]*) ("
    + "|".join(COLLECTIVES) + r")(?:-start)?\(",
    re.MULTILINE,
)
_MLIR_OP = re.compile(r"^[ \t]*(?:%[^=\n]+=[ \t]+)?\"?([a-z_]+\.[a-z_][\w.]*)", re.MULTILINE)


@dataclass(frozen=True)
class Finding:
    """One difference between a snapshot and what was staged.

    ``kind`` is the check it belongs to (text, cost, memory, sharding, layout,
    budget); ``failing`` is False for improvements and notes; ``detail`` holds
    JSON-ready data for reports (the side-by-side diff of a drift).
    """

    kind: str
    artifact: str
    message: str
    failing: bool = True
    detail: Mapping[str, Any] | None = field(default=None, compare=False)


def check_kind(artifact: str) -> str:
    """The ``--stages-check`` kind an artifact belongs to."""
    return "text" if artifact in TEXT_KIND_ARTIFACTS else artifact


def compare_text(
    artifact: str,
    expected: str,
    actual: str,
    *,
    diff_lines: int,
    locations: Callable[[], Sequence[str | None] | None] | None = None,
) -> Finding | None:
    """IR drift: a structural summary, the source lines of the changed ops, and a bounded diff.

    ``locations`` gives, on demand, the source location of each line of ``actual``; the
    finding's ``detail`` keeps the same essentials (and a side-by-side diff) for reports.
    """
    if expected == actual:
        return None
    script = edit_script(artifact, expected, actual)
    middle = script.middle()
    counts = op_counts(artifact, middle[0]), op_counts(artifact, middle[1])
    summary = op_change_summary(*counts)
    head = ([f"ops: {summary}"] if summary else []) + hlo_structure_summary(artifact, (expected, actual), middle, counts)
    where = (locations() if locations else None) or []
    found = sources(script, where) if where else []
    if next(script.changes(), None) is None and not script.truncated:
        head.append("only value names changed (renumbered): no op was added, removed or rewired")
    if found:
        head.append(f"source: {describe_sources(found)}")
    detail = {
        "summary": head,
        "sources": [[place, counts] for place, counts in found],
        "hunks": side_by_side(script, REPORT_ROWS, where),
        "truncated": script.truncated,
    }
    title = "IR drift" if artifact in STAGE_TEXTS else "op structure changed"
    return Finding(check_kind(artifact), artifact, f"{title}\n" + _indent(head + unified(script, diff_lines)), detail=detail)


def op_counts(artifact: str, text: str) -> Counter[str]:
    """Operation names counted in a stage text (HLO opcodes, StableHLO ops, jaxpr primitives)."""
    pattern = {"hlo": _HLO_OPCODE, "compiled": _HLO_OPCODE, "jaxpr": _JAXPR_EQUATION}.get(artifact, _MLIR_OP)
    return Counter(pattern.findall(text))


def hlo_structure_summary(
    artifact: str, texts: tuple[str, str], middle: tuple[str, str], counts: tuple[Counter[str], Counter[str]]
) -> list[str]:
    """For HLO drift: fusion count and collectives (with shapes and bytes) added or removed.

    ``middle`` is the differing part of both ``texts`` and ``counts`` its op counts: what the
    texts share cancels out, so only the fusion totals need the whole texts.
    """
    if artifact not in ("hlo", "compiled"):
        return []
    lines = []
    if counts[0]["fusion"] != counts[1]["fusion"]:
        before, after = (text.count(" fusion(") for text in texts)
        lines.append(f"fusions: {before} -> {after}")
    old, new = (Counter(_collective_text(c) for c in collectives(text)) for text in middle)
    changes = [f"+{n} {text}" for text, n in sorted((new - old).items())]
    changes += [f"-{n} {text}" for text, n in sorted((old - new).items())]
    if changes:
        lines.append("collectives: " + ", ".join(changes))
    return lines


def collectives(text: str) -> list[dict[str, Any]]:
    """Collectives of an HLO text with shapes and bytes (one regex pass: cheap on huge modules)."""
    if not any(op in text for op in COLLECTIVES):
        return []
    return [
        {"op": op, "shape": strip_layouts(shape), "bytes": shape_bytes(shape)}
        for shape, op in _HLO_COLLECTIVE.findall(text)
    ]


def _collective_text(collective: Mapping[str, Any]) -> str:
    return f"{collective['op']} {collective['shape']} ({format_bytes(collective['bytes'])})"


def op_change_summary(before: Counter[str], after: Counter[str]) -> str:
    """``+1 multiply, -2 add`` (empty when the op counts are equal)."""
    parts = []
    for name in sorted(set(before) | set(after)):
        delta = after[name] - before[name]
        if delta:
            parts.append(f"{delta:+d} {name}")
    return ", ".join(parts)


def compare_metrics(
    artifact: str,
    expected: Mapping[str, Any],
    actual: Mapping[str, Any],
    tolerances: Mapping[str, float],
) -> list[Finding]:
    """Cost/memory figures: rises beyond tolerance fail, falls are reported as improvements."""
    findings = []
    from deepdiff import DeepDiff

    before, after = flatten_metrics(expected), flatten_metrics(actual)
    diff = DeepDiff(before, after, view="tree", ignore_numeric_type_changes=True)
    no_compiled = not _compiled(expected) and not _compiled(actual)
    for metric in sorted({level.path(output_format="list")[0] for level in _levels(diff)}):
        judged_lowered = (
            no_compiled and metric.startswith("lowered ")
            and not informational(metric.removeprefix("lowered "))
        )
        if informational(metric) and not judged_lowered:
            continue
        old, new = before.get(metric), after.get(metric)
        if not _is_number(old) or not _is_number(new):
            findings.append(Finding(artifact, artifact, f"{metric}: {_show(old)} -> {_show(new)}"))
            continue
        tolerance = metric_tolerance(metric, old, new, tolerances)
        change = relative_change(old, new)
        if abs(change) <= tolerance:
            continue
        text = f"{metric} {format_number(old)} -> {format_number(new)} ({change:+.1%}"
        if change > 0:
            findings.append(
                Finding(artifact, artifact, f"{text}, tolerance {format_tolerance(tolerance)})")
            )
        else:
            findings.append(
                Finding(artifact, artifact, f"{text}): improved; {IMPROVEMENT_HINT}", failing=False)
            )
    return findings


def _compiled(metrics: Mapping[str, Any]) -> bool:
    """Whether a cost artifact holds compiled figures (else its lowered ones are the judged ones)."""
    compiled = metrics.get("compiled")
    return not isinstance(compiled, Mapping) or not compiled.get("unavailable")


def informational(metric: str) -> bool:
    """Figures recorded but never judged: pre-optimization (lowered) cost, utilization, estimates."""
    return metric.startswith("lowered ") or metric.startswith(("utilization", "optimal_seconds"))


def flatten_metrics(data: Mapping[str, Any]) -> dict[str, Any]:
    """``{"compiled": {"flops": 1}, "lowered": {...}}`` -> ``{"flops": 1, "lowered flops": ...}``."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            prefix = "" if key == "compiled" else f"{key} "
            flat.update({f"{prefix}{k}": v for k, v in flatten_metrics(value).items()})
        else:
            flat[key] = value
    return flat


def metric_tolerance(metric: str, old: Any, new: Any, tolerances: Mapping[str, float]) -> float:
    """The configured tolerance for ``metric``; default exact for integers, 0.1% for floats."""
    bare = metric.rsplit(" ", 1)[-1]
    for key in (metric, bare):
        if key in tolerances:
            return tolerances[key]
    if "default" in tolerances:
        return tolerances["default"]
    both_integral = all(float(v).is_integer() for v in (old, new)) and not any(
        isinstance(v, float) for v in (old, new)
    )
    return 0.0 if both_integral else DEFAULT_FLOAT_TOLERANCE


def relative_change(old: float, new: float) -> float:
    if old == new:
        return 0.0
    if old == 0:
        return float("inf") if new > 0 else float("-inf")
    return (new - old) / abs(old)


def compare_placement(
    artifact: str, expected: Mapping[str, Any], actual: Mapping[str, Any]
) -> list[Finding]:
    """Sharding/layout: one finding per leaf and field that changed, with before -> after."""
    from deepdiff import DeepDiff

    diff = DeepDiff(expected, actual, view="tree")
    seen: dict[tuple[str, ...], None] = {}
    for level in _levels(diff):
        path = tuple(str(p) for p in level.path(output_format="list"))
        seen[path[:3] if path and path[0] in ("inputs", "outputs") else path[:1]] = None
    sides = {"inputs": 0, "outputs": 1}
    fields = {"sharding": 0, "donated": 1, "aliased_to": 2}
    keys = sorted(seen, key=lambda k: (sides.get(k[0], 2), k[1:2], fields.get(k[2] if len(k) > 2 else "", 3)))
    return [Finding(artifact, artifact, _placement_message(key, expected, actual)) for key in keys]


def _placement_message(key: tuple[str, ...], expected: Mapping[str, Any], actual: Mapping[str, Any]) -> str:
    if key[0] == "collectives":
        before = _collective_summary(expected.get("collectives", []))
        after = _collective_summary(actual.get("collectives", []))
        return f"collectives: {before} -> {after}"
    side, leaf = key[0], key[1]
    label = f"{side[:-1]} {leaf}"
    old_leaf = expected.get(side, {}).get(leaf)
    new_leaf = actual.get(side, {}).get(leaf)
    if old_leaf is None:
        return f"{label}: new leaf ({_describe_leaf(new_leaf)})"
    if new_leaf is None:
        return f"{label}: leaf removed (was {_describe_leaf(old_leaf)})"
    field = key[2] if len(key) > 2 else ""
    old, new = old_leaf.get(field), new_leaf.get(field)
    if field == "donated":
        return f"{label} no longer donated" if old else f"{label} is now donated"
    if field == "aliased_to":
        if new is None:
            return f"{label}: donated buffer no longer reused for {old} (XLA could not alias it)"
        return f"{label}: buffer now aliased to {new} (was {old or 'none'})"
    if field == "sharding":
        return f"{label}: {_describe_sharding(old)} -> {_describe_sharding(new)}"
    if field == "major_to_minor":
        return f"{label} layout {_tuple(old)} -> {_tuple(new)}"
    return f"{label} {field}: {_show(old)} -> {_show(new)}"


def _describe_leaf(leaf: Mapping[str, Any] | None) -> str:
    if leaf is None:
        return "none"
    if "sharding" in leaf:
        return _describe_sharding(leaf["sharding"])
    return json.dumps(leaf, sort_keys=True)


def _describe_sharding(sharding: Mapping[str, Any] | None) -> str:
    if not sharding:
        return "none"
    if "spec" in sharding:
        mesh = ",".join(f"{axis}={size}" for axis, size in sharding.get("mesh", {}).items())
        return f"{sharding['spec']} over mesh({mesh})"
    devices = sharding.get("devices")
    return f"{sharding.get('kind')} on devices {devices}"


def _collective_summary(collectives: Iterable[Mapping[str, Any]]) -> str:
    counts = Counter(_collective_text(c) for c in collectives)
    if not counts:
        return "none"
    return ", ".join(f"{n}x {text}" if n > 1 else text for text, n in sorted(counts.items()))


def _levels(diff: Any) -> Iterable[Any]:
    for report in diff.values():
        yield from report


def _indent(lines: Iterable[str]) -> str:
    return "\n".join(f"    {line}" for line in lines)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _show(value: Any) -> str:
    return "absent" if value is None else json.dumps(value, sort_keys=True)


def _tuple(value: Any) -> str:
    return "(" + ",".join(str(v) for v in value) + ")" if isinstance(value, list) else _show(value)


def format_number(value: float) -> str:
    """Compact figures for messages: ``1055``, ``2.31e9``."""
    text = f"{value:.3g}" if abs(value) >= 1e6 else f"{value:g}"
    return text.replace("e+0", "e").replace("e+", "e")


def format_tolerance(tolerance: float) -> str:
    """``0.02`` -> ``2%``; ``0`` -> ``exact``."""
    return "exact" if tolerance == 0 else f"{tolerance * 100:g}%"


def format_bytes(count: float) -> str:
    """``131072`` -> ``128.0 KiB``."""
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
