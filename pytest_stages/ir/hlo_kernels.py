"""A compiled HLO module as the kernels the chip runs, for the step-time estimate.

Each fusion, custom call, copy, sort, collective or other op of a computation that runs in order (the
entry, loop bodies, branches) is one kernel; ``kernels`` reads what each one computes (matrix
multiply-adds by element type, vector work, sort work) and the HBM bytes it really touches (tiled
layouts, arrays in on-chip memory left out, sliced, gathered and updated-in-place operands by what they
read and write). Loop bodies come with their trip counts, branches apart. Pure functions over text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.ir import hlo

# Opcodes that launch no kernel: views, tuples, constants, control, the ends of async pairs.
FREE = frozenset(
    {
        "parameter",
        "get-tuple-element",
        "tuple",
        "constant",
        "bitcast",
        "after-all",
        "partition-id",
        "replica-id",
        "iota",
        "copy-done",
        "send-done",
        "recv-done",
        "add-dependency",
        "opt-barrier",
        "domain",
    }
)
# Ops inside a fusion that cost no vector work of their own (data movement the kernel's loads do).
_MOVES = FREE | {
    "broadcast",
    "reshape",
    "transpose",
    "slice",
    "dynamic-slice",
    "dynamic-update-slice",
    "concatenate",
    "pad",
    "reverse",
    "copy",
}
# Elementwise ops a vector unit evaluates as a sequence of many instructions.
TRANSCENDENTAL = frozenset(
    {
        "exponential",
        "exponential-minus-one",
        "log",
        "log-plus-one",
        "tanh",
        "logistic",
        "rsqrt",
        "sqrt",
        "cbrt",
        "erf",
        "divide",
    }
)
# Elementwise ops evaluated as a long polynomial after a range reduction (no hardware unit of their own).
POLYNOMIAL = frozenset({"sine", "cosine", "tan", "power", "atan2"})
_ARRAY_LAYOUT = lazy_pattern(r"(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<dims>[\d,]*)\](?P<layout>\{[^{}]*\})?")
_MINOR_TO_MAJOR = lazy_pattern(r"^\{([\d,]*)")
_TILE = lazy_pattern(r":T\(([\d,]+)\)")
_ON_CHIP = lazy_pattern(r"S\(([1-9]\d*)\)")
_MEMORY_SPACE = lazy_pattern(r"S\(\d+\)")
_OPERAND = lazy_pattern(r"%[\w.\-]+")
_CALLS = lazy_pattern(r"\b(body|condition|calls|to_apply|true_computation|false_computation)=(%[\w.\-]+)")
_BRANCHES = lazy_pattern(r"\bbranch_computations=\{([^{}]*)\}")
_INDEX = lazy_pattern(r"index=(\d+)")
_CONSTANT = lazy_pattern(r"^\s*(-?\d+)\)")
_DIRECTION = lazy_pattern(r"direction=(\w+)")
_CONTRACTING = lazy_pattern(r"lhs_contracting_dims=\{([\d,]*)\}")
_LABELS = lazy_pattern(r"dim_labels=(\w+)_(\w+)->(\w+)")
_WINDOW = lazy_pattern(r"window=\{([^{}]*)\}")
_DIMENSIONS = lazy_pattern(r"dimensions=\{([\d,]*)\}")
_GROUPS = lazy_pattern(r"feature_group_count=(\d+)")
_PADDING = lazy_pattern(r"\bpad=([-\d_x]+)")
_SLICE_SIZES = lazy_pattern(r"slice_sizes=\{([\d,]*)\}")
_INDEX_VECTOR = lazy_pattern(r"index_vector_dim=(\d+)")


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
class Kernel:
    """What one kernel computes and moves, per run.

    ``macs``: multiply-adds of its matrix products by operand element type (``bf16``, ``f32``, ``s8``,
    ``f8``); ``vector``: elementwise results, ``transcendental``: those of many instructions each;
    ``polynomial``: those of a long series (sine, power); ``sort``: element-stages of its sorting network;
    ``top_k``: the comparisons of a ``TopK`` (each element of a row against each of the ``k`` values kept);
    ``hbm_bytes``: what it reads and writes in HBM, ``gathered``: whether at scattered rows (a gather or
    scatter); ``indices``: the indices it applies one after another (a scatter's updates, a gather of single
    elements); ``dma_bytes``: what an async copy moves beside the kernels; ``collective_bytes``: what it sends
    over the interconnect; ``relayout_bytes``: what its copies into another layout (a transpose, another tiling)
    read and write, on chip or in HBM: the vector unit's loads, shuffles and stores move them.
    """

    name: str
    opcode: str
    macs: tuple[tuple[str, float], ...] = ()
    vector: float = 0.0
    transcendental: float = 0.0
    polynomial: float = 0.0
    sort: float = 0.0
    top_k: float = 0.0
    hbm_bytes: float = 0.0
    gathered: bool = False
    indices: float = 0.0
    dma_bytes: float = 0.0
    collective_bytes: float = 0.0
    relayout_bytes: float = 0.0


@dataclass(frozen=True)
class Block:
    """A computation run in order: its kernels, then the loops it runs (one trip: body and condition; trip
    count) and its conditionals (one block per branch; one of them runs); ``scalar_reads``: the values its
    kernels compute that it then uses as an offset (a dynamic slice at an index read from an array), each one
    the scalar unit waits for."""

    kernels: tuple[Kernel, ...] = ()
    loops: tuple[tuple[Block, int], ...] = ()
    branches: tuple[tuple[Block, ...], ...] = ()
    scalar_reads: int = 0


@dataclass(frozen=True)
class Program:
    """A compiled module's kernels as it runs them, and what a call passes in and out."""

    entry: Block = field(default_factory=Block)
    inputs: int = 0
    outputs: int = 0
    unknown_trips: int = 0


