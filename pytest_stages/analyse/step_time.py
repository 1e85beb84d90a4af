"""An estimated step time: the compiled program's figures over a chip's figures, the binding term named.

``estimate`` reads a cost snapshot's figures and the compiled HLO text: the step is ``max(launch,
max(compute, HBM) + collectives)``, loop bodies counted per iteration, on the chip figures of :data:`CHIPS`
(docs/step-time.md). No estimate, a stated reason instead, for CPU or for kernels XLA cannot cost.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.ir import hlo

# The cost snapshot's entry for the estimate, and the one figure of it that is judged.
KEY = "step"
SECONDS = "estimated_seconds"
TERMS = ("compute", "HBM", "collectives", "launch")
# The estimate as the cost comparison names it (the ``step`` table flattened), and the cost figure
# behind each term a headline names.
METRIC = f"{KEY} {SECONDS}"
DRIVERS = {"compute": "flops", "HBM": "bytes accessed"}


@dataclass(frozen=True)
class Chip:
    """One accelerator's figures: published peaks (rates in FLOP/s, bandwidths in bytes/s) and the
    achievable share of each, with the dispatch time of one call (seconds).

    ``f32_flops``: float32 matrix products at JAX's default precision; ``matrix_tile``: the side of the
    matrix unit products are padded to; dispatch costs ``launch_seconds`` plus a time per buffer.
    """

    name: str
    bf16_flops: float
    f32_flops: float
    hbm_bytes_per_s: float
    interconnect_bytes_per_s: float
    matrix_tile: int
    launch_seconds: float
    input_seconds: float
    output_seconds: float
    compute_fraction: float
    hbm_fraction: float
    interconnect_fraction: float


T, G = 1e12, 1e9
# Achievable shares and the launch time of TPU v5e: measured on the chip (docs/step-time.md,
# calibration set); the other chips take v5e's shares until measured, GPUs NVIDIA's usual ones.
_TPU = {
    "launch_seconds": 120e-6,
    "input_seconds": 1.1e-6,
    "output_seconds": 9e-6,
    "compute_fraction": 0.95,
    "hbm_fraction": 0.8,
    "interconnect_fraction": 0.7,
}
_GPU = {**_TPU, "launch_seconds": 20e-6, "compute_fraction": 0.7}
CHIPS: dict[str, Chip] = {
    "v4": Chip("TPU v4", 275 * T, 275 * T, 1200 * G, 300 * G, 128, **_TPU),
    "v5e": Chip("TPU v5e", 197 * T, 197 * T, 819 * G, 400 * G, 128, **_TPU),
    "v5p": Chip("TPU v5p", 459 * T, 459 * T, 2765 * G, 1200 * G, 128, **_TPU),
    "v6e": Chip("TPU v6e", 918 * T, 918 * T, 1638 * G, 800 * G, 256, **_TPU),
    "h100": Chip("NVIDIA H100 SXM", 989 * T, 494 * T, 3350 * G, 900 * G, 16, **_GPU),
    "a100": Chip("NVIDIA A100 SXM", 312 * T, 156 * T, 2039 * G, 600 * G, 16, **_GPU),
}
# Device kinds as JAX names them (lower case) -> chip; the first key found in the kind wins.
_KINDS = (
    ("v5 lite", "v5e"),
    ("v5e", "v5e"),
    ("v6 lite", "v6e"),
    ("v6e", "v6e"),
    ("v5p", "v5p"),
    ("tpu v5", "v5p"),
    ("tpu v4", "v4"),
    ("h100", "h100"),
    ("a100", "a100"),
)
# A config's ``chip = {...}`` keys: a chip of the table to start from, then figures in the units people write.
OVERRIDES = {
    "bf16_tflops": ("bf16_flops", T),
    "f32_tflops": ("f32_flops", T),
    "hbm_gbps": ("hbm_bytes_per_s", G),
    "interconnect_gbps": ("interconnect_bytes_per_s", G),
    "launch_us": ("launch_seconds", 1e-6),
    "input_us": ("input_seconds", 1e-6),
    "output_us": ("output_seconds", 1e-6),
    "compute_fraction": ("compute_fraction", 1.0),
    "hbm_fraction": ("hbm_fraction", 1.0),
    "interconnect_fraction": ("interconnect_fraction", 1.0),
}
FRACTIONS = ("compute_fraction", "hbm_fraction", "interconnect_fraction")


def chip_for(device_kind: str | None, overrides: Mapping[str, Any] | None = None) -> Chip | None:
    """The chip a device kind names (``TPU v5 lite`` -> v5e), with a config's overrides; None if unknown."""
    table = dict(overrides or {})
    named = table.pop("name", None)
    base = CHIPS.get(str(named)) if named else None
    if base is None and device_kind:
        kind = device_kind.lower()
        base = next((CHIPS[chip] for key, chip in _KINDS if key in kind), None)
    if base is None:
        return None
    figures: dict[str, Any] = {OVERRIDES[key][0]: float(value) * OVERRIDES[key][1] for key, value in table.items()}
    return replace(base, **figures)


