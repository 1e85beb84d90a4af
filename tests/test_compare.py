"""check.compare at its edges, on the committed example snapshots: tolerances, placements, op structure."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from pytest_stages.analyse.analyses import ops
from pytest_stages.check.changed_paths import structure
from pytest_stages.check.collectives import op_change_summary
from pytest_stages.check.compare import compare_pair
from pytest_stages.check.drift import compare_text, hlo_structure_summary, op_counts
from pytest_stages.check.figure_text import informational
from pytest_stages.check.figures import compare_metrics, metric_tolerance
from pytest_stages.check.message import details
from pytest_stages.check.ops import compare_ops
from pytest_stages.check.placement import compare_placement, group_leaves, placement_keys
from pytest_stages.core.records import Change, Compared, Finding, Pair

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"
RNN = SNAPSHOTS / "rnn_decode" / "cpu1"
SHARDED = SNAPSHOTS / "train_step_sharded" / "cpu8"


def load(folder: Path, artifact: str) -> dict:
    return json.loads((folder / f"{folder.parent.name}.{artifact}.json").read_text(encoding="utf-8"))


def text(folder: Path, suffix: str) -> str:
    return (folder / f"{folder.parent.name}{suffix}").read_text(encoding="utf-8")


def messages(findings: list[Finding]) -> list[tuple[str, bool]]:
    return [(f.message, f.failing) for f in findings]


# --- figures ----------------------------------------------------------------------------------


def test_a_rise_of_exactly_the_tolerance_passes_and_one_byte_more_fails():
    memory = load(RNN, "memory")
    risen = dict(memory, temp_size_in_bytes=8000)
    at_limit = {"temp_size_in_bytes": (8000 - 7856) / 7856}
    assert compare_metrics("memory", memory, risen, at_limit) == []
    beyond = dict(memory, temp_size_in_bytes=8001)
    assert messages(compare_metrics("memory", memory, beyond, at_limit)) == [
        ("temp_bytes 7856 -> 8001 (+1.8%, tolerance 1.83299%)", True)
    ]
    assert messages(compare_metrics("memory", memory, risen, {})) == [
        ("temp_bytes 7856 -> 8000 (+1.8%, tolerance 0.1%)", True)
    ]


def test_a_fall_beyond_the_tolerance_is_an_improvement_and_within_it_is_silent():
    cost = load(RNN, "cost")
    fallen = copy.deepcopy(cost)
    fallen["compiled"]["flops"] = 25000.0
    assert messages(compare_metrics("cost", cost, fallen, {})) == [
        ("flops 25810 -> 25000 (-3.1%): improved; run `pytest --stages-update` to accept it", False)
    ]
    assert compare_metrics("cost", cost, fallen, {"flops": 0.04}) == []
    fallen["compiled"]["flops"] = 25810.0 * (1 - 0.0005)
    assert compare_metrics("cost", cost, fallen, {}) == [], "floats default to a 0.1% tolerance"


def test_float_figures_default_to_a_tenth_of_a_percent_and_integers_to_exact_but_the_allocators():
    assert metric_tolerance("flops", 1.0, 2.0, {}) == 0.001
    assert metric_tolerance("flops", 1, 2.5, {}) == 0.001
    assert metric_tolerance("flops", 1.0, 2, {}) == 0.001, "one float side is enough"
    assert metric_tolerance("argument_size_in_bytes", 1, 2, {}) == 0.0
    assert metric_tolerance("temp_size_in_bytes", 1, 2, {}) == 0.001, "the allocator's figures move by bytes"
    assert metric_tolerance("peak_memory_in_bytes", 1, 2, {}) == 0.001
    assert metric_tolerance("temp_size_in_bytes", 1, 2, {"default": 0.05}) == 0.05
    assert metric_tolerance("temp_size_in_bytes", 1, 2, {"default": 0.05, "temp_size_in_bytes": 0.5}) == 0.5


def test_a_prefixed_figure_falls_back_to_its_bare_name_and_an_operand_part_to_its_family():
    tolerances = {"flops": 0.3, "bytes accessed": 0.2}
    assert metric_tolerance("lowered flops", 1, 2, tolerances) == 0.3
    assert metric_tolerance("bytes accessedout{1}", 1, 2, tolerances) == 0.2
    assert metric_tolerance("lowered bytes accessed", 100, 104, tolerances) == 0.2
    assert metric_tolerance("lowered bytes accessedout{}", 100, 104, tolerances) == 0.2
    assert metric_tolerance("bytes accessed2{}", 1, 2, {"bytes accessed2{}": 0.9, "bytes accessed": 0.2}) == 0.9


def test_lowered_figures_and_utilization_are_never_judged_while_compiled_ones_exist():
    cost = {**load(RNN, "cost"), "lowered": {"flops": 1.0}}  # as an earlier version recorded it
    moved = copy.deepcopy(cost)
    moved["lowered"]["flops"] = 99999.0
    moved["compiled"]["utilization0{}"] = 99.0
    moved["compiled"]["optimal_seconds"] = 5.0
    assert compare_metrics("cost", cost, moved, {}) == []
    assert [informational(m) for m in ("lowered flops", "utilization0{}", "optimal_seconds", "flops")] == [
        True,
        True,
        True,
        False,
    ]


def test_without_compiled_figures_the_lowered_ones_are_judged_but_not_their_utilization():
    cost = load(SNAPSHOTS / "train_step" / "tpu", "cost")
    assert cost["compiled"].get("unavailable"), "a compile-only TPU snapshot has no compiled figures"
    moved = copy.deepcopy(cost)
    moved["lowered"]["flops"] *= 2
    moved["lowered"]["utilization0{}"] = 1234.0
    found = compare_metrics("cost", cost, moved, {})
    assert [f.message.split(" (")[0] for f in found] == [
        f"lowered flops {_fig(cost['lowered']['flops'])} -> {_fig(moved['lowered']['flops'])}"
    ]
    assert found[0].failing
    with_compiled = copy.deepcopy(moved)
    with_compiled["compiled"] = {"flops": 1.0}
    found = compare_metrics("cost", cost, with_compiled, {})
    assert [(f.message, f.failing) for f in found] == [
        (
            "the snapshot counts the lowered program, this run the compiled one (only an attached platform has "
            "a compiled cost): the figures do not compare; run `pytest --stages-update` to record them",
            True,
        )
    ], "one finding for the switch, not a figure-by-figure comparison of two different counts"
    assert compare_metrics("cost", with_compiled, cost, {})[0].message.startswith(
        "the snapshot counts the compiled program, this run the lowered one"
    )


def _fig(value: float) -> str:
    from pytest_stages.core.units import format_number

    return format_number(value)


def test_fewer_aliased_bytes_is_a_regression_and_more_is_an_improvement():
    memory = dict(load(RNN, "memory"), alias_size_in_bytes=100)
    less, more = dict(memory, alias_size_in_bytes=50), dict(memory, alias_size_in_bytes=200)
    assert messages(compare_metrics("memory", memory, less, {})) == [
        ("alias_bytes 100 -> 50 (-50.0%, tolerance exact): fewer bytes shared between inputs and outputs", True)
    ]
    assert messages(compare_metrics("memory", memory, more, {})) == [
        ("alias_bytes 100 -> 200 (+100.0%): improved; run `pytest --stages-update` to accept it", False)
    ]


def test_a_memory_figure_that_appears_or_disappears_is_a_failing_finding():
    memory = load(RNN, "memory")
    gone = {k: v for k, v in memory.items() if k != "temp_size_in_bytes"}
    assert messages(compare_metrics("memory", memory, gone, {})) == [("temp_bytes: 7856 -> absent", True)]
    assert messages(compare_metrics("memory", gone, memory, {})) == [("temp_bytes: absent -> 7856", True)]
    assert compare_metrics("memory", memory, dict(memory), {}) == []


def test_figures_reports_every_moved_number_as_a_delta_even_within_tolerance():
    cost = {**load(RNN, "cost"), "lowered": {"transcendentals": 128.0}}  # as an earlier version recorded it
    moved = copy.deepcopy(cost)
    moved["compiled"]["flops"] = 25811.0
    moved["lowered"]["transcendentals"] = 129.0
    compared = compare_pair(Pair("cost", "", "", before=cost, after=moved, tolerance={"flops": 0.5}))
    assert compared == Compared([], {"flops": [25810.0, 25811.0], "lowered transcendentals": [128.0, 129.0]})


# --- placements -------------------------------------------------------------------------------


def test_three_leaves_losing_donation_are_one_line_and_two_are_two():
    sharding = load(SHARDED, "sharding")
    leaves = list(sharding["inputs"])[:4]
    for count, expected in [
        (
            2,
            [
                "input params[0][0] no longer donated (XLA had reused its buffer)",
                "input params[0][1] no longer donated (XLA had reused its buffer)",
            ],
        ),
        (3, ["3 inputs (params[0][0], params[0][1], params[1][0]) no longer donated (XLA had reused its buffer)"]),
        # every leaf of the argument: named by the argument
        (4, ["argument params (4 arrays) no longer donated (XLA had reused its buffer)"]),
    ]:
        changed = copy.deepcopy(sharding)
        for leaf in leaves[:count]:
            changed["inputs"][leaf].update(donated=False, aliased_to=None)
        assert messages(compare_placement("sharding", sharding, changed)) == [(m, True) for m in expected]


def test_a_donation_gained_says_whether_xla_reuses_the_buffer():
    sharding = load(SHARDED, "sharding")
    changed = copy.deepcopy(sharding)
    changed["inputs"]["x"].update(donated=True, aliased_to="output[1]")
    changed["inputs"]["y"].update(donated=True)
    assert [f.message for f in compare_placement("sharding", sharding, changed)] == [
        "input x is now donated (XLA reuses its buffer)",
        "input y is now donated (XLA cannot reuse its buffer)",
    ]


def test_an_aliasing_change_alone_names_the_old_and_new_outputs():
    sharding = load(SHARDED, "sharding")
    changed = copy.deepcopy(sharding)
    changed["inputs"]["params[0][0]"]["aliased_to"] = None
    changed["inputs"]["params[0][1]"]["aliased_to"] = "output[1]"
    changed["inputs"]["x"]["aliased_to"] = "output[1]"
    assert [f.message for f in compare_placement("sharding", sharding, changed)] == [
        "input params[0][0]: donated buffer no longer reused for output[0][0][0] (XLA could not alias it)",
        "input params[0][1]: buffer now aliased to output[1] (was output[0][0][1])",
        "input x: buffer now aliased to output[1] (was none)",
    ]


def test_a_sharding_change_a_new_leaf_a_removed_leaf_and_collectives_in_order():
    sharding = load(SHARDED, "sharding")
    changed = copy.deepcopy(sharding)
    changed["inputs"]["x"]["sharding"]["spec"] = "P()"
    changed["inputs"]["z"] = {"donated": False, "sharding": {"kind": "SingleDeviceSharding", "devices": [0]}}
    del changed["outputs"]["output[1]"]
    changed["collectives"] = changed["collectives"][1:]
    assert [f.message for f in compare_placement("sharding", sharding, changed)] == [
        "input x: P('data') over mesh(data=4,model=2) -> P() over mesh(data=4,model=2)",
        "input z: new leaf (SingleDeviceSharding on devices [0])",
        "output output[1]: leaf removed (was P() over mesh(data=4,model=2))",
        # A delta, not the before and after lists: the removed all-gather is what a reviewer needs.
        "collectives: -1 all-gather f32[8,128] (4.0 KiB)",
    ]
    # The headline's text of each finding leaves the mesh out.
    assert compare_placement("sharding", sharding, changed)[0].moves == ("input x: P('data') -> P()",)


def test_repeated_collectives_are_counted_as_a_delta():
    sharding = load(SHARDED, "sharding")
    doubled = dict(sharding, collectives=[sharding["collectives"][0]] * 2)
    assert [f.message for f in compare_placement("sharding", dict(sharding, collectives=[]), doubled)] == [
        "collectives: +2 all-gather f32[8,128] (4.0 KiB)"
    ]
    assert [f.message for f in compare_placement("sharding", doubled, dict(sharding, collectives=[]))] == [
        "collectives: -2 all-gather f32[8,128] (4.0 KiB)"
    ]
    changed = dict(doubled, inputs={leaf: {**v, "donated": True} for leaf, v in sharding["inputs"].items()})
    kinds = {f.change for f in compare_placement("sharding", sharding, changed)}
    assert kinds == {Change.COLLECTIVES, Change.PLACEMENT}


def test_an_input_jit_dropped_and_a_side_that_appears_whole():
    sharding = load(SHARDED, "sharding")
    dropped = copy.deepcopy(sharding)
    dropped["inputs"]["y"]["sharding"] = None
    assert [f.message for f in compare_placement("sharding", sharding, dropped)] == [
        "input y: P('data') over mesh(data=4,model=2) -> none (an unused input jit dropped)"
    ]
    no_outputs = {k: v for k, v in sharding.items() if k != "outputs"}
    assert len(compare_placement("sharding", no_outputs, sharding)) == 1
    assert placement_keys(no_outputs, sharding) == [("outputs", leaf) for leaf in sorted(sharding["outputs"])]


def test_a_layout_change_shows_the_dimension_order_and_other_fields_their_values():
    layout = load(RNN, "layout")
    changed = copy.deepcopy(layout)
    changed["inputs"]["xs"]["major_to_minor"] = [2, 1, 0]
    changed["inputs"]["xs"]["tiling"] = [[8, 128]]
    changed["inputs"]["params['wh']"]["sub_byte_element_size_in_bits"] = 4
    changed["inputs"]["params['wx']"]["major_to_minor"] = None
    assert [f.message for f in compare_placement("layout", layout, changed)] == [
        "input params['wh'] sub_byte_element_size_in_bits: 0 -> 4",
        "input params['wx'] layout (0,1) -> absent",
        "input xs layout (0,1,2) -> (2,1,0)",
        "input xs tiling: [] -> [[8, 128]]",
    ]
    removed = copy.deepcopy(layout)
    del removed["inputs"]["xs"]
    assert [f.message for f in compare_placement("layout", layout, removed)] == [
        'input xs: leaf removed (was {"major_to_minor": [0, 1, 2], "sub_byte_element_size_in_bits": 0, "tiling": []})'
    ]


def test_group_leaves_keeps_first_appearance_order_and_the_least_count():
    changes = [
        ("input", "a", " x", ""),
        ("output", "o", " x", "!"),
        ("input", "b", " x", ""),
        ("", "", "collectives: 1", ""),
    ]
    assert [m for _, m, _ in group_leaves(changes, least=2)] == ["2 inputs (a, b) x", "output o x!", "collectives: 1"]
    assert [m for _, m, _ in group_leaves(changes)] == ["input a x", "input b x", "output o x!", "collectives: 1"]


# --- op structure and IR text -----------------------------------------------------------------


def test_an_ops_drift_title_names_the_op_fusion_collective_and_entry_changes():
    before = load(SHARDED, "ops")
    after = copy.deepcopy(before)
    after["opcodes"]["add"] += 2
    after["opcodes"]["multiply"] -= 1
    after["fusion_count"] += 1
    after["collectives"] = [*after["collectives"][1:], {"bytes": 8, "op": "all-to-all", "shape": "f32[2]"}]
    after["entry"]["output"] = "f32[]"
    dump = lambda d: json.dumps(d, sort_keys=True, indent=2) + "\n"  # noqa: E731
    found = compare_ops(dump(before), dump(after), before, after, diff_lines=5)
    title = found.message.split("\n")[0]
    assert title == (
        "op structure changed: +2 add, -1 multiply, fusions 17 -> 18, +1 all-to-all f32[2] (8 B), "
        "-1 all-gather f32[8,128] (4.0 KiB), entry shapes changed"
    )
    assert found.kind == "text" and found.artifact == "ops"
    assert compare_ops(dump(before), dump(before), before, before, diff_lines=5) is None
    reordered = compare_ops(dump(before), dump(before) + "\n", before, before, diff_lines=5)
    assert reordered.message.split("\n")[0] == "op structure changed"


def test_op_counts_read_each_dialect():
    jaxpr = text(RNN, ".jaxpr.txt")
    mlir = text(RNN, ".stablehlo.mlir")
    compiled = text(RNN, ".compiled.hlo.txt")
    assert op_counts("jaxpr", jaxpr)["dot_general"] == jaxpr.count("dot_general[")
    assert op_counts("stablehlo", mlir)["stablehlo.dot_general"] == mlir.count("stablehlo.dot_general")
    assert op_counts("compiled", compiled)["fusion"] == load(RNN, "ops")["fusion_count"]
    assert op_counts("hlo", compiled) == op_counts("compiled", compiled)
    assert op_change_summary(Counter(a=1, b=2), Counter(b=4, c=1, a=1)) == "+2 b, +1 c"
    assert op_change_summary(Counter(a=1), Counter(a=1)) == ""


def test_a_fusion_added_to_real_compiled_hlo_reads_in_the_summary():
    compiled = text(RNN, ".compiled.hlo.txt")
    entry = compiled.index("ENTRY")
    line_start = compiled.index("\n", entry) + 1
    fused = next(line for line in compiled.splitlines() if " fusion(" in line and line.startswith("  "))
    extra = fused.replace("%", "%extra_", 1)
    drifted = compiled[:line_start] + extra + "\n" + compiled[line_start:]
    found = compare_text("compiled", compiled, drifted, diff_lines=20)
    lines = details(found)
    assert lines[0] == "IR drift"
    assert "    ops: +1 fusion" in lines
    assert "    fusions: 10 -> 11" in lines
    assert hlo_structure_summary("jaxpr", (compiled, drifted), ("", ""), (Counter(), Counter())) == []


def test_a_collective_added_to_real_sharded_hlo_is_named_with_its_bytes():
    compiled = text(SHARDED, ".compiled.hlo.txt")
    gather = next(line for line in compiled.splitlines() if " all-gather(" in line)
    drifted = compiled.replace(gather, gather + "\n" + gather.replace("%", "%again_", 1), 1)
    summary = compare_text("compiled", compiled, drifted, diff_lines=20).detail["summary"]
    assert "collectives: +1 all-gather f32[8,128] (4.0 KiB)" in summary
    assert "ops: +1 all-gather" in summary


def test_generic_json_structure_names_each_changed_path():
    before = {"inputs": {"x": {"shape": [2]}}, "n": 1}
    after = {"inputs": {"x": {"shape": [3]}}, "m": 2}
    found = structure(Pair("sharding", "", "", before=before, after=after)).findings
    assert [f.message for f in found] == [
        "['inputs']['x']['shape'][0]: 2 -> 3",
        "['m']: absent -> 2",
        "['n']: 1 -> absent",
    ]
    assert {f.kind for f in found} == {"sharding"}


def _leaf(spec):
    sharding = {"kind": "NamedSharding", "mesh": {"data": 8}, "spec": spec, "memory_kind": "device"}
    return {"sharding": sharding, "donated": False, "aliased_to": None}


def test_a_memory_kind_or_replication_change_is_named_in_the_message():
    def device(memory_kind, replicated=True, devices=(0, 1)):
        sharding = {"kind": "GSPMDSharding", "devices": list(devices), "replicated": replicated}
        return {"outputs": {"out": {"sharding": {**sharding, "memory_kind": memory_kind}}}}

    assert [f.message for f in compare_placement("sharding", device("device"), device("pinned_host"))] == [
        "output out: GSPMDSharding on devices [0, 1], replicated -> "
        "GSPMDSharding on devices [0, 1], replicated in pinned_host memory"
    ]
    assert [f.message for f in compare_placement("sharding", device("device"), device("device", False))] == [
        "output out: GSPMDSharding on devices [0, 1], replicated -> GSPMDSharding on devices [0, 1], split"
    ]


def test_the_input_signature_of_a_one_line_jaxpr_is_its_binders():
    from pytest_stages.check.drift import input_types, signature_change

    one_line = "{ lambda ; a:f32[4] b:f32[]. let c:f32[4] = mul a b in (c,) }"
    assert input_types(one_line) == ["f32[4]", "f32[]"]
    assert signature_change(["x", "y"], one_line, one_line.replace("f32[4]", "f32[8]")) == "x f32[4] -> f32[8]"


def test_mostly_new_keys_are_still_compared_one_by_one():
    """deepdiff reports a dict that shares under a third of its keys as one replaced value; not here."""
    before = {"inputs": {"w": _leaf("P('data')"), "b": _leaf("P()"), "c": _leaf("P()")}, "outputs": {}}
    after = {"inputs": {"w": _leaf("P(None)"), "b2": _leaf("P()"), "c2": _leaf("P()")}, "outputs": {}}
    messages = [f.message for f in compare_placement("sharding", before, after)]
    assert "input w: P('data') over mesh(data=8) -> P(None) over mesh(data=8)" in messages
    assert not [m for m in messages if "absent -> absent" in m], messages
    many = {"compiled": {"flops": 1.0, **{f"bytes accessed{i}{{}}": 1.0 for i in range(20)}}}
    found = compare_metrics("cost", {"compiled": {"flops": 1.0}}, many, {key: 0.001 for key in many["compiled"]})
    assert len(found) == 20 and found[0].message == (
        "bytes read as operand 0 of the ops [bytes accessed0{}] 0 -> 1 (from 0, tolerance 0.1%)"
    )
    found = structure(Pair("ops", "", "", before={"a": 1}, after={"b": 2, "c": 3, "d": 4})).findings
    assert [f.message for f in found] == [
        "['a']: 1 -> absent",
        "['b']: absent -> 2",
        "['c']: absent -> 3",
        "['d']: absent -> 4",
    ]


@pytest.mark.parametrize("artifact", ["jaxpr", "stablehlo", "compiled"])
def test_equal_texts_have_no_finding(artifact):
    suffix = {"jaxpr": ".jaxpr.txt", "stablehlo": ".stablehlo.mlir", "compiled": ".compiled.hlo.txt"}[artifact]
    snapshot = text(RNN, suffix)
    assert compare_text(artifact, snapshot, snapshot, diff_lines=10) is None


@pytest.mark.parametrize("folder", [RNN, SHARDED])
def test_the_op_analysis_of_a_committed_compiled_module_is_its_committed_ops_json(folder):
    found = ops(text(folder, ".compiled.hlo.txt"))
    assert found == load(folder, "ops")
    assert found["fusion_count"] == sum(found["fusions"].values()) == found["opcodes"]["fusion"]
