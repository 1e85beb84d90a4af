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
from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_stages.analyse.analyses import loop_entry
from pytest_stages.analyse.artifacts import BY_NAME, check_kind
from pytest_stages.config import OPERAND_PART
from pytest_stages.core.records import Change, Finding
from pytest_stages.core.units import (
    format_bytes,
    format_number,
    format_tolerance,
    relative_change,
)
from pytest_stages.ir import hlo
from pytest_stages.ir.alpha import equivalent
from pytest_stages.ir.textdiff import (
    describe_sources,
    edit_script,
    side_by_side,
    sources,
    unified,
)

DEFAULT_FLOAT_TOLERANCE = 0.001
REPORT_ROWS = 400
NO_SNAPSHOT = "no snapshot yet"
IMPROVEMENT_HINT = "run `pytest --stages-update` to accept it"
# Leaves sharing one change are listed as one line from this many on, naming the first few.
GROUP_LEAST = 3
GROUP_NAMES = 3
# Figures where more is better: bytes an output reuses from a donated input.
SAVINGS_METRICS = ("alias_size_in_bytes", "host_alias_size_in_bytes")
# A jaxpr equation's primitive: ``    c:f32[4] d:f32[4] = pjit[...]`` -> ``pjit``.
_JAXPR_EQUATION = re.compile(r"^[ \t]*(?:\S+:\S+[ \t]+)+=[ \t]+([a-z_]\w*)", re.MULTILINE)
# An MLIR line's op: ``%0 = stablehlo.add %a, %b : tensor<4xf32>`` -> ``stablehlo.add``.
_MLIR_OP = re.compile(r"^[ \t]*(?:%[^=\n]+=[ \t]+)?\"?([a-z_]+\.[a-z_][\w.]*)", re.MULTILINE)
# A per-operand cost key: ``bytes accessed1{}`` -> ``1``; ``bytes accessedout{}`` -> ``out``.
_OPERAND_KEY = re.compile(r"^bytes accessed(?P<operand>\d+|out)\{(?P<index>[^{}]*)\}$")
# The prefix of a pre-optimization figure standing in for a compiled one: ``lowered flops``.
LOWERED = "lowered "
# Changes that round to nothing as a percentage are shown as absolute amounts.
PERCENT_FLOOR = 0.0005


