"""check.placement at its edges: a field one side's JAX cannot report, and the family entry, on committed snapshots."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pytest_stages.check.placement import compare_placement, placement
from pytest_stages.core.records import Pair

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"
LAYOUT = json.loads((SNAPSHOTS / "rnn_decode/cpu1/rnn_decode.layout.json").read_text())
SHARDING = json.loads((SNAPSHOTS / "train_step_sharded/cpu8/train_step_sharded.sharding.json").read_text())


def test_a_layout_field_only_one_sides_jax_reports_is_unknown_not_a_change():
    older = copy.deepcopy(LAYOUT)
    del older["inputs"]["params['wh']"]["sub_byte_element_size_in_bits"]
    assert compare_placement("layout", older, LAYOUT) == []
    assert compare_placement("layout", LAYOUT, older) == []
    moved = copy.deepcopy(older)
    moved["inputs"]["params['wh']"]["major_to_minor"] = [1, 0]
    assert [f.message for f in compare_placement("layout", LAYOUT, moved)] == [
        compare_placement("layout", older, moved)[0].message
    ]


def test_the_placement_family_compares_the_pairs_data():
    after = copy.deepcopy(SHARDING)
    leaf = next(iter(after["inputs"]))
    after["inputs"][leaf]["donated"] = False
    text = json.dumps(SHARDING)
    compared = placement(Pair("sharding", text, json.dumps(after), SHARDING, after))
    assert compared.findings == compare_placement("sharding", SHARDING, after)
    assert compared.findings and compared.deltas == {}


def test_placement_changes_name_the_leaf():
    def sharding(spec):
        return {"kind": "NamedSharding", "mesh": {"data": 4, "model": 2}, "spec": spec, "memory_kind": "device"}

    before = {
        "inputs": {"x": {"sharding": sharding("P('data', None)"), "donated": True, "aliased_to": "output"}},
        "outputs": {"output": {"sharding": sharding("P('data')")}},
        "collectives": [],
    }
    after = {
        "inputs": {"x": {"sharding": sharding("P(None, 'model')"), "donated": False, "aliased_to": None}},
        "outputs": {"output": {"sharding": sharding("P('data')")}},
        "collectives": [{"op": "all-gather", "shape": "f32[64,512]", "bytes": 131072}],
    }
    messages = sorted(f.message for f in compare_placement("sharding", before, after))
    assert messages == [
        "collectives: +1 all-gather f32[64,512] (128.0 KiB)",
        "input x no longer donated (XLA had reused its buffer)",
        "input x: P('data', None) over mesh(data=4,model=2) -> P(None, 'model') over mesh(data=4,model=2)",
    ]
    layout_before = {"inputs": {}, "outputs": {"output": {"major_to_minor": [1, 0], "tiling": []}}}
    layout_after = {"inputs": {}, "outputs": {"output": {"major_to_minor": [0, 1], "tiling": []}}}
    (finding,) = compare_placement("layout", layout_before, layout_after)
    assert finding.message == "output output layout (1,0) -> (0,1)"