def tiled_bytes(shape: str, on_chip: bool = False) -> float:
    """Bytes of the arrays of a raw shape as laid out in HBM: the minor dimensions padded to the layout's tile
    (``{1,0:T(8,128)}``); arrays in on-chip memory (an ``S(n)`` layout, n >= 1) left out unless ``on_chip``."""
    total = 0.0
    for array in _ARRAY_LAYOUT.finditer(shape):
        layout = array["layout"] or ""
        if not on_chip and _ON_CHIP.search(layout):
            continue
        dims = [int(d) for d in array["dims"].split(",") if d]
        order = _MINOR_TO_MAJOR.match(layout)
        tile = _TILE.search(layout)
        if order and tile and order[1]:
            minor = [int(d) for d in order[1].split(",")]
            sizes = [int(t) for t in tile[1].split(",")]
            for dim, size in zip(minor, reversed(sizes), strict=False):
                if dim < len(dims):
                    dims[dim] = -(-dims[dim] // size) * size
        total += math.prod(dims) * hlo.dtype_bits(array["dtype"]) / 8
    return total


def elements(shape: str) -> int:
    """Elements of the first array of a shape (1 for a scalar, 0 for none)."""
    found = _ARRAY_LAYOUT.search(shape)
    return math.prod(int(d) for d in found["dims"].split(",") if d) if found else 0


def _dims(shape: str) -> list[int]:
    found = _ARRAY_LAYOUT.search(shape)
    return [int(d) for d in found["dims"].split(",") if d] if found else []


def _dtype(shape: str) -> str:
    found = _ARRAY_LAYOUT.search(shape)
    return found["dtype"] if found else ""


class Module:
    """A compiled HLO text's computations, parsed once: each a table of :class:`Op` by name; products padded
    to a matrix unit of side ``tile``."""

    def __init__(self, text: str, tile: int = 128) -> None:
        self.tile = tile
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
        self._unknown_trips = 0

    def program(self) -> Program:
        """The module's kernels from its entry computation down, with what a call passes in and out."""
        entry = self.computations.get(self.entry, {})
        root = next((op for op in entry.values() if op.root), None)
        outputs = len(hlo.tuple_elements(hlo.strip_layouts(root.shape))) if root and root.shape.startswith("(") else 1
        block = self._block(self.entry, frozenset())
        return Program(
            entry=block,
            inputs=sum(1 for op in entry.values() if op.opcode == "parameter"),
            outputs=outputs if root else 0,
            unknown_trips=self._unknown_trips,
        )

    def _block(self, name: str, seen: frozenset[str]) -> Block:
        """The kernels of computation ``name`` in order, its loops and its conditionals' branches."""
        ops = self.computations.get(name, {})
        seen = seen | {name}
        kernels: list[Kernel] = []
        loops: list[tuple[Block, int]] = []
        branches: list[tuple[Block, ...]] = []
        reads = len(_scalar_reads(ops, self.computations))
        for op in ops.values():
            called = dict(_CALLS.findall(op.rest))
            if op.opcode == "while":
                loops.append(self._loop(op, ops, called, seen))
            elif op.opcode == "conditional":
                branches.append(self._branches(op, called, seen))
            elif op.opcode in ("call", "async-start") and _callee(called) not in seen:
                inner = self._block(_callee(called), seen)
                kernels += inner.kernels
                loops += inner.loops
                branches += inner.branches
                reads += inner.scalar_reads
            elif op.opcode not in FREE and not op.opcode.endswith("-done") and op.opcode != "async-done":
                kernels.append(self._kernel(op, ops))
        return Block(tuple(kernels), tuple(loops), tuple(branches), reads)

    def _loop(
        self, op: Op, ops: Mapping[str, Op], called: Mapping[str, str], seen: frozenset[str]
    ) -> tuple[Block, int]:
        """A ``while``: one trip (its body's kernels, then its condition's) and its trip count (1 if unknown)."""
        trips = self._trip_count(op, ops, called.get("condition", ""))
        self._unknown_trips += trips is None
        parts = [self._block(called[key], seen) for key in ("body", "condition") if called.get(key, "") not in seen]
        one_trip = Block(
            tuple(k for part in parts for k in part.kernels),
            tuple(loop for part in parts for loop in part.loops),
            tuple(branch for part in parts for branch in part.branches),
            sum(part.scalar_reads for part in parts),
        )
        return one_trip, max(1, trips or 1)

    def _branches(self, op: Op, called: Mapping[str, str], seen: frozenset[str]) -> tuple[Block, ...]:
        """A ``conditional``'s branches (``branch_computations=`` or the true and false computations)."""
        listed = _BRANCHES.search(op.rest)
        names = _OPERAND.findall(listed[1]) if listed else []
        names += [called[key] for key in ("true_computation", "false_computation") if key in called]
        return tuple(self._block(branch, seen) for branch in names if branch not in seen)

    def _kernel(self, op: Op, caller: Mapping[str, Op]) -> Kernel:
        """One kernel: what ``op`` computes (inside its fused computation for a fusion) and the bytes it touches."""
        moving = _transfer(op)
        if moving is not None:
            return moving
        called = dict(_CALLS.findall(op.rest)).get("calls")
        inner = self.computations.get(called or "", {}) if op.opcode == "fusion" else {}
        work = _Work(self.tile)
        if inner:
            self._fused_work(inner, work, frozenset({called or ""}))
            traffic = _fusion_bytes(inner, max(1, work.row_passes))
        elif _scalar(op, caller):
            return Kernel(op.name, op.opcode)  # a scalar: the core's scalar unit, between kernels
        else:
            work.add(op, caller)
            operands = [caller[n] for n in op.operands if n in caller]
            traffic = tiled_bytes(op.shape) + sum(_read_bytes(operand, op) for operand in operands)
        return Kernel(
            op.name,
            op.opcode,
            macs=tuple(sorted(work.macs.items())),
            vector=work.vector,
            transcendental=work.transcendental,
            polynomial=work.polynomial,
            sort=work.sort,
            top_k=work.top_k,
            hbm_bytes=traffic,
            gathered=work.gathered,
            indices=work.indices,
            relayout_bytes=_relayout_bytes(op, caller)
            if op.opcode in ("copy", "reverse")
            else _copy_fusion_bytes(inner),
        )

    def _fused_work(self, fused: Mapping[str, Op], work: _Work, seen: frozenset[str]) -> None:
        for op in fused.values():
            nested = dict(_CALLS.findall(op.rest)).get("calls") if op.opcode == "fusion" else None
            if nested in self.computations and nested not in seen:
                self._fused_work(self.computations[nested], work, seen | {nested})
            else:
                work.add(op, fused)

    def _trip_count(self, loop: Op, caller: Mapping[str, Op], condition: str) -> int | None:
        """XLA's ``known_trip_count``, else ``i < N`` with ``i`` from a constant: ``N - start``."""
        known = hlo.known_trip_count(loop.rest)
        if known is not None:
            return known
        bound = _loop_bound(self.computations.get(condition, {}))
        if bound is None:
            return None
        index, limit = bound
        first = _constant(_initial(loop, caller, index))
        return None if first is None else max(0, limit - first)


def _relayout_bytes(copy: Op, ops: Mapping[str, Op]) -> float:
    """What a copy into another layout, or a reverse along the lanes, reads and writes, on chip or in HBM (tiles
    padded); 0 for a copy that keeps its layout (only its memory space may change: a DMA's work) and for a
    reverse along a major dimension (the rows' addresses reordered)."""
    operand = ops.get(copy.operands[0]) if copy.operands else None
    if operand is None or (copy.opcode == "reverse" and not _reverses_lanes(copy)):
        return 0.0
    if copy.opcode == "copy" and _layout(operand.shape) == _layout(copy.shape):
        return 0.0
    return tiled_bytes(operand.shape, on_chip=True) + tiled_bytes(copy.shape, on_chip=True)


def _reverses_lanes(reverse: Op) -> bool:
    """Whether a reverse runs along its layout's minor dimension (``{1,0}`` with ``dimensions={1}``): the
    lanes of every vector register permuted, not rows read in another order."""
    order = _MINOR_TO_MAJOR.match(_layout(reverse.shape))
    picked = _DIMENSIONS.search(reverse.rest)
    minor = order[1].split(",")[0] if order and order[1] else str(len(_dims(reverse.shape)) - 1)
    return picked is not None and minor in picked[1].split(",")


def _copy_fusion_bytes(fused: Mapping[str, Op]) -> float:
    """A fusion whose result is a copy into another layout: what that copy reads and writes (a copy fused into
    another kernel's operand is that kernel's read); and each reverse along the lanes inside it."""
    root = next((op for op in fused.values() if op.root), None)
    copied = _relayout_bytes(root, fused) if root is not None and root.opcode == "copy" else 0.0
    return copied + sum(_relayout_bytes(op, fused) for op in fused.values() if op.opcode == "reverse")


def _layout(shape: str) -> str:
    """The first array's layout without its memory space (``{1,0:T(8,128)S(1)}`` -> ``{1,0:T(8,128)}``)."""
    found = _ARRAY_LAYOUT.search(shape)
    return _MEMORY_SPACE.sub("", found["layout"] or "") if found else ""


def _loop_bound(condition: Mapping[str, Op]) -> tuple[int, int] | None:
    """A loop condition ``i < N`` (``i`` a tuple element of the loop state): ``(i's index, N)``; else None."""
    root = next((op for op in condition.values() if op.root), None)
    if root is None or root.opcode != "compare" or _direction(root) != "LT" or len(root.operands) != 2:
        return None
    counter, bound = (condition.get(name) for name in root.operands)
    limit = _constant(bound)
    index = _INDEX.search(counter.rest) if counter is not None and counter.opcode == "get-tuple-element" else None
    return None if limit is None or index is None else (int(index[1]), limit)


def _initial(loop: Op, caller: Mapping[str, Op], index: int) -> Op | None:
    """The op that gives element ``index`` of a loop's initial state (through copies), where a tuple builds it."""
    state = caller.get(loop.operands[0]) if loop.operands else None
    if state is None or state.opcode != "tuple" or index >= len(state.operands):
        return None
    start = caller.get(state.operands[index])
    while start is not None and start.opcode == "copy" and start.operands:
        start = caller.get(start.operands[0])
    return start


def _transfer(op: Op) -> Kernel | None:
    """A collective (its bytes over the interconnect) or an async copy or slice (a DMA beside the kernels);
    None for any other op."""
    base = op.opcode.removesuffix("-start")
    if base in hlo.COLLECTIVES:
        moved = tiled_bytes(op.shape, on_chip=True) * (2 if base == "all-reduce" else 1)
        return Kernel(op.name, base, collective_bytes=moved, hbm_bytes=moved)
    if op.opcode.endswith("-start") and op.shape.startswith("("):
        parts = hlo.tuple_elements(op.shape)
        return Kernel(op.name, op.opcode, dma_bytes=tiled_bytes(parts[1] if len(parts) > 1 else op.shape, True))
    return None


def _scalar(op: Op, caller: Mapping[str, Op]) -> bool:
    """Whether ``op`` and its operands are scalars (one element each, no tuple result)."""
    if op.shape.startswith("("):
        return False
    return all(elements(caller[n].shape) <= 1 for n in (op.name, *op.operands) if n in caller)


class _Work:
    """What the ops of one kernel compute, summed as they are added."""

    def __init__(self, tile: int) -> None:
        self.tile = tile
        self.macs: dict[str, float] = {}
        self.vector = 0.0
        self.transcendental = 0.0
        self.polynomial = 0.0
        self.sort = 0.0
        self.top_k = 0.0
        self.gathered = False
        self.indices = 0.0
        self.row_passes = 0  # reductions broadcast back over their rows, one after another: passes over the inputs

    def add(self, op: Op, ops: Mapping[str, Op]) -> None:
        """Count ``op`` (an op of this kernel, its operands in ``ops``) into the work of its unit."""
        if op.opcode in ("dot", "convolution"):
            self._product(op, ops)
        elif op.opcode == "sort":
            self.sort += _sort_stages(op, ops)
        elif op.opcode == "custom-call" and 'custom_call_target="TopK"' in op.rest:
            self.top_k += _top_k_comparisons(op, ops)
        elif op.opcode in ("reduce", "reduce-window", "select-and-scatter"):
            self._reduction(op, ops)
        elif op.opcode in TRANSCENDENTAL:
            self.transcendental += elements(op.shape)
        elif op.opcode in POLYNOMIAL:
            self.polynomial += elements(op.shape)
        elif op.opcode in ("gather", "scatter"):
            self._indexed(op, ops)
        elif op.opcode not in _MOVES and op.opcode not in ("fusion", "custom-call"):
            self.vector += elements(op.shape)

    def _indexed(self, op: Op, ops: Mapping[str, Op]) -> None:
        """A gather or scatter: its rows at scattered addresses, its elements (a scatter its updates') as vector
        work, the indices it applies one after another."""
        self.gathered = True
        updates = ops.get(op.operands[-1]) if op.opcode == "scatter" and op.operands else op
        self.vector += elements(updates.shape if updates else op.shape)
        self.indices += _serial_indices(op, ops)

    def _reduction(self, op: Op, ops: Mapping[str, Op]) -> None:
        """A reduction's vector work: its operand's elements once for a reduce or a reduction broadcast back over
        its dimension (XLA on TPU runs that as a reduce, then a broadcast; each such stage is a pass over the
        kernel's rows); a sliding or prefix window (a cumulative sum, which XLA on TPU emits as a depthwise
        convolution) its window's taps for each element."""
        operand = ops.get(op.operands[0]) if op.operands else None
        broadcast = op.opcode == "reduce-window" and operand is not None and _broadcast_window(op, operand)
        self.row_passes += broadcast
        counted = elements(operand.shape if operand else op.shape)
        self.vector += counted if op.opcode == "reduce" or broadcast else counted * _window_size(op)

    def _product(self, op: Op, ops: Mapping[str, Op]) -> None:
        kind, macs = _macs(op, ops, self.tile)
        if kind == "vector":
            self.vector += 2 * macs
        else:
            self.macs[kind] = self.macs.get(kind, 0.0) + macs


def _serial_indices(op: Op, ops: Mapping[str, Op]) -> float:
    """The indices a gather or scatter applies one after another: a scatter's every update (two may meet one
    row, so XLA on TPU applies them in order), a gather's where each slice is one element (every slice size 1:
    one load per index, as ``take_along_axis`` compiles); 0 for a gather of rows, whose rows stream."""
    sizes = _SLICE_SIZES.search(op.rest)
    if op.opcode == "gather" and not (sizes and all(size == "1" for size in sizes[1].split(","))):
        return 0.0
    indices = ops.get(op.operands[1]) if len(op.operands) > 1 else None
    dims = _dims(indices.shape) if indices is not None else []
    vector = _INDEX_VECTOR.search(op.rest)
    axis = int(vector[1]) if vector else len(dims)
    return float(math.prod(dims) // (dims[axis] if axis < len(dims) else 1))


def _scalar_reads(ops: Mapping[str, Op], computations: Mapping[str, Mapping[str, Op]]) -> set[str]:
    """The kernels of a computation whose result a dynamic slice or update then takes as an offset (itself, or
    inside a fusion): a value the chip computed in an array, which the scalar unit issuing the kernels must
    wait for and read back, directly or through the scalar arithmetic that turns it into the offset."""
    sources: set[str] = set()
    for op in ops.values():
        for name in _offsets(op, computations):
            sources |= _read_back(name, ops)
    return sources


def _offsets(op: Op, computations: Mapping[str, Mapping[str, Op]]) -> list[str]:
    """The operands ``op`` takes as offsets: a dynamic slice's or update's start indices; a fusion's operands
    that a dynamic slice or update inside it takes so."""
    if op.opcode in ("dynamic-slice", "dynamic-update-slice"):
        return list(op.operands[1 if op.opcode == "dynamic-slice" else 2 :])
    fused = computations.get(dict(_CALLS.findall(op.rest)).get("calls", ""), {}) if op.opcode == "fusion" else {}
    inner = {name for fused_op in fused.values() for name in _offsets(fused_op, {})}
    numbers = [_parameter_number(fused[name]) for name in inner if name in fused]
    return [op.operands[n] for n in numbers if n is not None and n < len(op.operands)]


def _parameter_number(op: Op) -> int | None:
    found = _CONSTANT.match(op.rest) if op.opcode == "parameter" else None
    return int(found[1]) if found else None


def _read_back(name: str, ops: Mapping[str, Op]) -> set[str]:
    """The kernels an offset comes from, through views and the scalar unit's own arithmetic (a loop counter, a
    constant or a parameter comes from none)."""
    found: set[str] = set()
    pending, seen = [name], set()
    while pending:
        op = ops.get(pending.pop())
        if op is None or op.name in seen:
            continue
        seen.add(op.name)
        if op.opcode in ("bitcast", "reshape", "copy") or (op.opcode not in FREE and _scalar(op, ops)):
            pending += op.operands
        elif op.opcode not in FREE:
            found.add(op.name)
    return found


def _broadcast_window(op: Op, operand: Op) -> bool:
    """Whether a reduce-window's window covers its whole dimension from every position (``size >= 2 n - 1``
    wherever it is wider than 1): a reduction broadcast back, as ``jax.nn.softmax`` compiles for TPU."""
    wide = [(size, n) for size, n in zip(_window(op).get("size", []), _dims(operand.shape), strict=False) if size > 1]
    return bool(wide) and all(size >= 2 * n - 1 for size, n in wide)


def _macs(op: Op, ops: Mapping[str, Op], tile: int) -> tuple[str, float]:
    """A ``dot`` or ``convolution``: its operand element type class and the multiply-adds the matrix unit runs.

    A dot: its real multiply-adds with the contracted size and the output's columns padded to the matrix
    unit's ``tile`` (rows stream through it, 8 at a time). A convolution: output elements x input features per
    group x the kernel's window taps that meet the input (:func:`_taps`), the features padded likewise.
    A depthwise convolution (one input feature per group) is vector work: kind ``vector``."""
    lhs = ops.get(op.operands[0]) if op.operands else None
    rhs = ops.get(op.operands[1]) if len(op.operands) > 1 else None
    kind = _product_kind(lhs.shape if lhs else op.shape)
    out = _dims(op.shape)
    if op.opcode == "dot":
        return kind, _dot_macs(op, _dims(lhs.shape) if lhs else [], out, tile)
    labels = _LABELS.search(op.rest)
    lhs_labels, kernel_labels, out_labels = labels.groups() if labels else ("", "", "")
    kernel = list(zip(_dims(rhs.shape) if rhs else [], kernel_labels, strict=False))
    features = math.prod(d for d, label in kernel if label == "i")
    outputs = math.prod(d for d, label in kernel if label == "o")
    lhs_dims = _dims(lhs.shape) if lhs else []
    taps = _taps(op, dict(zip(lhs_labels, lhs_dims, strict=False)), dict(zip(out_labels, out, strict=False)))
    if features == 1:
        return "vector", float(math.prod(out) * taps)
    padded = _pad(math.ceil(features * taps), tile) * _pad(outputs, tile) / max(1, outputs)
    return kind, float(math.prod(out) * padded)


def _dot_macs(op: Op, lhs: list[int], out: list[int], tile: int) -> float:
    """A dot's multiply-adds: batch x rows (padded to 8) x columns and contracted size (padded to ``tile``)."""
    contracting = _CONTRACTING.search(op.rest)
    picked = [int(d) for d in contracting[1].split(",") if d] if contracting else []
    size = math.prod(lhs[d] for d in picked if d < len(lhs))
    rows, columns = (out[-2], out[-1]) if len(out) > 1 else (1, out[-1] if out else 1)
    return float(math.prod(out[:-2]) * _pad(rows, 8) * _pad(columns, tile) * _pad(size, tile))


def _taps(op: Op, inputs: Mapping[str, int], outputs: Mapping[str, int]) -> float:
    """A convolution window's taps that meet an input element, on average over its output positions: per spatial
    dimension (``inputs`` and ``outputs``: sizes by dimension label), the taps that land neither in the padding
    nor between the elements of a base-dilated input. A batched dot, which XLA on TPU lowers to a window as wide
    as the batch (``size=4096 stride=4095 lhs_dilate=4096``), meets one; an einsum lowered to a window padded
    around a 1-wide input (``size=1x3x8 pad=0_0x2_2x7_7``) meets one of its 24: never the window's size."""
    window = _window(op)
    found = _PADDING.search(op.rest)
    lows = [int(part.split("_")[0]) for part in found[1].split("x")] if found else []
    taps = 1.0
    for k, size in enumerate(window.get("size", [])):
        stride, base, spread = (window.get(key, [1] * (k + 1))[k] for key in ("stride", "lhs_dilate", "rhs_dilate"))
        extent = (inputs.get(str(k), 1) - 1) * base + 1
        low = lows[k] if k < len(lows) else 0
        positions = outputs.get(str(k), 1)
        hits = sum(_hits(o * stride - low, size, spread, base, extent) for o in range(positions))
        taps *= hits / max(1, positions)
    return taps


def _hits(start: int, size: int, spread: int, base: int, extent: int) -> int:
    """The taps of one output position's window (``size`` taps ``spread`` apart from ``start``) that land on an
    input element: inside ``[0, extent)`` and on a multiple of ``base``."""
    if base == 1:
        first, last = max(0, -(start // spread)), min(size - 1, (extent - 1 - start) // spread)
        return max(0, last - first + 1)
    if spread == 1:
        low, high = max(0, start), min(extent, start + size)
        return max(0, (high - 1) // base - (low - 1) // base) if high > low else 0
    return sum(1 for t in range(size) if 0 <= start + t * spread < extent and (start + t * spread) % base == 0)


def _pad(size: int, tile: int) -> int:
    return -(-size // tile) * tile


def _window(op: Op) -> dict[str, list[int]]:
    """``window={size=3x3 lhs_dilate=4096}`` -> ``{"size": [3, 3], "lhs_dilate": [4096]}`` (numbers only)."""
    found = _WINDOW.search(op.rest)
    table: dict[str, list[int]] = {}
    for part in found[1].split() if found else []:
        key, _, value = part.partition("=")
        if value and all(piece.isdigit() for piece in value.split("x")):
            table[key] = [int(piece) for piece in value.split("x")]
    return table


def _window_size(op: Op) -> int:
    return math.prod(_window(op).get("size", [1]))


def _product_kind(shape: str) -> str:
    """The rate class of a product's operands: ``s8`` (8-bit integers), ``f8`` (8-bit floats), ``bf16``, ``f32``."""
    dtype = _dtype(shape)
    bits = hlo.dtype_bits(dtype)
    if bits <= 8:
        return "f8" if dtype.startswith("f") else "s8"
    return "f32" if bits > 16 else "bf16"


def _sort_stages(op: Op, ops: Mapping[str, Op]) -> float:
    """A sort's compare-exchanges: elements x the stages of a bitonic network (``log2 n (log2 n + 1) / 2`` for
    ``n`` along the sorted dimension); the operands it carries along move with each exchange."""
    operand = ops.get(op.operands[0]) if op.operands else None
    dims = _dims(operand.shape) if operand else _dims(op.shape)
    picked = _DIMENSIONS.search(op.rest)
    axis = int(picked[1].split(",")[0]) if picked and picked[1] else len(dims) - 1
    n = dims[axis] if axis < len(dims) else 1
    depth = math.ceil(math.log2(n)) if n > 1 else 0
    return math.prod(dims) * depth * (depth + 1) / 2


def _top_k_comparisons(op: Op, ops: Mapping[str, Op]) -> float:
    """A ``TopK`` custom call's comparisons: XLA on TPU lays the rows along the lanes (its operand is copied
    into a transposed layout) and streams each row's elements through a sorted run of ``k`` kept values, each
    element meeting every one of them: elements x ``k`` (the time grows with ``k``, not ``log k``)."""
    operand = ops.get(op.operands[0]) if op.operands else None
    k = (_dims(hlo.tuple_elements(op.shape)[0]) or [1])[-1]
    return float(elements(operand.shape) * k) if operand is not None else 0.0


def _read_bytes(operand: Op, reader: Op) -> float:
    """HBM bytes ``reader`` reads of ``operand``: a gather or dynamic slice its result's worth, others all of it."""
    if reader.opcode in ("gather", "dynamic-slice") and reader.operands and reader.operands[0] == operand.name:
        return min(tiled_bytes(operand.shape), tiled_bytes(reader.shape))
    if reader.opcode in ("dynamic-update-slice", "scatter") and reader.operands[0] == operand.name:
        return 0.0  # updated in place: the update is read and written, not the whole operand
    return tiled_bytes(operand.shape)


def _fusion_bytes(fused: Mapping[str, Op], passes: int = 1) -> float:
    """A fusion's HBM traffic from inside it: each parameter by what its consumers read (a gather or dynamic
    slice its rows, an in-place update nothing), ``passes`` times (a kernel that reduces its rows and broadcasts
    the result back in k dependent stages, as a softmax does, streams its inputs once per stage), each result
    it writes (an in-place update its update)."""
    uses: dict[str, list[Op]] = {}
    for op in fused.values():
        for name in op.operands:
            uses.setdefault(name, []).append(op)
    read = sum(_parameter_bytes(op, uses, fused) for op in fused.values() if op.opcode == "parameter")
    updated = sum(_update_bytes(op, fused) for op in fused.values())
    return read * passes + updated + _written_bytes(fused)


def _parameter_bytes(parameter: Op, uses: Mapping[str, list[Op]], fused: Mapping[str, Op]) -> float:
    """What a fusion reads of one parameter: the most any of its consumers reads."""
    return max((_read_bytes(parameter, c) for c in _through_bitcasts(parameter, uses, fused)), default=0.0)


def _update_bytes(op: Op, fused: Mapping[str, Op]) -> float:
    """An in-place update in HBM (a dynamic-update-slice or scatter): its update, read and written; else 0."""
    if op.opcode not in ("dynamic-update-slice", "scatter") or len(op.operands) < 2 or _ON_CHIP.search(op.shape):
        return 0.0
    update = fused.get(op.operands[-1] if op.opcode == "scatter" else op.operands[1])
    return 2 * tiled_bytes(update.shape) if update is not None else 0.0


def _written_bytes(fused: Mapping[str, Op]) -> float:
    """What a fusion writes: each result but an in-place update (counted by :func:`_update_bytes`)."""
    root = next((op for op in fused.values() if op.root), None)
    written = [fused[n] for n in root.operands if n in fused] if root is not None and root.opcode == "tuple" else [root]
    return sum(
        tiled_bytes(result.shape)
        for result in written
        if result is not None and result.opcode not in ("dynamic-update-slice", "scatter")
    )


def _through_bitcasts(op: Op, uses: Mapping[str, list[Op]], fused: Mapping[str, Op]) -> list[Op]:
    """The consumers of ``op``, looking through bitcasts and reshapes (views of the same bytes)."""
    found: list[Op] = []
    for consumer in uses.get(op.name, []):
        if consumer.opcode in ("bitcast", "reshape"):
            found += [_renamed(c, consumer.name, op.name) for c in _through_bitcasts(consumer, uses, fused)]
        else:
            found.append(consumer)
    return found


def _renamed(op: Op, old: str, new: str) -> Op:
    """``op`` with operand ``old`` read as ``new`` (a view's consumer reads the viewed array)."""
    return Op(op.name, op.shape, op.opcode, tuple(new if n == old else n for n in op.operands), op.rest, op.root)


def _operand_text(rest: str) -> str:
    """The operand list of an instruction's ``rest`` (up to the bracket closing ``opcode(``)."""
    close = rest.find(")")
    if "(" not in rest[:close]:  # compiled text names its operands bare: the first ")" closes the list
        return rest[:close] if close >= 0 else rest
    depth = 0
    for k, char in enumerate(rest):
        depth += (char in "([{") - (char in ")]}")
        if depth < 0:
            return rest[:k]
    return rest


def _callee(called: Mapping[str, str]) -> str:
    """The computation a ``call`` (``to_apply=``) or an ``async-start`` (``calls=``) runs."""
    return called.get("to_apply") or called.get("calls") or ""


def _direction(op: Op) -> str | None:
    found = _DIRECTION.search(op.rest)
    return found[1] if found else None


def _constant(op: Op | None) -> int | None:
    if op is None or op.opcode != "constant":
        return None
    found = _CONSTANT.match(op.rest)
    return int(found[1]) if found else None
