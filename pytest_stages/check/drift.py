"""IR drift: two stage texts in, a finding with its structural summary, source lines and bounded diff out.

Texts equal up to a one-to-one renaming are the same program: no drift. Ops are counted per dialect; a text
that carries the input signature (the jaxpr) also says which argument shapes or dtypes changed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict

from pytest_stages.analyse.artifacts import BY_NAME, check_kind
from pytest_stages.check.collectives import (
    collective_deltas,
    loop_collective_changes,
    loop_view,
    op_change_summary,
    op_deltas,
)
from pytest_stages.core.records import Change, Compared, Constant, DriftDetail, Finding, Pair
from pytest_stages.ir import hlo, literals
from pytest_stages.ir import sources as sources_
from pytest_stages.ir.diff_render import describe_sources, hunks, side_by_side, sources, unified_cut
from pytest_stages.ir.kernel_payloads import changed_lines
from pytest_stages.ir.renaming import Naming, equivalent, naming
from pytest_stages.ir.textdiff import EditScript, Row, edit_script

REPORT_ROWS = 400
# The dialects whose lines record one source frame each, in the order the program ran (the jaxpr).
ONE_FRAME = ("jaxpr",)
CONSTANT = "constant"  # the subject of a drift whose changed lines include a changed scalar literal
ATTRIBUTES = "attributes: "  # opens the summary line of op attributes that changed (:func:`changed_attributes`)
# A jaxpr equation's primitive: ``    c:f32[4] d:f32[4] = pjit[...]`` -> ``pjit``.
_JAXPR_EQUATION = re.compile(r"^[ \t]*(?:\S+:\S+[ \t]+)+=[ \t]+([a-z_]\w*)", re.MULTILINE)
# An MLIR line's op: ``%0 = stablehlo.add %a, %b : tensor<4xf32>`` -> ``stablehlo.add``.
_MLIR_OP = re.compile(r"^[ \t]*(?:%[^=\n]+=[ \t]+)?\"?([a-z_]+\.[a-z_][\w.]*)", re.MULTILINE)
SIGNATURE_SHOWN = 4  # changed inputs named in the input-signature line; the rest counted
# A sharded dimension's axes in an abstract type:
# ``f32[8@data,4]`` -> ``@data``; ``f32[8@(data,model)]`` -> ``@(data,model)``.
_SHARDED_DIM = re.compile(r"@(?:\([^()]*\)|\w+)")


# How each dialect's texts count their ops (a text of no dialect counts MLIR-style ops).
OP_COUNTERS: dict[str | None, Callable[[str], Counter[str]]] = {
    "hlo": hlo.opcode_counts,
    "jaxpr": lambda text: Counter(_JAXPR_EQUATION.findall(text)),
    "mlir": lambda text: Counter(_MLIR_OP.findall(text)),
}


def compare_text(
    artifact: str,
    expected: str,
    actual: str,
    *,
    diff_lines: int,
    locations: Callable[[], Sequence[str | None] | None] | None = None,
) -> Finding | None:
    """IR drift: a structural summary, the source lines of the changed ops, and a bounded diff.

    ``locations`` gives, on demand, the source location of each line of ``actual``; the
    finding's ``detail`` keeps the same essentials (and a side-by-side diff) for reports.
    """
    dialect = BY_NAME[artifact].dialect
    if equivalent(dialect, expected, actual):
        return None
    script = edit_script(dialect, expected, actual)
    differing = script.differing()
    counts = op_counts(artifact, differing[0]), op_counts(artifact, differing[1])
    summary = op_change_summary(*counts)
    structure = hlo_structure_summary(artifact, (expected, actual), differing, counts)
    structure += changed_lines(script)
    where = (locations() if locations else None) or []
    found, removed = _own_lines(sources(script, where)) if where else ([], 0)
    constants = changed_constants(dialect, script, where)
    if not summary and not structure and not constants:
        structure += changed_attributes(differing)
    new_kinds = _new_kinds(artifact, (expected, actual), counts)
    places = [place for place, _ in found] + [c["at"] for c in constants if c["at"]]
    setting = _setting(script, places) if BY_NAME[artifact].frontend else None
    detail: DriftDetail = {
        "summary": _summary_head(summary, structure, constants, script),
        "constants": constants,
        "sources": found,
        "removed": removed,
        "hunks": side_by_side(script, REPORT_ROWS, where),
        "truncated": sum(map(len, hunks(script, context=3))) > REPORT_ROWS,
        "new_kinds": new_kinds,
        "setting": asdict(setting) if setting else None,
    }
    diff, omitted = unified_cut(script, diff_lines)
    deltas = op_deltas(*counts)
    subject, before, after = (CONSTANT, constants[0]["old"], constants[0]["new"]) if constants else ("", None, None)
    return Finding(
        check_kind(artifact),
        artifact,
        BY_NAME[artifact].title,
        detail=detail,
        change=Change.DRIFT,
        subject=subject,
        before=before,
        after=after,
        locations=_headline_places(
            artifact,
            script,
            where,
            found=found,
            constants=constants,
            new_kinds=set(new_kinds),
            removed_only=_removed_only(deltas),
        ),
        ops=deltas,
        moves=tuple(structure),
        diff=tuple(diff),
        omitted=omitted,
    )


def _headline_places(
    artifact: str,
    script: EditScript,
    where: Sequence[str | None],
    *,
    found: list[tuple[str, dict[str, int]]],
    constants: list[Constant],
    new_kinds: set[str],
    removed_only: bool,
) -> tuple[str, ...]:
    """The places a drift's headline names, first first: a changed constant's line in the user's code, then
    the changed lines' places in :func:`_headline_order`'s order (each once); where ops were only removed
    (``removed_only``: every op count that moved went down), the user's lines that hold the removed ones."""
    own, holding = _changed_places(artifact, script, where, new_kinds) if found else (set(), set())
    places = [c["at"] for c in constants if c["at"] and sources_.rank(c["at"]) < sources_.ELSEWHERE]
    order = _headline_order(found, own, holding, one_frame=BY_NAME[artifact].dialect in ONE_FRAME)
    places += [describe_sources([place]) for place in order]
    # Ops only removed, and no line of the user's code holds a changed one: one may hold the removed ones, in a
    # text before XLA (its lines in the program's order; XLA's schedule puts a removed copy between any two).
    if removed_only and not places and BY_NAME[artifact].frontend:
        places = [describe_sources([(place, {"removed": n})]) for place, n in _enclosed_removals(script, where)]
    return tuple(dict.fromkeys(places))