def parse_chip(where: str, raw: Any) -> tuple[tuple[str, Any], ...]:
    """A config's ``chip = { name = "v5e", hbm_gbps = 700, ... }``: known keys, positive figures, fractions <= 1."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f'{where}: chip must be a table, e.g. chip = {{ name = "v5e", hbm_gbps = 700 }}.')
    known = ["name", *OVERRIDES]
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{where}: chip has an unknown key {key!r}; the known keys are {known}.")
        if key == "name":
            if value not in CHIPS:
                raise ConfigError(f"{where}: chip name {value!r} is not in the chip table; use one of {list(CHIPS)}.")
            continue
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        top = 1.0 if key in FRACTIONS else math.inf
        if not math.isfinite(number) or not 0 < number <= top:
            shown = "a fraction above 0, at most 1" if key in FRACTIONS else "a positive number"
            raise ConfigError(f"{where}: chip {key} = {value!r} must be {shown}, e.g. {key} = 0.8.")
    return tuple(sorted(raw.items()))


def estimate(
    cost: Mapping[str, Any],
    compiled_text: str | None,
    device_kind: str | None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The cost snapshot's ``step`` entry: the estimate and its terms, or ``{"unknown": reason}``."""
    chip = chip_for(device_kind, overrides)
    if chip is None:
        return {
            "unknown": f"no chip figures for device kind {device_kind!r} (a CPU's time depends on its host); "
            'name a chip in the config (chip = { name = "v5e" }) to estimate for it'
        }
    if cost.get("unknown"):
        names = ", ".join(dict.fromkeys(cost["unknown"]["kernels"]))
        return {"unknown": f"kernels without a cost estimate ({names}): XLA counts nothing inside them"}
    stage = "lowered" if cost.get("compiled", {}).get("unavailable") else "compiled"
    figures = cost.get(stage) or {}
    if figures.get("unavailable") or (figures.get("flops") is None and figures.get("bytes accessed") is None):
        return {"unknown": "XLA gave no cost analysis for this program"}
    flops, hbm = float(figures.get("flops") or 0), float(figures.get("bytes accessed") or 0)
    notes = []
    program = Program()
    if compiled_text and stage == "compiled":
        program = Module(compiled_text).program(chip.matrix_tile)
    else:
        notes.append("counted on the lowered program (before XLA fuses it; no loop trip counts, padding or buffers)")
    if program.unknown_trips:
        notes.append(f"{program.unknown_trips} loop(s) of unknown trip count: each body counted once")
    rate = chip.compute_fraction / ((1 - program.f32_share) / chip.bf16_flops + program.f32_share / chip.f32_flops)
    bandwidth = chip.hbm_bytes_per_s * chip.hbm_fraction
    # Outside loops compute and memory traffic overlap; a loop body's small ops run one after another,
    # so each iteration pays its products and its traffic in turn.
    outside = (
        (flops - program.loop_flops_once + program.padding_flops) / rate,
        max(0.0, hbm - program.loop_bytes_once) / bandwidth,
    )
    loops = (program.loop_flops / rate, program.loop_bytes / bandwidth)
    terms = {
        "compute": outside[0] + loops[0],
        "HBM": outside[1] + loops[1],
        "collectives": program.collective_bytes / (chip.interconnect_bytes_per_s * chip.interconnect_fraction),
        "launch": chip.launch_seconds + chip.input_seconds * program.inputs + chip.output_seconds * program.outputs,
    }
    device = max(outside) + sum(loops) + terms["collectives"]
    entry: dict[str, Any] = {
        SECONDS: max(terms["launch"], device),
        "binding": max(TERMS, key=lambda term: terms[term]),
        "chip": chip.name,
        **{f"{term.lower()}_seconds": value for term, value in terms.items()},
    }
    optimal = figures.get("optimal_seconds")
    if isinstance(optimal, (int, float)) and optimal > 0:  # XLA's own figure, where it is a time
        entry["xla_optimal_seconds"] = optimal
    if notes:
        entry["notes"] = "; ".join(notes)
    return entry


