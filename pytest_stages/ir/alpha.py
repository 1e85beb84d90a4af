"""Alpha-equivalence of stage texts: equal up to a consistent, one-to-one renaming of their names.

A snapshot keeps the names of its history (:mod:`pytest_stages.ir.rename`) while JAX numbers
values afresh on every run, so a staged text matches its snapshot when the two are the same
program with other names, and only then. The check is exact: each text is brought to a
canonical form where every name it defines is replaced by its order of first appearance, and
the two forms must be equal. Anything but a name (an op, a shape, an attribute, a literal, a
name used but never defined) must match character for character, and the renaming this
implies is one-to-one: two values that now share a name, or one that has two, differ.

Names are the ones :mod:`pytest_stages.ir.textdiff` knows per dialect: jaxpr variables
(global: JAX never reuses one in a nested jaxpr), StableHLO SSA values and block labels
(scoped to their ``func.func``, where MLIR numbers them afresh) and functions (``@name``,
global), HLO instructions, computations and their parameters (global, unique in a module;
``%param_0`` in a body and ``param_0`` in its header are one name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pytest_stages.ir import hlo
from pytest_stages.ir.textdiff import (
    HLO_NAME,
    HLO_PARAMETER,
    JAXPR_DEF,
    JAXPR_NAME,
    MLIR_DEF,
    MLIR_NAME,
)

# A name's sigil, kept in the canonical form so that a value never matches a block label or a function.
SIGILS = "%^@"
# A StableHLO line that opens a function, where value names start again: "  func.func public @main(".
_MLIR_SCOPE = re.compile(r"[ \t]*func\.func\b")


def _mlir_defs(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in re.finditer(MLIR_DEF, text)]


@dataclass(frozen=True)
class Naming:
    """How one dialect prints names: the tokens that may be names, which are defined, and their scopes.

    ``split``: a pattern whose ``split`` keeps the tokens at odd positions
    (``%a.1 = f(%b.2)`` -> ``["", "%a.1", " = f(", "%b.2", ")"]``); a token is a name where its
    key is in ``defined`` of its text. ``key``: the name a token spells (HLO drops the ``%``).
    ``scope``: a line that opens a new scope for the names whose sigil is in ``scoped``.
    """

    split: re.Pattern[str]
    defined: Callable[[str], Sequence[str]]
    key: Callable[[str], str] = str
    scope: re.Pattern[str] | None = None
    scoped: str = ""

    def names(self, text: str) -> frozenset[str]:
        """The keys of every name ``text`` defines."""
        return frozenset(map(self.key, self.defined(text)))

    def lines(self, text: str) -> Iterator[tuple[int, list[str]]]:
        """Each line's scope number and its parts (tokens at odd positions)."""
        scope = 0
        for line in text.split("\n"):
            if self.scope is not None and self.scope.match(line):
                scope += 1
            yield scope, self.split.split(line)

    def scope_of(self, key: str, scope: int) -> int:
        """The scope a name lives in: ``scope`` for a scoped sigil, else the whole text (-1)."""
        return scope if key[:1] in self.scoped and self.scoped else -1


def _strip_percent(token: str) -> str:
    return token[1:] if token[:1] == "%" else token


NAMINGS: dict[str, Naming] = {
    "jaxpr": Naming(re.compile(f"({JAXPR_NAME})"), lambda text: re.findall(JAXPR_DEF, text)),
    "mlir": Naming(re.compile(f"({MLIR_NAME})"), _mlir_defs, scope=_MLIR_SCOPE, scoped="%^"),
    "hlo": Naming(re.compile(f"({HLO_PARAMETER}|{HLO_NAME})"), hlo.defined_names, key=_strip_percent),
}


def naming(dialect: str | None) -> Naming | None:
    """The naming rules of a text dialect (``hlo``, ``mlir``, ``jaxpr``); None for JSON and plain text."""
    return NAMINGS.get(dialect or "")


def canonical(rules: Naming, text: str) -> str:
    """``text`` with each defined name replaced by its sigil and order of first appearance in its scope.

    ``%add.3 = f32[] add(%x.1, %x.1)`` -> ``%\\0g0\\0 = f32[] add(%\\0g1\\0, %\\0g1\\0)``; NUL never
    appears in a stage text, so a placeholder never equals anything else.
    """
    defined = rules.names(text)
    numbers: dict[tuple[int, str], str] = {}
    counts: dict[int, int] = {}
    out = []
    for scope, parts in rules.lines(text):
        for k in range(1, len(parts), 2):
            token = parts[k]
            key = rules.key(token)
            if key not in defined:
                continue
            where = rules.scope_of(key, scope)
            number = numbers.get((where, key))
            if number is None:
                counts[where] = counts.get(where, 0) + 1
                sigil = key[0] if key[0] in SIGILS else ""
                number = numbers[where, key] = f"{sigil}\0{'g' if where < 0 else 's'}{counts[where]}\0"
            parts[k] = token[: len(token) - len(key)] + number
        out.append("".join(parts))
    return "\n".join(out)


def equivalent(dialect: str | None, expected: str, actual: str) -> bool:
    """Whether two texts are the same program up to a consistent one-to-one renaming of their names.

    Texts of no known dialect (JSON, plain text) are equivalent only when equal.
    """
    if expected == actual:
        return True
    rules = naming(dialect)
    if rules is None:
        return False
    return canonical(rules, expected) == canonical(rules, actual)