def _removed_only(deltas: dict[str, int]) -> bool:
    """Whether the op counts that moved all went down (ops removed, none added)."""
    return bool(deltas) and all(delta < 0 for delta in deltas.values())


def _enclosed_removals(script: EditScript, where: Sequence[str | None]) -> list[tuple[str, int]]:
    """The user's lines that hold removed lines: removed lines whose kept neighbours with a place, the nearest
    before them and the nearest after, both come from the same line of the user's code (dropping weight decay
    removes ops between two of the optimizer update's; read in a text before XLA only). Removed lines between
    two places are charged to neither: the snapshot keeps no source lines, and the line after alone may name
    code that does not hold them."""
    found: dict[str, int] = {}
    before: str | None = None
    pending = 0
    for row in script.rows:
        if row.tag == "-":
            pending += row.count
            continue
        span = range(row.new, min(row.new + row.count, len(where))) if row.new is not None else range(0)
        last = _known(where, reversed(span))  # (``where`` describes a line when it is read: few are)
        if last is None:
            continue
        if (
            pending
            and before is not None
            and _known(where, span) == before
            and sources_.rank(before) < sources_.ELSEWHERE
        ):
            found[before] = found.get(before, 0) + pending
        before, pending = last, 0
    return sorted(found.items(), key=lambda item: -item[1])


def _known(where: Sequence[str | None], lines: Iterable[int]) -> str | None:
    """The place of the first of ``lines`` that has one."""
    return next((place for k in lines if (place := where[k]) is not None), None)


