"""The failure message of one call: findings in, the text a user reads out.

It opens with a headline, one line per failing kind in a fixed order (budget,
sharding/layout, memory, cost, op structure, IR) with its key figures; the
details follow in the same order, IR diffs last. Unless ``full`` (``-vv``), the
IR diffs of all stages share one budget of ``diff_lines`` lines and the ``ops.json``
diff is left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_stages.analyse.artifacts import ARTIFACTS, BUDGET, BY_NAME, HEADLINES
from pytest_stages.check.compare import NO_SNAPSHOT
from pytest_stages.check.decide import Verdict
from pytest_stages.core.records import Finding
from pytest_stages.core.text import shown

UPDATE_HINT = "Run `pytest --stages-update` to accept the changes if they are intended."
BUDGET_HINT = "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program."
HEADLINE_ITEMS = 3
HEADLINE_OPS = 4
HEADLINE_METRICS = (
    "peak_memory_in_bytes",
    "temp_size_in_bytes",
    "alias_size_in_bytes",
    "flops",
    "bytes accessed",
    "transcendentals",
)
HEADLINE_WIDTH = 160
# A cost line: ``flops 100 -> 120 (+20%, tolerance exact)`` -> (``flops``, ``+20%``).
_FIGURE = re.compile(r"^(?P<metric>.+?) \S+ -> \S+ \((?P<change>[+-][^,)]+)")
# An op-count line: ``+2 all-gather``.
_COUNT = re.compile(r"^[+-]\d+ [\w.-]+$")
# A cut diff's last line: ``    ... 14 more diff lines`` -> ``14``.
_MORE = re.compile(r"^    \.\.\. (\d+) more diff lines")
# A sharding's mesh: `` over mesh(data=4, model=2)``.
_MESH = re.compile(r" over mesh\([^()]*\)")
# ``temp_size_in_bytes`` -> ``temp``; ``peak_memory_in_bytes`` -> ``peak``.
_MEMORY_SUFFIX = re.compile(r"_(?:size|memory)_in_bytes$")


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
    new = [labels(f.artifact) for f in failing if f.message == NO_SNAPSHOT]
    ordered = _ordered([f for f in failing if f.message != NO_SNAPSHOT])
    lines = [title, *(f"  {note}" for note in notes)]
    lines += [f"  {headline}: {_headline(group)}" for headline, group in ordered]
    if new:
        lines.append(f"  {NO_SNAPSHOT}: {', '.join(new)}")
    lines += _details(ordered, labels, diff_lines, full)
    return shown("\n".join([*lines, *footer]))  # escaped, bounded in width: a snapshot may be one 200 MB line


def _details(ordered: Sequence[tuple[str, list[Finding]]], labels: Labels, diff_lines: int, full: bool) -> list[str]:
    """Each artifact's findings under its label; IR diffs share ``diff_lines`` unless ``full``."""
    lines: list[str] = []
    budget = diff_lines
    for _, group in ordered:
        if _family(group[0].artifact) == BUDGET and _headline(group) == "; ".join(f.message for f in group):
            continue  # the headline already says every breach in full; budgets have no file to name
        for artifact, findings in _by_artifact(group):
            family = _family(artifact)
            if family == "ops" and not full and "\n" in findings[0].message:
                lines.append(f"- {labels(artifact)}: {findings[0].message.splitlines()[0]} (-vv shows the diff)")
                continue
            if family == "ir" and not full:
                block, budget = _bounded_drift(labels(artifact), findings[0], budget)
                lines += block
                continue
            messages = [f.message for f in findings]
            if len(messages) == 1:
                lines.append(f"- {labels(artifact)}: {messages[0]}")
            else:
                lines.append(f"- {labels(artifact)}:")
                lines += [f"    {message}" for message in messages]
    return lines


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
    """The key figures of one headline, on one line."""
    family = _family(group[0].artifact)
    if family == "ir":
        return _ir_headline(group)
    if family == "ops":
        items = [_largest(f.message.splitlines()[0].removeprefix("op structure changed: ")) for f in group]
    elif family == "figures":
        items = [_figure(f.message) for f in sorted(group, key=lambda f: _rank(f.message))]
    else:
        items = [_MESH.sub("", f.message.splitlines()[0]) for f in group]
    return _shorten(items)