# --- the compiled HLO text, read for what XLA's cost analysis leaves out -------------------------

# Opcodes that move no data of their own: views, tuples, constants, control.
_FREE = frozenset(
    {"parameter", "get-tuple-element", "tuple", "constant", "bitcast", "after-all", "partition-id", "replica-id"}
)
_ARRAY_LAYOUT = lazy_pattern(r"(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<dims>[\d,]*)\](?P<layout>\{[^{}]*\})?")
_ON_CHIP = lazy_pattern(r"S\(([1-9]\d*)\)")
_OPERAND = lazy_pattern(r"%[\w.\-]+")
_PART = lazy_pattern(r"\b(body|condition|calls)=(%[\w.\-]+)")
_INDEX = lazy_pattern(r"index=(\d+)")
_CONSTANT = lazy_pattern(r"^\s*(-?\d+)\)")
_DIRECTION = lazy_pattern(r"direction=(\w+)")
_CONTRACTING = lazy_pattern(r"lhs_contracting_dims=\{([\d,]*)\}")
_LABELS = lazy_pattern(r"dim_labels=\w+_(\w+)->(\w+)")
_MATRIX = ("dot", "convolution")


@dataclass(frozen=True)
class Op:
    """One instruction: its raw shape (layouts kept: ``S(1)`` marks on-chip memory), opcode, operands, attributes."""

    name: str
    shape: str
    opcode: str
    operands: tuple[str, ...]
    rest: str
    root: bool


@dataclass(frozen=True)
class Program:
    """What the estimate reads of a compiled module beyond XLA's cost analysis.

    ``loop_flops``/``loop_bytes``: every iteration of the loop bodies (``..._once``: one, as XLA counts
    them); ``padding_flops``: what padding products outside loops adds; ``f32_share``: of matrix flops.
    """

    loop_flops: float = 0.0
    loop_flops_once: float = 0.0
    loop_bytes: float = 0.0
    loop_bytes_once: float = 0.0
    padding_flops: float = 0.0
    f32_share: float = 0.0
    collective_bytes: float = 0.0
    inputs: int = 0
    outputs: int = 0
    unknown_trips: int = 0


def _hbm_bytes(shape: str, on_chip: bool = False) -> float:
    """Bytes of the arrays of a raw shape that live in HBM (an ``S(n)`` layout, n >= 1, is on-chip memory);
    ``on_chip``: those too."""
    total = 0.0
    for array in _ARRAY_LAYOUT.finditer(shape):
        if not on_chip and _ON_CHIP.search(array["layout"] or ""):
            continue
        dims = [int(d) for d in array["dims"].split(",") if d]
        total += math.prod(dims) * hlo.dtype_bits(array["dtype"]) / 8
    return total


def _dims(shape: str) -> list[int]:
    found = _ARRAY_LAYOUT.search(shape)
    return [int(d) for d in found["dims"].split(",") if d] if found else []


