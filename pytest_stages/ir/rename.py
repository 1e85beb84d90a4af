"""Name-preserving updates: a changed stage text written under its snapshot's names.

So that one inserted op does not show as hundreds of renumbered lines; the result is the new text up to a
one-to-one renaming, checked (docs/architecture.md, "How stage texts are compared").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from pytest_stages.ir import hlo
from pytest_stages.ir.alpha import Naming, equivalent, naming
from pytest_stages.ir.dataflow import HLO_SOURCE
from pytest_stages.ir.dialect_names import HLO_NAME
from pytest_stages.ir.textdiff import edit_script, matches

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
        self.used = self._all_tokens(old, new)
        self.counters: dict[str, Iterator[int]] = {}
        self._pair_aligned(old, new)

    def _all_tokens(self, old: str, new: str) -> set[str]:
        """Every token key of both texts (and every jaxpr word): a fresh name is none of them."""
        used = {token for text in (old, new) for token in self.rules.split.findall(text)}
        if self.dialect == "jaxpr":
            used.update(_WORD.findall(old), _WORD.findall(new), _JAXPR_WORDS)
        return used

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