def _ir_headline(group: Sequence[Finding]) -> str:
    """``jaxpr, compiled changed; compiled: +1 multiply at model.py:12 in block``."""
    names = ", ".join(dict.fromkeys(f.artifact for f in group))
    text = f"{names} changed"
    described = next((f for f in group if _summary(f)), None)
    if described is not None:
        summary = _summary(described)
        ops = next((line for line in summary if not line.startswith("source: ")), None)
        source = next((line[len("source: ") :] for line in summary if line.startswith("source: ")), None)
        if ops:
            text += f"; {described.artifact}: {_largest(ops.removeprefix('ops: '))}"
        if source:
            text += f" at {source.split('; ')[0]}"
    return _shorten([text])


def _largest(summary: str) -> str:
    """``+1 a, -31 b, -2 c, ...``: the op-count changes of largest size first, the rest counted.

    What comes before the first count (a collective moved into a loop) stays first.
    """
    parts = summary.split(", ")
    counts = [p for p in parts if _COUNT.match(p)]
    if len(counts) <= HEADLINE_OPS:
        return summary
    ranked = sorted(counts, key=lambda p: -abs(int(p.split(" ", 1)[0])))
    first = parts.index(counts[0])
    lead, others = parts[:first], [p for p in parts[first:] if p not in counts]
    return ", ".join([*lead, *ranked[:HEADLINE_OPS], f"{len(counts) - HEADLINE_OPS} more op kinds", *others])


def _summary(finding: Finding) -> list[str]:
    return list((finding.detail or {}).get("summary", []))


def _rank(message: str) -> tuple[bool, int]:
    """Headline order of a figure: the key ones first, per-operand cost figures last."""
    match = _FIGURE.match(message)
    metric = match["metric"] if match else ""
    key = HEADLINE_METRICS.index(metric) if metric in HEADLINE_METRICS else len(HEADLINE_METRICS)
    return ("{" in metric, key)


def _figure(message: str) -> str:
    """``peak_memory_in_bytes 100 -> 198 (+98.0%, ...`` -> ``peak +98.0%``."""
    match = _FIGURE.match(message)
    if match is None:
        return message.splitlines()[0]
    return f"{_MEMORY_SUFFIX.sub('', match['metric'])} {match['change']}"


def _shorten(items: Sequence[str]) -> str:
    text = "; ".join(items[:HEADLINE_ITEMS])
    if len(items) > HEADLINE_ITEMS:
        text += f"; +{len(items) - HEADLINE_ITEMS} more"
    return text if len(text) <= HEADLINE_WIDTH else text[: HEADLINE_WIDTH - 3] + "..."


def _bounded_drift(label: str, finding: Finding, budget: int) -> tuple[list[str], int]:
    """An IR drift's title and summary, and as much of its diff as ``budget`` lines allow."""
    title, *rest = finding.message.splitlines()
    summary = len(_summary(finding))
    head, diff = rest[:summary], rest[summary:]
    block = [f"- {label}: {title}", *head]
    if len(diff) <= budget:
        return block + diff, budget - len(diff)
    more = _MORE.match(diff[-1]) if diff else None
    if more:
        diff = diff[:-1]
    hidden = len(diff) - budget + (int(more[1]) if more else 0)
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
    elif all(f.message == NO_SNAPSHOT for f in verdict.failing):
        state = f"has no snapshots yet in {call.folder}"
    else:
        state = f"differs from its snapshots in {call.folder}"
    title = f"pytest-stages: {call.name!r} on config {call.config} {state}"
    footer = []
    if verdict.churn:
        names = ", ".join(verdict.churn)
        footer.append(f'  upgrade churn, not failing (on_version_mismatch = "semantic"): {names}')
    if verdict.unenforced:
        footer.append(f"  also changed, but not checked in this run: {', '.join(verdict.unenforced)}")
    footer += [f"  also {f.artifact}: {f.message}" for f in verdict.passing]
    footer.append(BUDGET_HINT if verdict.only_budget else UPDATE_HINT)
    labels = Labels(
        {
            artifact: f"{artifact} ({call.files[artifact]})"
            for artifact in dict.fromkeys(f.artifact for f in verdict.failing)
            if artifact in call.files
        }
    )
    return failure_message(
        title,
        verdict.failing,
        labels=labels,
        notes=notes,
        footer=footer,
        diff_lines=diff_lines,
        full=full,
    )
