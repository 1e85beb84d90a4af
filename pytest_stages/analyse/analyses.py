"""Analyses: JAX stage objects and texts in, JSON-ready dicts out.

Once extracted, nothing downstream touches JAX objects; JAX is imported at its first use.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from pytest_stages import jax_compat
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CostAnalysis
from pytest_stages.ir import hlo

if TYPE_CHECKING:
    import jax

    from pytest_stages.ir import hlo_records as hlo_records_
else:
    hlo_records_ = lazy_module("pytest_stages.ir.hlo_records")
    jax = lazy_module("jax")

MEMORY_FIELDS = (
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
    "generated_code_size_in_bytes",
    "host_argument_size_in_bytes",
    "host_output_size_in_bytes",
    "host_alias_size_in_bytes",
    "host_temp_size_in_bytes",
    "host_generated_code_size_in_bytes",
    "peak_memory_in_bytes",
)
# The one name of each cost and memory figure in settings and messages (budgets, tolerances, reports), with its
# key in cost.json or memory.json (JAX's spelling, which the files keep).
FIGURE_KEYS = {
    "flops": "flops",
    "transcendentals": "transcendentals",
    "bytes_accessed": "bytes accessed",
    "argument_bytes": "argument_size_in_bytes",
    "output_bytes": "output_size_in_bytes",
    "alias_bytes": "alias_size_in_bytes",
    "temp_bytes": "temp_size_in_bytes",
    "code_bytes": "generated_code_size_in_bytes",
    "host_argument_bytes": "host_argument_size_in_bytes",
    "host_output_bytes": "host_output_size_in_bytes",
    "host_alias_bytes": "host_alias_size_in_bytes",
    "host_temp_bytes": "host_temp_size_in_bytes",
    "host_code_bytes": "host_generated_code_size_in_bytes",
    "xla_peak_bytes": "peak_memory_in_bytes",
}
FIGURE_NAMES = {key: name for name, key in FIGURE_KEYS.items()}


def figure_name(key: str) -> str:
    """A file's figure key as pytest-stages names it: ``temp_size_in_bytes`` -> ``temp_bytes``.

    Every other key is its own name (XLA's per-operand ``bytes accessed0{}`` keeps its raw key).
    """
    return FIGURE_NAMES.get(key, key)


def figure_key(name: str) -> str:
    """The file's key of a figure written either way: ``temp_bytes`` or ``temp_size_in_bytes``."""
    return FIGURE_KEYS.get(name, name)


UNAVAILABLE = {"unavailable": True}
# What XLA's cost analysis reports for a figure it could not count: recorded as null (unavailable), never as a number.
XLA_UNAVAILABLE = -1


def cost(
    compiled: jax.stages.Compiled | None,
    lowered: jax.stages.Lowered,
    *,
    via_cpu: bool = False,
    lowered_only: bool = False,
    uncosted: Sequence[str] = (),
) -> CostAnalysis:
    """``cost_analysis()`` of the compiled stage (per shard for sharded programs), else of the lowered one.

    ``{"compiled": {...}}`` where XLA gives a compiled cost; else ``{"compiled": {"unavailable":
    true}, "lowered": {...}}``, the lowered cost standing in (``via_cpu``: counted by the CPU client).
    ``lowered_only`` records the lowered cost even beside a compiled program (the same figures in CPU CI
    and where the platform is attached); ``uncosted`` kernels are recorded as ``unknown``.
    """
    unknown: CostAnalysis = {"unknown": {"custom_calls": len(uncosted), "kernels": list(uncosted)}} if uncosted else {}
    compiled_cost = _plain_cost(None if compiled is None or lowered_only else compiled.cost_analysis())
    if compiled_cost != UNAVAILABLE:
        return {"compiled": compiled_cost, **unknown}
    if lowered_only:
        return {"compiled": compiled_cost, "lowered": _plain_cost(jax_compat.cost_via_cpu(lowered)), **unknown}
    lowered_cost = lowered.cost_analysis()
    if lowered_cost is None and via_cpu:
        lowered_cost = jax_compat.cost_via_cpu(lowered)
    return {"compiled": compiled_cost, "lowered": _plain_cost(lowered_cost), **unknown}


def unknown_note(analysis: dict[str, Any]) -> str | None:
    """``unknown for 1 custom call(s) (add_kernel: no pl.CostEstimate; ...)``, None where every figure is counted."""
    unknown = analysis.get("unknown")
    if not unknown:
        return None
    names = ", ".join(dict.fromkeys(unknown["kernels"]))
    return (
        f"flops, transcendentals and bytes accessed unknown for {unknown['custom_calls']} custom call(s) "
        f"({names}: no pl.CostEstimate, and XLA does not look inside a kernel); the figures count the rest"
    )


# The stage whose figures a cost analysis holds: the compiled program's, or the lowered one's standing in.
CostSource = Literal["compiled", "lowered"]
_COST_SOURCES: tuple[CostSource, ...] = ("compiled", "lowered")


def cost_source(analysis: dict[str, Any]) -> CostSource | None:
    """ "compiled" when XLA gave a compiled cost, else "lowered" when it gave a lowered one, else None."""
    for stage in _COST_SOURCES:
        if stage in analysis and not analysis[stage].get("unavailable"):
            return stage
    return None


def staged_cost(analysis: dict[str, Any]) -> dict[str, float]:
    """The figures of the stage :func:`cost_source` names ({} when neither has any)."""
    source = cost_source(analysis)
    return {} if source is None else analysis[source]


def _plain_cost(raw: object) -> dict[str, float | None]:
    if isinstance(raw, Sequence) and raw and isinstance(raw[0], dict):
        raw = raw[0]
    if not isinstance(raw, dict):
        return dict(UNAVAILABLE)
    return {str(k): None if v == XLA_UNAVAILABLE else _number(v) for k, v in raw.items()}


def memory(compiled: Any) -> dict[str, object]:
    """Every ``memory_analysis()`` field, read as attributes (``peak_memory_in_bytes`` included)."""
    stats = compiled.memory_analysis()
    if stats is None:
        return dict(UNAVAILABLE)
    return {name: _number(getattr(stats, name)) for name in MEMORY_FIELDS if hasattr(stats, name)}


def _number(value: Any) -> int | float | None:
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() and not isinstance(value, float) else number


def ops(hlo_text: str, slices: Sequence[int] | None = None) -> dict[str, object]:
    """Op structure of an HLO module: opcode counts, fusions, custom calls, collectives, entry shapes.

    A module with while loops also gets ``loops``: per loop, in order, its trip count and the
    collectives that run on each iteration (those are also in ``collectives``, which counts every one).
    A program over several slices (``slices``: the slice of each logical device) also gets
    ``networks`` (:func:`networks`).
    """
    parsed = list(hlo.instructions(hlo_text))
    fusions = Counter(i.fusion_kind or "unknown" for i in parsed if i.opcode == "fusion")
    custom_calls = Counter(i.custom_call_target or "unknown" for i in parsed if i.opcode == "custom-call")
    # The collective property is read only for the opcodes that can be one.
    collectives = [asdict(c) for i in parsed if i.opcode in hlo.COLLECTIVE_OPCODES and (c := i.collective) is not None]
    found = {
        "opcodes": dict(sorted(Counter(i.opcode for i in parsed).items())),
        "fusions": dict(sorted(fusions.items())),
        "fusion_count": sum(fusions.values()),
        "custom_calls": dict(sorted(custom_calls.items())),
        "collectives": sorted(collectives, key=lambda c: (c["op"], c["shape"])),
        "entry": _entry(parsed),
    }
    loops = hlo.loops(hlo_text)
    if loops:
        found["loops"] = [loop_entry(loop) for loop in loops]
    if slices is not None and len(set(slices)) > 1:
        found["networks"] = networks(hlo_text, slices)
    return found


def _entry(parsed: list[hlo.Instruction]) -> dict[str, object]:
    """The entry computation's parameter shapes, in order, and its output's (its last root's)."""
    entry = [i for i in parsed if i.entry]
    return {
        "parameters": [i.shape for i in entry if i.opcode == "parameter"],
        "output": next((i.shape for i in reversed(entry) if i.root), ""),
    }


def networks(hlo_text: str, slices: Sequence[int]) -> dict[str, object]:
    """Collectives within a slice (``ici``) and across slices (``dcn``): how many, their bytes, and each one.

    ``bytes`` is what they produce on one device per call: each collective's bytes times the
    times it runs (``iterations``, listed where a loop runs it more than once); DCN's are those
    of the cross-slice transfers.
    """
    sides: dict[str, list[dict[str, Any]]] = {"ici": [], "dcn": []}
    for found in hlo.network_collectives(hlo_text, slices):
        entry = asdict(found.collective)
        if found.iterations > 1:
            entry["iterations"] = found.iterations
        sides["dcn" if found.crosses else "ici"].append(entry)
    return {
        side: {
            "count": len(found),
            "bytes": sum(c["bytes"] * c.get("iterations", 1) for c in found),
            "collectives": sorted(found, key=lambda c: (c["op"], c["shape"])),
        }
        for side, found in sides.items()
    }


def slice_indices(compiled: Any) -> tuple[int, ...] | None:
    """The slice of each logical device of a compiled program (its device assignment); None on one slice.

    The assignment is that of the program's shardings (JAX's ``_device_assignment``, the order the
    replica groups of its collectives number the devices in).
    """
    for sharding in jax.tree.leaves((compiled.input_shardings, compiled.output_shardings)):
        assignment = getattr(sharding, "_device_assignment", None)
        if assignment:
            found = tuple(int(getattr(device, "slice_index", 0) or 0) for device in assignment)
            return found if len(set(found)) > 1 else None
    return None


def loop_entry(loop: hlo_records_.Loop) -> dict[str, Any]:
    """One while loop of ``ops.json``: XLA's trip count (None where unknown) and the collectives of each iteration.

    No names: a loop is known by its place in the module, so that renumbering does not drift it.
    """
    return {
        "trip_count": loop.trip_count,
        "collectives": sorted((asdict(c) for c in loop.collectives), key=lambda c: (c["op"], c["shape"])),
    }


# Untyped here: JAX's leaves (ArgInfo, shardings, Format/Layout), whose classes moved within jax 0.8-0.12, and
# the executable, which may be the stage layer's stand-in for a compile-only cache hit.
NamedLeaves = Callable[[object], list[tuple[str, Any]]]


class Unavailable(Exception):
    """JAX cannot give (part of) an analysis for this function; ``reason`` is JAX's own error.

    Staging skips the analysis with the reason, so it never reaches a test; ``partial`` is what it could
    give (None: nothing).
    """

    def __init__(self, reason: str, partial: dict[str, object] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.partial = partial


def jax_property(obj: object, name: str) -> object:
    """``obj.<name>``, or :class:`Unavailable` with JAX's reason when JAX raises reading it.

    ``Compiled.output_shardings`` of a function taking ``jax.Ref`` arguments raises
    ``ValueError: Too many leaves for PyTreeDef; expected 1.`` (JAX 0.10.2): a snapshot then
    leaves the outputs out instead of failing the test with JAX's traceback.
    """
    try:
        return getattr(obj, name)
    except Exception as exc:  # any error of JAX's is a reason to skip, never a crash
        raise Unavailable(
            f"JAX cannot give {type(obj).__name__}.{name} for this function ({type(exc).__name__}: {exc})"
        ) from exc


def _outputs_or_reason(
    compiled: object, name: str, named_outputs: NamedLeaves
) -> tuple[list[tuple[str, object]] | None, str]:
    """The named output leaves of ``compiled.<name>``, or None and JAX's reason."""
    try:
        return named_outputs(jax_property(compiled, name)), ""
    except Unavailable as exc:
        return None, exc.reason


def sharding(
    compiled: object,
    lowered: jax.stages.Lowered,
    named: NamedLeaves,
    hlo_text: str,
    collectives: list[dict[str, object]],
    *,
    named_outputs: NamedLeaves,
    networks: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Per leaf: its sharding; per input: donation and the aliasing XLA really did; collectives.

    ``named``/``named_outputs`` name the input and output leaves as the function takes and returns them;
    ``networks`` (several slices) counts the collectives within and across slices.
    """
    infos = named(lowered.args_info)
    structure: Any = jax.tree_util.tree_structure(lowered.args_info)  # a PyTreeDef, which jaxlib leaves untyped
    shardings = structure.flatten_up_to(jax_property(compiled, "input_shardings"))
    aliases = {alias.parameter: alias.output[0] if alias.output else 0 for alias in hlo.aliases(hlo_text)}
    outputs, reason = _outputs_or_reason(compiled, "output_shardings", named_outputs)
    # Without JAX's outputs an alias names the output by its flat position: ``output #0``.
    output_names = [name for name, _ in outputs] if outputs is not None else []
    described_inputs = {}
    parameter = 0
    for (name, info), value in zip(infos, shardings, strict=True):
        alias = None
        if value is not None:
            alias = aliases.get(parameter)
            parameter += 1
        described_inputs[name] = {
            "sharding": None if value is None else describe_sharding(value),
            "donated": bool(info.donated),
            "aliased_to": _output_name(output_names, alias, known=outputs is not None),
        }
    described: dict[str, Any] = {"inputs": described_inputs}
    if outputs is not None:
        described["outputs"] = {name: {"sharding": describe_sharding(value)} for name, value in outputs}
    described["collectives"] = collectives
    if networks is not None:
        described["networks"] = {side: {"count": n["count"], "bytes": n["bytes"]} for side, n in networks.items()}
    if outputs is None:
        raise Unavailable(reason, described)
    return described


def _output_name(names: Sequence[str], alias: int | None, *, known: bool) -> str | None:
    """The output a donated input aliases: its leaf name, or ``output #k`` where JAX gave no outputs."""
    if alias is None:
        return None
    if not known:
        return f"output #{alias}"
    return names[alias] if alias < len(names) else None


def layout(compiled: object, named: NamedLeaves, named_outputs: NamedLeaves) -> dict[str, object]:
    """Per input/output leaf: the compiled layout (``major_to_minor``, tiling).

    Where JAX cannot give the outputs' formats, the inputs' are kept (:class:`Unavailable`).
    """
    inputs = {name: describe_format(f) for name, f in named(jax_property(compiled, "input_formats"))}
    outputs, reason = _outputs_or_reason(compiled, "output_formats", named_outputs)
    if outputs is None:
        raise Unavailable(reason, {"inputs": inputs})
    return {"inputs": inputs, "outputs": {name: describe_format(f) for name, f in outputs}}


def describe_sharding(value: Any) -> dict[str, object]:
    """A sharding as plain data: mesh and spec for NamedSharding, the device ids otherwise."""
    if isinstance(value, jax.sharding.NamedSharding):
        return {
            "kind": "NamedSharding",
            "mesh": {str(k): int(v) for k, v in value.mesh.shape.items()},
            "spec": format_spec(value.spec),
            "memory_kind": value.memory_kind,
        }
    described: dict[str, object] = {"kind": type(value).__name__}
    device_set = getattr(value, "device_set", None)
    if device_set is not None:
        described["devices"] = sorted(d.id for d in device_set)
        described["replicated"] = bool(value.is_fully_replicated)
    described["memory_kind"] = getattr(value, "memory_kind", None)
    return described


def format_spec(spec: Any) -> str:
    """``PartitionSpec`` as users write it: ``P('data', None)``."""
    return "P(" + ", ".join(repr(tuple(e)) if isinstance(e, list) else repr(e) for e in spec) + ")"


def describe_format(value: Any) -> dict[str, Any]:
    layout_ = getattr(value, "layout", value)
    if layout_ is None or not hasattr(layout_, "major_to_minor"):
        return {"major_to_minor": None}
    described = {
        "major_to_minor": list(layout_.major_to_minor),
        "tiling": [list(tile) for tile in layout_.tiling],
    }
    bits = jax_compat.sub_byte_element_size(layout_)
    return described if bits is None else {**described, "sub_byte_element_size_in_bits": bits}
