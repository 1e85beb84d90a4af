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
