"""HLO text, parsed: the one module that knows the syntax of XLA's HLO text.

Lowered and compiled HLO are read here and nowhere else, so that the op analysis, the drift summary, the
diff and source attribution agree on what a line means. Pure functions over text; plain data out.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from pytest_stages.core.lazy import lazy_module, lazy_pattern

if TYPE_CHECKING:
    from pytest_stages.ir import hlo_records as hlo_records_
else:
    hlo_records_ = lazy_module("pytest_stages.ir.hlo_records")

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
# The opcodes of a collective, sync or an async start (``Instruction.collective`` is None for any other).
COLLECTIVE_OPCODES = frozenset([*COLLECTIVES, *(f"{op}-start" for op in COLLECTIVES)])
# Async starts whose tuple holds their operands before their result (an all-reduce-start's shape is its result's)
_OPERANDS_FIRST = frozenset({"all-gather", "reduce-scatter", "collective-permute"})
TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_TITLES = frozenset(TABLES)
# A value or computation name: %add.3, param_0.1, %constant.0.clone.1, get-tuple-element.2.
NAME = r"%?[A-Za-z_][\w.\-]*"
# Bits of each XLA element type, as HLO text names them (xla_data.proto's PrimitiveType).
_DTYPE_BITS = {
    "pred": 8,
    "s2": 2,
    "u2": 2,
    "s4": 4,
    "u4": 4,
    "s8": 8,
    "u8": 8,
    "s16": 16,
    "u16": 16,
    "s32": 32,
    "u32": 32,
    "s64": 64,
    "u64": 64,
    "f4e2m1fn": 4,
    "f8e3m4": 8,
    "f8e4m3": 8,
    "f8e4m3fn": 8,
    "f8e4m3fnuz": 8,
    "f8e4m3b11fnuz": 8,
    "f8e5m2": 8,
    "f8e5m2fnuz": 8,
    "f8e8m0fnu": 8,
    "f16": 16,
    "bf16": 16,
    "f32": 32,
    "f64": 64,
    "c64": 64,
    "c128": 128,
}
# "  ROOT %t.2 = f32[8]{0} add(" -> ROOT, name %t.2, shape f32[8]{0}, opcode add; for a
# tuple shape "(f32[8]{0}, s32[]) tuple(" only ROOT and name: the shape ends at its closing ")"
_DEFINITION = lazy_pattern(
    rf"\s*(?P<root>ROOT\s+)?(?P<name>{NAME}) = (?:(?P<shape>[^\s(]\S*)\s+(?P<opcode>[a-z][\w-]*)\()?"
)
# A definition after a newline, for many lines at once: "\n  ROOT %t.2 = ..." -> %t.2; an unindented
# "\n%fused.1 (p.1: f32[]) -> f32[] {" or "\nENTRY main.2 {" -> the whole header line (it has a space,
# a name has none). Led by "\n" rather than a multiline "^": a literal first character makes the scan
# faster (docs/performance.md), and one group makes ``findall`` give strings, not tuples.
_DEFINED = lazy_pattern(rf"\n[ \t]*+(?:ROOT[ \t]++)?({NAME}(?= = )|(?<=\n)(?:ENTRY[ \t]+)?{NAME} [({{][^\n]*)")
# Each of ``splitlines``' lines, led by a "\n" alone (``[^\S\n]``: a line's ``\s``): an instruction as ``_DEFINITION``
# reads it (a tuple shape's "(" opens the rest), a "}", or a header as ``_COMPUTATION`` reads it; then the rest.
_LINES = re.compile(
    rf"\n(?:[^\S\n]*(ROOT[^\S\n]+)?({NAME}) = (?:([^\s(]\S*)[^\S\n]+([a-z][\w-]*)\(|(?=\())"
    rf"|(}})|(ENTRY[^\S\n]+)?({NAME}) (?=[({{]))(.*)"
)
# " tuple(" after a tuple shape -> opcode tuple
_OPCODE = re.compile(r"\s+(?P<opcode>[a-z][\w-]*)\(")
# "ENTRY %main.2 (p: f32[8]) -> f32[8] {" or lowered "region_0.1 {" -> entry, name
_COMPUTATION = lazy_pattern(rf"(?P<entry>ENTRY\s+)?(?P<name>{NAME}) [({{]")
# "(x.3: f32[], y.1: f32[])" in a computation header -> x.3, y.1
_PARAMETER = lazy_pattern(rf"(?:\(|, )({NAME}): ")
# "{1,0:T(8,128)S(1)}" in "f32[16,128]{1,0:T(8,128)S(1)}"
_LAYOUT = re.compile(r"\{[^{}]*\}")
# "bf16[8,<=16]" -> dtype bf16, dims "8,<=16"; "f8e4m3fn[4]" -> dtype f8e4m3fn
_ARRAY = lazy_pattern(r"(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<dims>[^\]]*)\]")
_KIND = re.compile(r"\bkind=(\w+)")
_TARGET = lazy_pattern(r'custom_call_target="([^"]*)"')
# "{0}: (1, {}, may-alias)" -> output "0", parameter 1, parameter index "", kind may-alias
_ALIAS = lazy_pattern(r"\{(?P<output>[\d,\s]*)\}:\s*\((?P<parameter>\d+)(?:,\s*\{[\d,\s]*\})?(?:,\s*(?P<kind>[\w-]+))?")
_ALIAS_HEADER = "input_output_alias={"
# "body=%region_0.1, condition=%region_1.2", "calls=%fused_computation.2", "to_apply=%add" -> the computations called
_CALLED = lazy_pattern(rf"\b(?:calls|to_apply|body|condition|true_computation|false_computation)=({NAME})")
# "branch_computations={%branch_0, %branch_1}" -> "%branch_0, %branch_1"
_BRANCHES = lazy_pattern(r"\bbranch_computations=\{([^{}]*)\}")
# 'backend_config={..."known_trip_count":{"n":"12"}...}' -> 12 (compiled HLO, where XLA knows it)
_TRIP_COUNT = lazy_pattern(r'"known_trip_count":\{"n":"(\d+)"\}')
_REPLICA_GROUPS = "replica_groups="
# The iota form of replica groups: "[2,4]<=[8]", "[4,2]<=[2,4]T(1,0)" (groups x size <= dims, transposed).
_IOTA = lazy_pattern(r"\[(?P<groups>[\d,]+)\]<=\[(?P<dims>[\d,]+)\](?:T\((?P<perm>[\d,]+)\))?")
# One explicit group: "{0,1,2,3}" of "{{0,1,2,3},{4,5,6,7}}".
_GROUP = lazy_pattern(r"\{([\d,\s]*)\}")
# The cross-slice half of a collective on TPU: 'send(...), ..., _xla_megascale_transfer_type="ALL_REDUCE"'.
_MEGASCALE = lazy_pattern(r'_xla_megascale_transfer_type="(\w+)"')
# "condition=%region_1.2, body=%region_0.1" -> ("condition", "%region_1.2"), ("body", "%region_0.1")
_LOOP_PARTS = lazy_pattern(rf"\b(body|condition)=({NAME})")
_BRACKETS = {"(": re.compile(r"[()]"), "{": re.compile(r"[{}]")}


class Instruction(NamedTuple):
    """One instruction line: ``ROOT %t = (f32[4]{0}, f32[]) tuple(%a, %b)``.

    ``name`` as written (``%t``, or ``t`` in lowered HLO); ``shape`` without layouts; ``rest`` is the line
    after ``opcode(``; ``computation`` the enclosing one ("" where unknown). A named tuple: built per line, fast.
    """

    name: str
    shape: str
    opcode: str
    rest: str
    root: bool = False
    computation: str = ""
    entry: bool = False

    @property
    def fusion_kind(self) -> str | None:
        """``kLoop`` of ``fusion(...), kind=kLoop``; None for another opcode or no kind."""
        kind = _KIND.search(self.rest) if self.opcode == "fusion" else None
        return kind[1] if kind else None

    @property
    def custom_call_target(self) -> str | None:
        """The ``custom_call_target`` of a custom-call; None for another opcode or no target."""
        target = _TARGET.search(self.rest) if self.opcode == "custom-call" else None
        return target[1] if target else None

    @property
    def collective(self) -> hlo_records_.Collective | None:
        """The collective this is, else None: an async ``all-gather-start`` is one, its ``-done`` not.

        Its shape and bytes are those of what it produces, so the async and sync forms read the same.
        """
        op = self.opcode.removesuffix("-start")
        if op not in COLLECTIVES:
            return None
        shape = self.shape
        if op != self.opcode and op in _OPERANDS_FIRST and shape.startswith("("):
            elements = tuple_elements(shape)
            shape = elements[1] if len(elements) > 1 else shape
        return hlo_records_.Collective(op, shape, shape_bytes(shape))


_new_instruction = tuple.__new__


class Computation(NamedTuple):
    """A computation header: ``ENTRY %main.2 (a.1: f32[4]) -> f32[4] {`` or lowered ``main.2 {``."""

    name: str
    entry: bool
    parameters: tuple[str, ...] = ()


def parse_instruction(line: str, computation: str = "", entry: bool = False) -> Instruction | None:
    """The instruction on ``line``, None for any other line (headers, ``}``, tables, blank)."""
    head = _DEFINITION.match(line)
    if head is None:
        return None
    root, name, shape, opcode = head.groups()
    return _built(bool(root), name, shape, opcode, line[head.end() :], computation=computation, entry=entry)


def _built(
    root: bool, name: str, shape: str, opcode: str, rest: str, *, computation: str, entry: bool
) -> Instruction | None:
    """The instruction of a definition's parts; without an opcode, a tuple shape opens ``rest`` (None: none follows)."""
    if not opcode:
        close = _balanced_end(rest, 0) if rest.startswith("(") else -1
        found = _OPCODE.match(rest, close) if close > 0 else None
        if found is None:
            return None
        shape, opcode, rest = rest[:close], found["opcode"], rest[found.end() :]
    # tuple.__new__ builds the named tuple without the Python-level __new__ a call to the class runs
    # (one instruction per line of a module: docs/performance.md).
    shape = _LAYOUT.sub("", shape) if "{" in shape else shape
    return _new_instruction(Instruction, (name, shape, opcode, rest, root, computation, entry))


def _balanced_end(text: str, start: int) -> int:
    """Index just past the bracket closing the one at ``start`` (any depth), -1 if it never closes."""
    depth = 0
    for bracket in _BRACKETS[text[start]].finditer(text, start):
        depth += 1 if bracket[0] in "({" else -1
        if depth == 0:
            return bracket.end()
    return -1


def parse_computation(line: str) -> Computation | None:
    """The computation a header line opens (headers are not indented), else None."""
    header = _COMPUTATION.match(line) if line[:1] not in (" ", "\t") else None
    if header is None:
        return None
    return Computation(header["name"], bool(header["entry"]), tuple(_PARAMETER.findall(line)))


def instructions(text: str) -> Iterator[Instruction]:
    """Every instruction of an HLO text, in order, each knowing its computation: one ``findall`` of its lines."""
    computation, entry = "", False
    lines = _LINES.findall("\n" + "\n".join(text.splitlines()))
    for root, name, shape, opcode, close, entry_header, header, rest in lines:
        built = _built(bool(root), name, shape, opcode, rest, computation=computation, entry=entry) if name else None
        if built is not None:
            yield built
        elif close:
            computation, entry = "", False
        elif header:
            computation, entry = header, bool(entry_header)


# A name's numbers with what joins them: "fused_computation.155.clone.1" and ".143.clone.1" are one kind
# of name, "@_where" and "@_where_0" too.
_NUMBERS = re.compile(r"[._]?\d+")


def stem(name: str) -> str:
    """A name without its numbers or ``%``: what it says of its instruction or computation, not which one
    (``%fused_computation.155.clone.1`` -> ``fused_computation.clone``, ``region_216.3`` -> ``region``)."""
    return _NUMBERS.sub("", name.removeprefix("%"))


def meanings(text: str) -> dict[str, tuple[str, ...]]:
    """What each instruction name of ``text`` stands for, by its name without ``%``: the name without its
    numbers, its opcode, its comparison's direction and its callees without their numbers.

    An update keeps an old name only for an instruction of the same meaning (``%gt.1`` for no
    ``direction=LT``, ``%copy.83`` for no fusion).
    """
    return {
        instruction.name.removeprefix("%"): (
            stem(instruction.name),
            instruction.opcode,
            _attribute(instruction.rest, "direction="),
            *map(stem, _CALLED.findall(instruction.rest)),
        )
        for instruction in instructions(text)
    }


def defined_names(text: str) -> list[str]:
    """The names the lines of ``text`` define, in order: each instruction's, each computation's and its parameters'.

    Anchored matches only (no scan of a tuple shape): cheap enough for every line of a huge
    module, one line or a block of them at a time.
    """
    found = _DEFINED.findall("\n" + text)
    names: list[str] = []
    start = 0
    for k in itertools.compress(itertools.count(), map(operator.contains, found, itertools.repeat(" "))):
        computation = parse_computation(found[k])
        names += found[start:k]
        names += [computation.name, *computation.parameters] if computation is not None else []
        start = k + 1
    return names + found[start:]


def opcode_counts(text: str) -> Counter[str]:
    """How many instructions of each opcode ``text`` holds."""
    return Counter(instruction.opcode for instruction in instructions(text))


def count_opcode(text: str, opcode: str) -> int:
    """Instructions of one opcode, counted as `` opcode(`` substrings: no parse, cheap on huge modules."""
    return text.count(f" {opcode}(")


def collectives(text: str) -> list[hlo_records_.Collective]:
    """The collectives of an HLO text, in order (a text naming none is not parsed)."""
    if not any(op in text for op in COLLECTIVES):
        return []
    return [c for c in (i.collective for i in instructions(text)) if c is not None]


class NetworkCollective(NamedTuple):
    """A collective, whether it crosses slices, and how often it runs per call (the trip counts of its loops)."""

    collective: hlo_records_.Collective
    crosses: bool
    iterations: int = 1


def network_collectives(text: str, slices: Sequence[int]) -> list[NetworkCollective]:
    """Every collective of a compiled HLO text, in order, with whether it crosses slices (DCN) or not (ICI).

    ``slices[k]`` is the slice of logical device ``k``. XLA's TPU compiler sends a collective's cross-slice
    part as a megascale ``send``: that is the DCN collective. One inside loops counts their trip counts.
    """
    iterations = _iterations(text)
    found = []
    for instruction in instructions(text):
        times = iterations.get(instruction.computation, 1)
        if instruction.opcode == "send":
            kind = _MEGASCALE.search(instruction.rest)
            if kind:
                shape = tuple_elements(instruction.shape)[0] if instruction.shape.startswith("(") else instruction.shape
                op = kind[1].lower().replace("_", "-")
                found.append(NetworkCollective(hlo_records_.Collective(op, shape, shape_bytes(shape)), True, times))
            continue
        collective = instruction.collective
        if collective is not None:
            found.append(NetworkCollective(collective, _crosses(replica_groups(instruction.rest), slices), times))
    return found


def _iterations(text: str) -> dict[str, int]:
    """Per computation run inside loops: the product of the known trip counts of every loop that reaches it."""
    if " while(" not in text:
        return {}
    calls, whiles, _ = _call_graph(text)
    times: dict[str, int] = {}
    for loop in whiles:
        trip = known_trip_count(loop.rest)
        for computation in _reached(_CALLED.findall(loop.rest), calls):
            times[computation] = times.get(computation, 1) * (1 if trip is None else trip)
    return times


def known_trip_count(rest: str) -> int | None:
    """The trip count XLA knows for a ``while`` (its ``backend_config``), None where it does not."""
    trip = _TRIP_COUNT.search(rest)
    return int(trip[1]) if trip else None


def replica_groups(rest: str) -> tuple[tuple[int, ...], ...]:
    """The device groups of a collective's attributes; () for all devices (``replica_groups={}``).

    ``replica_groups={{0,1},{2,3}}`` -> ((0, 1), (2, 3)); the iota form ``[2,2]<=[4]`` -> the same;
    ``[2,2]<=[2,2]T(1,0)`` -> ((0, 2), (1, 3)); ``source_target_pairs={{0,1},{1,0}}`` -> ((0, 1), (1, 0)).
    """
    text = _attribute(rest, _REPLICA_GROUPS) or _attribute(rest, "source_target_pairs=")
    iota = _IOTA.fullmatch(text)
    if iota is None:
        groups = (tuple(int(n) for n in group.split(",") if n.strip()) for group in _GROUP.findall(text))
        return tuple(group for group in groups if group)
    shape, dims = _ints(iota["groups"]), _ints(iota["dims"])
    perm = _ints(iota["perm"]) if iota["perm"] else tuple(range(len(dims)))
    moved = [dims[p] for p in perm]
    flat = []
    for index in itertools.product(*map(range, moved)):
        original = [0] * len(dims)
        for axis, value in zip(perm, index, strict=True):
            original[axis] = value
        flat.append(sum(v * math.prod(dims[k + 1 :]) for k, v in enumerate(original)))
    size = shape[-1]
    return tuple(tuple(flat[k : k + size]) for k in range(0, len(flat), size))


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.split(","))


def _crosses(groups: tuple[tuple[int, ...], ...], slices: Sequence[int]) -> bool:
    """Whether a group holds devices of two slices (no groups: every device takes part)."""
    if not groups:
        return len(set(slices)) > 1
    return any(len({slices[k] for k in group if k < len(slices)}) > 1 for group in groups)


def loops(text: str) -> tuple[hlo_records_.Loop, ...]:
    """The while loops of an HLO text, in order, each with the collectives that run on every iteration.

    A collective belongs to the innermost loop whose body (or condition) reaches its computation
    through calls (fusions, ``to_apply``, branches, nested loops); a text without a while is not parsed.
    """
    if " while(" not in text:
        return ()
    calls, whiles, placed = _call_graph(text)
    reach = [_reached(_CALLED.findall(w.rest), calls) for w in whiles]
    owner = {computation: _innermost(computation, reach) for computation in placed}
    found = []
    for k, loop in enumerate(whiles):
        body = next((name for key, name in _LOOP_PARTS.findall(loop.rest) if key == "body"), "")
        trip = known_trip_count(loop.rest)
        members = [i for computation, kept in placed.items() if owner[computation] == k for i in kept]
        found.append(hlo_records_.Loop(loop.name, body, trip, tuple(map(_loop_collective, members))))
    return tuple(found)


def _call_graph(text: str) -> tuple[dict[str, set[str]], list[Instruction], dict[str, list[Instruction]]]:
    """One parse of ``text``: the computations each computation calls, the whiles, the collectives by computation."""
    calls: dict[str, set[str]] = {}
    whiles: list[Instruction] = []
    placed: dict[str, list[Instruction]] = {}
    for instruction in instructions(text):
        called = _CALLED.findall(instruction.rest)
        for branches in _BRANCHES.findall(instruction.rest):
            called += [name.strip() for name in branches.split(",") if name.strip()]
        calls.setdefault(instruction.computation, set()).update(called)
        if instruction.opcode == "while":
            whiles.append(instruction)
        if instruction.collective is not None:
            placed.setdefault(instruction.computation, []).append(instruction)
    return calls, whiles, placed


def _innermost(computation: str, reach: list[set[str]]) -> int | None:
    """The loop (index into ``reach``) that reaches ``computation`` through the fewest computations, or None."""
    holding = [k for k, reached in enumerate(reach) if computation in reached]
    return min(holding, key=lambda k: len(reach[k])) if holding else None


def _reached(start: Iterable[str], calls: Mapping[str, set[str]]) -> set[str]:
    """Every computation reached from ``start`` through ``calls`` (``start`` included)."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += calls.get(name, ())
    return seen


def _loop_collective(instruction: Instruction) -> hlo_records_.LoopCollective:
    collective = instruction.collective
    assert collective is not None
    return hlo_records_.LoopCollective(
        collective.op, collective.shape, collective.bytes, _attribute(instruction.rest, _REPLICA_GROUPS)
    )


def _attribute(rest: str, key: str) -> str:
    """The value of ``key`` in an instruction's attributes, up to the next ``, `` outside brackets ("" if absent).

    ``"..., replica_groups=[4,2]<=[8], dimensions={0}"`` -> ``[4,2]<=[8]``.
    """
    start = rest.find(key)
    if start < 0:
        return ""
    start += len(key)
    depth = 0
    for k in range(start, len(rest)):
        char = rest[k]
        depth += (char in "([{") - (char in ")]}")
        if depth < 0 or (depth == 0 and rest.startswith(", ", k)):
            return rest[start:k]
    return rest[start:]


def tuple_elements(shape: str) -> list[str]:
    """The top-level elements of a tuple shape: ``((f32[8]), f32[4,2])`` -> ``["(f32[8])", "f32[4,2]"]``."""
    inner = shape[1:-1] if shape.startswith("(") and shape.endswith(")") else shape
    elements, depth, start = [], 0, 0
    for k, char in enumerate(inner):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            elements.append(inner[start:k].strip())
            start = k + 1
    return [*elements, inner[start:].strip()] if inner.strip() else elements


def strip_layouts(shape: str) -> str:
    """``(f32[8,16]{1,0}, s32[]{:S(2)})`` -> ``(f32[8,16], s32[])``."""
    return _LAYOUT.sub("", shape) if "{" in shape else shape


def dtype_bits(dtype: str) -> int:
    """Bits of an element type as HLO names it (``f8e4m3fn`` -> 8); 8 for one without elements (``token``)."""
    return _DTYPE_BITS.get(dtype, 8)


def shape_bytes(shape: str) -> int:
    """Bytes of an HLO shape such as ``f32[64,512]`` or a tuple of them (nested too)."""
    total_bits = 0
    for array in _ARRAY.finditer(shape):
        dims = [int(d) for d in re.findall(r"\d+", array["dims"])]
        total_bits += dtype_bits(array["dtype"]) * math.prod(dims)
    return (total_bits + 7) // 8


def aliases(text: str) -> tuple[hlo_records_.Alias, ...]:
    """The entries of the module header's ``input_output_alias={...}`` (its first line)."""
    header = text.split("\n", 1)[0]
    start = header.find(_ALIAS_HEADER)
    if start < 0:
        return ()
    start += len(_ALIAS_HEADER) - 1
    end = _balanced_end(header, start)
    return tuple(
        hlo_records_.Alias(_indexes(match["output"]), int(match["parameter"]), match["kind"] or "")
        for match in _ALIAS.finditer(header, start + 1, end if end > 0 else len(header))
    )


def _indexes(text: str) -> tuple[int, ...]:
    """``"1, 0"`` -> ``(1, 0)``; ``""`` -> ``()``."""
    return tuple(int(part) for part in text.split(",") if part.strip())


def split_tables(lines: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """HLO lines apart from its stack-frame tables, and each table's rows.

    A table is a title line (``FileNames``, ``StackFrames``, ...) and the non-blank lines after it, up to
    and including a blank line: found at C speed (``compress``, ``list.index``), a Python step per table.
    """
    stripped = [*map(str.strip, lines), ""]  # the "" ends a table that runs to the last line
    body: list[str] = []
    tables: dict[str, list[str]] = {}
    start = 0
    for title in itertools.compress(itertools.count(), map(_TITLES.__contains__, stripped)):
        if title < start:  # a row of the table before
            continue
        body += lines[start:title]
        start = stripped.index("", title + 1)
        tables.setdefault(stripped[title], []).extend(stripped[title + 1 : start])
        start += 1  # the blank line that ends a table is neither body nor row
    body += lines[start:]
    return body, tables
