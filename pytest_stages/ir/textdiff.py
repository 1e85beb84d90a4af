"""Renumbering-proof diffs of stage texts: two texts in, an edit script out (rendered by ``ir/diff_render.py``).

Lines are aligned on a canonical form without the numbers JAX gives names, then each aligned pair is
checked under the renaming its definitions imply (docs/architecture.md, "How stage texts are compared").
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pytest_stages.core.records import Tag
from pytest_stages.ir.dialect_names import Dialect, dialect_rules

BLOCK = 256
# difflib aligns a stretch between anchors once old lines x new lines is at most this (2000 x 2000);
# beyond it, anchors are looked for again inside the stretch.
SMALL = 4_000_000
_GONE = "\0gone"


@dataclass(frozen=True)
class Row:
    """One entry of the edit script: ``=`` same, ``-`` removed, ``+`` added, ``~`` changed in place.

    ``old``/``new`` are 0-based line indexes (None where absent); an ``=`` row stands for ``count`` lines.
    """

    tag: Tag
    old: int | None
    new: int | None
    count: int = 1


@dataclass(frozen=True)
class EditScript:
    """The rows over both sides' lines, whole: every line of each side is in exactly one row."""

    old: list[str]
    new: list[str]
    rows: list[Row]

    def differing(self) -> tuple[str, str]:
        """The lines that differ, each side's: removed and changed old lines, added and changed new ones."""
        old = [self.old[row.old] for row in self.rows if row.tag in "-~" and row.old is not None]
        new = [self.new[row.new] for row in self.rows if row.tag in "+~" and row.new is not None]
        return "\n".join(old), "\n".join(new)

    def changes(self) -> Iterator[int]:
        """Indexes of the rows that are not ``=``."""
        return (k for k, row in enumerate(self.rows) if row.tag != "=")

    def same_text(self, row: Row) -> bool:
        """Whether ``row`` is changed in place with the same text on both sides (a name on it now means another
        value): shown as context, still counted where the changed lines come from."""
        return row.tag == "~" and row.old is not None and row.new is not None and self.old[row.old] == self.new[row.new]


def edit_script(dialect: str | None, expected: str, actual: str) -> EditScript:
    """The rows that turn ``expected`` into ``actual``, blind to renumbering where ``dialect`` is known.

    ``dialect`` is ``Artifact.dialect``; None (JSON, plain text) aligns lines exactly.
    """
    old, new = expected.splitlines(), actual.splitlines()
    rules = dialect_rules(dialect)
    prefix = common_prefix(old, new)
    tail = common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    middle = old[prefix : len(old) - tail], new[prefix : len(new) - tail]
    if rules is not None:
        rules.prepare(old, new)
    keys = rules.alignment_keys if rules is not None else (None,)
    for key in keys:
        keyed = [key("\n".join(lines)).split("\n") if key and lines else lines for lines in middle]
        suffix = common_prefix(keyed[0][::-1], keyed[1][::-1])
        found = _rows(rules, old, new, (prefix, suffix, tail), last=key is keys[-1])
        if found is not None:
            break
    assert found is not None  # the last key is not in doubt: _rows gives rows for it
    return EditScript(old, new, found)


def _rows(
    dialect: Dialect | None, old: list[str], new: list[str], common: tuple[int, int, int], *, last: bool
) -> list[Row] | None:
    """The rows; None to align again on the next key (the rough pairing of the end was wrong).

    ``common``: the lines shared at the head, paired at the end of the middle, identical at the tail.
    """
    prefix, suffix, tail = common
    old_end, new_end = len(old) - tail - suffix - prefix, len(new) - tail - suffix - prefix
    rows = [Row("=", 0, 0, prefix)] if prefix else []
    checker = _RenameCheck(dialect, old, new)
    raw = old[prefix : prefix + old_end], new[prefix : prefix + new_end]
    keyed = [dialect.canonical("\n".join(lines)).split("\n") if dialect and lines else lines for lines in raw]
    key = dialect.skeleton if dialect is not None else None
    for tag, old1, old2, new1, new2 in _opcodes(keyed[0], keyed[1], raw, key):
        i1, i2, j1, j2 = old1 + prefix, old2 + prefix, new1 + prefix, new2 + prefix
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            checker.pairs(rows, i1, j1, i2 - i1, aligned=tag == "equal")
            continue
        for i in range(i1, i2):
            checker.gone(i)
            rows.append(Row("-", i, None))
        rows += (Row("+", None, j) for j in range(j1, j2))
    start_old, start_new = prefix + old_end, prefix + new_end
    if not checker.pairs(rows, start_old, start_new, suffix, aligned=True, doubtful=not last):
        return None
    checker.pairs(rows, start_old + suffix, start_new + suffix, tail, aligned=True, raw_equal=True)
    return rows