def no_snapshot(artifact: str) -> Finding:
    """The finding of an artifact never recorded."""
    return Finding(check_kind(artifact), artifact, NO_SNAPSHOT, change=Change.NO_SNAPSHOT)


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
    Texts equal up to a one-to-one renaming of their names are the same program: no drift.
    """
    dialect = BY_NAME[artifact].dialect
    if equivalent(dialect, expected, actual):
        return None
    script = edit_script(dialect, expected, actual)
    differing = script.differing()
    counts = op_counts(artifact, differing[0]), op_counts(artifact, differing[1])
    summary = op_change_summary(*counts)
    structure = hlo_structure_summary(artifact, (expected, actual), differing, counts)
    head = ([f"ops: {summary}"] if summary else []) + structure
    where = (locations() if locations else None) or []
    found, removed = _own_lines(sources(script, where)) if where else ([], 0)
    if next(script.changes(), None) is None and not script.truncated:
        head.append("only names changed, but not one-to-one: two values now share a name, or one has two")
    if found:
        head.append(f"source: {describe_sources(found)}")
    if removed:
        head.append(f"removed: {removed} line(s), whose source lines the snapshot does not keep")
    detail = {
        "summary": head,
        "sources": [[place, counts] for place, counts in found],
        "hunks": side_by_side(script, REPORT_ROWS, where),
        "truncated": script.truncated,
    }
    title = BY_NAME[artifact].title
    return Finding(
        check_kind(artifact),
        artifact,
        f"{title}\n" + _indent(head + unified(script, diff_lines)),
        detail=detail,
        change=Change.DRIFT,
        locations=tuple(describe_sources([place]) for place in found),
        ops=op_deltas(*counts),
        moves=tuple(structure),
    )


def _own_lines(found: list[tuple[str, dict[str, int]]]) -> tuple[list[tuple[str, dict[str, int]]], int]:
    """Source lines of the added and changed lines only, and how many lines were removed.

    A removed line has no location (the snapshot keeps none); charging it to the staged line
    after it would name code that does not hold it (dropping weight decay read as a change in
    optax's schedule).
    """
    removed = sum(counts.get("removed", 0) for _, counts in found)
    own = [(place, {k: n for k, n in counts.items() if k != "removed"}) for place, counts in found]
    return [(place, counts) for place, counts in own if counts], removed


def compare_ops(
    expected: str,
    actual: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    diff_lines: int,
    loop_places: Sequence[str | None] = (),
) -> Finding | None:
    """``ops.json`` drift, its title naming what moved: collectives into or out of loops first, then
    op counts, fusions, collectives, entry shapes.

    ``loop_places`` names where each loop of ``after`` was written (``examples/models.py:55 in rnn``).
    """
    found = compare_text("ops", expected, actual, diff_lines=diff_lines)
    if found is None:
        return None
    opcodes = Counter(before.get("opcodes", {})), Counter(after.get("opcodes", {}))
    # Collectives that started crossing slices, then those that moved into loops: the headline leads with them.
    loops = dcn_changes(before, after) + loop_collective_changes(before, after, loop_places)
    moves = collective_deltas(before.get("collectives", []), after.get("collectives", []))
    moves += [
        f"{delta:+d} custom-call {target}"
        for target, delta in op_deltas(
            Counter(before.get("custom_calls", {})), Counter(after.get("custom_calls", {}))
        ).items()
    ]
    fusions = before.get("fusion_count"), after.get("fusion_count")
    entry = before.get("entry", {}) != after.get("entry", {})
    ends = [f"fusions {fusions[0]} -> {fusions[1]}"] if fusions[0] != fusions[1] else [""]
    ends += [ENTRY_CHANGED] if entry else []
    ops = op_deltas(*opcodes)
    summary = ", ".join(part for part in [*loops, op_change_summary(*opcodes), *ends[:1], *moves, *ends[1:]] if part)
    title, _, rest = found.message.partition("\n")
    return Finding(
        found.kind,
        found.artifact,
        f"{title}: {summary}\n{rest}" if summary else found.message,
        detail=found.detail,
        change=Change.OPS,
        subject=ENTRY_CHANGED if entry else "",
        before=fusions[0] if fusions[0] != fusions[1] else None,
        after=fusions[1] if fusions[0] != fusions[1] else None,
        ops=ops,
        moves=(*loops, *moves),
    )


ENTRY_CHANGED = "entry shapes changed"


def collective_deltas(before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]]) -> list[str]:
    """``+1 all-gather f32[8,32,64] (16.0 KiB)``: the collectives added and removed, not the whole lists."""
    old, new = Counter(_collective_text(c) for c in before), Counter(_collective_text(c) for c in after)
    return [f"+{n} {text}" for text, n in sorted((new - old).items())] + [
        f"-{n} {text}" for text, n in sorted((old - new).items())
    ]


def op_deltas(before: Counter[str], after: Counter[str]) -> dict[str, int]:
    """``{"add": -18, "mul": 2}``: the op kinds whose count changed, by name."""
    return {
        name: after[name] - before[name] for name in sorted(set(before) | set(after)) if after[name] != before[name]
    }


def dcn_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Collectives that started crossing slices, else DCN bytes that grew (``ops.json``'s ``networks``).

    ``all-reduce bf16[2048,8192] now crosses slices: +32.0 MiB over DCN``; ``DCN bytes 1.0 MiB -> 3.0 MiB (+2.0 MiB)``.
    """
    old, new = (side.get("networks", {}).get("dcn", {}) for side in (before, after))
    if not new:
        return []
    seen = Counter((c["op"], c["shape"]) for c in old.get("collectives", []))
    lines = []
    for collective in new.get("collectives", []):
        key = (collective["op"], collective["shape"])
        if seen[key] > 0:
            seen[key] -= 1
        else:
            lines.append(f"{key[0]} {key[1]} now crosses slices: +{format_bytes(collective['bytes'])} over DCN")
    grown = new.get("bytes", 0) - old.get("bytes", 0)
    if not lines and grown > 0:
        lines.append(
            f"DCN bytes {format_bytes(old.get('bytes', 0))} -> {format_bytes(new['bytes'])} (+{format_bytes(grown)})"
        )
    return lines


def loop_collective_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], places: Sequence[str | None] = ()
) -> list[str]:
    """Collectives that came into or left a loop body (``ops.json``'s ``loops``, matched by position).

    One that appears in a loop while the same kind leaves the code outside loops *moved* into it:
    ``all-gather moved into the while body of examples/models.py:55 in rnn (x 12 iterations): f32[1,64,64] (16.0 KiB)``.
    """
    outside = [_outside_loops(side) for side in (before, after)]
    old_loops, new_loops = before.get("loops", []), after.get("loops", [])
    lines = []
    for k in range(max(len(old_loops), len(new_loops))):
        loop = new_loops[k] if k < len(new_loops) else old_loops[k]
        where = places[k] if k < len(places) and places[k] else f"loop {k + 1}"
        trips = f" (x {loop['trip_count']} iterations)" if loop.get("trip_count") else ""
        old, new = (
            Counter(_collective_text(c) for c in (side[k]["collectives"] if k < len(side) else []))
            for side in (old_loops, new_loops)
        )
        for text, n in sorted((new - old).items()):
            op = text.split(" ", 1)[0]
            moved = outside[1][op] < outside[0][op]
            lines.append(
                f"{op} moved into the while body of {where}{trips}: {text.split(' ', 1)[1]}"
                if moved
                else f"+{n} {text} in the while body of {where}{trips}"
            )
        lines += [f"-{n} {text} out of the while body of {where}" for text, n in sorted((old - new).items())]
    return lines


