"""The failure message of one call: findings in, the text a user reads out.

A headline, one line per failing kind in a fixed order, then the details in the same order; unless ``full``
(``-vv``) the IR diffs share one budget of ``diff_lines`` lines and the ``ops.json`` diff is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_stages.analyse.artifacts import ARTIFACTS, BUDGET, BY_NAME, HEADLINES
from pytest_stages.analyse.step_time import METRIC as STEP_METRIC
from pytest_stages.check.compare import NO_SNAPSHOT
from pytest_stages.check.decide import Verdict
from pytest_stages.check.drift import ATTRIBUTES, CONSTANT, summary_lines
from pytest_stages.check.figure_text import figure_change, metric_short, per_operand
from pytest_stages.check.recompiles import explanation_lines
from pytest_stages.core.records import Change, Finding, Kind
from pytest_stages.core.text import shown
from pytest_stages.ir.diff_render import more_lines
from pytest_stages.ir.sources import Setting

UPDATE_HINT = "Run `pytest --stages-update` to accept the changes if they are intended."
BUDGET_HINT = "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program."
# A call over its budget that also has snapshots to record: an update records nothing while a budget fails.
BUDGET_FIRST_HINT = (
    "Budgets are ceilings: `--stages-update` does not lift them, and records none of this call's snapshots while it "
    "is over one; change the budget or the program, then run `pytest --stages-update` to record the changes."
)
HEADLINE_ITEMS = 3
HEADLINE_OPS = 4
HEADLINE_METRICS = (
    STEP_METRIC,
    "peak_memory_in_bytes",
    "temp_size_in_bytes",
    "alias_size_in_bytes",
    "flops",
    "bytes accessed",
    "transcendentals",
)
HEADLINE_WIDTH = 160
SAME_PROGRAM = "the program is the same up to the order of independent operations"
# Op kinds a reviewer must see even when many others changed: rematerialization, custom calls.
NOTABLE_OPS = ("remat", "checkpoint", "custom", "opt-barrier", "optimization_barrier")


@dataclass(frozen=True)
class Labels:
    """How each artifact is named in the details (``compiled (f.compiled.hlo.txt)``)."""

    names: Mapping[str, str]

    def __call__(self, artifact: str) -> str:
        return self.names.get(artifact, artifact)


def failure_message(
    title: str,
    failing: Sequence[Finding],
    *,
    labels: Labels,
    notes: Sequence[str] = (),
    footer: Sequence[str] = (),
    diff_lines: int,
    full: bool = False,
) -> str:
    """Title, notes, the headline, the details (IR diffs last and bounded), then the footer."""
    ordered = _ordered([f for f in failing if f.recorded])
    lines = [title, *(f"  {note}" for note in notes)]
    lines += [f"  {line}" for line in headline_lines(failing, labels)]
    lines += _details(ordered, labels, diff_lines, full)
    return shown("\n".join([*lines, *footer]))  # escaped, bounded in width: a snapshot may be one 200 MB line


def headline_lines(failing: Sequence[Finding], labels: Labels) -> list[str]:
    """The headline of a failure: one line per failing kind (``IR: 0.25 -> 0.5 at gemma/modules.py:201``).

    ``pytest-stages review`` shows a pending call's headline from its recorded findings with it.
    """
    new = [labels(f.artifact) for f in failing if not f.recorded]
    lines = [f"{headline}: {_headline(group)}" for headline, group in _ordered([f for f in failing if f.recorded])]
    return [*lines, f"{NO_SNAPSHOT}: {', '.join(new)}"] if new else lines


def _details(ordered: Sequence[tuple[str, list[Finding]]], labels: Labels, diff_lines: int, full: bool) -> list[str]:
    """Each artifact's findings under its label; IR diffs share ``diff_lines`` unless ``full``."""
    lines: list[str] = []
    budget = diff_lines
    for _, group in ordered:
        if _family(group[0].artifact) == BUDGET and _whole(group):
            continue  # the headline already says every breach in full; budgets have no file to name
        for artifact, findings in _by_artifact(group):
            family = _family(artifact)
            if family == "ops" and not full and details(findings[0])[1:]:
                lines.append(f"- {labels(artifact)}: {findings[0].message} (-vv shows the diff)")
                continue
            if family == "ir" and not full:
                block, budget = _bounded_drift(labels(artifact), findings[0], budget)
                lines += block
                continue
            shown = sorted(findings, key=_figure_order) if family == "figures" else findings
            texts = ["\n".join(details(f)) for f in shown]
            if len(texts) == 1:
                lines.append(f"- {labels(artifact)}: {texts[0]}")
            else:
                lines.append(f"- {labels(artifact)}:")
                lines += [f"    {text}" for text in texts]
    return lines


