"""Compiled HLO's loop and fusion state in a canonical order: a while loop's tuple and a fusion's operands,
the positions the loop body or fused computation may take in another order, sorted by the values passed in
(``dataflow.state_plan``)."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pytest_stages.ir.state_rewrite import Plan, Probes, digest, matching, order, permuted, split_top

_HLO_NAME = r"[\w.\-]+"
_HLO_WHILE = re.compile(
    rf"  (?:ROOT )?%({_HLO_NAME}) = \(.*\) while\(%({_HLO_NAME})\), condition=%({_HLO_NAME}), "
    rf"body=%({_HLO_NAME})(?:, backend_config=.*)?$"
)
_HLO_HEADER = re.compile(rf"(?:ENTRY )?%({_HLO_NAME}) \(")
_HLO_DEF = re.compile(rf"  (?:ROOT )?%({_HLO_NAME}) = ")
_HLO_GTE = re.compile(rf"get-tuple-element\(%({_HLO_NAME})\), index=(\d+)$")
_HLO_INDEX = re.compile(r"/\*index=\d+\*/")
_PERCENT = re.compile(rf"%({_HLO_NAME})")


def _hlo_list(items: Sequence[str]) -> str:
    """A tuple's elements or operands as XLA prints them: ``/*index=5*/`` before every fifth."""
    return ", ".join(f"/*index={k}*/{item}" if k and k % 5 == 0 else item for k, item in enumerate(items))


def _hlo_permute_at(line: str, start: int, moves: Mapping[int, int]) -> str:
    """``line`` with the bracketed list that opens at ``start`` permuted."""
    stop = matching(line, start)
    items = [_HLO_INDEX.sub("", item, count=1) for item in split_top(line[start + 1 : stop])]
    return line[: start + 1] + _hlo_list(permuted(items, moves)) + line[stop:]


@dataclass
class _HloModule:
    """The parts of a compiled HLO module a loop rewrite reads: computations, definitions, uses."""

    lines: list[str]
    computations: dict[str, tuple[int, int]] = field(default_factory=dict)
    defs: dict[str, int] = field(default_factory=dict)
    reads: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        header: tuple[str, int] | None = None
        for k, line in enumerate(self.lines):
            if line.startswith("  "):
                found = _HLO_DEF.match(line)
                if found is not None:
                    self.defs[found[1]] = k
                if "get-tuple-element(" in line:
                    read = _HLO_GTE.search(line)
                    if read is not None:
                        self.reads.setdefault(read[1], []).append((k, int(read[2])))
            elif line == "}" and header is not None:
                self.computations[header[0]] = (header[1], k)
                header = None
            else:
                found = _HLO_HEADER.match(line)
                if found is not None:
                    header = (found[1], k)
        self.counts = Counter(_PERCENT.findall("\n".join(self.lines)))

    @functools.cached_property
    def blind(self) -> dict[str, str]:
        """Each name's key as a fusion's operand (docs/architecture.md): a hash that the permutation
        of a fusion's operands and its computation's parameters leaves as it is. A name read before
        it is defined keys as nothing."""
        keys: dict[str, str] = {}
        members: list[str] = []
        computation, entry = "", False
        for line in self.lines:
            if line.startswith("  "):
                found = _HLO_DEF.match(line)
                if found is None:
                    continue
                rest = line[found.end() :]
                bare = _PERCENT.sub("%", rest)
                if not entry:
                    bare = _HLO_PARAMETER.sub(" parameter()", bare)
                keys[found[1]] = key = digest((bare, *sorted(keys.get(name, "") for name in _PERCENT.findall(rest))))
                members.append(key)
            elif line == "}":
                if computation:
                    keys[computation] = digest(sorted(members))
                computation = ""
            elif (header := _HLO_HEADER.match(line)) is not None:
                computation, entry, members = header[1], line.startswith("ENTRY "), []
        return keys

    def tuple_line(self, name: str, opcode: str) -> tuple[int, int, int] | None:
        """The line defining ``name`` as ``= (…) opcode(…)``: its index, where its type and its operands open."""
        k = self.defs.get(name)
        if k is None:
            return None
        line = self.lines[k]
        typed = line.index(" = ") + 3
        if line[typed : typed + 1] != "(":
            return None
        after = matching(line, typed)
        if not line.startswith(f" {opcode}(", after + 1) or not line.endswith(")"):
            return None
        return k, typed, after + len(opcode) + 2

    def parameter(self, computation: str) -> tuple[str, list[tuple[int, int]]] | None:
        """A computation's only parameter and its reads (line, index), if it is read only through
        ``get-tuple-element`` and its computation is called once."""
        span = self.computations.get(computation)
        if span is None or self.counts[computation] != 2:
            return None
        header = self.lines[span[0]]
        open_ = header.index(" (") + 1
        close = matching(header, open_)
        params = split_top(header[open_ + 1 : close])
        if len(params) != 1 or ": (" not in params[0]:
            return None
        name = params[0].split(": ", 1)[0]
        reads = self.reads.get(name, [])
        if self.counts[name] != 1 + len(reads) or not all(span[0] < k < span[1] for k, _ in reads):
            return None
        return name, reads


