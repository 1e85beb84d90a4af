"""Changed literals: a stage text's lines that differ only in a constant's value, with old and new value.

A reader wants the value (``1e-06 -> 1e-12``), not a diff of ``constant(...)`` lines; a constant carries no
source location of its own, so the lines that use it say where the user's code is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# A literal's value in each dialect: HLO ``constant(1e-06)``, MLIR ``dense<9.99999997E-7>``,
# jaxpr ``1e-06:f32[]``. Only scalars: an array constant is shown by the diff.
_SCALAR = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan|true|false|0x[0-9A-Fa-f]+)"
LITERAL = {
    "hlo": re.compile(rf"(?<= constant\()({_SCALAR})(?=\))"),
    "mlir": re.compile(rf"(?<=dense<)({_SCALAR})(?=>)"),
    "jaxpr": re.compile(rf"(?<![\w.])({_SCALAR})(?=:[a-z]+\d*\[\])"),
}
# What names a value in each dialect (a constant's users name it): ``%constant.3``, ``%cst_0``, ``a``.
_DEFINED = {
    "hlo": re.compile(r"^\s*(?:ROOT )?(%?[\w.\-]+) = "),
    "mlir": re.compile(r"^\s*(%[\w$\-]+) = "),
}
# A name's numeric suffix (``%constant.533``, ``%cst_4``): renumbered by any edit, never a literal.
_SUFFIX = re.compile(r"(?<=[\w%])[._]\d+\b")
MAX_USERS = 64
# A number that is no part of a name (``f32``, ``%fusion.12``, ``%cst_0``): a literal, an attribute
# or a dimension (``f32[8,64]``, MLIR's ``tensor<8x64xf32>``).
_NUMBER = re.compile(r"(?:(?<![\w.%$#])|(?<=\dx))(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?=x|[^\w.]|$)")
# A quoted string (a sharding, ``mhlo.sharding = "{devices=[4,1,2]<=[8]}"``): its numbers are no values.
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class LiteralChange:
    """A line whose only change is a literal: the old and new value, and the new line's index."""

    old: str
    new: str
    line: int


def changed(dialect: str | None, pairs: Sequence[tuple[str, str, int]]) -> list[LiteralChange]:
    """The pairs (old line, new line, new index) that differ only in one scalar literal's value."""
    pattern = LITERAL.get(dialect or "")
    if pattern is None:
        return []
    found = []
    for old, new, index in pairs:
        old_values, new_values = pattern.findall(old), pattern.findall(new)
        if len(old_values) != 1 or len(new_values) != 1 or old_values == new_values:
            continue
        if _skeleton(pattern, old) == _skeleton(pattern, new):
            found.append(LiteralChange(shown_value(old_values[0]), shown_value(new_values[0]), index))
    return found


def new_numbers(pairs: Sequence[tuple[str, str, int]]) -> Counter[str]:
    """The values that lines differing only in numbers (literals, dimensions) now hold where they held
    another, counted (``f32[8,64,4,16]`` -> ``f32[8,64,8,8]`` gives 8 twice), as :func:`shown_value`
    writes them. A value that some pair gives up is left out: numbers that only moved (a tuple index
    shifted both ways) are no new value. Numbers in quoted strings (shardings) are none.
    """
    new: Counter[str] = Counter()
    given_up: set[str] = set()
    for old_line, new_line, _ in pairs:
        if _QUOTED.findall(old_line) != _QUOTED.findall(new_line):
            continue  # a quoted string changed (a sharding): more than numbers
        before, after = _QUOTED.sub('""', old_line), _QUOTED.sub('""', new_line)
        if _NUMBER.sub("#", before) != _NUMBER.sub("#", after):
            continue
        for was, now in zip(
            map(shown_value, _NUMBER.findall(before)), map(shown_value, _NUMBER.findall(after)), strict=True
        ):
            if was != now:
                new[now] += 1
                given_up.add(was)
    return Counter({value: n for value, n in new.items() if value not in given_up})


def values(dialect: str | None, lines: Sequence[str]) -> Counter[str]:
    """The scalar literals of ``lines``, counted by value as :func:`shown_value` writes it."""
    pattern = LITERAL.get(dialect or "")
    if pattern is None:
        return Counter()
    return Counter(shown_value(value) for line in lines for value in pattern.findall(line))


def _skeleton(pattern: re.Pattern[str], line: str) -> str:
    return _SUFFIX.sub("", pattern.sub("#", line))


def shown_value(text: str) -> str:
    """A literal as a reader writes it: ``9.99999997E-7`` -> ``1e-06`` (six significant digits)."""
    try:
        number = float(text)
    except ValueError:
        return text
    if number.is_integer() and not re.search(r"[.eE]", text):
        return str(int(number))
    return f"{number:.6g}"


def users(dialect: str | None, lines: Sequence[str], index: int) -> Iterator[int]:
    """Indexes of the lines that use the value ``lines[index]`` defines, then their users (breadth first).

    Looked for in the block of lines indented at least as deep (a computation, a function): a
    value is used where it is defined. A jaxpr literal is inline: its own line is its user. At
    most ``MAX_USERS`` lines are given.
    """
    pattern = _DEFINED.get(dialect or "")
    if pattern is None:
        yield index
        return
    first, last = _block(lines, index)
    queue, seen = [index], {index}
    while queue and len(seen) <= MAX_USERS:
        k = queue.pop(0)
        match = pattern.match(lines[k])
        if match is None:
            continue
        use = re.compile(rf"(?<![\w.\-%]){re.escape(match[1])}(?![\w.\-])")
        for j in range(first, last):
            if j not in seen and use.search(lines[j], 0 if j != k else match.end()):
                seen.add(j)
                queue.append(j)
                yield j


def _block(lines: Sequence[str], index: int) -> tuple[int, int]:
    """The range of lines around ``index`` indented at least as deep as it."""
    depth = _indent(lines[index])
    first, last = index, index + 1
    while first > 0 and _indent(lines[first - 1]) >= depth:
        first -= 1
    while last < len(lines) and _indent(lines[last]) >= depth:
        last += 1
    return first, last


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) if line.strip() else 1 << 30
