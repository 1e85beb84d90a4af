"""check.drift at its edges: constants, source lines and removed lines of an IR drift, on a committed StableHLO text."""

from __future__ import annotations

from pathlib import Path

from pytest_stages.check.drift import (
    changed_attributes,
    compare_text,
    constant_text,
    ir_drift,
    removed_line,
    summary_lines,
)
from pytest_stages.check.message import details
from pytest_stages.core.records import Change, Pair

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
    # line 29 only reads the new %8: downstream of the edit, named in the details, never in a headline
    assert found.locations == ("m.py:11", "m.py:19 (1 added)")
    assert found.ops == {"stablehlo.multiply": 1, "stablehlo.reshape": -1}
    assert (len(found.diff), found.omitted) == (8, 14)  # line 29 reads the new %8 but reads the same: context
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
    assert found.detail["sources"] == [("m.py:19", {"added": 1}), ("m.py:29", {"changed": 1})]
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


def test_a_changed_constant_shows_old_new_lines_and_place_and_removed_lines_their_count():
    assert constant_text({"old": "1e-06", "new": "1e-12", "lines": 5, "at": "lm.py:30 in forward"}) == (
        "1e-06 -> 1e-12 (5 lines) at lm.py:30 in forward"
    )
    assert constant_text({"old": "2", "new": "3", "lines": 1, "at": None}) == "2 -> 3"
    assert constant_text({"old": "2", "new": "3", "lines": 2, "at": ""}) == "2 -> 3 (2 lines)"
    assert removed_line(3) == "removed: 3 line(s), whose source lines the snapshot does not keep"


HLO = (
    Path(__file__).resolve().parent.parent / "snapshots/stages/rnn_decode/cpu1/rnn_decode.compiled.hlo.txt"
).read_text()
JAXPR = (Path(__file__).resolve().parent.parent / "snapshots/stages/rnn_decode/cpu1/rnn_decode.jaxpr.txt").read_text()


def test_at_most_three_changed_constants_are_named_each_with_its_lines_and_first_users_place():
    new = (
        HLO.replace("s32[] constant(0)", "s32[] constant(7)")
        .replace("s32[] constant(1)", "s32[] constant(2)")
        .replace("constant(12)", "constant(13)")
        .replace("constant(-inf)", "constant(-1e+30)")
    )
    where = [None if "constant(" in line else f"h.py:{k + 1}" for k, line in enumerate(new.splitlines())]
    found = compare_text("compiled", HLO, new, diff_lines=5, locations=lambda: where)
    assert found.detail["constants"] == [
        {"old": "0", "new": "7", "lines": 4, "at": "h.py:21"},
        {"old": "1", "new": "2", "lines": 1, "at": "h.py:56"},
        {"old": "12", "new": "13", "lines": 1, "at": "h.py:74"},
    ]
    assert found.detail["summary"] == ["constants: 0 -> 7 (4 lines) at h.py:21; 1 -> 2 at h.py:56; 12 -> 13 at h.py:74"]
    assert (found.subject, found.before, found.after) == ("constant", "0", "7")
    assert found.locations == ("h.py:21", "h.py:56", "h.py:74")
    assert found.ops == {} and found.moves == ()


def test_a_constant_whose_users_have_no_location_is_placed_nowhere():
    new = HLO.replace("constant(12)", "constant(13)")
    line = next(k for k, text in enumerate(new.splitlines()) if "constant(13)" in text)
    short = [f"h.py:{k + 1}" for k in range(line)]  # locations of the lines before the constant only
    found = compare_text("compiled", HLO, new, diff_lines=5, locations=lambda: short)
    assert found.detail["constants"] == [{"old": "12", "new": "13", "lines": 1, "at": None}]


def test_a_jaxpr_counts_its_primitives_and_its_inline_literals():
    found = compare_text(
        "jaxpr", JAXPR, JAXPR.replace("= tanh l", "= sin l").replace("0.0:f32[]", "1.0:f32[]"), diff_lines=5
    )
    assert found.detail["summary"] == ["ops: +1 sin, -1 tanh", "constants: 0 -> 1"]
    assert found.ops == {"sin": 1, "tanh": -1}


