"""A loop's or a call's state in a canonical order: positions that hold values passed in, sorted by those values.

Model code that reads two weights in another order makes JAX capture them in another order (a loop's
constants, a custom-derivative call's operands, XLA's loop tuple and fusion operands). :func:`plan` finds
the lists of positions whose order can change with every reader rewritten alike, and orders them by the
hashes of the values passed in (docs/architecture.md, "Loop and call state in a canonical order").
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

# A line's index, then its name tokens and their hashes, read where the line's unit is hashed.
Probes = Mapping[int, Mapping[str, str]]
# A line range [start, stop) of the text and the lines that replace it.
Edit = tuple[int, int, list[str]]


def digest(parts: Sequence[str]) -> str:
    """A hash of ``parts`` that is the same in every process: the canonical order sorts by it, and
    Python's ``hash`` of a string changes with ``PYTHONHASHSEED``, which would let the order (and so a
    verdict on texts that are one program only up to order) change from one run to the next."""
    return hashlib.blake2b("\x1e".join(parts).encode(), digest_size=16).hexdigest()


@dataclass
class Plan:
    """What one text's rewrite needs: the lines whose names' hashes it reads (``wanted``), and
    ``apply``, which turns those hashes into the rewritten text (the same text when nothing moves);
    ``lists``: how many lists of positions it puts in order."""

    wanted: set[int]
    apply: Callable[[Probes], str]
    lists: int


def plan(dialect: str, text: str) -> Plan | None:
    """The rewrite of ``text``'s loop and call state; None where the text has none to rewrite."""
    finder = _PLANNERS.get(dialect)
    return finder(text) if finder is not None else None


def order(keys: Sequence[str], slots: Sequence[int]) -> dict[int, int]:
    """The new position of each position in ``slots`` (ascending): the slots refilled in the order of
    the positions' ``keys`` (ties in their order); positions that keep their place left out."""
    ranked = sorted(slots, key=lambda k: keys[k])
    return {old: new for old, new in zip(ranked, slots, strict=True) if old != new}


def permuted(items: Sequence[str], moves: Mapping[int, int]) -> list[str]:
    """``items`` with item k at ``moves.get(k, k)``."""
    out = list(items)
    for old, new in moves.items():
        out[new] = items[old]
    return out


def split_top(text: str, opening: str = "([{", closing: str = ")]}") -> list[str]:
    """``text`` split at each ``", "`` outside brackets."""
    parts: list[str] = []
    depth = 0
    start = 0
    k = 0
    while k < len(text):
        c = text[k]
        if c in opening:
            depth += 1
        elif c in closing:
            depth -= 1
        elif c == "," and depth == 0 and text.startswith(", ", k):
            parts.append(text[start:k])
            start = k + 2
            k += 1
        k += 1
    parts.append(text[start:])
    return parts


def matching(text: str, start: int) -> int:
    """The index of the bracket that closes the one at ``start``; -1 if none."""
    depth = 0
    for k in range(start, len(text)):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _apply_edits(lines: list[str], edits: list[Edit]) -> str:
    """``lines`` with each edit's range replaced, the lines joined back; ``lines`` as they are if two
    ranges overlap (a text read otherwise than planned: nothing is rewritten rather than half)."""
    ordered = sorted(edits, key=lambda edit: edit[0], reverse=True)
    if any(second[0] < first[1] for first, second in itertools.pairwise(ordered[::-1])):
        return "\n".join(lines)
    for start, stop, new in ordered:
        lines[start:stop] = new
    return "\n".join(lines)


# --- compiled HLO ----------------------------------------------------------------------------------

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