def details(finding: Finding) -> list[str]:
    """A finding's detail lines in full: its line, then JAX's explanations or a drift's summary and diff, indented."""
    return [
        finding.message,
        *_indented(explanation_lines(finding.explanations)),
        *_indented(_summary(finding)),
        *_diff(finding),
    ]


def _diff(finding: Finding) -> list[str]:
    """A drift's diff lines as the message indents them, and how many more there were."""
    more = [more_lines(finding.omitted)] if finding.omitted else []
    return _indented([*finding.diff, *more])


def _indented(lines: Sequence[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _ordered(failing: Sequence[Finding]) -> list[tuple[str, list[Finding]]]:
    """The findings grouped by headline, in the order of :data:`HEADLINES`, artifacts in table order."""
    order = [BUDGET, *(a.name for a in ARTIFACTS)]
    out = []
    for headline in HEADLINES:
        group = [
            f for artifact in order if _headline_of(artifact) == headline for f in failing if f.artifact == artifact
        ]
        if group:
            out.append((headline, group))
    return out


def _headline_of(artifact: str) -> str:
    return BY_NAME[artifact].headline if artifact in BY_NAME else artifact


def _family(artifact: str) -> str:
    """The comparison family of an artifact's findings (``budget`` for budget findings)."""
    return BY_NAME[artifact].family if artifact in BY_NAME else artifact


def _by_artifact(findings: Sequence[Finding]) -> list[tuple[str, list[Finding]]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.artifact, []).append(finding)
    return list(grouped.items())


def _headline(group: Sequence[Finding]) -> str:
    """The key figures of one headline, on one line, rendered from the findings' fields."""
    family = _family(group[0].artifact)
    if family == "ir":
        return _ir_headline(group)
    if family == "figures":
        return _figures(group)
    if family == "ops":
        return _shorten([_ops_headline(f) for f in group])
    return _shorten(_items(group))


def _items(group: Sequence[Finding]) -> list[str]:
    """A headline's item per finding: a placement finding's short text, else the finding's line; then
    its source line where it has one (a donation change: the staged function's own line)."""
    return [(f.moves[0] if f.moves else f.message) + (f" at {f.locations[0]}" if f.locations else "") for f in group]


def _ir_headline(group: Sequence[Finding]) -> str:
    """``jaxpr, compiled changed; compiled: +1 multiply at model.py:12 in block``.

    A changed constant and nothing else: ``compiled: 1e-06 -> 1e-12 at model.py:30 in forward``. The
    location is the user's own line of an op the edit made or changed, from the jaxpr or else StableHLO
    (docs/architecture.md, "How stage texts are compared"); the headline is cut before it, never through it.
    """
    names = ", ".join(dict.fromkeys(f.artifact for f in group))
    described = next((f for f in group if f.ops or (f.moves and not f.moves[0].startswith(ATTRIBUTES))), None)
    summary, located = _ir_summary(group, described)
    where = _ir_where(described, located)
    # The setting follows the cut summary rather than shortening it: it names the line to edit.
    return _shorten([f"{names} changed{summary}"], width=max(HEADLINE_WIDTH - len(where), 40)) + where + _setting(group)


def _setting(group: Sequence[Finding]) -> str:
    """``; 1e-05 is RMS_EPS at lm.py:22``: the user's configuration constant that holds a value the
    drift's lines now hold (:func:`pytest_stages.check.drift.compare_text`), from the text that keeps
    the most of the call stack; nothing where none does."""
    for finding in sorted(group, key=_location_rank):
        setting = finding.detail.get("setting") if finding.detail else None
        if setting:
            return f"; {Setting(**setting).describe()}"
    return ""


def _ir_summary(group: Sequence[Finding], described: Finding | None) -> tuple[str, Finding | None]:
    """What changed (the ops or move of ``described``, else a changed constant, else the op attributes that
    changed: ``jaxpr: precision unset -> (Precision.HIGHEST, Precision.HIGHEST)``), and the finding to locate it by."""
    constant = _first_located([f for f in group if f.subject == CONSTANT])
    located = _first_located(group)
    if described is not None:
        summary = ", ".join(_ranked_ops(described.ops, _new_kinds(described))) or described.moves[0]
        return f"; {described.artifact}: {summary}", located
    if constant is not None:
        return f"; {constant.artifact}: {constant.before} -> {constant.after}", (
            constant if constant.locations else located
        )
    attributed = next((f for f in group if f.moves), None)
    if attributed is not None:
        return f"; {attributed.artifact}: {attributed.moves[0].removeprefix(ATTRIBUTES)}", located
    return "", located


def _ir_where(described: Finding | None, located: Finding | None) -> str:
    """Where the headline's change is: its first source location (the user's own line of a changed or
    added op, :func:`pytest_stages.check.drift.compare_text` orders them), else that removed ops have none."""
    if located is not None and located.locations:
        return f" at {located.locations[0]}"
    if described is not None and described.ops and all(delta < 0 for delta in described.ops.values()):
        return " (removed; the snapshot keeps no source lines)"
    return ""


# The texts whose source locations a headline names first: those before XLA (the program's order first).
LOCATION_ORDER = ("jaxpr", "stablehlo", "hlo", "compiled")


def _location_rank(finding: Finding) -> int:
    """How much of the call stack a finding's text keeps: its place in :data:`LOCATION_ORDER`, others last."""
    return LOCATION_ORDER.index(finding.artifact) if finding.artifact in LOCATION_ORDER else len(LOCATION_ORDER)


def _first_located(findings: Sequence[Finding]) -> Finding | None:
    """The finding with locations whose text keeps the most of the call stack; else the first finding."""
    located = sorted((f for f in findings if f.locations), key=_location_rank)
    return located[0] if located else (findings[0] if findings else None)


def _ops_headline(finding: Finding) -> str:
    """Moves into loops and collectives first, then op counts, largest first, then fusions and entry shapes."""
    parts = [*finding.moves, *_ranked_ops(finding.ops, _new_kinds(finding))]
    if finding.before is not None:
        parts.append(f"fusions {finding.before} -> {finding.after}")
    if finding.subject:
        parts.append(finding.subject)
    return ", ".join(parts)


def _new_kinds(finding: Finding) -> frozenset[str]:
    """The op kinds a drift made appear or disappear (its ``detail``'s ``new_kinds``)."""
    return frozenset(finding.detail.get("new_kinds", ())) if finding.detail else frozenset()


def _ranked_ops(ops: Mapping[str, int], new_kinds: frozenset[str] = frozenset()) -> list[str]:
    """``+2 remat, +1 logistic, -1 tanh, -31 b, ...``: notable op kinds (remat, custom calls) first, then the
    kinds that appeared or disappeared (``new_kinds``: ``erf`` replaced by ``tanh``), then the largest changes."""
    ranked = sorted(
        ops.items(), key=lambda item: (not _notable(item[0]), item[0] not in new_kinds, -abs(item[1]), item[0])
    )
    shown = [f"{delta:+d} {name}" for name, delta in ranked[:HEADLINE_OPS]]
    if len(ranked) > HEADLINE_OPS:
        shown.append(f"{len(ranked) - HEADLINE_OPS} more op kinds")
    return shown


def _notable(op: str) -> bool:
    return any(word in op for word in NOTABLE_OPS)


def _summary(finding: Finding) -> list[str]:
    return summary_lines(finding.detail) if finding.detail else []


def _rank(finding: Finding) -> int:
    """Headline order of a figure: the key ones first."""
    metric = finding.subject
    return HEADLINE_METRICS.index(metric) if metric in HEADLINE_METRICS else len(HEADLINE_METRICS)


def _figure_order(finding: Finding) -> tuple[bool, int]:
    """Details order of a figure: the headline's, XLA's per-operand figures last."""
    return per_operand(finding.subject), _rank(finding)


def _figures(findings: Sequence[Finding]) -> str:
    """The figures as a headline names them, key ones first. XLA's per-operand byte figures are
    never named there (the details name each, with its raw key): counted in ``+N more``, or, when
    no other figure moved, one item for all of them."""
    named = sorted((f for f in findings if not per_operand(f.subject)), key=_rank)
    if not named:
        return f"ops' operand and output bytes ({len(findings)} figure{'s' if len(findings) > 1 else ''})"
    return _shorten([_figure(f) for f in named], total=len(findings))


def _figure(finding: Finding) -> str:
    """``peak +98.0%``, ``peak +4 B``, ``temp 0 -> 1.2 MiB``: a figure's name and how it moved; the estimated
    step says its own (``estimated step on TPU v5e +7.2% (HBM-bound: bytes accessed +9.8%): ...``)."""
    if finding.change != Change.FIGURE or finding.subject == STEP_METRIC:
        return finding.message
    return f"{metric_short(finding.subject)} {figure_change(finding.subject, finding.before, finding.after)}"


def _whole(group: Sequence[Finding]) -> bool:
    """Whether the headline says the group's details in full: each finding's details are its
    line alone, which the headline names, and :func:`_shorten` cuts none of them."""
    alone = all(not f.moves and len(details(f)) == 1 for f in group)
    return alone and len(group) <= HEADLINE_ITEMS and len("; ".join(_items(group))) <= HEADLINE_WIDTH


def _shorten(items: Sequence[str], total: int | None = None, width: int = HEADLINE_WIDTH) -> str:
    """The first items, ``+N more`` for the rest of ``total`` (all items by default), bounded in ``width``."""
    text = "; ".join(items[:HEADLINE_ITEMS])
    hidden = (len(items) if total is None else total) - min(len(items), HEADLINE_ITEMS)
    if hidden:
        text += f"; +{hidden} more"
    return text if len(text) <= width else text[: width - 3] + "..."


def _bounded_drift(label: str, finding: Finding, budget: int) -> tuple[list[str], int]:
    """An IR drift's title and summary, and as much of its diff as ``budget`` lines allow."""
    block = [f"- {label}: {finding.message}", *_indented(_summary(finding))]
    diff = _diff(finding)
    if len(diff) <= budget:
        return block + diff, budget - len(diff)
    hidden = len(finding.diff) - budget + finding.omitted
    block += diff[:budget]
    block.append(f"    ... {hidden} more diff lines (see -vv or --stages-report)")
    return block, 0


@dataclass(frozen=True)
class Call:
    """Which call a message is about: its name, config, snapshot folder and files."""

    name: str
    config: str
    folder: str
    files: Mapping[str, str]


def call_message(call: Call, verdict: Verdict, *, notes: Sequence[str], diff_lines: int, full: bool) -> str:
    """The whole failure message of a call: title, notes, headline and details, then what else changed."""
    if verdict.only_budget:
        state = "exceeds its budget"
    elif not any(f.recorded for f in verdict.failing):
        state = f"has no snapshots yet in {call.folder}"
    else:
        state = f"differs from its snapshots in {call.folder}"
    title = f"{call.name!r} on config {call.config} {state}"
    footer = []
    if verdict.churn:
        footer.append(f'  upgrade churn, not failing (on_version_mismatch = "semantic"): {", ".join(verdict.churn)}')
    if verdict.unenforced:
        footer.append(f"  also changed, but not checked in this run: {', '.join(verdict.unenforced)}")
    footer += _also(verdict.passing)
    over = any(f.kind == Kind.BUDGET for f in verdict.failing)
    footer.append(BUDGET_HINT if verdict.only_budget else BUDGET_FIRST_HINT if over else UPDATE_HINT)
    labels = Labels(
        {f.artifact: f"{f.artifact} ({call.files[f.artifact]})" for f in verdict.failing if f.artifact in call.files}
    )
    notes = [*notes, *_same_program(call, verdict)]
    return failure_message(
        title, verdict.failing, labels=labels, notes=notes, footer=footer, diff_lines=diff_lines, full=full
    )


def _same_program(call: Call, verdict: Verdict) -> list[str]:
    """``the program is the same ...``, where only what XLA compiled failed and the texts before it (jaxpr,
    StableHLO) were compared and matched: the same program up to names and the order of independent
    operations (a reorder of independent lines), compiled otherwise. Nothing where a text before XLA changed,
    or where the compiled text itself matched."""
    failing = {f.artifact for f in verdict.failing}
    if not failing or any(artifact not in BY_NAME or BY_NAME[artifact].stage != "compiled" for artifact in failing):
        return []
    if not any(BY_NAME[artifact].is_text for artifact in failing):
        return []  # a figure moved but the compiled text did not: nothing says XLA compiled it otherwise
    skipped = {*verdict.churn, *verdict.unenforced}
    front = [
        artifact
        for artifact in call.files
        if artifact in BY_NAME and BY_NAME[artifact].is_text and BY_NAME[artifact].stage in ("jaxpr", "lowered")
    ]
    if not front or not skipped.isdisjoint(front):
        return []
    return [f"{SAME_PROGRAM} ({', '.join(front)} unchanged up to it); XLA compiled it otherwise"]


def _also(passing: Sequence[Finding]) -> list[str]:
    """Improvements and notes below a failure: one line per artifact, figures as the headline writes them."""
    lines = []
    for artifact, findings in _by_artifact(passing):
        if _family(artifact) == "figures":
            lines.append(f"  also {artifact} improved (not failing): {_figures(findings)}")
        else:
            lines += [f"  also {artifact}: {f.message}" for f in findings]
    return lines