def hlo_plan(text: str) -> Plan | None:
    if (" while(%" not in text and " fusion(" not in text) or "\nENTRY %" not in text:
        return None
    module = _HloModule(text.split("\n"))
    found: list[_HloLoop | _HloFusion] = []
    touched: set[int] = set()
    for k, line in enumerate(module.lines):
        state = _hlo_loop(module, k, line) if " while(%" in line else _hlo_fusion(module, k, line)
        # a line two rewrites would both touch (never printed by XLA) leaves the later one as it is
        if state is not None and touched.isdisjoint(state.touched()):
            found.append(state)
            touched |= state.touched()
    if not found:
        return None

    def apply(probes: Probes) -> str:
        lines = list(module.lines)
        for state in found:
            state(lines, probes)
        return "\n".join(lines)

    return Plan({state.init for state in found if isinstance(state, _HloLoop)}, apply, len(found))


_HLO_FUSION = re.compile(rf" fusion\((.*)\), kind=k\w+, calls=%({_HLO_NAME})(, backend_config=.*)?$")
# A TPU fusion's backend_config that names none of its operands by position.
_NO_ALIASING = '"aliasing_operands":{"lists":[]}'
_HLO_PARAMETER = re.compile(r" parameter\((\d+)\)$")


@dataclass(frozen=True)
class _HloFusion:
    """A ``fusion`` whose operands may be permuted: its line (``init``) and where its operands open, its
    computation's header line and where its parameters open, and each ``parameter(k)`` line of the
    computation with its k. Its operands are keyed by the module's :attr:`_HloModule.blind` hashes,
    not by the dataflow's (``probes``, which it never reads)."""

    module: _HloModule
    init: int
    opens: int
    header: int
    parameters_open: int
    reads: list[tuple[int, int]]

    def touched(self) -> set[int]:
        """The lines a permutation of this fusion's operands rewrites."""
        return {self.init, self.header} | {k for k, _ in self.reads}

    def __call__(self, lines: list[str], probes: Probes) -> None:
        line = lines[self.init]
        operands = _hlo_items(line[self.opens + 1 : matching(line, self.opens)])
        keys = self.module.blind
        moves = order([keys.get(name[1:], name) for name in operands], range(len(operands)))
        if not moves:
            return
        lines[self.init] = _hlo_permute_at(line, self.opens, moves)
        header = lines[self.header]
        close = matching(header, self.parameters_open)
        parameters = split_top(header[self.parameters_open + 1 : close])
        lines[self.header] = (
            f"{header[: self.parameters_open + 1]}{', '.join(permuted(parameters, moves))}{header[close:]}"
        )
        for k, index in self.reads:
            lines[k] = f"{lines[k][: lines[k].rindex('(') + 1]}{moves.get(index, index)})"


def _hlo_fusion(module: _HloModule, k: int, line: str) -> _HloFusion | None:
    """The fusion on line ``k``, if its operands may be permuted: its computation is called by it alone,
    its header lists one parameter per operand, each read by one ``parameter(k)`` line at its place
    (no output-to-operand aliasing, no backend_config that names an operand, such as a TPU fusion's
    ``"aliasing_operands":{"lists":[{"indices":["0","6"]}]}``, or other attribute that does)."""
    at = line.find(" fusion(") if line.startswith("  ") else -1
    found = _HLO_FUSION.match(line, at) if at > 0 else None
    if found is None or module.counts[found[2]] != 2 or found[2] not in module.computations:
        return None
    if "operand" in (found[3] or "").replace(_NO_ALIASING, ""):
        return None
    operands = _hlo_items(found[1])
    start, stop = module.computations[found[2]]
    read = _parameter_reads(module, start, stop)
    if read is None or len(operands) < 2 or len(read[1]) != len(operands):
        return None
    opens, reads = read
    return _HloFusion(module, k, at + len(" fusion"), start, opens, reads)


def _parameter_reads(module: _HloModule, start: int, stop: int) -> tuple[int, list[tuple[int, int]]] | None:
    """Where the header of the computation on lines ``[start, stop)`` opens its parameter list, and its
    ``parameter(k)`` lines as (line, k); None unless the header lists one parameter per such line and
    each is read by the line of its own index."""
    header = module.lines[start]
    opens = header.find(" (") + 1
    parameters = [item.partition(": ")[0] for item in split_top(header[opens + 1 : matching(header, opens)])]
    reads = [
        (j, int(read[1]))
        for j in range(start + 1, stop)
        if (read := _HLO_PARAMETER.search(module.lines[j])) is not None
    ]
    named = {defined[1]: index for j, index in reads if (defined := _HLO_DEF.match(module.lines[j])) is not None}
    if len(parameters) != len(reads) or any(named.get(name) != index for index, name in enumerate(parameters)):
        return None
    return opens, reads