def _hlo_plan(text: str) -> Plan | None:
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
    header = module.lines[start]
    opens = header.find(" (") + 1
    parameters = [item.partition(": ")[0] for item in split_top(header[opens + 1 : matching(header, opens)])]
    reads = [
        (j, int(read[1]))
        for j in range(start + 1, stop)
        if (read := _HLO_PARAMETER.search(module.lines[j])) is not None
    ]
    named = {defined[1]: index for j, index in reads if (defined := _HLO_DEF.match(module.lines[j])) is not None}
    if len(operands) < 2 or not len(parameters) == len(reads) == len(operands):
        return None
    if any(named.get(name) != index for index, name in enumerate(parameters)):
        return None
    return _HloFusion(module, k, at + len(" fusion"), start, opens, reads)


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
    """The loop a ``while`` line starts, if its state can be permuted (docs/architecture.md says which)."""
    found = _HLO_WHILE.match(line) if " while(%" in line else None
    if found is None:
        return None
    name, init, condition, body = found.groups()
    parts = _hlo_loop_parts(module, name, init, condition, body)
    if parts is None:
        return None
    built, body_param, cond_param, results, root = parts
    operands = _hlo_items(module.lines[built[0]][built[2] + 1 : -1])
    outputs = _hlo_items(module.lines[root[0]][root[1] + 1 : -1])
    invariant = _hlo_invariant(module, body_param[1], outputs)
    if invariant is None or len(operands) != len(outputs) or len(invariant) < 2:
        return None
    loop = _HloLoop(
        module,
        k,
        built[0],
        operands,
        invariant,
        (body, body_param[0], body_param[1], root[0]),
        (condition, *cond_param),
        results,
    )
    return loop if all(_hlo_length(module.lines[j], at) == len(operands) for j, at in loop.lists()) else None


def _hlo_loop_parts(
    module: _HloModule, name: str, init: str, condition: str, body: str
) -> (
    tuple[
        tuple[int, int, int],
        tuple[str, list[tuple[int, int]]],
        tuple[str, list[tuple[int, int]]],
        list[tuple[int, int]],
        tuple[int, int],
    ]
    | None
):
    """A ``while`` loop's parts: its init tuple's line, its body's and condition's parameter and their
    reads, the reads of its result, its body's ``ROOT`` tuple. None unless the init tuple is read by the
    loop alone, each computation's parameter only through ``get-tuple-element`` (:meth:`_HloModule.parameter`),
    the body returns a tuple and the loop's result is read only through ``get-tuple-element``."""
    built = module.tuple_line(init, "tuple")
    body_param = module.parameter(body)
    cond_param = module.parameter(condition)
    results = module.reads.get(name, [])
    if built is None or body_param is None or cond_param is None or module.counts[init] != 2:
        return None
    root = _hlo_root_tuple(module, body)
    if root is None or module.counts[name] != 1 + len(results):
        return None
    return built, body_param, cond_param, results, root


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


# --- StableHLO -------------------------------------------------------------------------------------


def _mlir_key(hashes: Mapping[str, str], value: str) -> str:
    """A value's key: the hash of its name, then the index of a result of several (``%w#1``), so that
    the key does not depend on the number JAX gave the op."""
    name, sharp, index = value.partition("#")
    return hashes.get(name, name) + sharp + index


_MLIR_WHILE = re.compile(r"([ \t]*)(%[\w$\-]+):(\d+) = stablehlo\.while\((.*)\) : (.*)$")
_MLIR_FUNC = re.compile(r"[ \t]*func\.func\b")


def _mlir_plan(text: str) -> Plan | None:
    if "stablehlo.while(" not in text and "call @" not in text:
        return None
    lines = text.split("\n")
    loops: list[Callable[[list[str], Probes], None]] = [
        loop for k, line in enumerate(lines) if "stablehlo.while(" in line and (loop := _mlir_loop(lines, k))
    ]
    wanted = {loop.at for loop in loops if isinstance(loop, _MlirLoop)}
    for call in _mlir_calls(text, lines):
        loops.append(call)
        wanted.add(call.at)
    if not loops:
        return None

    def apply(probes: Probes) -> str:
        out = list(lines)
        for loop in loops:
            loop(out, probes)
        return "\n".join(out)

    return Plan(wanted, apply, len(loops))


_MLIR_PRIVATE = re.compile(r"[ \t]*func\.func private (@[\w$\-]+)\(")
_MLIR_CALL = re.compile(r"[ \t]*(?:%[\w$\-]+(?::\d+)? = )?(?:func\.)?call (@[\w$\-]+)\(")
_MLIR_TYPES = ("(<[{", ")>]}")


