"""check.ops at its edges: the ``ops.json`` drift's title and fields, on the committed example snapshots."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pytest_stages.check.ops import ENTRY_CHANGED, compare_ops, op_structure
from pytest_stages.core.records import Change, Pair

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"
RNN = SNAPSHOTS / "rnn_decode" / "cpu1" / "rnn_decode.ops.json"
SHARDED = SNAPSHOTS / "train_step_sharded" / "cpu8" / "train_step_sharded.ops.json"
REDUCE = {"bytes": 32, "op": "all-reduce", "shape": "f32[8]"}


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=2) + "\n"


def drift(before: dict, after: dict, places: tuple[str | None, ...] = ()):
    return compare_ops(dump(before), dump(after), before, after, diff_lines=5, loop_places=places)


def title(before: dict, after: dict, places: tuple[str | None, ...] = ()) -> str:
    return drift(before, after, places).message


def test_a_collective_added_to_a_loop_leads_the_title_with_its_place_and_trips():
    before = json.loads(RNN.read_text())
    after = copy.deepcopy(before)
    after["loops"][0]["collectives"] = [REDUCE]
    after["collectives"] = [REDUCE]
    after["opcodes"]["all-reduce"] = 1
    found = drift(before, after, ("examples/models.py:55 in rnn",))
    assert found.message == (
        "op structure changed: +1 all-reduce f32[8] (32 B) in the while body of examples/models.py:55 in rnn "
        "(x 12 iterations), +1 all-reduce, +1 all-reduce f32[8] (32 B)"
    )
    assert found.change == Change.OPS and found.kind == "text" and found.artifact == "ops"
    assert found.ops == {"all-reduce": 1}
    assert found.moves == (
        "+1 all-reduce f32[8] (32 B) in the while body of examples/models.py:55 in rnn (x 12 iterations)",
        "+1 all-reduce f32[8] (32 B)",
    )
    assert (found.subject, found.before, found.after, found.locations) == ("", None, None, ())


def test_a_collective_moved_into_a_loop_and_one_crossing_slices_come_first():
    before = json.loads(RNN.read_text())
    before["collectives"] = [REDUCE]
    after = copy.deepcopy(before)
    after["loops"][0]["collectives"] = [REDUCE]
    after["networks"] = {"dcn": {"bytes": 384, "collectives": [REDUCE]}}
    assert title(before, after) == (
        "op structure changed: all-reduce f32[8] now crosses slices: +32 B over DCN, "
        "all-reduce moved into the while body of loop 1 (x 12 iterations): f32[8] (32 B)"
    )


def test_fusions_custom_calls_and_entry_shapes_are_named_in_that_order():
    before = json.loads(SHARDED.read_text())
    after = copy.deepcopy(before)
    after["fusion_count"] = 16
    after["custom_calls"] = {"tpu_custom_call": 2}
    before["custom_calls"] = {"tpu_custom_call": 1, "lapack_sgetrf": 1}
    after["entry"]["parameters"] = after["entry"]["parameters"][1:]
    after["opcodes"]["custom-call"] = after["opcodes"].get("custom-call", 0) + 1
    found = drift(before, after)
    assert found.message == (
        "op structure changed: +1 custom-call, fusions 17 -> 16, -1 custom-call lapack_sgetrf, "
        "+1 custom-call tpu_custom_call, entry shapes changed"
    )
    assert (found.subject, found.before, found.after) == (ENTRY_CHANGED, 17, 16)
    assert found.moves == ("-1 custom-call lapack_sgetrf", "+1 custom-call tpu_custom_call")


def test_an_entry_change_alone_and_a_change_with_nothing_to_name():
    before = json.loads(SHARDED.read_text())
    after = copy.deepcopy(before)
    after["entry"]["output"] = "f32[]"
    found = drift(before, after)
    assert (found.message, found.subject, found.before, found.after) == (
        "op structure changed: entry shapes changed",
        "entry shapes changed",
        None,
        None,
    )
    assert found.ops == {} and found.moves == ()
    reordered = compare_ops(dump(before), json.dumps(before) + "\n", before, before, diff_lines=5)
    assert (reordered.message, reordered.subject, reordered.moves) == ("op structure changed", "", ())
    assert drift(before, before) is None


def test_op_structure_takes_the_loop_places_of_the_pair_on_demand():
    before = json.loads(RNN.read_text())
    after = copy.deepcopy(before)
    after["loops"][0]["collectives"] = [REDUCE]
    pair = Pair("ops", dump(before), dump(after), before, after, loop_places=lambda: ["lm.py:3 in step"])
    (found,) = op_structure(pair).findings
    assert found.moves == ("+1 all-reduce f32[8] (32 B) in the while body of lm.py:3 in step (x 12 iterations)",)
    (unplaced,) = op_structure(Pair("ops", dump(before), dump(after), before, after)).findings
    assert unplaced.moves == ("+1 all-reduce f32[8] (32 B) in the while body of loop 1 (x 12 iterations)",)
    assert op_structure(Pair("ops", dump(before), dump(before), before, before)).findings == []
    (cut,) = op_structure(Pair("ops", dump(before), dump(after), before, after, diff_lines=3)).findings
    assert (len(cut.diff), cut.omitted) == (3, len(unplaced.diff) - 3), "the pair's diff_lines cut the diff"


def test_a_side_without_op_structure_reads_as_empty_both_ways():
    """A key a snapshot lacks (an older format, a program with none) reads as nothing of that kind."""
    full = {
        "opcodes": {"add": 2},
        "collectives": [REDUCE],
        "custom_calls": {"tpu_custom_call": 1},
        "entry": {"output": "f32[]", "parameters": []},
    }
    assert title({}, full) == (
        "op structure changed: +2 add, +1 all-reduce f32[8] (32 B), +1 custom-call tpu_custom_call, "
        "entry shapes changed"
    )
    assert title({}, {"opcodes": {"add": 1}}) == "op structure changed: +1 add", "no entry on either side: no change"
    assert title({"opcodes": {"add": 1}}, {}) == "op structure changed: -1 add"
    assert title(full, {}) == (
        "op structure changed: -2 add, -1 all-reduce f32[8] (32 B), -1 custom-call tpu_custom_call, "
        "entry shapes changed"
    )


def test_a_snapshot_from_before_loops_were_recorded_gains_the_loop_collectives():
    old_format = Path(__file__).parent / "data" / "upgrade_0fe98ff" / "snapshots" / "test_upgrade_suite"
    before = json.loads((old_format / "test_wide" / "cpu1" / "wide.ops.json").read_text())
    after = {**before, "loops": [{"trip_count": 2, "collectives": [REDUCE]}]}
    assert "loops" not in before
    assert title(before, after) == (
        "op structure changed: +1 all-reduce f32[8] (32 B) in the while body of loop 1 (x 2 iterations)"
    )


def test_the_diff_is_cut_to_diff_lines_and_says_how_many_it_left_out():
    before = json.loads(SHARDED.read_text())
    after = copy.deepcopy(before)
    after["opcodes"] = {name: count + 1 for name, count in before["opcodes"].items()}
    found = drift(before, after)
    whole = compare_ops(dump(before), dump(after), before, after, diff_lines=1000).diff
    assert whole[:3] == ("--- snapshot", "+++ staged", "@@ -35,28 +35,28 @@")
    assert (found.diff, found.omitted) == (whole[:5], len(whole) - 5)
    assert len(whole) == 3 + 3 + 2 * len(before["opcodes"]) + 1, "headers, 3+1 context lines, each count - and +"
