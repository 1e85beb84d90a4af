"""Alpha-equivalence of stage texts: equal up to a consistent, one-to-one renaming of their names.

Each text is brought to a canonical form where every name it defines is replaced by its order of first
appearance; the forms must be equal (docs/architecture.md, "How stage texts are compared").
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pytest_stages.ir import hlo
from pytest_stages.ir.dataflow import reordered, state_plan
from pytest_stages.ir.dialect_names import HLO_BARE, HLO_PARAMETER, JAXPR_DEF, JAXPR_NAME, MLIR_DEF, MLIR_NAME
from pytest_stages.ir.textdiff import common_prefix

# A name's sigil, kept in the canonical form so that a value never matches a block label or a function.
SIGILS = "%^@"
# Where a StableHLO function starts, and its value names start again: before "  func.func public @main(".
_MLIR_SCOPE = re.compile(r"^(?=[ \t]*func\.func\b)", re.MULTILINE)
# An HLO name as its key: "add.3" of "%add.3" (the "%" stays outside), "param_0" of a header's
# "(param_0: f32[])", a lowered "add.3" (or a decimal literal "1.5", never a defined name).
_HLO_KEY = rf"{HLO_PARAMETER}|(?<=%)[\w.\-]++|{HLO_BARE}"


# Compiled HLO writes every name it uses with its "%" ("%add.3"), the same key as a header's bare
# parameter ("param_0.2" in "%fused (param_0.2: f32[]) -> f32[] {"); its headers are the lines
# that start with "%" or "ENTRY %".
_PERCENT = re.compile(r"%([\w.\-]++)")
_PERCENT_HEADER = re.compile(r"^(?:ENTRY )?%", re.MULTILINE)
_HEADER_PARAMETER = re.compile(f"({HLO_PARAMETER})")
# What precedes a computation's name on its header line: the start of a line, then "ENTRY " or not.
_HEADER_START = ("\n", "\nENTRY ")


def _percent_canonical(text: str) -> str | None:
    """The canonical form of compiled HLO, where every ``%`` token is a name (no parse); None for lowered HLO."""
    if _PERCENT_HEADER.search(text) is None:
        return None
    parts = _PERCENT.split(text)
    tokens = parts[1::2]
    numbers = {name: f"\0\0{k}\0" for k, name in enumerate(dict.fromkeys(tokens))}
    parts[1::2] = map(numbers.__getitem__, tokens)
    before = parts[0:-1:2]
    headers = [k for k, piece in enumerate(before) if piece.endswith(_HEADER_START) or piece in ("", "ENTRY ")]
    for k in headers:  # the header's own line runs on in the text after its name
        line, newline, rest = parts[2 * k + 2].partition("\n")
        pieces = _HEADER_PARAMETER.split(line)
        pieces[1::2] = [numbers.setdefault(name, f"\0\0{len(numbers)}\0") for name in pieces[1::2]]
        parts[2 * k + 2] = "".join(pieces) + newline + rest
    return "".join(parts)


def _mlir_defs(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in re.finditer(MLIR_DEF, text)]


_MLIR_SPLIT = re.compile(f"({MLIR_NAME})")
# A quoted string on one line (an op's generic name, an attribute's value): its braces open no region.
_MLIR_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_MLIR_BRACES = re.compile(r"[{}]")
# What a name read as its region's own is spelled with (a name a text already spells so keeps its spelling).
_MLIR_APART = "$$"


def _mlir_regions(text: str) -> str:
    """``text`` with each name that two regions of one function define spelled apart per region (``%7$$3``).

    Sibling regions (a while's ``cond`` and ``do``, a case's branches) reuse names, and which body value
    is printed ``%7`` follows the body's order: read as one name, a reorder there is another renaming.
    A use reads the name its own region, or the nearest around it, defines.
    """
    if _MLIR_APART in text:
        return text
    return "".join(_mlir_chunk_regions(chunk) for chunk in _MLIR_SCOPE.split(text))


def _mlir_region_tree(lines: list[str]) -> tuple[list[int], list[int]]:
    """Each region's parent (region 0 holds the function's header: no parent, -1), and each line's region:
    where the line is once the braces it starts with are closed."""
    parents = [-1]
    stack = [0]
    regions: list[int] = []
    for line in lines:
        if "{" not in line and "}" not in line:
            regions.append(stack[-1])
            continue
        stripped = line.lstrip()
        leading = len(stripped) - len(stripped.lstrip("}"))
        del stack[max(1, len(stack) - leading) :]
        regions.append(stack[-1])
        for brace in _MLIR_BRACES.findall(_MLIR_QUOTED.sub("", stripped[leading:])):
            if brace == "{":
                parents.append(stack[-1])
                stack.append(len(parents) - 1)
            elif len(stack) > 1:
                stack.pop()
    return parents, regions


def _mlir_chunk_regions(chunk: str) -> str:
    """One function of :func:`_mlir_regions`."""
    if chunk.count("{\n") < 3:  # its body and two regions inside at least (MLIR opens each at a line's end)
        return chunk
    found = [(m.start(), next(g for g in m.groups() if g)) for m in re.finditer(MLIR_DEF, chunk)]
    if len(found) == len({name for _, name in found}):
        return chunk
    lines = chunk.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    parents, regions = _mlir_region_tree(lines)
    where: dict[str, set[int]] = {}
    for at, name in found:
        where.setdefault(name, set()).add(regions[bisect.bisect_right(starts, at) - 1])
    apart = sorted((name for name, places in where.items() if len(places) > 1), key=len, reverse=True)
    if not apart:
        return chunk

    def spelled(name: re.Match[str]) -> str:
        scope = regions[bisect.bisect_right(starts, name.start()) - 1]
        while scope >= 0 and scope not in where[name[0]]:
            scope = parents[scope]
        return f"{name[0]}{_MLIR_APART}{scope}" if scope >= 0 else name[0]

    return re.sub(rf"(?<![\w$\-])(?:{'|'.join(map(re.escape, apart))})(?![\w$\-])", spelled, chunk)


def _strip_percent(name: str) -> str:
    return name[1:] if name[:1] == "%" else name


@dataclass(frozen=True)
class Naming:
    """How one dialect prints names: the tokens that may be names, which are defined, and their scopes.

    ``split`` keeps the tokens, spelled as keys, at odd positions; ``scope`` starts a new scope for the
    names whose sigil is in ``scoped``; ``fast``: a quicker canonical form where it applies (else None);
    ``wrapped``: the dialect breaks long lines where its names make them long (a jaxpr);
    ``regions``: a rewrite that spells apart a name that sibling regions each define (StableHLO).
    """

    split: re.Pattern[str]
    defined: Callable[[str], Sequence[str]]
    key: Callable[[str], str] = str
    scope: re.Pattern[str] | None = None
    scoped: str = ""
    fast: Callable[[str], str | None] | None = None
    wrapped: bool = False
    regions: Callable[[str], str] | None = None

    def names(self, text: str) -> frozenset[str]:
        """The keys of every name ``text`` defines."""
        return frozenset(map(self.key, self.defined(text)))

    def chunks(self, text: str) -> list[str]:
        """``text`` cut where scopes start (joined with "" they give it back)."""
        return self.scope.split(text) if self.scope is not None else [text]

    def lines(self, text: str) -> Iterator[tuple[int, list[str]]]:
        """Each line's scope number and its parts (tokens at odd positions)."""
        scope = 0
        for line in text.split("\n"):
            scope += self.scope is not None and self.scope.match(line) is not None
            yield scope, self.split.split(line)

    def is_scoped(self, key: str) -> bool:
        """Whether a name lives in its scope (a StableHLO value or block) rather than the whole text."""
        return key[:1] in self.scoped and bool(self.scoped)


