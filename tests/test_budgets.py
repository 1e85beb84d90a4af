"""check.budgets at its edges: shares of a device, VMEM per kernel, compile seconds, compile counts."""

from __future__ import annotations

import pytest

from pytest_stages.check.budgets import (
    COMPILE_SECONDS_MARGIN,
    Share,
    budget_for,
    check_budget,
    needed_analyses,
    parse_budget,
    parse_size,
)
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.records import Change, Finding
from pytest_stages.stage.activation import TPU_MEMORY, DeviceMemory

GIB = 2**30
DEVICE = DeviceMemory(16 * GIB, "test")


def seen(findings: list[Finding]) -> list[tuple[str, bool]]:
    """Each finding's message and whether it fails; every one is a budget finding."""
    assert [(f.kind, f.artifact) for f in findings] == [("budget", "budget")] * len(findings)
    return [(f.message, f.failing) for f in findings]


def memory(**figures: int) -> dict:
    parts = ("argument", "output", "generated_code", "temp", "alias")
    return {"memory": {f"{part}_size_in_bytes": figures.get(part, 0) for part in parts}}


# --- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "fraction", "shown"),
    [("90%", 0.9, "90%"), (" 12.5 % ", 0.125, "12.5%"), ("100%", 1.0, "100%"), ("0.001%", 0.00001, "0.001%")],
)
def test_a_percentage_is_a_share_of_the_device_printed_as_written(written, fraction, shown):
    budget = parse_budget("marker", {"peak_bytes": written, "temp_bytes": written, "vmem_bytes": written})
    assert budget == dict.fromkeys(("peak_bytes", "temp_bytes", "vmem_bytes"), Share(fraction))
    assert str(budget["peak_bytes"]) == shown


@pytest.mark.parametrize("written", ["0%", "100.1%", "-5%", "%", "abc%", "inf%", "nan%", "1e400%"])
def test_a_share_outside_0_to_100_percent_is_refused_with_a_fix(written):
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"peak_bytes": written})
    assert str(raised.value) == (
        f"marker peak_bytes: {written!r} is not a share of the device's memory; "
        'write a percentage from 0 to 100, e.g. "90%".'
    )


def test_sizes_without_a_percent_sign_stay_bytes():
    assert parse_budget("marker", {"temp_bytes": "1 GiB", "vmem_bytes": 4096, "dcn_bytes": "2 KiB"}) == {
        "temp_bytes": GIB,
        "vmem_bytes": 4096,
        "dcn_bytes": 2048,
    }


def test_compiles_read_a_number_or_a_table_of_function_maxima_as_whole_counts():
    assert parse_budget("marker", {"compiles": 2}) == {"compiles": 2}
    assert parse_budget("marker", {"compiles": "3"}) == {"compiles": 3}
    assert parse_budget("marker", {"compiles": {"step": 1.0, "eval": "4"}}) == {"compiles": {"step": 1, "eval": 4}}
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"compiles": {"step": -1}})
    assert str(raised.value) == "marker compiles.step: -1 is not a non-negative number; write e.g. 2.2e9."
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"compiles": "many"})
    assert str(raised.value) == "marker compiles: 'many' is not a non-negative number; write e.g. 2.2e9."


def test_compile_seconds_and_dcn_bytes_read_their_units():
    assert parse_budget("marker", {"compile_seconds": "1.5"}) == {"compile_seconds": 1.5}
    assert parse_budget("marker", {"compile_seconds": "1.5 s"}) == {"compile_seconds": 1.5}
    assert parse_budget("marker", {"compile_seconds": "1500ms"}) == {"compile_seconds": 1.5}
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"compile_seconds": "1.5 sec"})
    assert str(raised.value) == "marker compile_seconds: unknown unit 'sec' in '1.5 sec'; use s, ms, us, µs or ns."


