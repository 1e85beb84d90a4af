"""Layout snapshots across JAX versions: a key one side cannot report is churn, and layout has its own headline.

JAX 0.10's layouts carry ``sub_byte_element_size_in_bits``; JAX 0.8 cannot report it. Data of
both shapes, as each version writes ``layout.json``; pure functions, no JAX.
"""

from __future__ import annotations

import copy

from pytest_stages.check.compare import compare_pair
from pytest_stages.check.decide import Verdict
from pytest_stages.check.message import Call, call_message
from pytest_stages.core.records import Pair
from pytest_stages.ir.normalize import to_json

# layout.json as JAX 0.10.2 writes it, and as JAX 0.8 writes the same program's.
JAX_0_10 = {
    "inputs": {
        "x": {"major_to_minor": [1, 0], "tiling": [], "sub_byte_element_size_in_bits": 0},
        "y": {"major_to_minor": [0], "tiling": [], "sub_byte_element_size_in_bits": 0},
    },
    "outputs": {"output": {"major_to_minor": [1, 0], "tiling": [], "sub_byte_element_size_in_bits": 0}},
}
JAX_0_8 = {
    "inputs": {"x": {"major_to_minor": [1, 0], "tiling": []}, "y": {"major_to_minor": [0], "tiling": []}},
    "outputs": {"output": {"major_to_minor": [1, 0], "tiling": []}},
}


def _compare(before, after):
    return compare_pair(Pair("layout", to_json(before), to_json(after), before, after)).findings


def test_a_key_one_version_cannot_report_is_no_change():
    assert _compare(JAX_0_10, JAX_0_8) == []
    assert _compare(JAX_0_8, JAX_0_10) == []


def test_a_real_layout_change_is_still_found_across_the_versions():
    moved = copy.deepcopy(JAX_0_8)
    moved["inputs"]["x"]["major_to_minor"] = [0, 1]
    findings = _compare(JAX_0_10, moved)
    assert [f.message for f in findings] == ["input x layout (1,0) -> (0,1)"]


def test_a_key_both_sides_report_still_compares():
    changed = copy.deepcopy(JAX_0_10)
    changed["outputs"]["output"]["sub_byte_element_size_in_bits"] = 4
    assert [f.message for f in _compare(JAX_0_10, changed)] == ["output output sub_byte_element_size_in_bits: 0 -> 4"]


def test_layout_findings_have_their_own_headline():
    moved = copy.deepcopy(JAX_0_8)
    moved["inputs"]["x"]["major_to_minor"] = [0, 1]
    message = call_message(
        Call("f", "cpu1", "snapshots/t/f/cpu1/", {"layout": "f.layout.json"}),
        Verdict(failing=tuple(_compare(JAX_0_8, moved))),
        notes=(),
        diff_lines=60,
        full=False,
    )
    assert "\n  layout: input x layout (1,0) -> (0,1)\n" in message
    assert "sharding:" not in message