def _outside_loops(ops: Mapping[str, Any]) -> Counter[str]:
    """Collectives by kind outside every loop body: all of them less those the loops run."""
    inside = Counter(c["op"] for loop in ops.get("loops", []) for c in loop["collectives"])
    return Counter(c["op"] for c in ops.get("collectives", [])) - inside


def op_counts(artifact: str, text: str) -> Counter[str]:
    """Operation names counted in a stage text (HLO opcodes, StableHLO ops, jaxpr primitives)."""
    if artifact in ("hlo", "compiled"):
        return hlo.opcode_counts(text)
    return Counter((_JAXPR_EQUATION if artifact == "jaxpr" else _MLIR_OP).findall(text))


def hlo_structure_summary(
    artifact: str, texts: tuple[str, str], differing: tuple[str, str], counts: tuple[Counter[str], Counter[str]]
) -> list[str]:
    """For HLO drift: fusion count and collectives (with shapes and bytes) added or removed.

    ``differing`` is the differing lines of both ``texts`` and ``counts`` their op counts: what
    the texts share cancels out, so only the fusion totals need the whole texts.
    """
    if artifact not in ("hlo", "compiled"):
        return []
    lines = []
    if counts[0]["fusion"] != counts[1]["fusion"]:
        before, after = (hlo.count_opcode(text, "fusion") for text in texts)
        lines.append(f"fusions: {before} -> {after}")
    old, new = (Counter(_collective_text(asdict(c)) for c in hlo.collectives(text)) for text in differing)
    changes = [f"+{n} {text}" for text, n in sorted((new - old).items())]
    changes += [f"-{n} {text}" for text, n in sorted((old - new).items())]
    if changes:
        lines.append("collectives: " + ", ".join(changes))
    if changes and any(" while(" in text for text in texts):
        moved = loop_collective_changes(_loop_view(texts[0]), _loop_view(texts[1]))
        lines += ["loops: " + ", ".join(moved)] if moved else []
    return lines