@dataclass(frozen=True)
class _MlirCall:
    """A private function called once: the call's line and the function's header line; its arguments may
    be permuted with the call's operands."""

    at: int
    header: int

    def __call__(self, lines: list[str], probes: Probes) -> None:
        call, header = lines[self.at], lines[self.header]
        parts = _mlir_call_parts(call, header)
        if parts is None:
            return
        (opened, closed), (typed, typed_end), (params_open, params_close) = parts
        operands = split_top(call[opened + 1 : closed])
        hashes = probes.get(self.at, {})
        moves = order([_mlir_key(hashes, operand) for operand in operands], range(len(operands)))
        if not moves:
            return
        types = split_top(call[typed + 1 : typed_end], *_MLIR_TYPES)
        params = split_top(header[params_open + 1 : params_close], *_MLIR_TYPES)
        lines[self.at] = (
            f"{call[: opened + 1]}{', '.join(permuted(operands, moves))}{call[closed : typed + 1]}"
            f"{', '.join(permuted(types, moves))}{call[typed_end:]}"
        )
        lines[self.header] = f"{header[: params_open + 1]}{', '.join(permuted(params, moves))}{header[params_close:]}"


def _mlir_call_parts(call: str, header: str) -> tuple[tuple[int, int], ...] | None:
    """Where a call's operands and their types, and its callee's parameters, open and close; None unless
    the three lists are there and as long (more than one each)."""
    found, defined = _MLIR_CALL.match(call), _MLIR_PRIVATE.match(header)
    if found is None or defined is None:
        return None
    spans = [(found.end() - 1, matching(call, found.end() - 1))]
    typed = call.find(" : (", spans[0][1]) + 3
    spans.append((typed, matching(call, typed) if typed > 2 else -1))
    spans.append((defined.end() - 1, matching(header, defined.end() - 1)))
    if any(close < 0 for _, close in spans):
        return None
    lengths = {
        len(split_top(call[spans[0][0] + 1 : spans[0][1]])),
        len(split_top(call[spans[1][0] + 1 : spans[1][1]], *_MLIR_TYPES)),
        len(split_top(header[spans[2][0] + 1 : spans[2][1]], *_MLIR_TYPES)),
    }
    return tuple(spans) if len(lengths) == 1 and lengths.pop() > 1 else None


def _mlir_calls(text: str, lines: list[str]) -> list[_MlirCall]:
    """Each private function that one call calls, with as many arguments as the call has operands."""
    headers = {found[1]: k for k, line in enumerate(lines) if (found := _MLIR_PRIVATE.match(line)) is not None}
    calls: dict[str, list[int]] = {}
    for k, line in enumerate(lines):
        found = _MLIR_CALL.match(line) if "call @" in line else None
        if found is not None and found[1] in headers:
            calls.setdefault(found[1], []).append(k)
    return [
        _MlirCall(at[0], headers[name])
        for name, at in calls.items()
        if len(at) == 1
        and len(re.findall(re.escape(name) + r"(?![\w$\-])", text)) == 2
        and _mlir_call_parts(lines[at[0]], lines[headers[name]]) is not None
    ]