def changed_attributes(differing: tuple[str, str], limit: int = 2) -> list[str]:
    """``attributes: precision [DEFAULT, DEFAULT] -> [HIGHEST, HIGHEST]``: the op attributes (``key=value``) whose
    values the differing lines no longer or newly hold, for a drift that changed no op count and no constant
    (``precision=jax.lax.Precision.HIGHEST`` on a matmul). A key only one side writes is ``unset`` on the other (the
    jaxpr omits a default precision); one whose values differ only in numbers (a shape) is left to the constants and
    the setting. Names, references and source metadata are not attributes of the program."""
    old, new = (Counter(_attributes(text)) for text in differing)
    gone, came = old - new, new - old
    changed: dict[str, tuple[list[str], list[str]]] = {}
    for key in dict.fromkeys(key for key, _ in [*gone, *came]):
        before, after = ([value for k, value in side.elements() if k == key] for side in (gone, came))
        if _numbers(before) != _numbers(after):  # a shape or a size only: the constants and the setting say those
            changed[key] = (before, after)
    keys = list(changed)
    changes = [f"{key} {_values(changed[key][0])} -> {_values(changed[key][1])}" for key in keys[:limit]]
    more = f", +{len(keys) - limit} more" if len(keys) > limit else ""
    return [f"{ATTRIBUTES}{'; '.join(changes)}{more}"] if changes else []


def _numbers(values: Sequence[str]) -> list[str]:
    """``values`` with every number read as 0, in order: equal on both sides where only numbers changed."""
    return sorted(_DIGITS.sub("0", value) for value in values)


_DIGITS = re.compile(r"\d+")


def _values(values: Sequence[str], shown: int = 3) -> str:
    """``0, 1, 2, +9 more``: an attribute's distinct values on one side; ``unset`` where it has none."""
    distinct = list(dict.fromkeys(values))
    more = f", +{len(distinct) - shown} more" if len(distinct) > shown else ""
    return ", ".join(distinct[:shown]) + more if distinct else "unset"


def _attributes(text: str) -> list[tuple[str, str]]:
    """The ``key=value`` attributes of IR lines (``precision = [HIGHEST, HIGHEST]``, ``operand_precision={highest,
    highest}``), leaving out source metadata, shardings and values that name other values or computations (``%x``)."""
    return [
        (match["key"], match["value"])
        for match in _ATTRIBUTE.finditer(text)
        if match["key"].rsplit(".", 1)[-1] not in _NOT_ATTRIBUTES
        and "%" not in match["value"]
        and not _defines(text, match)
    ]


def _defines(text: str, match: re.Match[str]) -> bool:
    """Whether ``match`` is the name a line defines (``  %param_0.3 = f32[] parameter(0)``, ``  ROOT add.3 = ...``,
    ``%cst_2 = stablehlo.constant ...``): first on its line, then `` = ``. A jaxpr's ``precision=None`` has no
    spaces: an attribute."""
    line = text.rfind("\n", 0, match.start()) + 1
    return (
        text.startswith(" = ", match.end("key")) and _DEFINITION.fullmatch(text, line, match.start("key")) is not None
    )


# ``key=value`` or ``key = value``: a bracketed value (one level of nesting) or a bare word.
_ATTRIBUTE = re.compile(
    r"\b(?P<key>[a-z_][\w.]*)[ \t]*=[ \t]*"
    r"(?P<value>\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]|\([^()]*(?:\([^()]*\)[^()]*)*\)|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|[\w.+-]+)"
)
# What stands before a name a line defines: ``  %param_0.3 = f32[] parameter(0)``, ``  ROOT add.3 = ...``,
# ``%cst_2 = stablehlo.constant ...`` (a definition, not a ``key=value`` attribute).
_DEFINITION = re.compile(r"[ \t]*(?:ROOT[ \t]+)?%?")
# Source metadata, names and callees; and shardings, which the sharding check names leaf by leaf.
_NOT_ATTRIBUTES = frozenset(
    {"metadata", "op_name", "source_file", "source_line", "stack_frame_id", "name", "jaxpr", "calls", "to_apply"}
    | {"sharding", "out_sharding", "in_shardings", "out_shardings"}
)