@dataclass
class _HloLoop:
    """One ``while`` of compiled HLO whose invariant positions may be permuted."""

    module: _HloModule
    line: int
    init: int
    operands: list[str]
    invariant: list[int]
    body: tuple[str, str, list[tuple[int, int]], int]  # computation, parameter, reads, root line
    condition: tuple[str, str, list[tuple[int, int]]]
    results: list[tuple[int, int]]

    def lists(self, lines: Sequence[str] | None = None) -> list[tuple[int, int]]:
        """Each list of the loop's state, as (line, where it opens), in ``lines`` (the module's by default):
        the state's type where the loop, the tuple built for it, its body's root and the parameters of
        body and condition are defined; the operands of the two tuples; the computations' headers."""
        lines = self.module.lines if lines is None else lines
        module = self.module
        defined = (self.line, self.init, module.defs[self.body[1]], self.body[3], module.defs[self.condition[1]])
        out = [(k, lines[k].index(" = ") + 3) for k in defined]
        out += [(k, lines[k].rindex(" tuple(") + 6) for k in (self.init, self.body[3])]
        for computation, returns in ((self.body[0], True), (self.condition[0], False)):
            k = module.computations[computation][0]
            out.append((k, lines[k].index(": (") + 2))
            if returns:
                out.append((k, lines[k].rindex(" -> (") + 4))
        return out

    def touched(self) -> set[int]:
        """The lines a permutation of this loop's state rewrites."""
        return {k for k, _ in self.lists()} | {k for k, _ in (*self.body[2], *self.condition[2], *self.results)}

    def __call__(self, lines: list[str], probes: Probes) -> None:
        hashes = probes.get(self.init, {})
        keys = [hashes.get(name[1:], name) if name.startswith("%") else name for name in self.operands]
        moves = order(keys, self.invariant)
        if not moves:
            return
        for k, at in reversed(self.lists(lines)):  # right to left within a line: earlier lists keep their place
            lines[k] = _hlo_permute_at(lines[k], at, moves)
        for k, index in (*self.body[2], *self.condition[2], *self.results):
            if index in moves:
                lines[k] = lines[k][: lines[k].rindex("index=") + 6] + str(moves[index])


def _hlo_loop(module: _HloModule, k: int, line: str) -> _HloLoop | None:
    """The loop a ``while`` line starts, if its state can be permuted (docs/architecture.md says which): its
    init tuple is read by the loop alone, each computation's parameter only through ``get-tuple-element``
    (:meth:`_HloModule.parameter`), the body returns a tuple and the loop's result is read only through
    ``get-tuple-element``."""
    found = _HLO_WHILE.match(line)
    if found is None:
        return None
    name, init, condition, body = found.groups()
    built, results = module.tuple_line(init, "tuple"), module.reads.get(name, [])
    body_param, cond_param = module.parameter(body), module.parameter(condition)
    if built is None or body_param is None or cond_param is None or module.counts[init] != 2:
        return None
    root = _hlo_root_tuple(module, body)
    if root is None or module.counts[name] != 1 + len(results):
        return None
    operands = _hlo_items(module.lines[built[0]][built[2] + 1 : -1])
    outputs = _hlo_items(module.lines[root[0]][root[1] + 1 : -1])
    invariant = _hlo_invariant(module, body_param[1], outputs)
    if invariant is None or len(operands) != len(outputs) or len(invariant) < 2:
        return None
    loop = _HloLoop(
        module, k, built[0], operands, invariant, (body, *body_param, root[0]), (condition, *cond_param), results
    )
    return loop if all(_hlo_length(module.lines[j], at) == len(operands) for j, at in loop.lists()) else None


def _hlo_invariant(module: _HloModule, reads: list[tuple[int, int]], outputs: list[str]) -> list[int] | None:
    """The positions whose value the body returns as it read it (``outputs``: the body's ``ROOT`` tuple;
    ``reads``: the lines reading its parameter, with the index each reads). None unless every read
    defines a name of its own."""
    defined = [(_HLO_DEF.match(module.lines[j]), index) for j, index in reads]
    read_at = {f"%{found[1]}": index for found, index in defined if found is not None}
    if len(read_at) != len(defined):
        return None
    return [j for j, output in enumerate(outputs) if read_at.get(output) == j]


def _hlo_length(line: str, start: int) -> int:
    """How many items the bracketed list that opens at ``start`` holds; -1 if none opens there."""
    stop = matching(line, start) if line[start : start + 1] == "(" else -1
    return len(split_top(line[start + 1 : stop])) if stop > 0 else -1


def _hlo_root_tuple(module: _HloModule, computation: str) -> tuple[int, int] | None:
    """A computation's ``ROOT`` line, if it builds a tuple, and where its operands open."""
    start, stop = module.computations[computation]
    root = next((j for j in range(start + 1, stop) if module.lines[j].startswith("  ROOT ")), None)
    if root is None:
        return None
    found = _HLO_DEF.match(module.lines[root])
    returned = module.tuple_line(found[1], "tuple") if found is not None else None
    return None if returned is None else (root, returned[2])


def _hlo_items(text: str) -> list[str]:
    """A tuple's operands without XLA's ``/*index=5*/`` marks."""
    return [_HLO_INDEX.sub("", item, count=1) for item in split_top(text)]