@dataclass(frozen=True)
class _MlirLoop:
    """A ``stablehlo.while``: its line, its ``do`` region's return line, the end of its function, its
    invariant positions."""

    at: int
    returned: int
    end: int
    invariant: list[int]

    def __call__(self, lines: list[str], probes: Probes) -> None:
        at, returned, end, invariant = self.at, self.returned, self.end, self.invariant
        found = _MLIR_WHILE.match(lines[at])
        if found is None:
            return
        indent, name, _, pairs_text, types_text = found.groups()
        pairs = split_top(pairs_text)
        hashes = probes.get(at, {})
        keys = [_mlir_key(hashes, pair.split(" = ", 1)[1]) for pair in pairs]
        moves = order(keys, invariant)
        if not moves:
            return
        types = split_top(types_text, "(<[{", ")>]}")
        lines[at] = f"{indent}{name}:{found[3]} = stablehlo.while({', '.join(permuted(pairs, moves))}) : " + ", ".join(
            permuted(types, moves)
        )
        head, _, tail = lines[returned].partition("stablehlo.return ")
        values, _, types_out = tail.partition(" : ")
        lines[returned] = f"{head}stablehlo.return {', '.join(permuted(split_top(values), moves))} : " + ", ".join(
            permuted(split_top(types_out, "(<[{", ")>]}"), moves)
        )
        result = re.compile(re.escape(name) + r"#(\d+)\b")
        swap = lambda m: f"{name}#{moves.get(int(m[1]), int(m[1]))}"  # noqa: E731
        for k in range(at + 1, end):
            if name in lines[k]:
                lines[k] = result.sub(swap, lines[k])


def _mlir_loop(lines: list[str], at: int) -> _MlirLoop | None:
    """The ``stablehlo.while`` on line ``at``, if its state may be permuted: its ``cond`` region opens on
    the next line, it has as many types as state pairs, its ``do`` region ends in a return of as many
    values, of which at least two are the region's own arguments unchanged."""
    found = _MLIR_WHILE.match(lines[at])
    if found is None or lines[at + 1 : at + 2] != [f"{found[1]}cond {{"]:
        return None
    indent = found[1]
    pairs = split_top(found[4])
    if len(pairs) != int(found[3]) or len(split_top(found[5], "(<[{", ")>]}")) != len(pairs):
        return None
    returned = _mlir_return_line(lines, at, indent)
    if returned is None:
        return None
    invariant = _mlir_invariant(lines[returned], pairs)
    if invariant is None or len(invariant) < 2:
        return None
    end = next((k for k in range(returned + 1, len(lines)) if _MLIR_FUNC.match(lines[k])), len(lines))
    return _MlirLoop(at, returned, end, invariant)


def _mlir_return_line(lines: list[str], at: int, indent: str) -> int | None:
    """The line of the ``stablehlo.return`` that ends the ``do`` region of the loop on line ``at`` (the
    line before the region's ``}`` at the loop's ``indent``); None if there is none."""
    stop = at + 1
    while stop < len(lines) and lines[stop] != f"{indent}}} do {{":
        stop += 1
    while stop < len(lines) and lines[stop] != f"{indent}}}":
        stop += 1
    returned = stop - 1
    if stop >= len(lines) or not lines[returned].startswith(f"{indent}  stablehlo.return "):
        return None
    return returned


def _mlir_invariant(returned: str, pairs: list[str]) -> list[int] | None:
    """The positions whose region argument the ``do`` region returns unchanged (``returned``: its return
    line; ``pairs``: the loop's ``%arg = %init`` pairs); None unless it returns one value per pair."""
    values = split_top(returned.partition("stablehlo.return ")[2].partition(" : ")[0])
    names = [pair.split(" = ", 1)[0] for pair in pairs]
    if len(values) != len(names):
        return None
    return [k for k, (value, own) in enumerate(zip(values, names, strict=True)) if value == own]


# --- jaxpr -----------------------------------------------------------------------------------------

# An eqn's primitive, on the line that ends its outputs: "... = while[".
_JAXPR_PRIMITIVE = re.compile(r" = (while|scan|custom_jvp_call|custom_vjp_call)\[$")
_JAXPR_PARAM = re.compile(r"[ \t]*(\w+)=")
_JAXPR_LAMBDA = re.compile(r"\{ lambda ([^;]*);")
# The parameters each primitive may print, none of them positional.
_JAXPR_PARAMS = {
    "while": {"body_jaxpr", "body_nconsts", "cond_jaxpr", "cond_nconsts"},
    "scan": {"jaxpr", "length", "num_carry", "num_consts", "reverse", "unroll", "_split_transpose"},
    "custom_jvp_call": {"name", "call_jaxpr", "jvp", "symbolic_zeros"},
    "custom_vjp_call": {"name", "call_jaxpr", "fwd", "bwd", "symbolic_zeros"},
}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