def _loop_view(text: str) -> dict[str, Any]:
    """The part of ``ops.json`` that :func:`loop_collective_changes` reads, from an HLO text."""
    return {
        "collectives": [asdict(c) for c in hlo.collectives(text)],
        "loops": [loop_entry(loop) for loop in hlo.loops(text)],
    }


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
    if artifact == "cost" and _compiled(expected) != _compiled(actual):
        was, now = ("compiled", "lowered") if _compiled(expected) else ("lowered", "compiled")
        return [
            Finding(
                artifact,
                artifact,
                f"the snapshot counts the {was} program, this run the {now} one (only an attached platform "
                "has a compiled cost): the figures do not compare; run `pytest --stages-update` to record them",
                change=Change.INCOMPARABLE,
                before=was,
                after=now,
            )
        ]
    before, after = flatten_metrics(expected), flatten_metrics(actual)
    diff = _deepdiff(before, after, ignore_numeric_type_changes=True)
    no_compiled = not _compiled(expected) and not _compiled(actual)
    findings = []
    for metric in sorted({level.path(output_format="list")[0] for level in _levels(diff)}):
        if _judged(metric, no_compiled):
            old, new = before.get(metric), after.get(metric)
            if artifact == "cost" and (_is_number(old) or _is_number(new)):
                old, new = old if old is not None else 0, new if new is not None else 0
            found = _metric_finding(artifact, metric, old, new, tolerances)
            findings += [found] if found else []
    return findings


def _judged(metric: str, no_compiled: bool) -> bool:
    """Whether a changed figure is judged: not informational, or a lowered figure standing in for compiled."""
    if not informational(metric):
        return True
    return no_compiled and metric.startswith("lowered ") and not informational(metric.removeprefix("lowered "))


def _metric_finding(artifact: str, metric: str, old: Any, new: Any, tolerances: Mapping[str, float]) -> Finding | None:
    """A rise beyond tolerance (failing), a fall (an improvement), or None within tolerance."""
    if not _is_number(old) or not _is_number(new):
        return Finding(
            artifact,
            artifact,
            f"{metric}: {_show(old)} -> {_show(new)}",
            change=Change.INCOMPARABLE,
            subject=metric,
            before=old,
            after=new,
        )
    tolerance = metric_tolerance(metric, old, new, tolerances)
    change = relative_change(old, new)
    if abs(change) <= tolerance:
        return None
    moved = figure_change(metric, old, new) if old != 0 else "from 0"
    figures = f"{metric_label(metric)} {figure_values(old, new)} ({moved}"
    within = f"tolerance {format_tolerance(tolerance)})"
    fields: dict[str, Any] = {"change": Change.FIGURE, "subject": metric, "before": old, "after": new}
    if metric in SAVINGS_METRICS and change < 0:
        return Finding(
            artifact, artifact, f"{figures}, {within}: fewer bytes shared between inputs and outputs", **fields
        )
    if change > 0 and metric not in SAVINGS_METRICS:
        return Finding(artifact, artifact, f"{figures}, {within}", **fields)
    return Finding(artifact, artifact, f"{figures}): improved; {IMPROVEMENT_HINT}", failing=False, **fields)


def metric_label(metric: str) -> str:
    """A figure as people name it; XLA's per-operand keys keep their raw key in brackets.

    XLA sums ``bytes accessed<k>{}`` over every op of the module, by the op's operand position
    ``k`` (not by the program's inputs), and ``bytes accessedout{}`` over the ops' outputs:
    ``bytes accessed1{}`` -> ``bytes read as operand 1 of the ops [bytes accessed1{}]``; a lowered
    figure keeps its prefix (``lowered bytes read as operand 1 ...``).
    """
    if metric.startswith(LOWERED):
        return LOWERED + metric_label(metric.removeprefix(LOWERED))
    match = _OPERAND_KEY.match(metric)
    if match is None:
        return metric
    index = f", output {match['index']}" if match["index"] else ""
    if match["operand"] == "out":
        return f"bytes written by the ops{index} [{metric}]"
    return f"bytes read as operand {match['operand']} of the ops{index} [{metric}]"


def metric_short(metric: str) -> str:
    """A headline's name of a figure: ``peak``, ``temp``, ``flops``, ``ops' operand-1 bytes``, ``ops' output bytes``."""
    if metric.startswith(LOWERED):
        return LOWERED + metric_short(metric.removeprefix(LOWERED))
    match = _OPERAND_KEY.match(metric)
    if match is not None:
        return "ops' output bytes" if match["operand"] == "out" else f"ops' operand-{match['operand']} bytes"
    for suffix in ("_size_in_bytes", "_memory_in_bytes"):
        if metric.endswith(suffix):
            return metric.removesuffix(suffix)
    return metric