def _setting(script: EditScript, places: Sequence[str]) -> sources_.Setting | None:
    """The user's configuration constant (``RMS_EPS = 1e-5`` at the top of ``lm.py``) that holds a value
    the drift's lines now hold where they held another, in a module of the changed lines' places.

    Read from the texts before XLA only (``compare_text`` asks nothing of the compiled text): a sharding
    change splits the compiled program's shapes (a vocabulary of 512 over 2 devices reads 256), numbers
    that no constant of the user's wrote."""
    if not places:
        return None
    values = literals.new_numbers(_replaced(script))
    return sources_.setting_holding(places, values) if values else None


def _new_kinds(artifact: str, texts: tuple[str, str], counts: tuple[Counter[str], Counter[str]]) -> list[str]:
    """The op kinds the drift made appear (none in the old text) or disappear (none in the new one):
    ``counts`` are those of the differing lines, ``texts`` the whole old and new text."""
    changed = {kind for kind in {*counts[0], *counts[1]} if counts[0][kind] != counts[1][kind]}
    if not changed:
        return []
    whole = op_counts(artifact, texts[0]), op_counts(artifact, texts[1])
    return sorted(kind for kind in changed if not whole[0][kind] or not whole[1][kind])


def _changed_places(
    artifact: str, script: EditScript, where: Sequence[str | None], kinds: set[str]
) -> tuple[set[str], set[str]]:
    """The places of the lines whose op itself is new or changed (added, or changed in more than which values it
    reads: its op, type or attributes), and of those that hold an op of one of ``kinds``. A line that only reads
    another value now is downstream of the edit (the sum that no longer adds the weight decay), not where it was
    made; a line, added or changed in place, that is another old line up to its names (a Ref read whose names
    shifted, a fusion printed elsewhere) only moved (:func:`_moved_lines`): neither is named."""
    naming_ = naming(BY_NAME[artifact].dialect)
    renamed = _moved_lines(script, naming_)
    own: set[str] = set()
    holding: set[str] = set()
    for k, row in enumerate(script.rows):
        if row.tag not in "+~" or row.new is None or row.new >= len(where) or k in renamed:
            continue
        place, line = where[row.new], script.new[row.new]
        if not place or place in own:
            continue
        old = script.old[row.old] if row.tag == "~" and row.old is not None else None
        if old is not None and naming_ is not None and _unnamed(naming_, old) == _unnamed(naming_, line):
            continue
        own.add(place)
        if kinds and not kinds.isdisjoint(op_counts(artifact, line)):
            holding.add(place)
    return own, holding


def _moved_lines(script: EditScript, naming_: Naming | None) -> set[int]:
    """The rows whose new line is another old line, removed or changed in place, with other names (each old line
    pairs once): the line moved and its names shifted (a fusion that read a donated argument's copy, now the
    argument itself, printed where the copy was). A line changed in place into its own old text is not one."""
    if naming_ is None:
        return set()
    old = Counter(
        _unnamed(naming_, script.old[row.old]) for row in script.rows if row.tag in "-~" and row.old is not None
    )
    renamed = set()
    for k, row in enumerate(script.rows):
        if row.tag not in "+~" or row.new is None:
            continue
        line = _unnamed(naming_, script.new[row.new])
        if row.tag == "~" and row.old is not None and _unnamed(naming_, script.old[row.old]) == line:
            continue
        if _take(old, line):
            renamed.add(k)
    return renamed


def _unnamed(naming_: Naming, line: str) -> str:
    """``line`` without its names, a jaxpr's Ref reads and writes included (``h:f32[4] <- a[...]``: the
    dialect's names take a Ref's, see ir/textdiff.py's ``JAXPR_NAME``)."""
    return naming_.split.sub("", line)


def _headline_order(
    found: Sequence[tuple[str, dict[str, int]]], own: set[str], holding: set[str], *, one_frame: bool
) -> list[tuple[str, dict[str, int]]]:
    """The source lines a headline may name, best first: those of ops that are new or changed themselves
    (:func:`_changed_places`), the project's own lines before test files (an installed library's never),
    those holding an op kind that appeared or disappeared first, then in the text's order. ``one_frame``
    (the jaxpr): where its first changed op is a library's, it names none.
    """
    first = next((place for place, _ in found if place in own), None)
    if one_frame and first is not None and sources_.rank(first) == sources_.ELSEWHERE:
        return []
    named = [(place, counts) for place, counts in found if place in own and sources_.rank(place) < sources_.ELSEWHERE]
    return sorted(named, key=lambda item: (sources_.rank(item[0]), item[0] not in holding))


