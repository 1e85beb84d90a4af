"""Cost and memory figures as people read them: their names, values and how they moved.

XLA's per-operand cost keys (``bytes accessed1{}``, ``bytes accessedout{}``) sum the bytes of
every op's operand ``k`` (or output) over the module: they are named for what they are, never
for a program input, and the raw key stays beside the name in the details and in the file.
"""

from __future__ import annotations

from pytest_stages.analyse.analyses import figure_name
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.core.units import format_bytes, format_number, relative_change

# A per-operand cost key: ``bytes accessed1{}`` -> ``1``; ``bytes accessedout{}`` -> ``out``.
_OPERAND_KEY = lazy_pattern(r"^bytes accessed(?P<operand>\d+|out)\{(?P<index>[^{}]*)\}$")
# The prefix of a pre-optimization figure standing in for a compiled one: ``lowered flops``.
LOWERED = "lowered "
# Changes that round to nothing as a percentage are shown as absolute amounts.
PERCENT_FLOOR = 0.0005


UNKNOWN = "unknown "
# The step-time estimate's terms (``step compute_seconds``, ``step binding``): recorded, only its total judged.
STEP = "step "


def informational(metric: str) -> bool:
    """Figures recorded but never judged: pre-optimization (lowered) cost, utilization, estimates, and
    which kernel calls the cost cannot see (``unknown ...``: their IR is judged in ``kernels.mlir``).
    Of the step-time estimate, only ``step estimated_seconds`` is judged."""
    if metric.startswith(STEP):
        return metric != STEP + "estimated_seconds"
    return metric.startswith(LOWERED) or metric.startswith(("utilization", "optimal_seconds", UNKNOWN))


def per_operand(metric: str) -> bool:
    """Whether ``metric`` is one of XLA's per-operand byte figures (lowered or compiled)."""
    return _OPERAND_KEY.match(metric.removeprefix(LOWERED)) is not None


def metric_label(metric: str) -> str:
    """A figure as people name it (:func:`metric_short`); XLA's per-operand keys keep their raw key in brackets.

    ``bytes accessed1{}`` -> ``bytes read as operand 1 of the ops [bytes accessed1{}]``; a lowered
    figure keeps its prefix (``lowered bytes read as operand 1 ...``).
    """
    if metric.startswith(LOWERED):
        return LOWERED + metric_label(metric.removeprefix(LOWERED))
    match = _OPERAND_KEY.match(metric)
    if match is None:
        return metric_short(metric)
    index = f", output {match['index']}" if match["index"] else ""
    if match["operand"] == "out":
        return f"bytes written by the ops{index} [{metric}]"
    return f"bytes read as operand {match['operand']} of the ops{index} [{metric}]"


def metric_short(metric: str) -> str:
    """A figure by the name budgets and tolerances give it: ``temp_size_in_bytes`` -> ``temp_bytes``, ``lowered
    bytes accessed`` -> ``lowered bytes_accessed`` (:data:`~pytest_stages.analyse.analyses.FIGURE_KEYS`)."""
    if metric.startswith(LOWERED):
        return LOWERED + metric_short(metric.removeprefix(LOWERED))
    return figure_name(metric)


def figure_values(old: float, new: float) -> str:
    """``1.28e6 -> 1.35e6``: the exact figures of the file, with enough digits to differ."""
    before, after = format_number(old), format_number(new)
    if before == after:
        before, after = f"{old:.9g}", f"{new:.9g}"
    return f"{before} -> {after}"


def percent_change(old: float, new: float) -> str:
    """``+5.1%``, or ``from 0`` where the figure starts at zero: a relative change from zero is no number
    (never ``+inf%``). Every renderer of a figure's change writes it with this or :func:`figure_change`."""
    if old == 0 and new != 0:
        return "from 0"
    return f"{relative_change(old, new):+.1%}"


def figure_change(metric: str, old: float, new: float) -> str:
    """How a figure moved, as a reviewer reads it: ``+20.0%``; ``+4 B`` where the percentage rounds
    to nothing; ``0 -> 1.2 MiB`` from zero (never ``+inf%`` or ``+0.0%``)."""
    show = format_bytes if "bytes" in metric else format_number
    if old == 0:
        return f"0 -> {show(new)}"
    change = relative_change(old, new)
    if abs(change) < PERCENT_FLOOR:
        delta = new - old
        return ("+" if delta > 0 else "-") + show(abs(delta))
    # Under 1% one more digit, so that a change just beyond a 0.1% tolerance does not read as 0.1%.
    return f"{change:+.2%}" if abs(change) < 0.01 else f"{change:+.1%}"
