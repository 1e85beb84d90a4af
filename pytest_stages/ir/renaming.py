"""Alpha renaming of stage texts: equal up to a consistent one-to-one renaming of their names, and a
changed text written under its snapshot's names.

:func:`equivalent` brings each text to a canonical form where every name it defines is replaced by its
order of first appearance; the forms must be equal. :func:`keep_names` writes a changed text under the
snapshot's names where the alignment maps them, so that one inserted op does not show as hundreds of
renumbered lines; the result is checked equivalent to the new text (docs/architecture.md, "How stage
texts are compared").
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
from pytest_stages.ir.dataflow import HLO_SOURCE, PERCENT_SPLIT, QUOTED, reordered, state_plan
from pytest_stages.ir.dialect_names import HLO_BARE, HLO_NAME, HLO_PARAMETER, JAXPR_DEF, JAXPR_NAME, MLIR_DEF, MLIR_NAME
from pytest_stages.ir.textdiff import common_prefix, edit_script, matches

# A name's sigil, kept in the canonical form so that a value never matches a block label or a function.
SIGILS = "%^@"
# Where a StableHLO function starts, and its value names start again: before "  func.func public @main(".
_MLIR_SCOPE = re.compile(r"^(?=[ \t]*func\.func\b)", re.MULTILINE)
# An HLO name as its key: "add.3" of "%add.3" (the "%" stays outside), "param_0" of a header's
# "(param_0: f32[])", a lowered "add.3" (or a decimal literal "1.5", never a defined name).
_HLO_KEY = rf"{HLO_PARAMETER}|(?<=%)[\w.\-]++|{HLO_BARE}"


# Compiled HLO writes every name it uses with its "%" ("%add.3", split by dataflow.PERCENT_SPLIT), the same key
# as a header's bare parameter ("param_0.2" in "%fused (param_0.2: f32[]) -> f32[] {"); its headers are the
# lines that start with "%" or "ENTRY %".
_PERCENT_HEADER = re.compile(r"^(?:ENTRY )?%", re.MULTILINE)
_HEADER_PARAMETER = re.compile(f"({HLO_PARAMETER})")
# What precedes a computation's name on its header line: the start of a line, then "ENTRY " or not.
_HEADER_START = ("\n", "\nENTRY ")


def _percent_canonical(text: str) -> str | None:
    """The canonical form of compiled HLO, where every ``%`` token is a name (no parse); None for lowered HLO."""
    if _PERCENT_HEADER.search(text) is None:
        return None
    parts = PERCENT_SPLIT.split(text)
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
        for brace in _MLIR_BRACES.findall(QUOTED.sub("", stripped[leading:])):
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
    "hlo": Naming(
        re.compile(f"({_HLO_KEY})"), hlo.defined_names, key=lambda name: name.removeprefix("%"), fast=_percent_canonical
    ),
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
    for chunk in rules.scope.split(text) if rules.scope is not None else [text]:  # cut where scopes start
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
        bare = PERCENT_SPLIT.sub("%", "\n".join(lines)).split("\n")
        return [line if line[:1] in " }" else _HEADER_PARAMETER.sub("", line) for line in bare]
    return [rules.split.sub("", line) for line in lines]


# Words a jaxpr prints besides names: never a fresh variable name.
_JAXPR_WORDS = frozenset({"lambda", "let", "in"})
# A name an HLO line reads or defines ("%add.3", lowered "add.3").
_HLO_TOKEN = re.compile(HLO_NAME)
# Any lowercase word of a jaxpr (a name, a primitive, a keyword): a fresh name avoids them all.
_WORD = re.compile(r"[a-z]+")
# A name without its number, per dialect: "add.3.1" -> "add" (HLO); "%cst_12" -> "%cst", "%12" -> "%" (StableHLO).
_NUMBER = {"hlo": re.compile(r"(?:\.\d+)+$"), "mlir": re.compile(r"_?\d+$")}
# A placeholder for a name in a word's text: NUL never appears in a stage text.
_SLOT = "\0"


def keep_names(dialect: str | None, old: str | None, new: str) -> str:
    """``new`` with the names of ``old`` where the alignment maps them, fresh names elsewhere.

    ``old`` is the snapshot (None: there is none, and ``new`` is recorded with JAX's names);
    ``dialect`` is the artifact's (``Artifact.dialect``; None for JSON, kept as it is).
    """
    rules = naming(dialect)
    if old is None or rules is None:
        return new
    if equivalent(dialect, old, new):
        return old
    renamed = _Renaming(dialect, rules, old, new).text()
    placed = _parameters_in_place(old, renamed) if dialect == "hlo" else renamed
    if placed != renamed and equivalent(dialect, placed, new):
        renamed = placed
    elif not equivalent(dialect, renamed, new):
        return new
    laid_out = _laid_out(old, renamed) if rules.wrapped else renamed
    return laid_out if equivalent(dialect, laid_out, new) else renamed


def _parameters_in_place(old: str, new: str) -> str:
    """``new`` (compiled HLO under ``old``'s names) with each computation's ``parameter(k)`` lines where
    ``old`` has them, where both hold the same ones: XLA's TPU scheduler puts them anywhere before their
    first use, a place that is no part of the program, so an update writes no line for it."""
    old_lines, lines = old.split("\n"), new.split("\n")
    old_bodies = _bodies(old_lines)
    for name, (start, stop) in sorted(_bodies(lines).items(), key=lambda item: -item[1][0]):
        if name in old_bodies:
            first, last = old_bodies[name]
            lines[start:stop] = _placed(old_lines[first:last], lines[start:stop])
    return "\n".join(lines)


def _bodies(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each computation's instruction lines ``[start, stop)``, by the computation's name."""
    found: dict[str, tuple[int, int]] = {}
    name, start = "", 0
    for k, line in enumerate(lines):
        computation = hlo.parse_computation(line) if line.endswith("{") else None
        if computation is not None:
            name, start = computation.name, k + 1
        elif line == "}" and name:
            found[name], name = (start, k), ""
    return found


def _placed(old: list[str], new: list[str]) -> list[str]:
    """One computation's ``new`` lines with its parameter lines in ``old``'s places (the same lines, else
    ``new`` as it is): each before the next line of ``old`` that ``new`` keeps, and before its first use."""
    params = [line for line in old if HLO_SOURCE.match(line)]
    if not params or sorted(params) != sorted(line for line in new if HLO_SOURCE.match(line)):
        return new
    rest = [line for line in new if not HLO_SOURCE.match(line)]
    places = _parameter_places(old, rest)
    out: list[str] = []
    for k, line in enumerate(rest):
        out += places.get(k, [])
        out.append(line)
    return out + places.get(len(rest), [])


def _parameter_places(old: list[str], rest: list[str]) -> dict[int, list[str]]:
    """Each parameter line of ``old`` by the line of ``rest`` (the new lines but parameters) it goes before: its
    place among the lines between the two lines around it that ``rest`` keeps (aligned in order), where as many
    lines lie between them on both sides (lines changed in place), else just below the upper one; and never
    below the parameter's first use."""
    first_use: dict[str, int] = {}
    for k, line in enumerate(rest):
        for token in _HLO_TOKEN.findall(line):
            first_use.setdefault(token, k)
    kept = [k for k, line in enumerate(old) if not HLO_SOURCE.match(line)]
    at = {kept[i]: j for i, j in matches([old[k] for k in kept], rest)}  # old line -> its place in ``rest``
    places: dict[int, list[str]] = {}
    for start, stop in _gaps(sorted(at), len(old)):
        after = at[start - 1] + 1 if start else 0
        before = at[stop] if stop < len(old) else len(rest)
        others = 0  # the gap's old lines above this one that are no parameter
        same = before - after == sum(not HLO_SOURCE.match(line) for line in old[start:stop])
        for line in old[start:stop]:
            if not HLO_SOURCE.match(line):
                others += 1
                continue
            place = after + others if same else after
            places.setdefault(min(place, first_use.get(line.partition(" = ")[0].strip(), place)), []).append(line)
    return places


def _gaps(kept: list[int], count: int) -> list[tuple[int, int]]:
    """The runs ``[start, stop)`` of ``range(count)`` between the ascending indexes ``kept``."""
    bounds = [-1, *kept, count]
    return [(low + 1, high) for low, high in itertools.pairwise(bounds) if high > low + 1]


def _laid_out(old: str, new: str) -> str:
    """``new`` with ``old``'s line breaks and indents between the words the two share in order."""
    old_words, new_words = (re.split(r"(\s+)", text) for text in (old, new))
    paired = dict(matches(old_words[::2], new_words[::2]))
    spaces = {j: old_words[2 * i - 1] for i, j in paired.items() if i and j and paired.get(i - 1) == j - 1}
    return "".join(spaces.get((k + 1) // 2, word) if k % 2 else word for k, word in enumerate(new_words))


class _Renaming:
    """The old name each new name takes, found from the aligned lines, then applied to the new text."""

    def __init__(self, dialect: str | None, rules: Naming, old: str, new: str) -> None:
        self.dialect, self.rules = dialect, rules
        self.old_names, self.new_names = rules.names(old), rules.names(new)
        self.functions = _functions(dialect, rules, old) | _functions(dialect, rules, new)
        self.meanings = (hlo.meanings(old), hlo.meanings(new)) if dialect == "hlo" else ({}, {})
        self.old_lines = list(rules.lines(old))
        self.new_lines = list(rules.lines(new))
        # (scope, new key) -> the key it is written with; keys taken per scope
        self.chosen: dict[tuple[int, str], str] = {}
        self.taken: set[tuple[int, str]] = set()
        # every token key of both texts (and every jaxpr word): a fresh name is none of them
        self.used = {token for text in (old, new) for token in rules.split.findall(text)}
        if dialect == "jaxpr":
            self.used.update(_WORD.findall(old), _WORD.findall(new), _JAXPR_WORDS)
        self.counters: dict[str, Iterator[int]] = {}
        self._pair_aligned(old, new)

    def _pair_aligned(self, old: str, new: str) -> None:
        """Propose each aligned name pair: all names of an unchanged line, the definitions of a changed one
        (a wrapped dialect's binder lists word by word, :meth:`_pair_words`)."""
        script = edit_script(self.dialect, old, new)
        for row in script.rows:
            if row.old is None or row.new is None:
                continue
            for k in range(row.count):
                self._pair_lines(row.old + k, row.new + k, whole=row.tag == "=")
        if self.rules.wrapped:
            self._pair_words(old, new)

    def _pair_lines(self, i: int, j: int, *, whole: bool) -> None:
        (_, old_parts), (new_scope, new_parts) = self.old_lines[i], self.new_lines[j]
        if self.rules.wrapped and (self._listing(old_parts) or self._listing(new_parts)):
            return
        if whole and len(old_parts) == len(new_parts) and old_parts[::2] == new_parts[::2]:
            pairs = zip(old_parts[1::2], new_parts[1::2], strict=True)
        else:
            key, defined = self.rules.key, self.rules.defined
            old_defs, new_defs = ([key(name) for name in defined("".join(parts))] for parts in (old_parts, new_parts))
            if len(old_defs) != len(new_defs):
                return
            pairs = zip(old_defs, new_defs, strict=True)
        for old_key, new_key in pairs:
            if old_key in self.old_names and new_key in self.new_names:
                self._propose(self._scope(new_key, new_scope), new_key, old_key)

    def _listing(self, parts: list[str]) -> bool:
        """Whether a line of a wrapped dialect is part of a wrapped list of binders (no equation's
        ``=``): its names pair by their place in the list (:meth:`_pair_words`), not by its line."""
        line = "".join(parts)
        return " = " not in line and bool(self.rules.defined(line))

    def _pair_words(self, old: str, new: str) -> None:
        """Propose the name pairs of the words the alignment matches without their names, line breaks
        ignored, binders first: a jaxpr's renamed variables move its line breaks."""
        words = [self._words(text, names) for text, names in ((old, self.old_names), (new, self.new_names))]
        matched = matches([skeleton for skeleton, _ in words[0]], [skeleton for skeleton, _ in words[1]])
        for binders in (True, False):
            for i, j in matched:
                (skeleton, old_keys), (_, new_keys) = words[0][i], words[1][j]
                if (":" in skeleton) == binders:
                    for old_key, new_key in zip(old_keys, new_keys, strict=True):
                        self._propose(-1, new_key, old_key)

    def _words(self, text: str, names: frozenset[str]) -> list[tuple[str, list[str]]]:
        """The whitespace-separated words of ``text``: each with its names as :data:`_SLOT`, and those names."""
        parts = self.rules.split.split(text)
        found = [token for token in parts[1::2] if token in names]
        parts[1::2] = (_SLOT if token in names else token for token in parts[1::2])
        keys = iter(found)
        return [(word, [next(keys) for _ in range(word.count(_SLOT))]) for word in "".join(parts).split()]

    def _scope(self, key: str, scope: int) -> int:
        """The scope a name lives in: its line's for a scoped sigil, else the whole text (-1)."""
        return scope if self.rules.is_scoped(key) else -1

    def _propose(self, scope: int, new_key: str, old_key: str) -> None:
        """``new_key`` is written ``old_key`` unless either is already paired in its scope (first pair wins), or
        they name instructions of different meanings."""
        if (scope, new_key) in self.chosen or (scope, old_key) in self.taken:
            return
        if (old_key in self.functions or new_key in self.functions) and (
            new_key not in self.functions
            or old_key not in self.functions
            or hlo.stem(old_key) != hlo.stem(new_key)  # numbers anywhere: "fused_computation.155.clone.1" -> ".143"
        ):
            return
        if (old_key[:1] in "%^@" or new_key[:1] in "%^@") and old_key[:1] != new_key[:1]:
            return
        if self.meanings[0].get(old_key) != self.meanings[1].get(new_key):
            return  # a kept name never carries another instruction's meaning (hlo.meanings)
        self.chosen[scope, new_key] = old_key
        self.taken.add((scope, old_key))

    def _name(self, scope: int, key: str) -> str:
        """The key a new name is written with: its old name, its own where no pair took it and the snapshot
        gives it no other meaning, else a fresh one."""
        found = self.chosen.get((scope, key))
        if found is None:
            clash = key in self.meanings[0] and self.meanings[0][key] != self.meanings[1].get(key)
            found = key if (scope, key) not in self.taken and not clash else self._fresh(key)
            self.chosen[scope, key] = found
            self.taken.add((scope, found))
        return found

    def _fresh(self, key: str) -> str:
        """A name in the style of ``key`` that no text uses: ``%add.7``, ``%cst_3``, ``%52``, ``bq``."""
        candidates: Iterator[str]
        if self.dialect == "jaxpr":
            numbers = self.counters.setdefault("", itertools.count(len(self.new_names)))
            candidates = map(_jaxpr_name, numbers)
        else:
            stem = _NUMBER[str(self.dialect)].sub("", key)
            numbers = self.counters.setdefault(stem, itertools.count(1))
            joint = "" if stem[-1:] in ("", "%", "^", "@") else "." if self.dialect == "hlo" else "_"
            candidates = (f"{stem}{joint}{n}" for n in numbers)
        found = next(name for name in candidates if name not in self.used)
        self.used.add(found)
        return found

    def text(self) -> str:
        """The new text with every name written as :meth:`_name` says."""
        out = []
        for scope, parts in self.new_lines:
            for k in range(1, len(parts), 2):
                if parts[k] in self.new_names:
                    parts[k] = self._name(self._scope(parts[k], scope), parts[k])
            out.append("".join(parts))
        return "\n".join(out)


def _functions(dialect: str | None, rules: Naming, text: str) -> frozenset[str]:
    """The keys of the functions ``text`` defines: StableHLO's ``@name``, HLO's computations (none in a jaxpr,
    whose ``let name = {`` and ``name=`` are no variables)."""
    if dialect == "mlir":
        return frozenset(key for key in rules.names(text) if key[:1] == "@")
    if dialect == "hlo":
        headers = map(hlo.parse_computation, text.split("\n"))
        return frozenset(rules.key(header.name) for header in headers if header is not None)
    return frozenset()


def _jaxpr_name(n: int) -> str:
    """JAX's n-th variable name: ``a`` ... ``z``, ``ba``, ``bb``, ... (base 26 in letters)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
        if not n:
            return letters
