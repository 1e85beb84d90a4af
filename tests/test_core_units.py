"""core.units and check.budgets at their edges: sizes and counts as written, figures as read, real ceilings."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pytest_stages.check.budgets import METRICS, Share, budget_for, check_budget, needed_analyses, parse_budget
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.units import (
    format_bytes,
    format_number,
    format_tolerance,
    parse_count,
    parse_seconds,
    parse_size,
    relative_change,
)

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"


def analyses_of(folder: str) -> dict:
    path = SNAPSHOTS / folder
    name = path.parent.name
    return {kind: json.loads((path / f"{name}.{kind}.json").read_text()) for kind in ("cost", "memory", "ops")}


# --- units ------------------------------------------------------------------------------------


def test_relative_change_is_signed_and_infinite_from_zero():
    assert relative_change(5, 5) == 0.0
    assert relative_change(0, 0) == 0.0
    assert relative_change(0, 3) == math.inf
    assert relative_change(0, -3) == -math.inf
    assert relative_change(200, 150) == -0.25
    assert relative_change(-200, -100) == 0.5, "divided by |old|: a rise toward zero is a rise"


def test_format_number_switches_to_three_digits_at_a_million():
    assert format_number(999999) == "999999"
    assert format_number(1e6) == "1e6"
    assert format_number(2_310_000_000) == "2.31e9"
    assert format_number(-2_310_000) == "-2.31e6"
    assert format_number(1055.0) == "1055"
    assert format_number(0.5) == "0.5"
    assert format_number(1.5e-7) == "1.5e-07"


def test_format_tolerance_reads_exact_or_percent():
    assert format_tolerance(0) == "exact"
    assert format_tolerance(0.02) == "2%"
    assert format_tolerance(0.001) == "0.1%"
    assert format_tolerance(1) == "100%"


def test_format_bytes_steps_up_at_1024_and_stops_at_gib():
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(1024) == "1.0 KiB"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(1024**2 - 1) == "1024.0 KiB"
    assert format_bytes(1024**2) == "1.0 MiB"
    assert format_bytes(3 * 1024**3) == "3.0 GiB"
    assert format_bytes(4096 * 1024**3) == "4096.0 GiB"
    assert format_bytes(-2048) == "-2.0 KiB"
    assert format_bytes(7.9) == "7 B"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        (4096, 4096),
        (1.5, 1),
        ("12 b", 12),
        ("1kb", 1000),
        ("1 KiB", 1024),
        ("2 MB", 2_000_000),
        (" 2 mib ", 2 * 1024**2),
        ("1.5 GB", 1_500_000_000),
        ("1 GiB", 1024**3),
        ("2 TB", 2 * 10**12),
        ("1 TiB", 1024**4),
        (".5 KiB", 512),
        ("1e3", 1000),
        ("1E+3 B", 1000),
        ("2.5e-1 KB", 250),
    ],
)
def test_sizes_read_every_documented_form(text, expected):
    assert parse_size("budget temp_bytes", text) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "budget temp_bytes: '' is not a size; write e.g. 64 MiB, 1.5 GB or 4096."),
        ("MiB", "budget temp_bytes: 'MiB' is not a size; write e.g. 64 MiB, 1.5 GB or 4096."),
        ("-1 MiB", "budget temp_bytes: '-1 MiB' is not a size; write e.g. 64 MiB, 1.5 GB or 4096."),
        ("1 MiB 2", "budget temp_bytes: '1 MiB 2' is not a size; write e.g. 64 MiB, 1.5 GB or 4096."),
        (
            "3 parsecs",
            "budget temp_bytes: unknown unit 'parsecs' in '3 parsecs'; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB.",
        ),
        (-1, "budget temp_bytes: -1 must be a non-negative size."),
        (math.inf, "budget temp_bytes: inf must be a non-negative size."),
        (math.nan, "budget temp_bytes: nan must be a non-negative size."),
        (True, "budget temp_bytes: True is not a size; write e.g. 64 MiB, 1.5 GB or 4096."),
    ],
)
def test_bad_sizes_say_what_to_write(value, message):
    with pytest.raises(ConfigError) as raised:
        parse_size("budget temp_bytes", value)
    assert str(raised.value) == message


def test_counts_are_plain_or_scientific_and_never_negative_or_boolean():
    assert parse_count("flops", "2.2e9") == 2.2e9
    assert parse_count("flops", 0) == 0.0
    assert parse_count("flops", 20) == 20.0
    for bad in (-1, "-0.5", "lots", None, True, False, math.inf, "nan", [1]):
        with pytest.raises(ConfigError, match=r"^flops: .* is not a non-negative number; write e.g. 2.2e9.$"):
            parse_count("flops", bad)


# --- budgets ----------------------------------------------------------------------------------


def test_parse_budget_reads_each_family_and_refuses_unknown_names():
    budget = parse_budget(
        "marker",
        {"flops": "3e4", "temp_bytes": "8 KiB", "collectives": {"all-gather": 0}, "ops": {"fusion": "12"}},
    )
    assert budget == {"flops": 3e4, "temp_bytes": 8192, "collectives": {"all-gather": 0.0}, "ops": {"fusion": 12.0}}
    with pytest.raises(
        ConfigError, match=r"^marker flopz: unknown budget metric|^marker: unknown budget metric 'flopz'"
    ):
        parse_budget("marker", {"flopz": 1})
    with pytest.raises(ConfigError, match=r"^marker ops must be a table of name = maximum count"):
        parse_budget("marker", {"ops": 3})
    with pytest.raises(
        ConfigError,
        match=r"^marker collectives: unknown collective 'all-gathr' \(did you mean 'all-gather'\?\); use one of all-",
    ):
        parse_budget("marker", {"collectives": {"all-gathr": 0, "zzz": 1}})
    with pytest.raises(ConfigError, match=r"^marker ops.fusion: -1 is not a non-negative number"):
        parse_budget("marker", {"ops": {"fusion": -1}})
    assert parse_budget("marker", {"ops": {"anything-goes": 1}}) == {"ops": {"anything-goes": 1.0}}


def test_a_percentage_is_a_share_only_of_a_device_memory():
    assert parse_budget("marker", {"peak_bytes": "90%", "vmem_bytes": "50%"}) == {
        "peak_bytes": Share(0.9),
        "vmem_bytes": Share(0.5),
    }
    with pytest.raises(ConfigError, match=r"^marker dcn_bytes: '90%' is not a size; write e\.g\. 64 MiB"):
        parse_budget("marker", {"dcn_bytes": "90%"})


def test_an_unknown_metric_lists_every_metric():
    with pytest.raises(ConfigError) as raised:
        parse_budget("[tool.pytest_stages.budgets] 'tests/*'", {"peak": 1})
    assert (
        str(raised.value)
        == f"[tool.pytest_stages.budgets] 'tests/*': unknown budget metric 'peak'; use one of {', '.join(METRICS)}."
    )
    with pytest.raises(ConfigError, match=r"unknown budget metric 'temp_byte' \(did you mean 'temp_bytes'\?\); use"):
        parse_budget("marker", {"temp_byte": 1})


def test_budget_patterns_match_whole_node_ids_case_sensitively_then_the_marker_wins():
    patterns = {
        "tests/test_a.py::*": {"flops": 1.0, "temp_bytes": 5},
        "*::test_b*": {"flops": 3.0},
        "TESTS/*": {"ops": {}},
    }
    assert budget_for("tests/test_a.py::test_b[cpu1]", patterns, {}) == {"flops": 3.0, "temp_bytes": 5}
    assert budget_for("tests/test_a.py::test_c", patterns, {"temp_bytes": 9}) == {"flops": 1.0, "temp_bytes": 9}
    assert budget_for("other/test_a.py::test_c", patterns, {}) == {}


def test_needed_analyses_are_the_ones_a_budget_reads():
    assert needed_analyses({}) == set()
    assert needed_analyses({"flops": 1}) == {"cost"}
    assert needed_analyses({"peak_bytes": 1, "collectives": {}}) == {"memory", "ops"}
    assert needed_analyses({"ops": {}, "bytes_accessed": 1, "code_bytes": 2}) == {"ops", "cost", "memory"}


def test_ceilings_at_the_measured_figure_pass_and_one_below_fail_on_a_real_snapshot():
    analyses = analyses_of("rnn_decode/cpu1")
    at = {
        "flops": 25810.0,
        "transcendentals": 128.0,
        "bytes_accessed": 24341.0,
        "temp_bytes": 7856,
        "peak_bytes": 9216 + 192 + 0 + 7856 - 0,  # arguments + outputs + code + temp - alias
        "xla_peak_bytes": 9424,
        "dcn_bytes": 0,
        "argument_bytes": 9216,
        "output_bytes": 192,
        "alias_bytes": 0,
        "code_bytes": 0,
        "ops": {"fusion": 10, "while": 1, "all-reduce": 0},
        "collectives": {"all-gather": 0},
    }
    assert [f for f in check_budget(at, analyses) if f.failing] == []
    below = {
        "flops": 25809.0,
        "temp_bytes": 7855,
        "peak_bytes": 17263,
        "xla_peak_bytes": 9423,
        "ops": {"fusion": 9},
        "argument_bytes": 9215,
    }
    assert [(f.kind, f.artifact, f.message, f.failing) for f in check_budget(below, analyses)] == [
        ("budget", "budget", "flops 25810 exceeds the ceiling 25809", True),
        ("budget", "budget", "temp_bytes 7.7 KiB exceeds the ceiling 7.7 KiB", True),
        ("budget", "budget", "peak_bytes 16.9 KiB exceeds the ceiling 16.9 KiB", True),
        ("budget", "budget", "xla_peak_bytes 9.2 KiB exceeds the ceiling 9.2 KiB", True),
        ("budget", "budget", "ops[fusion] 10 exceeds the ceiling 9", True),
        ("budget", "budget", "argument_bytes 9.0 KiB exceeds the ceiling 9.0 KiB", True),
    ]


def test_collective_budgets_count_each_collective_of_a_real_sharded_snapshot():
    analyses = analyses_of("train_step_sharded/cpu8")
    found = check_budget({"collectives": {"all-reduce": 1, "all-gather": 1, "all-to-all": 0}}, analyses)
    assert [f.message for f in found if f.failing] == ["collectives[all-reduce] 2 exceeds the ceiling 1"]


def test_a_cost_figure_xla_left_out_is_zero_not_unmeasured():
    """XLA omits zero figures (no transcendentals) from a cost analysis it did make."""
    analyses = {"cost": {"compiled": {"flops": 10.0}}}
    assert [f for f in check_budget({"transcendentals": 0, "flops": 100}, analyses) if f.failing] == []
    assert [f.message for f in check_budget({"transcendentals": 0}, {})] == [
        "transcendentals: not measured on this backend"
    ]


def test_a_compile_only_snapshot_budgets_its_lowered_cost_and_says_so():
    analyses = {"cost": json.loads((SNAPSHOTS / "train_step/tpu/train_step.cost.json").read_text())}
    lowered = analyses["cost"]["lowered"]["flops"]
    found = check_budget({"flops": lowered - 1, "temp_bytes": 1}, analyses)
    assert [(f.message, f.failing) for f in found] == [
        (f"flops (lowered) {format_number(lowered)} exceeds the ceiling {format_number(lowered - 1)}", True),
        ("temp_bytes: not measured on this backend", False),
    ]
    found = check_budget({"flops": 1, "ops": {"add": 0}, "collectives": {"all-gather": 0}}, {})
    assert [(f.message, f.failing) for f in found] == [
        ("flops: not measured on this backend", False),
        ("ops[add]: not measured on this backend", False),
        ("collectives[all-gather]: not measured on this backend", False),
    ], "without a compiled program there are no op counts to hold to a ceiling"


@pytest.mark.parametrize("value", [10**400, -(10**400), "1e400", math.inf])
def test_a_size_or_time_too_large_for_a_float_is_refused_with_a_message(value):
    for parse in (parse_size, parse_seconds):
        with pytest.raises(ConfigError, match="must be a non-negative"):
            parse("budget", value)
