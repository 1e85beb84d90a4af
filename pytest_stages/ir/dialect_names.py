"""The names each stage-text dialect prints (jaxpr, compiled or lowered HLO, StableHLO) and where it defines them.

:func:`dialect_rules` gives one dialect's naming rules to the edit script (``ir/textdiff.py``); the patterns are
shared with ``ir/renaming.py``.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Sequence

from pytest_stages.ir import hlo

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


class Dialect:
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
        return self.canonical_pattern.sub(r"\1", text)

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


def _name_split(token: str) -> re.Pattern[str]:
    """A pattern whose ``split`` keeps the names: ``%a.1 = f(%b.2)`` -> ``["", "%a.1", " = f(", "%b.2", ")"]``."""
    return re.compile(f"({token})")


def _renamed(split: re.Pattern[str], text: str, renamed: dict[str, str]) -> str:
    """``text`` with each name that ``split`` splits out replaced by its new name (others kept), in C."""
    parts = split.split(text)
    found = parts[1::2]
    parts[1::2] = map(renamed.get, found, found)
    return "".join(parts)


class _Jaxpr(Dialect):
    """Jaxpr variables are bare lowercase words; only words bound somewhere (``b:f32[]``) are names."""

    def __init__(self) -> None:
        super().__init__(JAXPR_NAME, r"(?!)()", defs=JAXPR_DEF)
        self.names: frozenset[str] = frozenset()

    def prepare(self, old: Sequence[str], new: Sequence[str]) -> None:
        self.names = frozenset(itertools.chain.from_iterable(self.defs_pattern.findall(t) for t in (*old, *new)))

    def canonical(self, text: str) -> str:
        return self.token.sub(lambda m: "_" if m[0] in self.names else m[0], text)

    def skeleton(self, line: str) -> str:
        return self.token.sub(lambda m: "" if m[0] in self.names else m[0], line)

    def defs(self, text: str) -> list[str]:
        return self.defs_pattern.findall(text)


class _Hlo(Dialect):
    """HLO names: ``%add.3`` (compiled) or ``add.3`` (lowered); :func:`hlo.defined_names` finds definitions.

    Tokens are names with a ``%`` or a ``.N`` suffix (decimal literals too, so the pair check sees them
    differ), and a computation header's bare parameters.
    """

    unique_names = True

    def __init__(self) -> None:
        super().__init__(HLO_NAME, r"\.(?<=[\w\-]\.)\d++(?:\.\d++)*+(?![\w\-])", dropped=".0123456789")
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


class _Mlir(Dialect):
    """StableHLO names: ``%0``, ``%arg1``, ``%cst_2``, ``^bb0``, ``@main``; defined left of `` = `` or as block args."""

    def __init__(self) -> None:
        super().__init__(MLIR_NAME, r"([%@^][\w$\-]*?)_?\d+(?![\w$\-])", defs=MLIR_DEF, dropped="_0123456789")


DIALECTS: dict[str, Callable[[], Dialect]] = {"hlo": _Hlo, "mlir": _Mlir, "jaxpr": _Jaxpr}


def dialect_rules(name: str | None) -> Dialect | None:
    """The naming rules of a text dialect (``hlo``, ``mlir``, ``jaxpr``); None for plain text."""
    make = DIALECTS.get(name or "")
    return make() if make is not None else None
