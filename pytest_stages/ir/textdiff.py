"""Renumbering-proof diffs of stage texts: two texts in, an edit script out.

Lines are aligned on a canonical form without the numbers JAX gives names, then each aligned pair is
checked under the renaming its definitions imply (docs/architecture.md, "How stage texts are compared").
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pytest_stages.core.records import DiffRow, Tag
from pytest_stages.ir import hlo

CONTEXT = 2
BLOCK = 256
# difflib aligns a stretch between anchors once old lines x new lines is at most this (2000 x 2000);
# beyond it, anchors are looked for again inside the stretch.
SMALL = 4_000_000
_GONE = "\0gone"

# The names each dialect prints, and where it defines them (shared with alpha and rename).
# jaxpr: a bare lowercase word ("b" in "b:f32[] = add a 1.0:f32[]"); a name where some "b:type[" binds it.
# The jaxpr's keywords where they are keywords: "lambda", "let" after the binders' "." or at a line's
# start ("let f = { lambda"), "in" before its "(" or after "}" at a line's end. JAX names variables
# "in" or "let" too ("in:f32[8] = ...", "add in let"): there they are names.
_JAXPR_KEYWORD = r"lambda\b(?![:,)])|(?:(?<=\. )|(?<![^\n]))let\b(?![:,)])|in(?= \()|(?<=\} )in(?![^\n])"
# A literal is "value:type" among an eqn's operands or a jaxpr's outputs ("max a -inf:f32[]",
# "] b a nan:f32[]", "in (inf:f32[],)"); a binder is "name:type" with its eqn's " = " or its jaxpr's
# ". let" after it on its line ("inf:f32[] nan:f32[] = ..."; JAX names the 5752nd variable "inf", the
# 8802nd "nan"). So a typed "inf" or "nan" not so followed is a special float, never a name (a binder
# so named that ends a wrapped line, or a constant before "; ", is then compared by its spelling).
_JAXPR_BINDER_TAIL = r"[^\s;.]++(?: [a-z_]+:[^\s;.]++)*+(?: = |\. let\b)"
_JAXPR_LITERAL = rf"(?:inf|nan):(?!{_JAXPR_BINDER_TAIL})"
# A Ref's name is written before its indexer ("<- p[...]", "p[...] <- a", "p[0:4,i] += a"; "+= a" reads a name
# where "= a" never does): a "[" that opens no primitive's parameters ("dot_general[" at a line's end,
# "jit[name=f ...]") nor a dtype's shape ("bool[4]").
_JAXPR_NOT_INDEXED = r"\[(?:$|\n|[^\]\n]*=)|(?<=bool)\[|(?<=float0)\["
JAXPR_NAME = rf"(?<![\w.=])(?<![^+]= )(?!{_JAXPR_KEYWORD}|{_JAXPR_LITERAL})[a-z]+\b(?![=.(])(?!{_JAXPR_NOT_INDEXED})"
# A binder's type is a dtype and shape ("f32[4]", "key<fry>[]") or a Ref of one ("Ref{bf16[16,16]}").
JAXPR_DEF = rf"(?<![\w.])(?!{_JAXPR_LITERAL})([a-z]+):(?=(?:Ref\{{)?[a-z][\w<>,]*\[)"
# HLO: "%add.3" (compiled), "add.3" (lowered, or a decimal literal "1.5")
HLO_BARE = r"(?<![\w.\-%])\w[\w\-]*+(?:\.\d+)++(?![\w\-])"
HLO_NAME = rf"%[\w.\-]++|{HLO_BARE}"
# "param_0.2" in a computation header's "(param_0.2: f32[], p: s32[])"
HLO_PARAMETER = r"(?:(?<=\()|(?<=, ))[A-Za-z_][\w.\-]*+(?=: )"
# StableHLO: "%0", "%arg1", "%cst_2", "^bb0", "@main"; defined left of " = ", as a block argument, or by func.func
MLIR_NAME = r"[%@^][\w$\-]+"
MLIR_DEF = rf"({MLIR_NAME})(?::\d+)? = |({MLIR_NAME}): |func\.func (?:\w+ )?(@[\w$\-]+)"


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


class _Dialect:
    """How one kind of stage text names values: its tokens, their canonical form, and definitions.

    ``defs``: a pattern whose groups are the names a line defines. ``dropped``: every character the
    canonical form may drop (a cheaper, rougher alignment key). ``unique_names``: a name means one value
    throughout the text, so a block of aligned lines can be checked at once (:meth:`unchanged`).
    """

    unique_names = False

    def __init__(self, token: str, canonical: str, defs: str = r"(?!)", dropped: str = "") -> None:
        self.token = re.compile(token)
        self.name_split = _name_split(token)
        self.canonical_pattern = re.compile(canonical)
        self.defs_pattern = re.compile(defs)
        self.without_dropped = str.maketrans("", "", dropped)
        self.alignment_keys = (self.rough, self.canonical) if dropped else (self.canonical,)

    def prepare(self, old: Sequence[str], new: Sequence[str]) -> None:
        """Per-diff state (jaxpr variable names); none for HLO and MLIR."""

    def canonical(self, text: str) -> str:
        return self.canonical_pattern.sub(_first_group, text)

    def unchanged(self, old: Sequence[str], new: Sequence[str], renamed: dict[str, str]) -> bool:
        """Whether aligned lines are the same under ``renamed``, checked at once: only with ``unique_names``."""
        raise NotImplementedError(f"{type(self).__name__} names are not unique")

    def rough(self, text: str) -> str:
        """``text`` without any character the canonical form may drop (``%add.3`` -> ``%add``): one C pass."""
        return text.translate(self.without_dropped)

    def skeleton(self, line: str) -> str:
        """The line without its names: what must match exactly for two lines to be the same op."""
        return self.token.sub("", line)

    def rename(self, line: str, renamed: dict[str, str]) -> str:
        """``line`` with each name replaced by the name ``renamed`` says it has now (others kept)."""
        return _renamed(self.name_split, line, renamed) if renamed else line

    def defs(self, text: str) -> list[str]:
        """The names ``text`` (a line, or a block of lines where names are unique) defines, in order."""
        return [next(g for g in m.groups() if g) for m in self.defs_pattern.finditer(text)]


def _first_group(match: re.Match[str]) -> str:
    return match[1]


def _name_split(token: str) -> re.Pattern[str]:
    """A pattern whose ``split`` keeps the names: ``%a.1 = f(%b.2)`` -> ``["", "%a.1", " = f(", "%b.2", ")"]``."""
    return re.compile(f"({token})")


def _renamed(split: re.Pattern[str], text: str, renamed: dict[str, str]) -> str:
    """``text`` with each name that ``split`` splits out replaced by its new name (others kept), in C."""
    parts = split.split(text)
    found = parts[1::2]
    parts[1::2] = map(renamed.get, found, found)
    return "".join(parts)


class _Jaxpr(_Dialect):
    """Jaxpr variables are bare lowercase words; only words bound somewhere (``b:f32[]``) are names."""

    def __init__(self) -> None:
        super().__init__(
            token=JAXPR_NAME,
            canonical=r"(?!)()",
            defs=JAXPR_DEF,
        )
        self.names: frozenset[str] = frozenset()

    def prepare(self, old: Sequence[str], new: Sequence[str]) -> None:
        self.names = frozenset(itertools.chain.from_iterable(self.defs_pattern.findall(t) for t in (*old, *new)))

    def canonical(self, text: str) -> str:
        return self.token.sub(lambda m: "_" if m[0] in self.names else m[0], text)

    def skeleton(self, line: str) -> str:
        return self.token.sub(lambda m: "" if m[0] in self.names else m[0], line)

    def defs(self, text: str) -> list[str]:
        return self.defs_pattern.findall(text)


class _Hlo(_Dialect):
    """HLO names: ``%add.3`` (compiled) or ``add.3`` (lowered); :func:`hlo.defined_names` finds definitions.

    Tokens are names with a ``%`` or a ``.N`` suffix (decimal literals too, so the pair check sees them
    differ), and a computation header's bare parameters.
    """

    unique_names = True

    def __init__(self) -> None:
        super().__init__(
            token=HLO_NAME,
            canonical=r"\.(?<=[\w\-]\.)\d++(?:\.\d++)*+(?![\w\-])",
            dropped=".0123456789",
        )
        self.header_split = _name_split(rf"{HLO_PARAMETER}|{HLO_NAME}")
        self.instruction_split = self.name_split

    def prepare(self, old: Sequence[str], new: Sequence[str]) -> None:
        percent = all(_first_header(lines).startswith(("%", "ENTRY %")) for lines in (old, new))
        self.instruction_split = _PERCENT_SPLIT if percent else self.name_split

    def canonical(self, text: str) -> str:
        return self.canonical_pattern.sub("", text)

    def rename(self, line: str, renamed: dict[str, str]) -> str:
        split = self.instruction_split if line[:1] in _INDENTED else self.header_split
        return _renamed(split, line, renamed) if renamed else line

    def unchanged(self, old: Sequence[str], new: Sequence[str], renamed: dict[str, str]) -> bool:
        """All lines renamed as instruction lines at once; a line that still differs must be a header."""
        if not renamed:
            return old == new
        lines = _renamed(self.instruction_split, "\n".join(old), renamed).split("\n")
        differing = itertools.compress(range(len(old)), map(operator.ne, lines, new))
        return all(
            old[k][:1] not in _INDENTED and _renamed(_PARAMETER_SPLIT, lines[k], renamed) == new[k] for k in differing
        )

    def defs(self, text: str) -> list[str]:
        return hlo.defined_names(text)


# "%add.3" in compiled HLO
_PERCENT_SPLIT = _name_split(r"%[\w.\-]++")
_PARAMETER_SPLIT = _name_split(HLO_PARAMETER)
# The first character of an instruction line, a computation's closing "}" or a blank line ("" is in any string)
_INDENTED = " }"


def _first_header(lines: Sequence[str]) -> str:
    """The first computation header line of an HLO text ("" if none)."""
    return next((line for line in lines if hlo.parse_computation(line)), "")


class _Mlir(_Dialect):
    """StableHLO names: ``%0``, ``%arg1``, ``%cst_2``, ``^bb0``, ``@main``; defined left of `` = `` or as block args."""

    def __init__(self) -> None:
        super().__init__(
            token=MLIR_NAME,
            canonical=r"([%@^][\w$\-]*?)_?\d+(?![\w$\-])",
            defs=MLIR_DEF,
            dropped="_0123456789",
        )


DIALECTS: dict[str, Callable[[], _Dialect]] = {"hlo": _Hlo, "mlir": _Mlir, "jaxpr": _Jaxpr}


def _dialect(name: str | None) -> _Dialect | None:
    """The naming rules of a text dialect (``hlo``, ``mlir``, ``jaxpr``); None for plain text."""
    make = DIALECTS.get(name or "")
    return make() if make is not None else None


def edit_script(dialect: str | None, expected: str, actual: str) -> EditScript:
    """The rows that turn ``expected`` into ``actual``, blind to renumbering where ``dialect`` is known.

    ``dialect`` is ``Artifact.dialect``; None (JSON, plain text) aligns lines exactly.
    """
    old, new = expected.splitlines(), actual.splitlines()
    rules = _dialect(dialect)
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
    dialect: _Dialect | None, old: list[str], new: list[str], common: tuple[int, int, int], *, last: bool
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
    old: Sequence[str],
    new: Sequence[str],
    raw: tuple[Sequence[str], Sequence[str]],
    key: Callable[[str], str] | None,
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
    for run in _runs(pairs):
        a, b, n = run
        if a > i or b > j:
            yield ("replace" if a > i and b > j else "delete" if a > i else "insert"), i, a, j, b
        yield "equal", a, a + n, b, b + n
        i, j = a + n, b + n
    if i < old or j < new:
        yield ("replace" if i < old and j < new else "delete" if i < old else "insert"), i, old, j, new


def _runs(pairs: list[tuple[int, int]]) -> Iterator[tuple[int, int, int]]:
    """Consecutive pairs ``(i, j), (i + 1, j + 1), ...`` as runs ``(i, j, length)``."""
    start = 0
    for k in range(1, len(pairs) + 1):
        if k == len(pairs) or pairs[k] != (pairs[k - 1][0] + 1, pairs[k - 1][1] + 1):
            yield pairs[start][0], pairs[start][1], k - start
            start = k


class _RenameCheck:
    """Tracks which old name each new name stands for, from the definitions of aligned lines."""

    def __init__(self, dialect: _Dialect | None, old: list[str], new: list[str]) -> None:
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


def hunks(script: EditScript, context: int = CONTEXT) -> list[list[Row]]:
    """Runs of single-line rows around the changes, with ``context`` unchanged lines either side; a row
    whose text is the same on both sides (:meth:`EditScript.same_text`) is one of the unchanged lines."""
    groups: list[list[Row]] = []
    current: list[Row] | None = None
    rows = [Row("=", row.old, row.new) if script.same_text(row) else row for row in script.rows]
    for k, row in enumerate(rows):
        if row.tag != "=":
            if current is None:
                before = rows[k - 1] if k else None
                current = _lines(before, last=context) if before and before.tag == "=" else []
                groups.append(current)
            current.append(row)
        elif current is not None:
            if k < len(rows) - 1 and row.count <= 2 * context:
                current += _lines(row)
            else:
                current += _lines(row, first=context)
                current = None
    return groups


def _lines(run: Row, *, first: int | None = None, last: int | None = None) -> list[Row]:
    """An unchanged run as single-line rows: all of it, its ``first`` n or its ``last`` n lines."""
    assert run.old is not None and run.new is not None  # an unchanged run has both sides
    start, stop = 0, run.count
    if first is not None:
        stop = min(first, run.count)
    if last is not None:
        start = max(0, run.count - last)
    return [Row("=", run.old + k, run.new + k) for k in range(start, stop)]


def unified(script: EditScript, limit: int, *, header: bool = True) -> list[str]:
    """At most ``limit`` lines of unified diff (real names shown), and how many more there were.

    ``header=False`` leaves out the ``--- snapshot`` / ``+++ staged`` lines, for a caller
    that names both sides itself (syrupy's ``[- snapshot] == [+ received]``).
    """
    shown, hidden = unified_cut(script, limit, header=header)
    if hidden:
        shown.append(more_lines(hidden))
    return shown


def unified_cut(script: EditScript, limit: int, *, header: bool = True) -> tuple[list[str], int]:
    """The first ``limit`` lines of unified diff, and how many lines were left out."""
    lines = _unified_lines(script)
    if not header:
        lines = itertools.islice(lines, 2, None)
    shown = list(itertools.islice(lines, limit))
    return shown, sum(1 for _ in lines)


def more_lines(hidden: int) -> str:
    """``... 14 more diff lines``."""
    return f"... {hidden} more diff lines"


def _unified_lines(script: EditScript) -> Iterator[str]:
    yield "--- snapshot"
    yield "+++ staged"
    for group in hunks(script):
        old_rows = [r.old for r in group if r.old is not None]
        new_rows = [r.new for r in group if r.new is not None]
        yield f"@@ -{_span(old_rows)} +{_span(new_rows)} @@"
        for changed, rows in itertools.groupby(group, key=lambda r: r.tag != "="):
            run = list(rows)
            if not changed:
                yield from (f" {script.new[r.new]}" for r in run if r.new is not None)
                continue
            yield from (f"-{script.old[r.old]}" for r in run if r.old is not None)
            yield from (f"+{script.new[r.new]}" for r in run if r.new is not None)


def _span(indexes: list[int]) -> str:
    if not indexes:
        return "0,0"
    return f"{indexes[0] + 1},{len(indexes)}" if len(indexes) != 1 else str(indexes[0] + 1)


def side_by_side(script: EditScript, limit: int, locations: Sequence[str | None] = ()) -> list[list[DiffRow]]:
    """Hunks for a two-column view, JSON-ready; a changed line sits beside its old version.

    Each hunk is a list of rows ``[tag, old_number, old_text, new_number, new_text, source]``
    (1-based numbers; None and "" where a side has no line; ``source`` is the staged line's
    location or None). At most ``limit`` rows in all.
    """
    out: list[list[DiffRow]] = []
    budget = limit
    for group in hunks(script, context=3):
        if budget <= 0:
            break
        out.append(
            [
                (
                    row.tag,
                    None if row.old is None else row.old + 1,
                    "" if row.old is None else script.old[row.old],
                    None if row.new is None else row.new + 1,
                    "" if row.new is None else script.new[row.new],
                    locations[row.new] if row.new is not None and row.new < len(locations) else None,
                )
                for row in group[:budget]
            ]
        )
        budget -= len(group)
    return out


def sources(script: EditScript, locations: Sequence[str | None]) -> list[tuple[str, dict[str, int]]]:
    """Where the changed lines come from: ``[(location, {"added": n, "changed": n, "removed": n})]``.

    Added and changed lines carry their own location; a removed line is charged to the
    location of the nearest staged line after it (the code around the removal).
    """
    found: dict[str, dict[str, int]] = {}
    pending_removed = 0
    for row in script.rows:
        where = locations[row.new] if row.new is not None and row.new < len(locations) else None
        if row.tag == "-":
            pending_removed += 1
            continue
        if row.tag in "+~" and where:
            kind = "added" if row.tag == "+" else "changed"
            counts = found.setdefault(where, {})
            counts[kind] = counts.get(kind, 0) + 1
        if pending_removed and where:
            counts = found.setdefault(where, {})
            counts["removed"] = counts.get("removed", 0) + pending_removed
            pending_removed = 0
    return list(found.items())


def describe_sources(found: Sequence[tuple[str, dict[str, int]]], limit: int = 5) -> str:
    """``examples/model.py:42 in attention (1 added, 1 changed); ...`` for a failure message."""
    parts = []
    for where, counts in found[:limit]:
        what = ", ".join(f"{counts[k]} {k}" for k in ("added", "changed", "removed") if counts.get(k))
        parts.append(f"{where} ({what})")
    more = len(found) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
