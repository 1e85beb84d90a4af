"""check.collectives at its edges: collectives added, moved into loops, across slices, on real HLO texts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pytest_stages.check.collectives import (
    collective_deltas,
    collective_text,
    dcn_changes,
    loop_collective_changes,
    loop_view,
    op_change_summary,
    op_deltas,
)

# A two-slice program: one all-reduce before a 12-trip loop, none inside it (the body passes x on).
LOOP = (Path(__file__).resolve().parent / "data" / "two_slice_loop.hlo.txt").read_text()
IN_BODY = "  %r = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,2},{1,3}}, to_apply=%add"
OUTSIDE = "  %s = f32[8]{0} all-reduce(%a), channel_id=2, replica_groups={{0,1},{2,3}}, to_apply=%add"
# The same program with the all-reduce inside the loop as well, and with it moved there.
BOTH = LOOP.replace("  %r = f32[8]{0} negate(%x)", IN_BODY)
MOVED = BOTH.replace(OUTSIDE, "  %s = f32[8]{0} copy(%a)")


def gather(shape: str, size: int, op: str = "all-gather") -> dict:
    return {"op": op, "shape": shape, "bytes": size}


def test_a_collective_reads_as_its_kind_shape_and_bytes():
    assert collective_text(gather("f32[8,32,64]", 16384)) == "all-gather f32[8,32,64] (16.0 KiB)"
    assert collective_text(gather("f32[2]", 8, "all-reduce")) == "all-reduce f32[2] (8 B)"


def test_collective_deltas_list_only_what_was_added_then_removed_with_counts():
    before = [gather("f32[8]", 32), gather("f32[4]", 16), gather("f32[4]", 16)]
    after = [gather("f32[8]", 32), gather("f32[2]", 8), gather("f32[2]", 8), gather("bf16[8]", 16)]
    # three all-gathers became four: two on other operands (paired with the most alike), one more
    assert collective_deltas(before, after) == [
        "all-gather operands f32[4] -> f32[2] (16 B -> 8 B) x2",
        "+1 all-gather bf16[8] (16 B)",
    ]
    assert collective_deltas(before, before) == []


def test_op_deltas_keep_only_changed_kinds_by_name_and_the_summary_signs_them():
    before, after = Counter(add=20, mul=1, dot=2), Counter(add=2, mul=3, dot=2, exp=1)
    assert op_deltas(before, after) == {"add": -18, "exp": 1, "mul": 2}
    assert list(op_deltas(before, after)) == ["add", "exp", "mul"]
    assert op_change_summary(before, after) == "-18 add, +1 exp, +2 mul"
    assert op_change_summary(before, before) == ""
    assert op_deltas(Counter(), Counter(add=0)) == {}


def networks(*collectives: tuple[str, int], total: int | None = None) -> dict:
    entries = [{"op": "all-reduce", "shape": shape, "bytes": size} for shape, size in collectives]
    dcn = {"collectives": entries, "bytes": sum(size for _, size in collectives) if total is None else total}
    return {"networks": {"dcn": dcn}}


def test_a_collective_newly_crossing_slices_is_named_once_per_new_copy():
    before = networks(("f32[4]", 16))
    after = networks(("f32[4]", 16), ("f32[4]", 16), ("bf16[2048,8192]", 32 << 20))
    assert dcn_changes(before, after) == [
        "all-reduce f32[4] now crosses slices: +16 B over DCN",
        "all-reduce bf16[2048,8192] now crosses slices: +32.0 MiB over DCN",
    ]
    assert dcn_changes({}, networks(("f32[4]", 16))) == ["all-reduce f32[4] now crosses slices: +16 B over DCN"]
    twice = networks(("f32[4]", 16), ("f32[4]", 16))
    assert dcn_changes(twice, twice) == [], "each copy before matches one copy after"


def test_without_a_new_crossing_only_grown_dcn_bytes_are_told():
    before = networks(("f32[4]", 16), total=1 << 20)
    assert dcn_changes(before, networks(("f32[4]", 16), total=3 << 20)) == ["DCN bytes 1.0 MiB -> 3.0 MiB (+2.0 MiB)"]
    assert dcn_changes(before, networks(("f32[4]", 16), total=1 << 20)) == []
    assert dcn_changes(before, networks(("f32[4]", 16), total=1)) == [], "less over DCN is no regression"
    assert dcn_changes(networks(total=4), networks(total=5)) == ["DCN bytes 4 B -> 5 B (+1 B)"], "one byte more"
    unsized = {"networks": {"dcn": {"collectives": []}}}
    assert dcn_changes(unsized, unsized) == [], "no bytes recorded reads as none"
    assert dcn_changes({"networks": {"dcn": {}}}, {"networks": {"dcn": {"bytes": 5}}}) == [
        "DCN bytes 0 B -> 5 B (+5 B)"
    ]
    assert dcn_changes(networks(("f32[4]", 16)), {"networks": {}}) == [], "one slice now: nothing crosses"


def test_loop_view_reads_the_collectives_and_each_loop_of_a_real_hlo_text():
    assert loop_view(BOTH) == {
        "collectives": [
            {"op": "all-reduce", "shape": "f32[8]", "bytes": 32},
            {"op": "all-reduce", "shape": "f32[8]", "bytes": 32},
        ],
        "loops": [
            {
                "trip_count": 12,
                "collectives": [
                    {"op": "all-reduce", "shape": "f32[8]", "bytes": 32, "replica_groups": "{{0,2},{1,3}}"}
                ],
            }
        ],
    }
    assert loop_view(LOOP)["loops"] == [{"trip_count": 12, "collectives": []}]


def test_a_collective_that_left_the_code_outside_for_the_loop_moved_into_it():
    assert loop_collective_changes(loop_view(LOOP), loop_view(MOVED), ["examples/models.py:55 in rnn"]) == [
        "all-reduce moved into the while body of examples/models.py:55 in rnn (x 12 iterations): f32[8] (32 B)"
    ]


def test_a_collective_added_to_a_loop_and_one_taken_out_of_it():
    assert loop_collective_changes(loop_view(LOOP), loop_view(BOTH)) == [
        "+1 all-reduce f32[8] (32 B) in the while body of loop 1 (x 12 iterations)"
    ]
    assert loop_collective_changes(loop_view(BOTH), loop_view(LOOP), [None]) == [
        "-1 all-reduce f32[8] (32 B) out of the while body of loop 1"
    ]
    assert loop_collective_changes(loop_view(BOTH), loop_view(BOTH)) == []


def test_loops_match_by_position_and_a_loop_of_unknown_trips_says_none():
    one = {"collectives": [], "loops": [{"trip_count": None, "collectives": []}]}
    two = {
        "collectives": [gather("f32[2]", 8)],
        "loops": [
            {"trip_count": None, "collectives": [gather("f32[2]", 8)]},
            {"trip_count": 3, "collectives": [gather("f32[4]", 16)]},
        ],
    }
    assert loop_collective_changes(one, two, ["a.py:1 in f"]) == [
        "+1 all-gather f32[2] (8 B) in the while body of a.py:1 in f",
        "+1 all-gather f32[4] (16 B) in the while body of loop 2 (x 3 iterations)",
    ]
    assert loop_collective_changes({"loops": one["loops"]}, {"loops": two["loops"]}) == [
        "+1 all-gather f32[2] (8 B) in the while body of loop 1",
        "+1 all-gather f32[4] (16 B) in the while body of loop 2 (x 3 iterations)",
    ], "without a list of all collectives, none is outside the loops"
    assert loop_collective_changes(two, one) == [
        "-1 all-gather f32[2] (8 B) out of the while body of loop 1",
        "-1 all-gather f32[4] (16 B) out of the while body of loop 2",
    ]
