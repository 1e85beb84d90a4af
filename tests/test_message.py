"""check.message at its edges: headlines of figures, op structure and budgets, on the committed example snapshots."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pytest_stages.check.budgets import check_budget
from pytest_stages.check.decide import Verdict
from pytest_stages.check.drift import compare_text
from pytest_stages.check.figures import compare_metrics
from pytest_stages.check.message import Call, call_message
from pytest_stages.check.ops import compare_ops
from pytest_stages.core.records import Finding

RNN = Path(__file__).resolve().parent.parent / "snapshots" / "stages" / "rnn_decode" / "cpu1"
CALL = Call("f", "cpu1", "snapshots/x/", {"cost": "f.cost.json", "memory": "f.memory.json", "ops": "f.ops.json"})
UPDATE = "Run `pytest --stages-update` to accept the changes if they are intended."
CEILINGS = "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program."


def load(artifact: str) -> dict:
    return json.loads((RNN / f"rnn_decode.{artifact}.json").read_text())


def message(findings: list[Finding], notes: tuple[str, ...] = ()) -> list[str]:
    verdict = Verdict(
        failing=tuple(f for f in findings if f.failing), passing=tuple(f for f in findings if not f.failing)
    )
    return call_message(CALL, verdict, notes=notes, diff_lines=5, full=False).splitlines()


def cost_with(**moved: float) -> list[Finding]:
    cost = load("cost")
    after = copy.deepcopy(cost)
    after["compiled"].update(moved)
    # Per-operand figures are judged only under a tolerance naming them (check/figures.py): name those moved.
    return compare_metrics("cost", cost, after, {key: 0.001 for key in moved if "{" in key})


def test_per_operand_figures_alone_are_one_headline_item_counted():
    two = cost_with(**{"bytes accessed1{}": 12916.0, "bytes accessed2{}": 620.0})
    assert message(two) == [
        "'f' on config cpu1 differs from its snapshots in snapshots/x/",
        "  cost: ops' operand and output bytes (2 figures)",
        "- cost (f.cost.json):",
        "    bytes read as operand 1 of the ops [bytes accessed1{}] 12816 -> 12916 (+0.78%, tolerance 0.1%)",
        "    bytes read as operand 2 of the ops [bytes accessed2{}] 520 -> 620 (+19.2%, tolerance 0.1%)",
        UPDATE,
    ]
    assert message(two[:1])[1] == "  cost: ops' operand and output bytes (1 figure)"


def test_named_figures_lead_key_ones_first_per_operand_ones_counted_and_improvements_below():
    moved = cost_with(
        **{"bytes accessed1{}": 12916.0, "bytes accessed2{}": 620.0, "bytes accessed": 25341.0},
        flops=51620.0,
        transcendentals=0.0,
    )
    assert message(moved, notes=("a note",)) == [
        "'f' on config cpu1 differs from its snapshots in snapshots/x/",
        "  a note",
        "  cost: flops +100.0%; bytes_accessed +4.1%; +2 more",
        "- cost (f.cost.json):",
        "    flops 25810 -> 51620 (+100.0%, tolerance 0.1%)",
        "    bytes_accessed 24341 -> 25341 (+4.1%, tolerance 0.1%)",
        "    bytes read as operand 1 of the ops [bytes accessed1{}] 12816 -> 12916 (+0.78%, tolerance 0.1%)",
        "    bytes read as operand 2 of the ops [bytes accessed2{}] 520 -> 620 (+19.2%, tolerance 0.1%)",
        "  also cost improved (not failing): transcendentals -100.0%",
        UPDATE,
    ]


def test_memory_figures_are_named_peak_temp_alias_first_with_small_moves_in_bytes():
    memory = load("memory")
    after = dict(memory, temp_size_in_bytes=15712, argument_size_in_bytes=9220, peak_memory_in_bytes=9428)
    exact = {"peak_memory_in_bytes": 0.0, "temp_size_in_bytes": 0.0}  # the allocator's figures default to 0.1%
    assert message(compare_metrics("memory", memory, after, exact)) == [
        "'f' on config cpu1 differs from its snapshots in snapshots/x/",
        "  memory: xla_peak_bytes +4 B; temp_bytes +100.0%; argument_bytes +4 B",
        "- memory (f.memory.json):",
        "    xla_peak_bytes 9424 -> 9428 (+4 B, tolerance exact)",
        "    temp_bytes 7856 -> 15712 (+100.0%, tolerance exact)",
        "    argument_bytes 9216 -> 9220 (+4 B, tolerance exact)",
        UPDATE,
    ]
    incomparable = compare_metrics("memory", memory, dict(memory, temp_size_in_bytes="n/a"), {})
    assert message(incomparable)[1] == '  memory: temp_bytes: 7856 -> "n/a"'


def ops_moved(**deltas: int) -> list[Finding]:
    before = load("ops")
    after = copy.deepcopy(before)
    for written, delta in deltas.items():
        name = written.replace("_", "-")
        after["opcodes"][name] = after["opcodes"].get(name, 0) + delta
    after["fusion_count"] += 1
    dump = lambda d: json.dumps(d, sort_keys=True, indent=2) + "\n"  # noqa: E731
    return [compare_ops(dump(before), dump(after), before, after, diff_lines=5)]


def test_op_kinds_in_a_headline_notable_first_then_those_that_appear_or_disappear_then_the_largest_changes():
    found = ops_moved(add=-31, multiply=1, custom_call=2, rematted_computation=2, tanh=5, exp=-7)
    assert found[0].detail["new_kinds"] == ["custom-call", "exp", "multiply", "rematted-computation"]
    assert message(found) == [
        "'f' on config cpu1 differs from its snapshots in snapshots/x/",
        # exp disappears and multiply appears: before the 31 adds fewer
        "  op structure: +2 custom-call, +2 rematted-computation, -7 exp, +1 multiply, 2 more op kinds, "
        "fusions 10 -> 11",
        "- ops (f.ops.json): op structure changed: -31 add, +2 custom-call, -7 exp, +1 multiply, "
        "+2 rematted-computation, +5 tanh, fusions 10 -> 11 (-vv shows the diff)",
        UPDATE,
    ]
    four = ops_moved(add=-3, multiply=3, tanh=1, exp=-2)
    assert message(four)[1] == "  op structure: +3 multiply, -2 exp, -3 add, +1 tanh, fusions 10 -> 11"


def test_a_few_short_budget_breaches_are_said_whole_in_the_headline_more_get_details():
    analyses = {"memory": load("memory"), "cost": load("cost")}
    assert message(check_budget({"temp_bytes": 100, "flops": 10}, analyses)) == [
        "'f' on config cpu1 exceeds its budget",
        "  budget: temp_bytes 7.7 KiB exceeds the ceiling 100 B; flops 25810 exceeds the ceiling 10",
        CEILINGS,
    ]
    four = check_budget({"temp_bytes": 100, "flops": 10, "output_bytes": 1, "argument_bytes": 1}, analyses)
    assert message(four) == [
        "'f' on config cpu1 exceeds its budget",
        "  budget: temp_bytes 7.7 KiB exceeds the ceiling 100 B; flops 25810 exceeds the ceiling 10; "
        "output_bytes 192 B exceeds the ceiling 1 B; +1 more",
        "- budget:",
        "    temp_bytes 7.7 KiB exceeds the ceiling 100 B",
        "    flops 25810 exceeds the ceiling 10",
        "    output_bytes 192 B exceeds the ceiling 1 B",
        "    argument_bytes 9.0 KiB exceeds the ceiling 1 B",
        CEILINGS,
    ]


def ir_texts() -> tuple[str, str, str]:
    stages = RNN
    return tuple(
        (stages / f"rnn_decode{suffix}").read_text()
        for suffix in (".stablehlo.mlir", ".jaxpr.txt", ".compiled.hlo.txt")
    )


def test_an_ir_headline_names_the_texts_the_ops_and_the_place_and_the_diffs_share_one_budget():
    mlir, jaxpr, _ = ir_texts()
    edited = mlir.replace("dense<12>", "dense<13>").replace("      %7 = stablehlo.add", "      %7 = stablehlo.subtract")
    where = [None if "constant" in line else f"m.py:{k + 1}" for k, line in enumerate(edited.splitlines())]
    stablehlo = compare_text("stablehlo", mlir, edited, diff_lines=8, locations=lambda: where)
    jx = compare_text(
        "jaxpr", jaxpr, jaxpr.replace("= tanh l", "= sin l"), diff_lines=8, locations=lambda: ["jx.py:1"] * 40
    )
    call = Call("f", "cpu1", "snapshots/x/", {"stablehlo": "f.stablehlo.mlir", "jaxpr": "f.jaxpr.txt"})
    lines = call_message(call, Verdict(failing=(jx, stablehlo)), notes=[], diff_lines=6, full=False).splitlines()
    # the jaxpr's changed line is the user's own (plain text: nothing says otherwise), first in program order
    assert lines[1] == "  IR: jaxpr, stablehlo changed; jaxpr: +1 sin, -1 tanh at jx.py:1 (1 changed)"
    assert lines[2:4] == ["- jaxpr (f.jaxpr.txt): IR drift", "    ops: +1 sin, -1 tanh"]
    assert "    ... 3 more diff lines (see -vv or --stages-report)" in lines
    assert lines[-2].startswith("    ... ") and lines[-2].endswith(" more diff lines (see -vv or --stages-report)")


def test_a_constant_alone_heads_with_its_values_and_removed_ops_with_no_place():
    mlir, _, hlo = ir_texts()
    constant = compare_text(
        "compiled",
        hlo,
        hlo.replace("constant(12)", "constant(13)"),
        diff_lines=5,
        locations=lambda: [f"h.py:{k}" for k in range(200)],
    )
    assert message([constant])[1] == "  IR: compiled changed; compiled: 12 -> 13 at h.py:71"
    gone = "    %1 = stablehlo.reshape %0 : (tensor<1x4x16xf32>) -> tensor<4x16xf32>\n"
    removed = compare_text(
        "stablehlo", mlir, mlir.replace(gone, ""), diff_lines=8, locations=lambda: [f"m.py:{k}" for k in range(100)]
    )
    assert message([removed])[1] == (
        "  IR: stablehlo changed; stablehlo: -1 stablehlo.reshape (removed; the snapshot keeps no source lines)"
    )
    # Kept lines of one user line on both sides: the removal is charged to it.
    enclosed = compare_text("stablehlo", mlir, mlir.replace(gone, ""), diff_lines=8, locations=lambda: ["m.py:1"] * 100)
    assert message([enclosed])[1] == "  IR: stablehlo changed; stablehlo: -1 stablehlo.reshape at m.py:1 (1 removed)"