def _opcodes(
    old: Sequence[str], new: Sequence[str], raw: tuple[Sequence[str], Sequence[str]], key: Callable[[str], str] | None
) -> Iterator[tuple[str, int, int, int, int]]:
    """The opcodes of :func:`matches`, each small uneven replace block aligned again on ``key`` of the ``raw``
    lines, so that a line that now reads another value pairs with its old self and its names are renamed."""
    for tag, i1, i2, j1, j2 in _opcodes_of(matches(old, new), len(old), len(new)):
        if tag != "replace" or i2 - i1 == j2 - j1 or (i2 - i1) * (j2 - j1) > SMALL or key is None:
            yield tag, i1, i2, j1, j2
            continue
        keys = [key(line) for line in raw[0][i1:i2]], [key(line) for line in raw[1][j1:j2]]
        for part, c1, c2, d1, d2 in difflib.SequenceMatcher(None, *keys, autojunk=False).get_opcodes():
            yield "replace" if part == "equal" else part, i1 + c1, i1 + c2, j1 + d1, j1 + d2


def matches(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of equal lines (or any items), in order on both sides: the alignment of the whole texts.

    A stretch up to ``SMALL`` goes to difflib (no autojunk: repeated layers must match), a larger one is
    cut at :func:`_anchors`; a stretch with no anchor stays unaligned.
    """
    pairs: list[tuple[int, int]] = []
    todo = [(0, len(old), 0, len(new))]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        head = common_prefix(old[alo:ahi], new[blo:bhi])
        pairs += ((alo + k, blo + k) for k in range(head))
        alo, blo = alo + head, blo + head
        end = common_prefix(old[alo:ahi][::-1], new[blo:bhi][::-1])
        pairs += ((ahi - k, bhi - k) for k in range(1, end + 1))
        ahi, bhi = ahi - end, bhi - end
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL:
            blocks = difflib.SequenceMatcher(None, old[alo:ahi], new[blo:bhi], autojunk=False).get_matching_blocks()
            pairs += ((alo + i + k, blo + j + k) for i, j, n in blocks for k in range(n))
            continue
        anchors = _anchors(old, new, (alo, ahi), (blo, bhi))
        pairs += anchors
        if anchors:  # the stretches between anchors, and after the last, where either side has lines
            ends = [(alo - 1, blo - 1), *anchors, (ahi, bhi)]
            todo += ((i + 1, k, j + 1, m) for (i, j), (k, m) in itertools.pairwise(ends) if k - i > 1 or m - j > 1)
    pairs.sort()
    return pairs


def _anchors(
    old: Sequence[str], new: Sequence[str], old_span: tuple[int, int], new_span: tuple[int, int]
) -> list[tuple[int, int]]:
    """Lines of the two spans to pair first: the longest chain, in order on both sides, of candidates pairing
    a line's k-th occurrence in each span counted from the start or from the end."""
    in_new = _positions(new, *new_span)
    from_start: dict[int, int] = {}
    from_end: dict[int, int] = {}
    for line, olds in _positions(old, *old_span).items():
        news = in_new.get(line)
        if news is not None:
            from_start.update(zip(olds, news, strict=False))
            from_end.update(zip(reversed(olds), reversed(news), strict=False))
    candidates: list[tuple[int, int]] = []
    for i in sorted(from_start.keys() | from_end.keys()):
        found = {from_start.get(i, -1), from_end.get(i, -1)} - {-1}
        # for one old line the later new line first, so that the chain takes one of them
        candidates += ((i, j) for j in sorted(found, reverse=True))
    tails: list[int] = []  # tails[n]: the new line ending the best chain of n + 1 candidates so far
    ends: list[int] = []  # the candidate index of that chain's last link
    back = [-1] * len(candidates)
    for index, (_, j) in enumerate(candidates):
        n = bisect.bisect_left(tails, j)
        back[index] = ends[n - 1] if n else -1
        if n == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[n], ends[n] = j, index
    chain, index = [], ends[-1] if ends else -1
    while index >= 0:
        chain.append(candidates[index])
        index = back[index]
    return chain[::-1]


def _positions(lines: Sequence[str], start: int, stop: int) -> dict[str, list[int]]:
    """Where each line of ``lines[start:stop]`` occurs, in order."""
    where: dict[str, list[int]] = {}
    for index in range(start, stop):
        where.setdefault(lines[index], []).append(index)
    return where


def _opcodes_of(pairs: list[tuple[int, int]], old: int, new: int) -> Iterator[tuple[str, int, int, int, int]]:
    """difflib-style opcodes (``equal``, ``replace``, ``delete``, ``insert``) from aligned pairs in order."""
    i = j = 0
    for a, b, n in [*_runs(pairs), (old, new, 0)]:  # the last, empty run closes the texts
        if a > i or b > j:
            yield ("replace" if a > i and b > j else "delete" if a > i else "insert"), i, a, j, b
        if n:
            yield "equal", a, a + n, b, b + n
        i, j = a + n, b + n


def _runs(pairs: list[tuple[int, int]]) -> Iterator[tuple[int, int, int]]:
    """Consecutive pairs ``(i, j), (i + 1, j + 1), ...`` as runs ``(i, j, length)``."""
    start = 0
    for k in range(1, len(pairs) + 1):
        if k == len(pairs) or pairs[k] != (pairs[k - 1][0] + 1, pairs[k - 1][1] + 1):
            yield pairs[start][0], pairs[start][1], k - start
            start = k


class _RenameCheck:
    """Tracks which old name each new name stands for, from the definitions of aligned lines."""

    def __init__(self, dialect: Dialect | None, old: list[str], new: list[str]) -> None:
        self.dialect, self.old, self.new = dialect, old, new
        # Old names whose new name differs (or that are gone); absent names map to themselves.
        self.renamed: dict[str, str] = {}

    def pairs(
        self,
        rows: list[Row],
        i: int,
        j: int,
        count: int,
        *,
        aligned: bool,
        raw_equal: bool = False,
        doubtful: bool = False,
    ) -> bool:
        """Append rows for ``count`` old lines from ``i`` paired with new lines from ``j``; False if stopped.

        ``aligned``: an alignment key paired them; ``raw_equal``: their texts are equal; ``doubtful``: a
        rough key paired them, so stop at a changed line whose canonical form differs.
        """
        run = 0
        for start in range(0, count, BLOCK):
            if raw_equal and not self.renamed:
                run += count - start
                break
            size = min(BLOCK, count - start)
            if aligned and self.block(i + start, j + start, size):
                run += size
                continue
            for k in range(start, start + size):
                tag = self.pair(i + k, j + k, aligned)
                if tag == "=":
                    run += 1
                    continue
                if doubtful and self.canonical_differs(i + k, j + k):
                    return False
                if run:
                    rows.append(Row("=", i + k - run, j + k - run, run))
                    run = 0
                rows.append(Row(tag, i + k, j + k))
        if run:
            rows.append(Row("=", i + count - run, j + count - run, run))
        return True

    def canonical_differs(self, i: int, j: int) -> bool:
        """Whether old line ``i`` and new line ``j`` differ in canonical form (in text, without a dialect)."""
        if self.dialect is None:
            return self.old[i] != self.new[j]
        return self.dialect.canonical(self.old[i]) != self.dialect.canonical(self.new[j])

    def block(self, i: int, j: int, size: int) -> bool:
        """Whether ``size`` aligned lines from old ``i`` and new ``j`` are all unchanged, checked as one text
        under the renaming their definitions extend (left as it was where some line changed)."""
        dialect = self.dialect
        if dialect is None or not dialect.unique_names:
            return False
        old, new = self.old[i : i + size], self.new[j : j + size]
        if old == new and not self.renamed:
            return True
        old_defs, new_defs = dialect.defs("\n".join(old)), dialect.defs("\n".join(new))
        defined = set(old_defs)
        if len(old_defs) != len(new_defs) or len(defined) != len(old_defs):
            return False
        renamed = self.renamed
        before = {a: renamed[a] for a in renamed.keys() & defined}
        renamed.update(zip(old_defs, new_defs, strict=True))
        for a in [a for a, b in zip(old_defs, new_defs, strict=True) if a == b]:
            del renamed[a]
        if dialect.unchanged(old, new, renamed):
            return True
        for a in old_defs:
            renamed.pop(a, None)
        renamed.update(before)
        return False

    def pair(self, i: int, j: int, aligned: bool) -> Tag:
        """``=`` or ``~`` for old line ``i`` against new line ``j``; ``aligned`` when their canonical forms match."""
        old, new = self.old[i], self.new[j]
        dialect = self.dialect
        if dialect is None or (old == new and not self.renamed):
            return "=" if old == new else "~"
        old_defs, new_defs = dialect.defs(old), dialect.defs(new)
        if len(old_defs) != len(new_defs):
            new_defs = [_GONE] * len(old_defs)
        for a, b in zip(old_defs, new_defs, strict=True):
            if a == b:
                self.renamed.pop(a, None)
            else:
                self.renamed[a] = b if aligned or dialect.canonical(a) == dialect.canonical(b) else _GONE
        if not aligned:
            return "~"
        return "=" if dialect.rename(old, self.renamed) == new else "~"

    def gone(self, i: int) -> None:
        """Old line ``i`` has no counterpart: the names it defines no longer exist."""
        if self.dialect is not None:
            self.renamed.update(dict.fromkeys(self.dialect.defs(self.old[i]), _GONE))


def common_prefix(first: Sequence[str], second: Sequence[str]) -> int:
    """How many leading items the two share: compared a slice at a time (C speed), then item by item."""
    shortest, step, start = min(len(first), len(second)), 1024, 0
    while start < shortest and first[start : start + step] == second[start : start + step]:
        start += step
    stop = min(shortest, start + step)
    return next((k for k in range(start, stop) if first[k] != second[k]), stop)