@pytest.mark.parametrize(
    ("written", "seconds"),
    [
        ("0.3ms", 3e-4),
        ("0.3 ms", 3e-4),
        ("150us", 1.5e-4),
        ("150 µs", 1.5e-4),
        ("2 s", 2.0),
        (300, 300.0),
        ("1e-3", 1e-3),
    ],
)
def test_times_are_read_with_or_without_a_space_and_a_bare_number_is_seconds(written, seconds):
    assert parse_budget("marker", {"estimated_seconds": written}) == {"estimated_seconds": pytest.approx(seconds)}


def test_sizes_and_times_take_the_same_forms():
    assert parse_budget("marker", {"temp_bytes": "64MiB"}) == {"temp_bytes": 64 << 20}
    assert parse_budget("marker", {"temp_bytes": "64 MiB"}) == {"temp_bytes": 64 << 20}
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"estimated_seconds": "0.3 MiB"})
    assert str(raised.value) == "marker estimated_seconds: unknown unit 'mib' in '0.3 MiB'; use s, ms, us, µs or ns."


def test_table_errors_name_the_metric_and_an_example():
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"collectives": ["all-gather"]})
    assert str(raised.value) == ('marker collectives must be a table of name = maximum count, e.g. {"all-gather": 0}.')
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"collectives": {"zz": 0, "all-gathr": 0, "all-gather": 1}})
    assert str(raised.value).startswith(
        "marker collectives: unknown collective 'all-gathr' (did you mean 'all-gather'?); use one of all-reduce, "
    )
    with pytest.raises(ConfigError) as raised:
        parse_budget("marker", {"ops": {"add": "x"}})
    assert str(raised.value) == "marker ops.add: 'x' is not a non-negative number; write e.g. 2.2e9."


def test_compile_figures_need_no_analysis_and_vmem_needs_the_kernels():
    assert needed_analyses({"compiles": 1, "compile_seconds": 2.0}) == set()
    assert needed_analyses({"vmem_bytes": 1}) == {"kernels"}
    assert needed_analyses({"vmem_bytes": 1, "compiles": 1, "flops": 1}) == {"kernels", "cost"}
    assert needed_analyses({"dcn_bytes": 1}) == {"ops"}
    assert needed_analyses({"transcendentals": 1, "alias_bytes": 1, "output_bytes": 2}) == {"cost", "memory"}


# --- shares of the device's memory ------------------------------------------------------------