def test_a_collective_leaving_a_loop_of_compiled_hlo_names_the_loop():
    """The two-slice loop of test_collectives.py, with an all-reduce in its body (``both``) and without."""
    loop = (Path(__file__).resolve().parent / "data" / "two_slice_loop.hlo.txt").read_text()
    both = loop.replace(
        "  %r = f32[8]{0} negate(%x)",
        "  %r = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,2},{1,3}}, to_apply=%add",
    )
    found = compare_text("compiled", both, loop, diff_lines=5)
    assert found.detail["summary"] == [
        "ops: -1 all-reduce, +1 negate",
        "collectives: -1 all-reduce f32[8] (32 B)",
        "loops: -1 all-reduce f32[8] (32 B) out of the while body of loop 1",
    ]
    assert found.moves == tuple(found.detail["summary"][1:])
    added = compare_text("compiled", loop, both, diff_lines=5)
    assert added.detail["summary"][1:] == [
        "collectives: +1 all-reduce f32[8] (32 B)",
        "loops: +1 all-reduce f32[8] (32 B) in the while body of loop 1 (x 12 iterations)",
    ]
    unlooped = compare_text(
        "compiled", both.replace(" while(", " call("), loop.replace(" while(", " call("), diff_lines=5
    )
    assert unlooped.detail["summary"][1:] == ["collectives: -1 all-reduce f32[8] (32 B)"], "no loop, no loop line"


def test_two_values_merged_under_one_name_is_a_drift_of_names_alone():
    old = (
        "func.func @main(%a: tensor<f32>, %b: tensor<f32>) {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n"
        "  %1 = stablehlo.add %a, %b : tensor<f32>\n  return %0, %1 : tensor<f32>\n}\n"
    )
    found = compare_text("stablehlo", old, old.replace("%1", "%0"), diff_lines=5)
    assert found.detail["summary"] == [
        "only names changed, but not one-to-one: two values now share a name, or one has two"
    ]


def test_the_report_diff_is_marked_truncated_beyond_400_rows():
    lines = MLIR.splitlines()
    at = next(k for k, line in enumerate(lines) if line.strip().startswith("%3 = call @argmax"))

    def added(n: int) -> str:
        extra = [f"    %x{j} = stablehlo.add %arg0, %arg0 : tensor<32x32xf32>" for j in range(n)]
        return "\n".join(lines[:at] + extra + lines[at:]) + "\n"

    assert compare_text("stablehlo", MLIR, added(394), diff_lines=5).detail["truncated"] is False  # 394 + 6 context
    assert compare_text("stablehlo", MLIR, added(395), diff_lines=5).detail["truncated"] is True


def test_a_constant_removed_then_added_among_new_lines_is_still_a_changed_value():
    head = "HloModule m\n\nENTRY %main (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
    old = head + (
        "  %c = f32[] constant(1)\n  %d = f32[] multiply(%a, %c)\n  %e = f32[] add(%d, %a)\n"
        "  ROOT %r = f32[] exponential(%e)\n}\n"
    )
    new = head + (
        "  %c = f32[] constant(2)\n  %x = f32[] negate(%a)\n  %y = f32[] tanh(%x)\n"
        "  %d = f32[] multiply(%y, %c)\n  ROOT %r = f32[] exponential(%d)\n}\n"
    )
    found = compare_text("compiled", old, new, diff_lines=9)
    assert found.detail["summary"] == ["ops: -1 add, +1 negate, +1 tanh", "constants: 1 -> 2"]
    assert found.detail["constants"] == [{"old": "1", "new": "2", "lines": 1, "at": None}]


def loop_text() -> str:
    return (Path(__file__).resolve().parent / "data" / "two_slice_loop.hlo.txt").read_text()


def test_a_collective_added_outside_the_loop_says_nothing_of_loops():
    outside = "  %s = f32[8]{0} all-reduce(%a), channel_id=2, replica_groups={{0,1},{2,3}}, to_apply=%add"
    again = outside + "\n" + outside.replace("%s = ", "%s2 = ").replace("(%a)", "(%s)").replace("=2,", "=4,")
    found = compare_text("compiled", loop_text(), loop_text().replace(outside, again), diff_lines=5)
    assert found.detail["summary"] == ["ops: +1 all-reduce", "collectives: +1 all-reduce f32[8] (32 B)"]