def _summary_head(summary: str, structure: list[str], constants: list[Constant], script: EditScript) -> list[str]:
    """The drift's summary lines: the ops, the structure, the changed constants, or that only names changed."""
    head = ([f"ops: {summary}"] if summary else []) + structure
    if constants:
        head.append("constants: " + "; ".join(constant_text(c) for c in constants))
    if next(script.changes(), None) is None:
        head.append("only names changed, but not one-to-one: two values now share a name, or one has two")
    return head


def changed_constants(
    dialect: str | None, script: EditScript, where: Sequence[str | None], limit: int = 3
) -> list[Constant]:
    """The scalar literals the drift changed, by value: ``{"old", "new", "lines", "at"}``, at most ``limit``.

    Read by value, so literals that only moved are never reported; ``at`` is the source line of the first
    line holding or using the new value that has one.
    """
    removed, added = (literals.values(dialect, text.split("\n")) for text in script.differing())
    gone, new = removed - added, added - removed
    changes = literals.changed(dialect, _replaced(script))
    olds = [change.old for change in changes if _take(gone, change.old)]
    news = [change for change in changes if _take(new, change.new)]
    found: dict[tuple[str, str], Constant] = {}
    for old, change in zip(olds, news, strict=False):
        key = (old, change.new)
        if key not in found:
            if len(found) == limit:
                continue
            found[key] = {"old": old, "new": change.new, "lines": 0, "at": None}
        entry = found[key]
        entry["lines"] += 1
        if entry["at"] is None and where:
            candidates = [change.line, *literals.users(dialect, script.new, change.line)]
            entry["at"] = next((where[k] for k in candidates if k < len(where) and where[k]), None)
    return list(found.values())


def _take(counts: Counter[str], value: str) -> bool:
    """Whether ``counts`` holds ``value`` still; if so, one is taken."""
    if counts[value] <= 0:
        return False
    counts[value] -= 1
    return True


def _replaced(script: EditScript) -> list[tuple[str, str, int]]:
    """(old line, new line, new index) of each line changed in place, or removed then added at the same spot."""
    pairs = []
    removed: list[int] = []
    added: list[int] = []
    for row in [*script.rows, _END]:
        if row.tag == "-" and row.old is not None:
            if added:  # a removal after additions starts the next block
                pairs += _paired(script, removed, added)
                removed, added = [], []
            removed.append(row.old)
        elif row.tag == "+" and row.new is not None and removed:
            added.append(row.new)
        else:
            pairs += _paired(script, removed, added)
            removed, added = [], []
            if row.tag == "~" and row.old is not None and row.new is not None:
                pairs.append((script.old[row.old], script.new[row.new], row.new))
    return pairs


# Ends the last block of :func:`_replaced`, as an unchanged line would.
_END = Row("=", None, None)


def _paired(script: EditScript, removed: list[int], added: list[int]) -> list[tuple[str, str, int]]:
    """A block's removed lines paired in order with its added ones: (old line, new line, new index)."""
    return [(script.old[i], script.new[j], j) for i, j in zip(removed, added, strict=False)]


def constant_text(constant: Constant) -> str:
    """``1e-06 -> 1e-12 (5 lines) at lm.py:30 in forward``."""
    text = f"{constant['old']} -> {constant['new']}"
    text += f" ({constant['lines']} lines)" if constant["lines"] > 1 else ""
    return text + (f" at {constant['at']}" if constant["at"] else "")


def summary_lines(detail: DriftDetail) -> list[str]:
    """A drift's summary as the message and the Markdown report show it: the op and structure
    lines, then the source lines of the changed ops and how many lines were removed."""
    lines = list(detail["summary"])
    if detail.get("sources"):
        lines.append(f"source: {describe_sources([(place, counts) for place, counts in detail['sources']])}")
    if detail.get("removed"):
        lines.append(removed_line(detail["removed"]))
    return lines


def removed_line(removed: int) -> str:
    """``removed: 3 line(s), whose source lines the snapshot does not keep``."""
    return f"removed: {removed} line(s), whose source lines the snapshot does not keep"