@dataclass
class _Lambda:
    """A jaxpr's binders as printed from line ``start`` (``{ lambda consts ; binders. let``) to ``stop``
    (exclusive): the text before and after them."""

    start: int
    stop: int
    head: str
    consts: str
    binders: list[str]
    tail: str

    def line(self, moves: Mapping[int, int]) -> str:
        """The binders on one line, permuted by ``moves``."""
        return f"{self.head}{{ lambda {self.consts}; {' '.join(permuted(self.binders, moves))}. let{self.tail}"


def _jaxpr_lambda(lines: Sequence[str], start: int) -> _Lambda | None:
    """The binders of the jaxpr whose ``{ lambda`` is on line ``start``."""
    first = lines[start]
    opened = first.find("{ lambda ")
    if opened < 0:
        return None
    stop = start
    while stop < len(lines) and ". let" not in lines[stop] and not lines[stop].endswith(".let"):
        stop += 1
    if stop >= len(lines):
        return None
    joined = " ".join([first[opened:], *(line.strip() for line in lines[start + 1 : stop + 1])])
    found = _JAXPR_LAMBDA.match(joined)
    if found is None:
        return None
    body, _, tail = joined[found.end() :].partition(". let")
    return _Lambda(start, stop + 1, first[:opened], found[1], body.split(), tail)


@dataclass
class _JaxprEqn:
    """One eqn whose operand groups may be permuted: where its operands are printed and, per group, the
    jaxpr whose first binders take them (``(lambda, first operand, count)``)."""

    operands_at: tuple[int, int]
    operands: list[str]
    groups: list[tuple[_Lambda, int, int]]


def _jaxpr_plan(text: str) -> Plan | None:
    if not any(f" = {primitive}[\n" in text for primitive in _JAXPR_PARAMS):
        return None
    lines = text.split("\n")
    lets = {found[1]: k for k, line in enumerate(lines) if (found := re.match(r"let (\w+) = \{ lambda ", line))}
    eqns = [
        eqn
        for k, line in enumerate(lines)
        if line.endswith("[") and (eqn := _jaxpr_eqn(text, lines, k, lets)) is not None
    ]
    if not eqns:
        return None
    wanted = {k for eqn in eqns for k in range(*eqn.operands_at)}

    def apply(probes: Probes) -> str:
        edits: list[Edit] = []
        binders: dict[int, tuple[_Lambda, dict[int, int]]] = {}
        for eqn in eqns:
            hashes: dict[str, str] = {}
            for k in range(*eqn.operands_at):
                hashes.update(probes.get(k, {}))
            keys = [hashes.get(operand, operand) for operand in eqn.operands]
            moves: dict[int, int] = {}
            for jaxpr, first, count in eqn.groups:
                group = order(keys, range(first, first + count))
                moves.update(group)
                entry = binders.setdefault(jaxpr.start, (jaxpr, {}))
                entry[1].update({old - first: new - first for old, new in group.items()})
            start, stop = eqn.operands_at
            indent = " " * _indent(lines[start])
            edits.append((start, stop, [f"{indent}] {' '.join(permuted(eqn.operands, moves))}".rstrip()]))
        edits += [(jaxpr.start, jaxpr.stop, [jaxpr.line(moves)]) for jaxpr, moves in binders.values()]
        return _apply_edits(list(lines), edits)

    return Plan(wanted, apply, sum(len(eqn.groups) for eqn in eqns))


def _jaxpr_eqn(text: str, lines: list[str], at: int, lets: Mapping[str, int]) -> _JaxprEqn | None:
    """The eqn whose primitive is on line ``at``, if its operands may be permuted (docs/architecture.md says which)."""
    found = _JAXPR_PRIMITIVE.search(lines[at])
    span = _jaxpr_span(lines, at) if found is not None else None
    if found is None or span is None:
        return None
    close, stop, params = span
    if set(params) - _JAXPR_PARAMS[found[1]]:
        return None
    operands = " ".join(line.strip() for line in lines[close:stop])[1:].split()

    def jaxpr(name: str) -> _Lambda | None:
        return _jaxpr_param(text, lines, params.get(name), lets)

    groups = _jaxpr_groups(_jaxpr_consts(found[1], jaxpr, lines, params, len(operands)), len(operands))
    if not groups:
        return None
    return _JaxprEqn((close, stop), operands, groups)