def test_two_collectives_added_to_a_loop_are_one_loops_line():
    body = "  %r = f32[8]{0} negate(%x)"
    two = (
        "  %r = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,2},{1,3}}, to_apply=%add\n"
        "  %g = f32[16]{0} all-gather(%x), channel_id=3, replica_groups={{0,2},{1,3}}, dimensions={0}"
    )
    where = [f"m.py:{k}" for k in range(60)]
    found = compare_text("compiled", loop_text(), loop_text().replace(body, two), diff_lines=5, locations=lambda: where)
    assert found.detail["summary"][2] == (
        "loops: +1 all-gather f32[16] (64 B) in the while body of loop 1 (x 12 iterations), "
        "+1 all-reduce f32[8] (32 B) in the while body of loop 1 (x 12 iterations)"
    )
    rows = [row for hunk in found.detail["hunks"] for row in hunk]
    assert ("+", None, "", 13, two.splitlines()[1], "m.py:12") in rows, "rows number lines from 1, locations from 0"


def test_a_fusion_changed_in_place_moves_no_fusion_total():
    line = next(text for text in HLO.splitlines() if " fusion(" in text and "kind=kLoop" in text)
    found = compare_text("compiled", HLO, HLO.replace(line, line.replace("kind=kLoop", "kind=kInput")), diff_lines=5)
    # no fusion total, no op count: the attribute that changed is what the summary says
    kind = "attributes: kind kLoop -> kInput"
    assert (found.detail["summary"], found.moves, found.ops) == ([kind], (kind,), {})


def test_a_jaxpr_equation_that_now_reads_a_new_value_is_paired_with_its_old_self():
    new = JAXPR.replace(
        "          l:f32[4,32] = add j k\n", "          z:f32[4,32] = neg k\n          l:f32[4,32] = add j z\n"
    )
    found = compare_text("jaxpr", JAXPR, new, diff_lines=20)
    assert found.detail["summary"] == ["ops: +1 neg"]
    assert [row[0] for hunk in found.detail["hunks"] for row in hunk if row[0] != "="] == ["+", "~"]


def test_text_drift_summarizes_ops_and_bounds_the_diff():
    before = "".join(f"  %a.{i} = f32[4]{{0}} add(%p, %q)\n" for i in range(50))
    after = before.replace("add(", "multiply(")
    finding = compare_text("compiled", before, after, diff_lines=10)
    lines = details(finding)
    assert lines[0] == "IR drift"
    assert lines[1] == "    ops: -50 add, +50 multiply"
    assert lines[-1].startswith("    ... ") and lines[-1].endswith(" more diff lines")
    fused = before + "  %f = f32[4]{0} fusion(%p), kind=kLoop, calls=%c\n"
    gathered = fused + "  %g = f32[64,512]{1,0} all-gather(%p), dimensions={0}\n"
    structure = details(compare_text("compiled", before, gathered, diff_lines=10))
    assert structure[1:4] == [
        "    ops: +1 all-gather, +1 fusion",
        "    fusions: 0 -> 1",
        "    collectives: +1 all-gather f32[64,512] (128.0 KiB)",
    ]
    assert len(lines) == 2 + 10 + 1
    assert compare_text("compiled", before, before, diff_lines=10) is None


def test_a_changed_definition_is_no_attribute():
    """``%param_0.3999 = f32[...] parameter(0)`` defines a name: a compiled drift that only moved such lines (the
    v5e reorder of gm-up-before-gate) read ``compiled: param_0.3999 f32 -> unset`` as a changed attribute."""
    lines = [text for text in HLO.splitlines() if " parameter(" in text]
    assert lines
    assert changed_attributes(("\n".join(lines), "")) == []
    stablehlo = "%cst_2 = stablehlo.constant dense<1.0> : tensor<f32>"
    assert changed_attributes((stablehlo, "")) == []
    jaxpr = "    c:f32[4,4] = dot_general[\n      precision={}\n    ] a b"
    assert changed_attributes((jaxpr.format("None"), jaxpr.format("(Precision.HIGHEST, Precision.HIGHEST)"))) == [
        "attributes: precision None -> (Precision.HIGHEST, Precision.HIGHEST)"
    ]