def _in_bytes(metric: str) -> bool:
    return "bytes" in metric


def figure_values(old: float, new: float) -> str:
    """``1.28e6 -> 1.35e6``: the exact figures of the file, with enough digits to differ."""
    before, after = format_number(old), format_number(new)
    if before == after:
        before, after = f"{old:.9g}", f"{new:.9g}"
    return f"{before} -> {after}"


def figure_change(metric: str, old: float, new: float) -> str:
    """How a figure moved, as a reviewer reads it: ``+20.0%``; ``+4 B`` where the percentage rounds
    to nothing; ``0 -> 1.2 MiB`` from zero (never ``+inf%`` or ``+0.0%``)."""
    show = format_bytes if _in_bytes(metric) else format_number
    if old == 0:
        return f"0 -> {show(new)}"
    change = relative_change(old, new)
    if abs(change) < PERCENT_FLOOR:
        delta = new - old
        return ("+" if delta > 0 else "-") + show(abs(delta))
    # Under 1% one more digit, so that a change just beyond a 0.1% tolerance does not read as 0.1%.
    return f"{change:+.2%}" if abs(change) < 0.01 else f"{change:+.1%}"


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
    """The configured tolerance for ``metric``; default exact for integers, 0.1% for floats.

    A lowered figure (``lowered flops``) falls back to the compiled one's tolerance, and a
    per-operand figure (``bytes accessed0{}``) to its family's (``bytes accessed``).
    """
    compiled = metric.removeprefix("lowered ")
    for key in (metric, compiled, OPERAND_PART.sub("", compiled)):
        if key in tolerances:
            return tolerances[key]
    if "default" in tolerances:
        return tolerances["default"]
    both_integral = all(float(v).is_integer() for v in (old, new)) and not any(isinstance(v, float) for v in (old, new))
    return 0.0 if both_integral else DEFAULT_FLOAT_TOLERANCE


def compare_placement(artifact: str, expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Finding]:
    """Sharding/layout: one finding per leaf and field that changed (grouped across leaves), with before -> after.

    Each finding's ``moves`` holds its headline text: shardings without their mesh.
    """
    keys = placement_keys(expected, actual)
    full = group_leaves([_placement_change(key, expected, actual) for key in keys])
    short = group_leaves([_placement_change(key, expected, actual, mesh=False) for key in keys])
    return [
        Finding(
            artifact,
            artifact,
            message,
            change=Change.COLLECTIVES if message.startswith(COLLECTIVES_LABEL) else Change.PLACEMENT,
            moves=(headline,),
        )
        for message, headline in zip(full, short, strict=True)
    ]


COLLECTIVES_LABEL = "collectives: "


PLACEMENT_SIDES = ("inputs", "outputs")
_FIELD_ORDER = {"sharding": 0, "donated": 1, "aliased_to": 2}