def test_a_share_ceiling_says_how_far_over_it_the_program_is_and_what_is_left():
    analyses = memory(argument=4 * GIB, output=GIB, generated_code=GIB // 2, temp=10 * GIB, alias=GIB // 2)
    (found,) = check_budget({"peak_bytes": Share(0.9)}, analyses, device_memory=DEVICE)
    assert found == Finding(
        "budget",
        "budget",
        "peak_bytes 15.0 GiB is 93.8% of the device's 16.0 GiB, over the ceiling 90% (14.4 GiB): "
        "1.0 GiB left on the device",
        change=Change.BREACH,
        subject="peak_bytes",
        before=0.9 * 16 * GIB,
        after=15 * GIB,
    )


def test_a_share_ceiling_met_exactly_passes_with_its_headroom_as_a_note():
    (found,) = check_budget({"temp_bytes": Share(0.5)}, memory(temp=8 * GIB), device_memory=DEVICE)
    assert found == Finding(
        "budget",
        "budget",
        "temp_bytes 8.0 GiB is 50.0% of the device's 16.0 GiB, within the ceiling 50%: "
        "headroom 0 B to it, 8.0 GiB left",
        failing=False,
        change=Change.HEADROOM,
        subject="temp_bytes",
        before=8 * GIB,
        after=8 * GIB,
    )
    (over,) = check_budget({"temp_bytes": Share(0.5)}, memory(temp=8 * GIB + 1), device_memory=DEVICE)
    assert (over.failing, over.change) == (True, Change.BREACH)


def test_a_share_of_the_real_v5e_chip():
    chip = TPU_MEMORY[("TPU v5 lite", None)]
    found = check_budget({"output_bytes": Share(0.25)}, memory(output=2 * GIB), device_memory=chip)
    assert seen(found) == [
        (
            "output_bytes 2.0 GiB is 12.7% of the device's 15.7 GiB, within the ceiling 25%: "
            "headroom 1.9 GiB to it, 13.7 GiB left",
            False,
        )
    ]


def test_a_share_without_a_figure_or_without_the_device_size_is_a_note():
    assert seen(check_budget({"peak_bytes": Share(0.9)}, {}, device_memory=DEVICE)) == [
        ("peak_bytes 90%: not measured on this backend", False)
    ]
    assert seen(check_budget({"peak_bytes": Share(0.9)}, memory(temp=1))) == [
        ("peak_bytes 90%: the device's memory is not known here", False)
    ]
    assert seen(check_budget({"alias_bytes": Share(0.9)}, {"memory": {}}, device_memory=None)) == [
        ("alias_bytes 90%: not measured on this backend", False)
    ]


def test_peak_bytes_subtract_the_aliased_bytes():
    analyses = memory(argument=100, output=50, generated_code=10, temp=40, alias=30)
    assert [f for f in check_budget({"peak_bytes": 170}, analyses) if f.failing] == []
    assert seen(check_budget({"peak_bytes": 169}, analyses)) == [("peak_bytes 170 B exceeds the ceiling 169 B", True)]
    del analyses["memory"]["alias_size_in_bytes"]
    assert seen(check_budget({"peak_bytes": 1}, analyses)) == [("peak_bytes: not measured on this backend", False)]


# --- VMEM per kernel --------------------------------------------------------------------------


def kernels(*estimates: int | None, capacity: int | None = 16 * 2**20) -> dict:
    table = {f"kernel_{k}": {"vmem_estimate_bytes": value} for k, value in enumerate(estimates)}
    return {"kernels": {"kernels": table, "vmem_capacity": {"bytes": capacity} if capacity else None}}


def test_each_kernel_over_the_vmem_ceiling_fails_on_its_own():
    analyses = kernels(768 * 1024, 512 * 1024, None, 513 * 1024)
    found = check_budget({"vmem_bytes": 512 * 1024}, analyses)
    assert found == [
        Finding(
            "budget",
            "budget",
            "vmem_bytes: kernel kernel_0 VMEM est. 768.0 KiB exceeds the ceiling 512.0 KiB",
            change=Change.BREACH,
            subject="kernel_0",
            before=512 * 1024,
            after=768 * 1024,
        ),
        Finding(
            "budget",
            "budget",
            "vmem_bytes: kernel kernel_3 VMEM est. 513.0 KiB exceeds the ceiling 512.0 KiB",
            change=Change.BREACH,
            subject="kernel_3",
            before=512 * 1024,
            after=513 * 1024,
        ),
    ]


def test_a_vmem_share_is_of_the_recorded_capacity():
    analyses = kernels(8 * 2**20, 8 * 2**20 + 1)
    found = check_budget({"vmem_bytes": Share(0.5)}, analyses)
    assert seen(found) == [
        ("vmem_bytes: kernel kernel_1 VMEM est. 8.0 MiB exceeds the ceiling 50% of 16.0 MiB VMEM (8.0 MiB)", True)
    ]
    assert (found[0].before, found[0].after) == (8 * 2**20, 8 * 2**20 + 1)


def test_a_vmem_share_without_a_known_capacity_is_a_note_and_no_kernels_is_no_finding():
    assert seen(check_budget({"vmem_bytes": Share(0.5)}, kernels(1, capacity=None))) == [
        ("vmem_bytes 50%: the VMEM size of this device is not known here", False)
    ]
    assert [f for f in check_budget({"vmem_bytes": 1}, kernels(1, capacity=None)) if f.failing] == [], (
        "1 B against a 1 B ceiling passes"
    )
    assert [f for f in check_budget({"vmem_bytes": 0}, {}) if f.failing] == []
    assert [f for f in check_budget({"vmem_bytes": Share(0.1)}, {"kernels": None}) if f.failing] == []


# --- compile seconds and counts ---------------------------------------------------------------


def test_compile_seconds_fail_only_beyond_the_noise_margin():
    assert COMPILE_SECONDS_MARGIN == 0.5
    at_margin = {"trace": 0.5, "lower": 0.25, "compile": 1.5}  # 2.25 s = 1.5 s x 1.5
    assert [f for f in check_budget({"compile_seconds": 1.5}, {}, seconds=at_margin) if f.failing] == []
    over = {**at_margin, "compile": 1.51}
    assert seen(check_budget({"compile_seconds": 1.5}, {}, seconds=over)) == [
        ("compile_seconds 2.26 s exceeds the ceiling 1.5 s (+50% noise margin: 2.25 s)", True)
    ]


def test_compile_seconds_not_timed_are_a_note_and_compiles_are_judged_elsewhere():
    assert seen(check_budget({"compile_seconds": 1.0}, {}, seconds={})) == [("compile_seconds: not measured", False)]
    assert seen(check_budget({"compile_seconds": 1.0}, {})) == [("compile_seconds: not measured", False)]
    assert [f for f in check_budget({"compiles": 0}, {}, seconds={"compile": 100.0}) if f.failing] == []
    assert seen(check_budget({"compiles": 0, "flops": 1}, {"cost": {"compiled": {"flops": 2.0}}})) == [
        ("flops 2 exceeds the ceiling 1", True)
    ], "the metrics after compiles are still checked"


# --- tables and DCN ---------------------------------------------------------------------------


def test_op_and_collective_ceilings_count_what_the_program_has():
    ops = {
        "ops": {
            "opcodes": {"fusion": 3, "add": 1},
            "collectives": [{"op": "all-gather"}, {"op": "all-gather"}, {"op": "all-reduce"}],
        }
    }
    found = check_budget({"ops": {"fusion": 2, "add": 1, "while": 0}, "collectives": {"all-gather": 1}}, ops)
    assert seen(found) == [
        ("ops[fusion] 3 exceeds the ceiling 2", True),
        ("ops[add] 1, ceiling 1", False),
        ("ops[while] 0, ceiling 0", False),
        ("collectives[all-gather] 2 exceeds the ceiling 1", True),
    ]
    assert [f for f in check_budget({"collectives": {"fusion": 0}}, ops) if f.failing] == [], (
        "a collective ceiling counts collectives only"
    )


def test_dcn_bytes_of_a_multi_slice_program_and_of_one_slice():
    ops = {"ops": {"networks": {"dcn": {"bytes": 3 * 2**20}}, "opcodes": {}}}
    assert seen(check_budget({"dcn_bytes": 2**21}, ops)) == [("dcn_bytes 3.0 MiB exceeds the ceiling 2.0 MiB", True)]
    assert [f for f in check_budget({"dcn_bytes": 3 * 2**20}, ops) if f.failing] == []
    assert [f for f in check_budget({"dcn_bytes": 0}, {"ops": {"opcodes": {"add": 1}}}) if f.failing] == [], (
        "one slice: nothing crosses"
    )
    assert seen(check_budget({"dcn_bytes": 0}, {})) == [("dcn_bytes: not measured on this backend", False)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("64 MiB", 64 * 2**20), ("1.5GB", 1_500_000_000), (4096, 4096), ("2 KiB", 2048), ("10 b", 10)],
)
def test_sizes_accept_units(text, expected):
    assert parse_size("budget", text) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"temp_bytes": "64 MiBs"}, "budget temp_bytes: unknown unit 'mibs' in '64 MiBs'; use B, KB"),
        ({"temp_bytes": "lots"}, "budget temp_bytes: 'lots' is not a size"),
        ({"flops": "many"}, "budget flops: 'many' is not a non-negative number"),
        ({"latency": 3}, "budget: unknown budget metric 'latency'"),
        ({"collectives": {"all-gathers": 0}}, "unknown collective 'all-gathers'"),
        ({"ops": 3}, "budget ops must be a table"),
    ],
)
def test_bad_budgets_name_metric_and_unit(raw, message):
    with pytest.raises(ConfigError) as error:
        parse_budget("budget", raw)
    assert message in str(error.value)