NAMINGS: dict[str, Naming] = {
    "jaxpr": Naming(re.compile(f"({JAXPR_NAME})"), lambda text: re.findall(JAXPR_DEF, text), wrapped=True),
    "mlir": Naming(_MLIR_SPLIT, _mlir_defs, scope=_MLIR_SCOPE, scoped="%^", regions=_mlir_regions),
    "hlo": Naming(re.compile(f"({_HLO_KEY})"), hlo.defined_names, key=_strip_percent, fast=_percent_canonical),
}


def naming(dialect: str | None) -> Naming | None:
    """The naming rules of a text dialect (``hlo``, ``mlir``, ``jaxpr``); None for JSON and plain text."""
    return NAMINGS.get(dialect or "")


def canonical(rules: Naming, text: str) -> str:
    """``text`` with each defined name replaced by its sigil and order of first appearance in its scope.

    ``%add.3 = f32[] add(%x.1, %x.1)`` -> ``%\0g1\0 = f32[] add(%\0g2\0, %\0g2\0)`` (NUL is in no stage text).
    """
    found = rules.fast(text) if rules.fast is not None else None
    if found is not None:
        return found
    if rules.regions is not None:
        text = rules.regions(text)
    defined = rules.names(text)
    shared: dict[str, str] = {}
    out = []
    for chunk in rules.chunks(text):
        parts = rules.split.split(chunk)
        tokens = parts[1::2]
        local: dict[str, str] = {}
        for name in dict.fromkeys(tokens):
            if name not in defined or name in shared:
                continue
            table, tag = (local, "s") if rules.is_scoped(name) else (shared, "g")
            table[name] = f"{name[0] if name[0] in SIGILS else ''}\0{tag}{len(table) + 1}\0"
        mapping = {**shared, **local}
        parts[1::2] = map(mapping.get, tokens, tokens)
        out.append("".join(parts))
    return "".join(out)


