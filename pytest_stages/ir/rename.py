"""Name-preserving updates: a changed stage text written under its snapshot's names.

JAX numbers values, instructions and computations in order, so one inserted op renames
everything after it, and a snapshot written as JAX prints it shows that renumbering as
hundreds of changed lines. :func:`keep_names` gives each name of the new text the old
snapshot's name wherever the renumbering-proof alignment (:mod:`pytest_stages.ir.textdiff`)
pairs it with an old one, every other name its own where no pair took it (``@main`` stays
``@main``), and else a fresh one that collides with no name of either text. The result is
the new text up to a one-to-one renaming
(:func:`pytest_stages.ir.alpha.equivalent`, checked before it is returned), so it stays
valid text of its dialect and compares equal to what JAX prints. A text equivalent to its
snapshot gives the snapshot back byte for byte; one without a snapshot keeps JAX's names.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from pytest_stages.ir.alpha import Naming, equivalent, naming
from pytest_stages.ir.textdiff import edit_script

# Words a jaxpr prints besides names: never a fresh variable name.
_JAXPR_WORDS = frozenset({"lambda", "let", "in"})
# Any lowercase word of a jaxpr (a name, a primitive, a keyword): a fresh name avoids them all.
_WORD = re.compile(r"[a-z]+")
# A name without its number, per dialect: "add.3.1" -> "add" (HLO); "%cst_12" -> "%cst", "%12" -> "%" (StableHLO).
_NUMBER = {"hlo": re.compile(r"(?:\.\d+)+$"), "mlir": re.compile(r"_?\d+$")}


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
    return renamed if equivalent(dialect, renamed, new) else new


class _Renaming:
    """The old name each new name takes, found from the aligned lines, then applied to the new text."""

    def __init__(self, dialect: str | None, rules: Naming, old: str, new: str) -> None:
        self.dialect, self.rules = dialect, rules
        self.old_names, self.new_names = rules.names(old), rules.names(new)
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
        """Propose each aligned name pair: all names of an unchanged line, the definitions of a changed one."""
        script = edit_script(self.dialect, old, new)
        for row in script.rows:
            if row.old is None or row.new is None:
                continue
            for k in range(row.count):
                self._pair_lines(row.old + k, row.new + k, whole=row.tag == "=")

    def _pair_lines(self, i: int, j: int, *, whole: bool) -> None:
        (_, old_parts), (new_scope, new_parts) = self.old_lines[i], self.new_lines[j]
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

    def _scope(self, key: str, scope: int) -> int:
        """The scope a name lives in: its line's for a scoped sigil, else the whole text (-1)."""
        return scope if self.rules.is_scoped(key) else -1

    def _propose(self, scope: int, new_key: str, old_key: str) -> None:
        """``new_key`` is written ``old_key`` unless either is already paired in its scope (first pair wins)."""
        if (scope, new_key) in self.chosen or (scope, old_key) in self.taken:
            return
        if (old_key[:1] in "%^@" or new_key[:1] in "%^@") and old_key[:1] != new_key[:1]:
            return
        self.chosen[scope, new_key] = old_key
        self.taken.add((scope, old_key))

    def _name(self, scope: int, key: str) -> str:
        """The key a new name is written with: its old name, its own where free, else a fresh one.

        Its own name is free where no aligned pair took it, also when the old text used it for a
        value the alignment left unpaired: ``@main`` and ``%arg0`` stay themselves (not ``@main_1``).
        """
        found = self.chosen.get((scope, key))
        if found is None:
            found = key if (scope, key) not in self.taken else self._fresh(key)
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


def _jaxpr_name(n: int) -> str:
    """JAX's n-th variable name: ``a`` ... ``z``, ``ba``, ``bb``, ... (base 26 in letters)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
        if not n:
            return letters