def test_budget_checks_ceilings():
    analyses = {
        "cost": {"compiled": {"flops": 3e9}},
        "memory": {"temp_size_in_bytes": 100 * 2**20},
        "ops": {"collectives": [{"op": "all-gather", "shape": "f32[8]", "bytes": 32}], "opcodes": {"fusion": 3}},
    }
    budget = parse_budget(
        "b", {"flops": 2.2e9, "temp_bytes": "64 MiB", "collectives": {"all-gather": 0}, "ops": {"fusion": 3}}
    )
    messages = [f.message for f in check_budget(budget, analyses)]
    assert messages == [
        "flops 3e9 exceeds the ceiling 2.2e9",
        "temp_bytes 100.0 MiB exceeds the ceiling 64.0 MiB",
        "collectives[all-gather] 1 exceeds the ceiling 0",
        "ops[fusion] 3, ceiling 3",
    ]
    assert [f for f in check_budget(parse_budget("b", {"flops": 4e9}), analyses) if f.failing] == []


def test_a_ceiling_met_is_a_note_showing_the_figure_and_the_ceiling_each_in_its_unit():
    """A unit slip (300 meant as microseconds is 300 s) shows in a passing run: the figure beside its ceiling."""
    analyses = {
        "cost": {
            "compiled": {"flops": 2.1e9},
            "step": {"estimated_seconds": 414e-6, "chip": "TPU v5e", "binding": "HBM"},
        },
        "memory": {"temp_size_in_bytes": 3 * 2**20},
    }
    budget = parse_budget("b", {"estimated_seconds": 300, "flops": 2.2e9, "temp_bytes": "64MiB"})
    assert seen(check_budget(budget, analyses, seconds={"compile": 0.2})) == [
        ("estimated_seconds 414 µs on TPU v5e, ceiling 300 s", False),
        ("flops 2.1e9, ceiling 2.2e9", False),
        ("temp_bytes 3.0 MiB, ceiling 64.0 MiB", False),
    ]