def placement_keys(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """What changed, read from deepdiff's paths.

    ``(side, leaf)``: a leaf added or removed; ``(side, leaf, field)``; ``("collectives",)``.
    ``root['inputs']["params['w']"]['sharding']['spec']`` becomes ``("inputs", "params['w']", "sharding")``.
    A donation gained or lost explains its aliasing change, so that leaf's ``aliased_to`` is dropped.
    """
    keys: set[tuple[str, ...]] = set()
    for level in _levels(_deepdiff(dict(expected), dict(actual))):
        path = [str(part) for part in level.path(output_format="list")]
        if path[0] == "collectives":
            keys.add(("collectives",))
        elif path[0] not in PLACEMENT_SIDES:
            continue
        elif len(path) == 1:
            keys.update((path[0], leaf) for leaf in {*expected.get(path[0], {}), *actual.get(path[0], {})})
        else:
            keys.add(tuple(path[:3]))
    keys -= {(key[0], key[1], "aliased_to") for key in keys if key[2:] == ("donated",)}
    return sorted(
        keys,
        key=lambda key: (
            len(PLACEMENT_SIDES) if key[0] == "collectives" else PLACEMENT_SIDES.index(key[0]),
            key[1:2],
            [(_FIELD_ORDER.get(f, 3), f) for f in key[2:]],
        ),
    )


def group_leaves(changes: Sequence[tuple[str, str, str, str]], least: int = GROUP_LEAST) -> list[str]:
    """``(side, leaf, change, extra)`` as messages; ``least`` or more leaves with one change are one line.

    ``19 inputs (params['a'], params['b'], params['c'], +16 more) no longer donated``; a
    change seen fewer times reads ``input x no longer donated`` followed by its ``extra``
    (what the leaf was). First appearance keeps the order.
    """
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for side, leaf, change, extra in changes:
        groups.setdefault((side, change), []).append((leaf, extra))
    messages = []
    for (side, change), members in groups.items():
        leaves = [leaf for leaf, _ in members]
        if not side:
            messages.append(change)
        elif len(leaves) < least:
            messages += [f"{side} {leaf}{change}{extra}" for leaf, extra in members]
        else:
            shown = ", ".join(leaves[:GROUP_NAMES]) + (
                f", +{len(leaves) - GROUP_NAMES} more" if len(leaves) > GROUP_NAMES else ""
            )
            messages.append(f"{len(leaves)} {side}s ({shown}){change}")
    return messages


def _placement_change(
    key: tuple[str, ...], expected: Mapping[str, Any], actual: Mapping[str, Any], *, mesh: bool = True
) -> tuple[str, str, str, str]:
    """``(side, leaf, change, extra)``: ``("input", "x", " no longer donated", "")``; side "" for collectives.

    Without ``mesh`` a sharding is written without its mesh (for the headline).
    """
    if key[0] == "collectives":
        deltas = collective_deltas(expected.get("collectives", []), actual.get("collectives", []))
        return "", "", COLLECTIVES_LABEL + (", ".join(deltas) or "reordered"), ""
    side, leaf = key[0], key[1]
    label = side[:-1]
    old_leaf = expected.get(side, {}).get(leaf)
    new_leaf = actual.get(side, {}).get(leaf)
    if old_leaf is None:
        return label, leaf, ": new leaf", f" ({_describe_leaf(new_leaf, mesh=mesh)})"
    if new_leaf is None:
        return label, leaf, ": leaf removed", f" (was {_describe_leaf(old_leaf, mesh=mesh)})"
    field = key[2] if len(key) > 2 else ""
    return label, leaf, _field_change(field, old_leaf, new_leaf, mesh=mesh), ""


def _field_change(field: str, old_leaf: Mapping[str, Any], new_leaf: Mapping[str, Any], *, mesh: bool = True) -> str:
    """How one field of a leaf changed: ``" no longer donated"``, ``": buffer now aliased to 0 (was none)"``."""
    old, new = old_leaf.get(field), new_leaf.get(field)
    if field == "donated":
        return _donation_change(old_leaf, new_leaf)
    if field == "aliased_to":
        if new is None:
            return f": donated buffer no longer reused for {old} (XLA could not alias it)"
        return f": buffer now aliased to {new} (was {old or 'none'})"
    if field == "sharding":
        return f": {_describe_sharding(old, mesh=mesh)} -> {_describe_sharding(new, mesh=mesh)}"
    if field == "major_to_minor":
        return f" layout {_tuple(old)} -> {_tuple(new)}"
    return f" {field}: {_show(old)} -> {_show(new)}"


def _donation_change(old_leaf: Mapping[str, Any], new_leaf: Mapping[str, Any]) -> str:
    """A donation lost or gained, and whether XLA had reused (reuses) the buffer."""
    if old_leaf.get("donated"):
        return " no longer donated" + (" (XLA had reused its buffer)" if old_leaf.get("aliased_to") else "")
    return " is now donated" + (
        " (XLA reuses its buffer)" if new_leaf.get("aliased_to") else " (XLA cannot reuse its buffer)"
    )


def _describe_leaf(leaf: Mapping[str, Any] | None, *, mesh: bool = True) -> str:
    if leaf is None:
        return "none"
    if "sharding" in leaf:
        return _describe_sharding(leaf["sharding"], mesh=mesh)
    return json.dumps(leaf, sort_keys=True)


def _describe_sharding(sharding: Mapping[str, Any] | None, *, mesh: bool = True) -> str:
    if not sharding:
        return "none (an unused input jit dropped)"
    memory = sharding.get("memory_kind")
    where = f" in {memory} memory" if memory not in (None, "device") else ""
    if "spec" in sharding:
        if not mesh:
            return f"{sharding['spec']}{where}"
        axes = ",".join(f"{axis}={size}" for axis, size in sharding.get("mesh", {}).items())
        return f"{sharding['spec']} over mesh({axes}){where}"
    devices = sharding.get("devices")
    spread = ""
    if devices and len(devices) > 1 and "replicated" in sharding:
        spread = ", replicated" if sharding["replicated"] else ", split"
    return f"{sharding.get('kind')} on devices {devices}{spread}{where}"


def _deepdiff(before: Any, after: Any, **options: Any) -> Any:
    """deepdiff's tree view, always down to the changed leaves.

    By default deepdiff reports a dict that shares under a third of its keys with the other
    side as one replaced value (``threshold_to_diff_deeper``); a snapshot whose cost gained
    twenty per-operand figures would then have no changed figure to name.
    """
    from deepdiff import DeepDiff

    return DeepDiff(before, after, view="tree", threshold_to_diff_deeper=0, **options)


def _levels(diff: Any) -> Iterable[Any]:
    """Every changed place of a deepdiff tree view, whatever the kind of change."""
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


def ir_drift(pair: Pair) -> Compared:
    """Stage texts: the renumbering-proof diff with its summary and source lines."""
    found = compare_text(
        pair.artifact, pair.expected, pair.actual, diff_lines=pair.diff_lines, locations=pair.locations
    )
    return Compared([found] if found else [])


def op_structure(pair: Pair) -> Compared:
    """``ops.json``: the diff, titled with what moved."""
    places = pair.loop_places() if pair.loop_places is not None else ()
    found = compare_ops(
        pair.expected, pair.actual, pair.before, pair.after, diff_lines=pair.diff_lines, loop_places=places
    )
    return Compared([found] if found else [])


def figures(pair: Pair) -> Compared:
    """Cost and memory figures against their tolerances; every numeric figure that moved is a delta."""
    old, new = flatten_metrics(pair.before), flatten_metrics(pair.after)
    deltas = {
        metric: [old[metric], new[metric]]
        for metric in sorted(set(old) & set(new))
        if _is_number(old[metric]) and _is_number(new[metric]) and old[metric] != new[metric]
    }
    return Compared(compare_metrics(pair.artifact, pair.before, pair.after, pair.tolerance), deltas)


def placement(pair: Pair) -> Compared:
    """Shardings, donations and layouts, leaf by leaf."""
    return Compared(compare_placement(pair.artifact, pair.before, pair.after))


def structure(pair: Pair) -> Compared:
    """Any other JSON artifact: one finding per changed value, named by its path (deepdiff).

    ``['inputs']['x']['shape']: [2] -> [3]``.
    """
    from deepdiff.helper import notpresent

    findings = []
    for level in _levels(_deepdiff(pair.before, pair.after)):
        where = level.path().removeprefix("root")
        old, new = (None if value is notpresent else value for value in (level.t1, level.t2))
        findings.append(
            Finding(
                check_kind(pair.artifact),
                pair.artifact,
                f"{where}: {_show(old)} -> {_show(new)}",
                subject=where,
                before=old,
                after=new,
            )
        )
    return Compared(sorted(findings, key=lambda f: f.message))


FAMILIES: dict[str, Callable[[Pair], Compared]] = {
    "ir": ir_drift,
    "ops": op_structure,
    "figures": figures,
    "placement": placement,
    "structure": structure,
}


def compare_pair(pair: Pair) -> Compared:
    """Compare with the family the artifact table names for ``pair.artifact``."""
    return FAMILIES[BY_NAME[pair.artifact].family](pair)
