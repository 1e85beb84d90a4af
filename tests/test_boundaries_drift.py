"""check.drift at its edges: constants, source lines and removed lines of an IR drift, on a committed StableHLO text."""

from __future__ import annotations

from pathlib import Path

from pytest_stages.check.drift import compare_text, constant_text, ir_drift, removed_line, summary_lines
from pytest_stages.check.message import details
from pytest_stages.check.pair import Pair
from pytest_stages.core.records import Change

MLIR = (
    Path(__file__).resolve().parent.parent / "snapshots/stages/rnn_decode/cpu1/rnn_decode.stablehlo.mlir"
).read_text()
LINES = MLIR.splitlines()


def edited(*, trips: str = "13", drop: str = "%1 = stablehlo.reshape") -> tuple[str, list[str | None]]:
    """The loop's trip count changed, one line removed and one added after the loop counter's add.

    Every line has a source location but the constants (as JAX writes them: hoisted, none of their own).
    """
    lines = [line.replace("dense<12>", f"dense<{trips}>") for line in LINES]
    lines = [line for line in lines if drop not in line] if drop else lines
    add = next(k for k, line in enumerate(lines) if "%7 = stablehlo.add" in line)
    lines.insert(add + 1, "      %8 = stablehlo.multiply %7, %7 : tensor<i32>")
    return "\n".join(lines) + "\n", [None if "constant" in line else f"m.py:{k + 1}" for k, line in enumerate(lines)]


def test_a_changed_constant_is_named_by_value_at_the_first_line_using_it():
    actual, where = edited()
    found = compare_text("stablehlo", MLIR, actual, diff_lines=8, locations=lambda: where)
    assert (found.message, found.change, found.subject, found.before, found.after) == (
        "IR drift",
        Change.DRIFT,
        "constant",
        "12",
        "13",
    )
    assert found.detail["constants"] == [{"old": "12", "new": "13", "lines": 1, "at": "m.py:11"}]
    assert found.locations == ("m.py:11", "m.py:19 (1 added)", "m.py:29 (1 changed)")
    assert found.ops == {"stablehlo.multiply": 1, "stablehlo.reshape": -1}
    assert (len(found.diff), found.omitted) == (8, 15)
    assert details(found)[:5] == [
        "IR drift",
        "    ops: +1 stablehlo.multiply, -1 stablehlo.reshape",
        "    constants: 12 -> 13 at m.py:11",
        "    source: m.py:19 (1 added); m.py:29 (1 changed)",
        "    removed: 1 line(s), whose source lines the snapshot does not keep",
    ]


def test_removed_lines_are_counted_never_charged_to_the_next_staged_line():
    actual, where = edited(trips="12")
    found = compare_text("stablehlo", MLIR, actual, diff_lines=8, locations=lambda: where)
    assert found.detail["sources"] == [["m.py:19", {"added": 1}], ["m.py:29", {"changed": 1}]]
    assert found.detail["removed"] == 1
    assert (found.subject, found.before, found.after, found.detail["constants"]) == ("", None, None, [])
    assert summary_lines(found.detail) == [
        "ops: +1 stablehlo.multiply, -1 stablehlo.reshape",
        "source: m.py:19 (1 added); m.py:29 (1 changed)",
        "removed: 1 line(s), whose source lines the snapshot does not keep",
    ]
    kept, kept_where = edited(trips="12", drop="")
    only_added = compare_text("stablehlo", MLIR, kept, diff_lines=8, locations=lambda: kept_where)
    assert (only_added.detail["removed"], only_added.locations) == (0, ("m.py:19 (1 added)",))


def test_without_locations_a_drift_has_its_summary_but_no_sources():
    actual, _ = edited()
    for locations in (None, lambda: None, lambda: []):
        found = compare_text("stablehlo", MLIR, actual, diff_lines=8, locations=locations)
        assert found.detail["sources"] == [] and found.detail["removed"] == 0
        assert found.detail["constants"] == [{"old": "12", "new": "13", "lines": 1, "at": None}]
        assert found.locations == ()
        assert summary_lines(found.detail) == [
            "ops: +1 stablehlo.multiply, -1 stablehlo.reshape",
            "constants: 12 -> 13",
        ]


def test_a_drift_of_the_pair_takes_its_locations_on_demand():
    actual, where = edited()
    asked = []
    pair = Pair("stablehlo", MLIR, actual, locations=lambda: asked.append(1) or where, diff_lines=3)
    (found,) = ir_drift(pair).findings
    assert asked == [1] and found.locations[0] == "m.py:11" and len(found.diff) == 3
    assert ir_drift(Pair("stablehlo", MLIR, MLIR, locations=lambda: asked.append(2) or where)).findings == []
    assert asked == [1], "an unchanged text never asks for its locations"


def test_constant_and_removed_texts():
    assert constant_text({"old": "1e-06", "new": "1e-12", "lines": 5, "at": "lm.py:30 in forward"}) == (
        "1e-06 -> 1e-12 (5 lines) at lm.py:30 in forward"
    )
    assert constant_text({"old": "2", "new": "3", "lines": 1, "at": None}) == "2 -> 3"
    assert constant_text({"old": "2", "new": "3", "lines": 2, "at": ""}) == "2 -> 3 (2 lines)"
    assert removed_line(3) == "removed: 3 line(s), whose source lines the snapshot does not keep"
