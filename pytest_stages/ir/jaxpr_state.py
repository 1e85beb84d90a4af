"""A jaxpr's loop and call state in a canonical order: a ``while``'s or ``scan``'s constants and a custom
derivative call's operands, sorted by the values passed in, every reader rewritten alike
(``dataflow.state_plan``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_stages.ir.state_rewrite import Edit, Plan, Probes, apply_edits, order, permuted

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


def jaxpr_plan(text: str) -> Plan | None:
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
        return apply_edits(list(lines), edits)

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
