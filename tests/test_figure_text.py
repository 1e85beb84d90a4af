"""check.figure_text at its edges: the names, values and changes of figures as the messages print them."""

from __future__ import annotations

import pytest

from pytest_stages.check.figure_text import (
    figure_change,
    figure_values,
    informational,
    metric_label,
    metric_short,
    per_operand,
)


@pytest.mark.parametrize(
    ("metric", "judged"),
    [
        ("flops", True),
        ("bytes accessed", True),
        ("peak_memory_in_bytes", True),
        ("lowered flops", False),
        ("lowered bytes accessed1{}", False),
        ("utilization0{}", False),
        ("optimal_seconds", False),
        ("unknown kernel calls", False),
        ("unknown_thing", True),
        ("flops lowered ", True),
    ],
)
def test_lowered_utilization_estimates_and_unknown_calls_are_never_judged(metric, judged):
    assert informational(metric) is not judged


@pytest.mark.parametrize(
    ("metric", "label"),
    [
        ("bytes accessed1{}", "bytes read as operand 1 of the ops [bytes accessed1{}]"),
        ("bytes accessed12{}", "bytes read as operand 12 of the ops [bytes accessed12{}]"),
        ("bytes accessed0{1}", "bytes read as operand 0 of the ops, output 1 [bytes accessed0{1}]"),
        ("bytes accessedout{}", "bytes written by the ops [bytes accessedout{}]"),
        ("bytes accessedout{0}", "bytes written by the ops, output 0 [bytes accessedout{0}]"),
        ("lowered bytes accessedout{}", "lowered bytes written by the ops [bytes accessedout{}]"),
        ("lowered flops", "lowered flops"),
        ("bytes accessed", "bytes_accessed"),
        ("bytes accessed1{}x", "bytes accessed1{}x"),
        ("total bytes accessed1{}", "total bytes accessed1{}"),
        ("bytes accessedo{}", "bytes accessedo{}"),
        ("bytes accessed1{{}}", "bytes accessed1{{}}"),
    ],
)
def test_per_operand_cost_keys_are_named_for_what_they_count_and_keep_the_raw_key(metric, label):
    assert metric_label(metric) == label
    assert per_operand(metric) is (label != metric and "[" in label)


@pytest.mark.parametrize(
    ("metric", "short"),
    [
        ("peak_memory_in_bytes", "xla_peak_bytes"),
        ("temp_size_in_bytes", "temp_bytes"),
        ("lowered temp_size_in_bytes", "lowered temp_bytes"),
        ("flops", "flops"),
        ("size_in_bytes_total", "size_in_bytes_total"),
        ("bytes accessed", "bytes_accessed"),
    ],
)
def test_a_headline_names_a_figure_as_budgets_and_tolerances_do(metric, short):
    assert metric_short(metric) == short


def test_figure_values_print_enough_digits_to_differ():
    assert figure_values(1_280_000, 1_350_000) == "1.28e6 -> 1.35e6"
    assert figure_values(1_234_567, 1_234_568) == "1234567 -> 1234568"
    assert figure_values(25810.0, 25000.0) == "25810 -> 25000"
    assert figure_values(0.1234567891, 0.1234567892) == "0.123456789 -> 0.123456789"


@pytest.mark.parametrize(
    ("metric", "old", "new", "shown"),
    [
        ("flops", 100, 120, "+20.0%"),
        ("flops", 100, 80, "-20.0%"),
        ("flops", 100, 101, "+1.0%"),
        ("flops", 1000, 1009, "+0.90%"),
        ("flops", 10000, 10005, "+0.05%"),
        ("flops", 10000, 9995, "-0.05%"),
        ("flops", 100000, 100004, "+4"),
        ("flops", 100000, 100001, "+1"),
        ("flops", 100000, 99996, "-4"),
        ("temp_size_in_bytes", 100000, 100004, "+4 B"),
        ("temp_size_in_bytes", 2**30, 2**30 - 4096, "-4.0 KiB"),
        ("temp_size_in_bytes", 0, 1_258_291, "0 -> 1.2 MiB"),
        ("flops", 0, 1_500_000, "0 -> 1.5e6"),
        ("flops", 0, -3, "0 -> -3"),
    ],
)
def test_a_change_reads_as_a_percentage_an_amount_or_from_zero(metric, old, new, shown):
    assert figure_change(metric, old, new) == shown