class Module:
    """A compiled HLO text's computations, parsed once: each a table of :class:`Op` by name."""

    def __init__(self, text: str) -> None:
        self.computations: dict[str, dict[str, Op]] = {}
        self.entry = ""
        current: dict[str, Op] | None = None
        for line in text.splitlines():
            instruction = hlo.parse_instruction(line)
            if instruction is not None and current is not None:
                head = line.split(" = ", 1)[1]
                shape = head[: head.find(f" {instruction.opcode}(")]
                operands = tuple(_OPERAND.findall(_operand_text(instruction.rest)))
                op = Op(instruction.name, shape, instruction.opcode, operands, instruction.rest, instruction.root)
                current[op.name] = op
                continue
            header = hlo.parse_computation(line)
            if header is not None:
                current = self.computations.setdefault(header.name, {})
                self.entry = header.name if header.entry else self.entry

    def program(self, tile: int) -> Program:
        """The module's :class:`Program` figures, matrix dimensions padded to ``tile``."""
        counts, unknown = self._multiplicities()
        loop_flops = loop_flops_once = loop_bytes = loop_bytes_once = 0.0
        padding = wide = matrix = collectives = 0.0
        for name, ops in self.computations.items():
            count = counts.get(name, 0)
            if name in self._bodies and count > 1:
                once = self._iteration_bytes(name)
                loop_bytes, loop_bytes_once = loop_bytes + count * once, loop_bytes_once + once
            for op in ops.values():
                if op.opcode in _MATRIX:
                    raw, padded, wide_operands = _matrix_flops(op, ops, tile)
                    matrix += count * raw
                    wide += count * raw if wide_operands else 0.0
                    if count > 1:  # in a loop: every iteration's product, padded
                        loop_flops, loop_flops_once = loop_flops + count * padded, loop_flops_once + raw
                    else:
                        padding += padded - raw
                base = op.opcode.removesuffix("-start")
                if base in hlo.COLLECTIVES and op.opcode != base + "-done":
                    # an all-reduce moves its bytes twice (reduce, then gather)
                    collectives += count * _hbm_bytes(op.shape, on_chip=True) * (2 if base == "all-reduce" else 1)
        entry = self.computations.get(self.entry, {})
        root = next((op for op in entry.values() if op.root), None)
        outputs = len(hlo.tuple_elements(hlo.strip_layouts(root.shape))) if root and root.shape.startswith("(") else 1
        return Program(
            loop_flops=loop_flops,
            loop_flops_once=loop_flops_once,
            loop_bytes=loop_bytes,
            loop_bytes_once=loop_bytes_once,
            padding_flops=padding,
            f32_share=wide / matrix if matrix else 0.0,
            collective_bytes=collectives,
            inputs=sum(1 for op in entry.values() if op.opcode == "parameter"),
            outputs=outputs if root else 0,
            unknown_trips=unknown,
        )

    def _multiplicities(self) -> tuple[dict[str, int], int]:
        """How many times each computation runs per call (loop bodies x their trip counts), and the loops of
        unknown trip count (counted once)."""
        counts: dict[str, int] = {}
        self._bodies: set[str] = set()
        unknown = 0
        todo = [(self.entry, 1)]
        while todo:
            name, count = todo.pop()
            if counts.get(name, 0) >= count:
                continue
            counts[name] = count
            ops = self.computations.get(name, {})
            for op in ops.values():
                parts = _PART.findall(op.rest)
                if op.opcode == "while":
                    trips = self._trip_count(op, ops, dict(parts).get("condition", ""))
                    unknown += trips is None
                    body = dict(parts).get("body", "")
                    self._bodies.add(body)
                    todo.append((body, count * max(1, trips or 1)))
                else:
                    todo += [(called, count) for key, called in parts if key == "calls"]
        return counts, unknown

    def _trip_count(self, loop: Op, caller: Mapping[str, Op], condition: str) -> int | None:
        """XLA's ``known_trip_count``, else ``i < N`` with ``i`` from a constant: ``N - start``."""
        known = hlo.known_trip_count(loop.rest)
        if known is not None:
            return known
        ops = self.computations.get(condition, {})
        root = next((op for op in ops.values() if op.root), None)
        if root is None or root.opcode != "compare" or _direction(root) != "LT" or len(root.operands) != 2:
            return None
        counter, bound = (ops.get(name) for name in root.operands)
        limit = _constant(bound)
        index = _INDEX.search(counter.rest) if counter is not None and counter.opcode == "get-tuple-element" else None
        start_tuple = caller.get(loop.operands[0]) if loop.operands else None
        if limit is None or index is None or start_tuple is None or start_tuple.opcode != "tuple":
            return None
        start = caller.get(start_tuple.operands[int(index[1])]) if int(index[1]) < len(start_tuple.operands) else None
        while start is not None and start.opcode == "copy" and start.operands:
            start = caller.get(start.operands[0])
        first = _constant(start)
        return None if first is None else max(0, limit - first)

    def _iteration_bytes(self, body: str) -> float:
        """HBM bytes one iteration moves: each op's HBM operands and results; a fusion's as it reads and writes them."""
        ops = self.computations.get(body, {})
        total = 0.0
        for op in ops.values():
            if op.opcode in _FREE or op.opcode == "while":
                continue
            called = next((name for key, name in _PART.findall(op.rest) if key == "calls"), None)
            if op.opcode == "fusion" and called in self.computations:
                total += _fusion_bytes(self.computations[called])
            else:
                total += _hbm_bytes(op.shape) + sum(_hbm_bytes(ops[n].shape) for n in op.operands if n in ops)
        return total