def test_budget_patterns_merge_under_the_marker():
    patterns = {"tests/*::test_a*": {"flops": 1.0, "temp_bytes": 5}, "*::test_b": {"flops": 9.0}}
    assert budget_for("tests/x.py::test_a[cpu1]", patterns, {"flops": 2.0}) == {"flops": 2.0, "temp_bytes": 5}


OVER_BUDGET = """
import jax, jax.numpy as jnp, pytest

@pytest.mark.stages_budget(flops=1)
def test_new(stage_snapshot):
    stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32))
"""


def test_a_new_test_over_its_budget_gets_the_hint_that_works_not_the_update_hint(project):
    """An update records nothing while a budget fails: the hint says to change the budget or program first."""
    project.write("test_m.py", OVER_BUDGET)
    result = project.run()
    result.assert_outcomes(failed=1)
    output = project.output(result)
    assert (
        "Budgets are ceilings: `--stages-update` does not lift them, and records none of this call's snapshots while "
        "it is over one; change the budget or the program, then run `pytest --stages-update` to record the changes."
    ) in output
    assert "to accept the changes if they are intended" not in output
    project.run("--stages-update").assert_outcomes(failed=1)
    assert project.snapshots() == {}, "what the hint says: the update recorded nothing"
    project.write("test_m.py", OVER_BUDGET.replace("flops=1", "flops=100"))
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots()
