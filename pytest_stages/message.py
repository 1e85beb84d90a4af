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

from .compare import NO_SNAPSHOT, STAGE_TEXTS, Finding

KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("budget", ("budget",)),
    ("sharding", ("sharding", "layout")),
    ("memory", ("memory",)),
    ("cost", ("cost",)),
    ("op structure", ("ops",)),
    ("IR", STAGE_TEXTS),
)
HEADLINE_ITEMS = 3
HEADLINE_OPS = 4
HEADLINE_METRICS = (
    "peak_memory_in_bytes", "temp_size_in_bytes", "alias_size_in_bytes", "flops", "bytes accessed", "transcendentals",
)
HEADLINE_WIDTH = 160
_FIGURE = re.compile(r"^(?P<metric>.+?) \S+ -> \S+ \((?P<change>[+-][^,)]+)")
_COUNT = re.compile(r"^[+-]\d+ [\w.-]+$")
_MORE = re.compile(r"^    \.\.\. (\d+) more diff lines")
_MESH = re.compile(r" over mesh\([^()]*\)")
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
    lines += [f"  {kind}: {_headline(kind, group)}" for kind, group in ordered]
    if new:
        lines.append(f"  {NO_SNAPSHOT}: {', '.join(new)}")
    budget = diff_lines
    for kind, group in ordered:
        for artifact, findings in _by_artifact(group):
            if kind == "op structure" and not full and "\n" in findings[0].message:
                lines.append(f"- {labels(artifact)}: {findings[0].message.splitlines()[0]} (-vv shows the diff)")
                continue
            if kind == "IR" and not full:
                block, budget = _bounded_drift(labels(artifact), findings[0], budget)
                lines += block
                continue
            messages = [f.message for f in findings]
            if len(messages) == 1:
                lines.append(f"- {labels(artifact)}: {messages[0]}")
            else:
                lines.append(f"- {labels(artifact)}:")
                lines += [f"    {message}" for message in messages]
    return "\n".join([*lines, *footer])


def artifact_rank(artifact: str) -> int:
    """Where an artifact's findings come in a message or report: the order of :data:`KINDS`."""
    return next((rank for rank, (_, artifacts) in enumerate(KINDS) if artifact in artifacts), len(KINDS))


def _ordered(failing: Sequence[Finding]) -> list[tuple[str, list[Finding]]]:
    out = []
    for kind, artifacts in KINDS:
        group = [f for artifact in artifacts for f in failing if f.artifact == artifact]
        if group:
            out.append((kind, group))
    return out


def _by_artifact(findings: Sequence[Finding]) -> list[tuple[str, list[Finding]]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.artifact, []).append(finding)
    return list(grouped.items())


def _headline(kind: str, group: Sequence[Finding]) -> str:
    """The key figures of one kind, on one line."""
    if kind == "IR":
        return _ir_headline(group)
    if kind == "op structure":
        items = [_largest(f.message.splitlines()[0].removeprefix("op structure changed: ")) for f in group]
    elif kind in ("memory", "cost"):
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
        source = next((line[len("source: "):] for line in summary if line.startswith("source: ")), None)
        if ops:
            text += f"; {described.artifact}: {_largest(ops.removeprefix('ops: '))}"
        if source:
            text += f" at {source.split('; ')[0]}"
    return _shorten([text])


def _largest(summary: str) -> str:
    """``+1 a, -31 b, -2 c, ...``: the op-count changes of largest size first, the rest counted."""
    parts = summary.split(", ")
    counts = [p for p in parts if _COUNT.match(p)]
    if len(counts) <= HEADLINE_OPS:
        return summary
    ranked = sorted(counts, key=lambda p: -abs(int(p.split(" ", 1)[0])))
    others = [p for p in parts if p not in counts]
    return ", ".join([*ranked[:HEADLINE_OPS], f"{len(counts) - HEADLINE_OPS} more op kinds", *others])


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
    return text if len(text) <= HEADLINE_WIDTH else text[:HEADLINE_WIDTH - 3] + "..."


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