@functools.lru_cache(maxsize=4)
def equivalent(dialect: str | None, expected: str, actual: str) -> bool:
    """Whether two texts are the same program up to a consistent one-to-one renaming of their names
    and a reordering of independent operations.

    Texts of no known dialect (JSON, plain text) are equivalent only when equal; a wrapped dialect's also
    where only the line breaks differ. Cached: the compare and the update ask about the same pair.
    """
    if expected == actual:
        return True
    rules = naming(dialect)
    old, new = expected.split("\n"), actual.split("\n")
    if rules is None:
        return False
    if rules.wrapped and " ".join(canonical(rules, expected).split()) == " ".join(canonical(rules, actual).split()):
        return True  # where its lines break is a wrapped dialect's layout, not its program
    first = common_prefix(old, new)
    tail = common_prefix(old[::-1], new[::-1])
    if len(old) != len(new):  # a jaxpr prints a loop's or a call's binders over as many lines as their names take
        return dialect == "jaxpr" and same_dataflow(dialect, rules, (old, new), (first, tail))
    last = len(old) - 1 - tail
    if all(rules.split.sub("", old[k]) == rules.split.sub("", new[k]) for k in (first, last)) and canonical(
        rules, expected
    ) == canonical(rules, actual):
        return True
    return same_dataflow(str(dialect), rules, (old, new), (first, tail))


def same_dataflow(dialect: str, rules: Naming, lines: tuple[list[str], list[str]], common: tuple[int, int]) -> bool:
    """Whether two texts (their ``lines``) are one program with independent operations in another order
    (and other names); ``common``: how many leading and trailing lines they share."""
    first, tail = common
    texts = ["\n".join(side) for side in lines]
    compiled = rules.fast is not None and _PERCENT_HEADER.search(texts[0]) is not None
    bare = [_bare(rules, side[first : len(side) - tail], compiled=compiled) for side in lines]
    if sorted(bare[0]) != sorted(bare[1]) and (
        state_plan(dialect, texts[0]) is None
        or state_plan(dialect, texts[1]) is None
        or _tokens(bare[0]) != _tokens(bare[1])
    ):
        return False
    orders = [reordered(dialect, text, rules.split, rules.defined, rules.key, common=common) for text in texts]
    if orders[0] is None or orders[1] is None:
        return False
    return canonical(rules, orders[0]) == canonical(rules, orders[1])


# What a loop's or call's state permuted changes in a text without its names: the items' order in a
# list (split away with the brackets and spaces), and the positions written as numbers.
_POSITIONS = re.compile(r"/\*index=\d+\*/|(?<=index=)\d+|#\d+")
_TOKEN_SPLIT = re.compile(r"[\s,()\[\]{}<>]+")


def _tokens(bare: list[str]) -> Counter[str]:
    """The tokens of lines without their names, counted, positions left out: equal for two texts that
    are one program with a loop's or a call's state in another order (a cheap necessary test)."""
    return Counter(_TOKEN_SPLIT.split(_POSITIONS.sub("", "\n".join(bare))))


def _bare(rules: Naming, lines: list[str], *, compiled: bool) -> list[str]:
    """``lines`` without their names. Those of ``compiled`` HLO (every instruction name written ``%name``,
    headers' parameters bare) in two C passes, as :func:`_percent_canonical` reads them; others token by token."""
    if compiled:
        bare = _PERCENT.sub("%", "\n".join(lines)).split("\n")
        return [line if line[:1] in " }" else _HEADER_PARAMETER.sub("", line) for line in bare]
    return [rules.split.sub("", line) for line in lines]
