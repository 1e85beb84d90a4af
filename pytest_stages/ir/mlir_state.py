"""StableHLO's loop and call state in a canonical order: a ``stablehlo.while``'s operands and a private
function's arguments, sorted by the values passed in, every reader rewritten alike (``dataflow.state_plan``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_stages.ir.state_rewrite import Plan, Probes, matching, order, permuted, split_top


def _mlir_key(hashes: Mapping[str, str], value: str) -> str:
    """A value's key: the hash of its name, then the index of a result of several (``%w#1``), so that
    the key does not depend on the number JAX gave the op."""
    name, sharp, index = value.partition("#")
    return hashes.get(name, name) + sharp + index


_MLIR_WHILE = re.compile(r"([ \t]*)(%[\w$\-]+):(\d+) = stablehlo\.while\((.*)\) : (.*)$")
_MLIR_FUNC = re.compile(r"[ \t]*func\.func\b")


def mlir_plan(text: str) -> Plan | None:
    if "stablehlo.while(" not in text and "call @" not in text:
        return None
    lines = text.split("\n")
    rewrites: list[_MlirLoop | _MlirCall] = [
        loop for k, line in enumerate(lines) if "stablehlo.while(" in line and (loop := _mlir_loop(lines, k))
    ]
    rewrites += _mlir_calls(text, lines)
    if not rewrites:
        return None

    def apply(probes: Probes) -> str:
        out = list(lines)
        for rewrite in rewrites:
            rewrite(out, probes)
        return "\n".join(out)

    return Plan({rewrite.at for rewrite in rewrites}, apply, len(rewrites))


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
