"""check.figures at its edges: each finding's fields as the reports read them, on the committed example snapshots."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pytest_stages.check.figures import compare_metrics
from pytest_stages.core.records import Change, Finding

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"
COST = json.loads((SNAPSHOTS / "rnn_decode/cpu1/rnn_decode.cost.json").read_text())
MEMORY = json.loads((SNAPSHOTS / "rnn_decode/cpu1/rnn_decode.memory.json").read_text())
LOWERED_ONLY = json.loads((SNAPSHOTS / "train_step/tpu/train_step.cost.json").read_text())


def test_a_lowered_snapshot_against_a_compiled_run_is_one_incomparable_finding():
    assert compare_metrics("cost", LOWERED_ONLY, COST, {}) == [
        Finding(
            "cost",
            "cost",
            "the snapshot counts the lowered program, this run the compiled one (only an attached platform has a "
            "compiled cost): the figures do not compare; run `pytest --stages-update` to record them",
            change=Change.INCOMPARABLE,
            before="lowered",
            after="compiled",
        )
    ]


def test_a_figure_that_is_no_number_any_more_is_incomparable():
    assert compare_metrics("memory", MEMORY, dict(MEMORY, temp_size_in_bytes="n/a"), {}) == [
        Finding(
            "memory",
            "memory",
            'temp_bytes: 7856 -> "n/a"',
            change=Change.INCOMPARABLE,
            subject="temp_size_in_bytes",
            before=7856,
            after="n/a",
        )
    ]


def test_more_aliased_bytes_is_an_improvement_and_a_rise_fails_with_its_fields():
    more = compare_metrics("memory", dict(MEMORY, alias_size_in_bytes=100), dict(MEMORY, alias_size_in_bytes=150), {})
    assert more == [
        Finding(
            "memory",
            "memory",
            "alias_bytes 100 -> 150 (+50.0%): improved; run `pytest --stages-update` to accept it",
            failing=False,
            change=Change.FIGURE,
            subject="alias_size_in_bytes",
            before=100,
            after=150,
        )
    ]
    risen = copy.deepcopy(COST)
    risen["compiled"]["flops"] = 30000.0
    assert compare_metrics("cost", COST, risen, {}) == [
        Finding(
            "cost",
            "cost",
            "flops 25810 -> 30000 (+16.2%, tolerance 0.1%)",
            change=Change.FIGURE,
            subject="flops",
            before=25810.0,
            after=30000.0,
        )
    ]


def test_an_integer_written_for_the_same_float_is_no_change():
    same = copy.deepcopy(COST)
    same["compiled"]["flops"] = 25810
    assert compare_metrics("cost", COST, same, {}) == []


def test_metric_regression_improvement_and_tolerance():
    before = {"compiled": {"flops": 1.98e9, "transcendentals": 100.0}, "lowered": {"flops": 1.0}}
    after = {"compiled": {"flops": 2.31e9, "transcendentals": 90.0}, "lowered": {"flops": 9.0}}
    findings = compare_metrics("cost", before, after, {"flops": 0.02})
    assert [(f.message, f.failing) for f in findings] == [
        ("flops 1.98e9 -> 2.31e9 (+16.7%, tolerance 2%)", True),
        ("transcendentals 100 -> 90 (-10.0%): improved; run `pytest --stages-update` to accept it", False),
    ]
    assert (
        compare_metrics("cost", before, {"compiled": {"flops": 2.0e9, "transcendentals": 100.0}}, {"flops": 0.02}) == []
    )


def test_sizes_that_follow_from_the_shapes_are_exact_and_the_allocators_figures_have_0_1_percent_by_default():
    (finding,) = compare_metrics("memory", {"argument_size_in_bytes": 9216}, {"argument_size_in_bytes": 9220}, {})
    assert finding.message == "argument_bytes 9216 -> 9220 (+4 B, tolerance exact)"
    # An XLA upgrade moved XLA's own peak by 4 bytes for one program: noise, not a failure.
    noise = {"peak_memory_in_bytes": 2763004, "temp_size_in_bytes": 1000, "generated_code_size_in_bytes": 5000}
    moved = {"peak_memory_in_bytes": 2763008, "temp_size_in_bytes": 1001, "generated_code_size_in_bytes": 5005}
    assert compare_metrics("memory", noise, moved, {}) == []
    (finding,) = compare_metrics("memory", {"temp_size_in_bytes": 1000}, {"temp_size_in_bytes": 1002}, {})
    assert finding.message == "temp_bytes 1000 -> 1002 (+0.20%, tolerance 0.1%)"


def test_per_operand_figures_are_judged_only_under_a_tolerance_that_names_one():
    """XLA's per-operand bytes moved +166.5% while the program's flops and bytes_accessed fell: no failure."""
    before = {"compiled": {"flops": 1000.0, "bytes accessed": 800.0, "bytes accessed2{}": 60.0}}
    after = {"compiled": {"flops": 978.0, "bytes accessed": 700.0, "bytes accessed2{}": 159.9}}
    assert [f.failing for f in compare_metrics("cost", before, after, {})] == [False, False]
    named = compare_metrics("cost", before, after, {"bytes accessed2{}": 0.1})
    assert [(f.subject, f.failing) for f in named if f.failing] == [("bytes accessed2{}", True)]