def _jaxpr_consts(
    primitive: str, jaxpr: Callable[[str], _Lambda | None], lines: list[str], params: Mapping[str, int], operands: int
) -> list[tuple[_Lambda | None, int, int]]:
    """Per group of an eqn's operands that a jaxpr takes as its first binders: that jaxpr (``jaxpr`` reads
    the one a parameter names), how many (-1 if unknown), where they start among the ``operands``."""

    def number(name: str) -> int:
        value = lines[params[name]].partition("=")[2] if name in params else ""
        return int(value) if value.isdigit() else -1

    if primitive == "while":
        cond = number("cond_nconsts")
        return [(jaxpr("cond_jaxpr"), cond, 0), (jaxpr("body_jaxpr"), number("body_nconsts"), cond)]
    if primitive == "scan":
        return [(jaxpr("jaxpr"), number("num_consts"), 0)]
    # a custom-derivative call: every operand is its jaxpr's parameter
    called = jaxpr("call_jaxpr")
    return [(called, operands if called is not None and len(called.binders) == operands else -1, 0)]


def _jaxpr_groups(
    consts: list[tuple[_Lambda | None, int, int]], operands: int
) -> list[tuple[_Lambda, int, int]] | None:
    """The groups of more than one operand that may be permuted (``(jaxpr, first, count)``); None unless
    every group's jaxpr is known and the group fits both its binders and the eqn's ``operands``."""
    groups: list[tuple[_Lambda, int, int]] = []
    for called, count, first in consts:
        if called is None or count < 0 or count > len(called.binders) or first + count > operands:
            return None
        if count > 1:
            groups.append((called, first, count))
    return groups


def _jaxpr_span(lines: list[str], at: int) -> tuple[int, int, dict[str, int]] | None:
    """Where the eqn whose primitive is on line ``at`` prints its operands (from its ``]`` line to the
    next line not indented deeper), and the line of each of its parameters."""
    close = at + 1
    while close < len(lines) and not (
        lines[close].lstrip().startswith("]") and _indent(lines[close]) <= _indent(lines[at])
    ):
        close += 1
    if close >= len(lines):
        return None
    base = _indent(lines[close])
    stop = close + 1
    while stop < len(lines) and _indent(lines[stop]) > base and lines[stop].strip():
        stop += 1
    params: dict[str, int] = {}
    for k in range(at + 1, close):
        param = _JAXPR_PARAM.match(lines[k]) if _indent(lines[k]) == base + 2 else None
        if param is not None:
            params[param[1]] = k
    return close, stop, params


def _jaxpr_param(text: str, lines: list[str], at: int | None, lets: Mapping[str, int]) -> _Lambda | None:
    """The jaxpr a parameter line names: inline (``call_jaxpr={ lambda ...``) or a ``let`` named once."""
    if at is None:
        return None
    value = lines[at].partition("=")[2]
    if value.startswith("{ lambda "):
        return _jaxpr_lambda(lines, at)
    name = value.strip()
    # named twice: where it is defined and by this eqn (any other mention, even as text, leaves it be;
    # a parameter's key, ``jaxpr=``, is no mention: a let is often named ``jaxpr`` itself)
    if name not in lets or len(re.findall(rf"(?<![\w.]){re.escape(name)}(?![\w=])", text)) != 2:
        return None
    jaxpr = _jaxpr_lambda(lines, lets[name])
    return jaxpr if jaxpr is not None and not jaxpr.consts.strip() else None


_PLANNERS: dict[str, Callable[[str], Plan | None]] = {"hlo": _hlo_plan, "mlir": _mlir_plan, "jaxpr": _jaxpr_plan}