def _own_lines(found: list[tuple[str, dict[str, int]]]) -> tuple[list[tuple[str, dict[str, int]]], int]:
    """Source lines of the added and changed lines only, and how many lines were removed. A removed line has no
    location (the snapshot keeps none); charging it to the staged line after it would name code that does not
    hold it (dropping weight decay read as a change in optax's schedule)."""
    removed = sum(counts.get("removed", 0) for _, counts in found)
    own = [(place, {k: n for k, n in counts.items() if k != "removed"}) for place, counts in found]
    return [(place, counts) for place, counts in own if counts], removed


def op_counts(artifact: str, text: str) -> Counter[str]:
    """Operation names counted in a stage text (HLO opcodes, StableHLO ops, jaxpr primitives)."""
    return OP_COUNTERS.get(BY_NAME[artifact].dialect, OP_COUNTERS["mlir"])(text)


def hlo_structure_summary(
    artifact: str, texts: tuple[str, str], differing: tuple[str, str], counts: tuple[Counter[str], Counter[str]]
) -> list[str]:
    """For HLO drift: fusion count and collectives (with shapes and bytes) added or removed. ``differing`` is the
    differing lines of both ``texts`` and ``counts`` their op counts: what the texts share cancels out, so only
    the fusion totals need the whole texts."""
    if BY_NAME[artifact].dialect != "hlo":
        return []
    lines = []
    if counts[0]["fusion"] != counts[1]["fusion"]:
        before, after = (hlo.count_opcode(text, "fusion") for text in texts)
        lines.append(f"fusions: {before} -> {after}")
    changes = collective_deltas(*([asdict(c) for c in hlo.collectives(text)] for text in differing))
    if changes:
        lines.append("collectives: " + ", ".join(changes))
    if changes and any(" while(" in text for text in texts):
        moved = loop_collective_changes(loop_view(texts[0]), loop_view(texts[1]))
        lines += ["loops: " + ", ".join(moved)] if moved else []
    return lines


def ir_drift(pair: Pair) -> Compared:
    """Stage texts: the renumbering-proof diff with its summary and source lines, and the input change
    a changed text shows where the pair names its inputs (the jaxpr)."""
    found = compare_text(
        pair.artifact, pair.expected, pair.actual, diff_lines=pair.diff_lines, locations=pair.locations
    )
    if found is None:
        return Compared([])
    signature = signature_change(pair.inputs(), pair.expected, pair.actual) if pair.inputs else None
    return Compared([found], signature=signature)


def input_types(jaxpr: str) -> list[str] | None:
    """``["f32[64,128]", "f32[128]"]``: the types of the top-level jaxpr's inputs (axis names dropped).

    The top-level jaxpr is the one that starts a line with ``{ lambda`` (functions it calls
    are bound before it with ``let name = { lambda``). None when there is no such line.
    """
    lines = jaxpr.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("{ lambda ")), None)
    if start is None:
        return None
    header = []
    for line in lines[start:]:
        head, let, _ = line.strip().partition(". let")  # a short jaxpr goes on after ". let" on one line
        header.append(head)
        if let:
            break
    binders = " ".join(header).removeprefix("{ lambda ")
    invars = binders.split(";", 1)[-1].split()
    return [_SHARDED_DIM.sub("", var.split(":", 1)[-1]) for var in invars if ":" in var]


def signature_change(names: Sequence[str], before: str, after: str) -> str | None:
    """``params['l1'].kernel f32[64,128] -> f32[64,160]; +2 more`` when input types differ, else None.

    ``names`` name the flat inputs in order; without one per input the inputs are numbered.
    """
    old, new = input_types(before), input_types(after)
    if old is None or new is None or old == new:
        return None
    if len(old) != len(new):
        return f"{len(old)} -> {len(new)} input leaves"
    labels = list(names) if len(names) == len(new) else [f"input {k}" for k in range(len(new))]
    changes = [f"{label} {a} -> {b}" for label, a, b in zip(labels, old, new, strict=True) if a != b]
    text = "; ".join(changes[:SIGNATURE_SHOWN])
    return text + (f"; +{len(changes) - SIGNATURE_SHOWN} more" if len(changes) > SIGNATURE_SHOWN else "")