def _fusion_bytes(fused: Mapping[str, Op]) -> float:
    """A fusion's HBM traffic from inside it: a parameter only sliced reads its slices, one updated in
    place (``dynamic-update-slice``) reads nothing and writes the update."""
    uses: dict[str, list[tuple[Op, int]]] = {}
    for op in fused.values():
        for position, name in enumerate(op.operands):
            uses.setdefault(name, []).append((op, position))
    total = 0.0
    for op in fused.values():
        if op.opcode == "parameter":
            consumers = uses.get(op.name, [])
            if consumers and all(c.opcode == "dynamic-slice" and k == 0 for c, k in consumers):
                total += sum(_hbm_bytes(op.shape) * _share(c.shape, op.shape) for c, _ in consumers)
            elif not any(c.opcode == "dynamic-update-slice" and k == 0 for c, k in consumers):
                total += _hbm_bytes(op.shape)
        elif op.opcode == "dynamic-update-slice" and len(op.operands) > 1 and op.operands[1] in fused:
            total += _hbm_bytes(op.shape) * _share(fused[op.operands[1]].shape, op.shape)
    root = next((op for op in fused.values() if op.root), None)
    written = [fused[n] for n in root.operands if n in fused] if root is not None and root.opcode == "tuple" else [root]
    return total + sum(_hbm_bytes(op.shape) for op in written if op is not None and op.opcode != "dynamic-update-slice")


def _operand_text(rest: str) -> str:
    """The operand list of an instruction's ``rest`` (up to the bracket closing ``opcode(``)."""
    depth = 0
    for k, char in enumerate(rest):
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return rest[:k]
    return rest


def _direction(op: Op) -> str | None:
    found = _DIRECTION.search(op.rest)
    return found[1] if found else None


def _constant(op: Op | None) -> int | None:
    if op is None or op.opcode != "constant":
        return None
    found = _CONSTANT.match(op.rest)
    return int(found[1]) if found else None


def _share(part: str, whole: str) -> float:
    """Elements of ``part`` over those of ``whole`` (1 where ``whole`` is empty)."""
    whole_elements = math.prod(_dims(whole))
    return math.prod(_dims(part)) / whole_elements if whole_elements else 1.0


def _matrix_flops(op: Op, ops: Mapping[str, Op], tile: int) -> tuple[float, float, bool]:
    """A ``dot`` or ``convolution``: 2 x output elements x contracted size, the same with the last two output
    dimensions and the contracted size padded to ``tile``, and whether its operands are wider than 16 bits.
    (0, 0, False) where its operands are not in the computation."""
    lhs = ops.get(op.operands[0]) if op.operands else None
    rhs = ops.get(op.operands[1]) if len(op.operands) > 1 else None
    if lhs is None or rhs is None:
        return 0.0, 0.0, False
    out = _dims(op.shape)
    if op.opcode == "dot":
        contracting = _CONTRACTING.search(op.rest)
        dims = _dims(lhs.shape)
        picked = [int(d) for d in contracting[1].split(",") if d] if contracting else []
        size = window = math.prod(dims[d] for d in picked if d < len(dims))
        rows, columns = (out[-2], out[-1]) if len(out) > 1 else (1, out[-1] if out else 1)
    else:
        # dim_labels=bf_io->bf: the output's batch (b) rows by features (f) columns; the kernel's input
        # features (i) are contracted, over its window (digits); other output dimensions repeat the product.
        labels = _LABELS.search(op.rest)
        kernel, output = (labels[1], labels[2]) if labels else ("", "")
        dims = _dims(rhs.shape)
        size = math.prod(d for d, label in zip(dims, kernel, strict=False) if label == "i")
        window = size * math.prod(d for d, label in zip(dims, kernel, strict=False) if label.isdigit())
        rows = math.prod(d for d, label in zip(out, output, strict=False) if label == "b")
        columns = math.prod(d for d, label in zip(out, output, strict=False) if label == "f")
    batch = math.prod(out) // max(1, rows * columns)
    padded = 2.0 * batch * _pad(rows, tile) * _pad(columns, tile) * _pad(size, tile) * (window // max(1, size))
    operand = _ARRAY_LAYOUT.search(lhs.shape)
    wide = operand is not None and hlo.dtype_bits(operand["dtype"]) > 16
    return 2.0 * math.prod(out) * window, padded, wide


def _pad(size: int, tile: int) -> int:
    return -(-size // tile) * tile
