"""check.kernels at its edges: grid, block and VMEM moves of a committed kernels.json, as its author reads them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pytest_stages.check.kernel_changes import kernel_findings, kernel_moves
from pytest_stages.core.records import Change, Finding, Pair

SNAPSHOT = (
    Path(__file__).resolve().parent.parent
    / "examples/kernels/snapshots/test_kernels/test_scale_add/v5e-1chip/scale_add.kernels.json"
)
SPECS = json.loads(SNAPSHOT.read_text())
KERNEL = SPECS["kernels"]["scale_add_kernel"]


def findings(before: dict, after: dict):
    dump = lambda d: json.dumps(d, sort_keys=True, indent=2) + "\n"  # noqa: E731
    return kernel_findings(Pair("kernels", dump(before), dump(after), before, after))


def with_kernel(**changes) -> dict:
    specs = copy.deepcopy(SPECS)
    specs["kernels"]["scale_add_kernel"].update(changes)
    return specs


def test_one_block_change_of_every_operand_reads_once_with_the_vmem_estimate():
    blocks = [{**b, "block": [256, 128], "bytes": 131072} for b in KERNEL["blocks"]]
    compared = findings(SPECS, with_kernel(blocks=blocks, grid=[4, 2], vmem_estimate_bytes=786432))
    assert compared.findings == [
        Finding(
            "kernels",
            "kernels",
            "kernel scale_add_kernel: grid (8, 2) -> (4, 2); block (128, 128) -> (256, 128); "
            "VMEM est. 384.0 KiB -> 768.0 KiB",
            subject="scale_add_kernel",
            change=Change.FIGURE,
            before=393216,
            after=786432,
        )
    ]
    assert compared.deltas == {"kernel scale_add_kernel vmem": [393216, 786432]}


def test_operands_whose_blocks_differ_are_named_each_and_a_lost_operand_counted():
    blocks = copy.deepcopy(KERNEL["blocks"])
    blocks[0]["block"] = [64, 128]
    blocks[2]["block"] = [128, 64]
    assert kernel_moves(KERNEL, {**KERNEL, "blocks": blocks}) == [
        "block args[0] (128, 128) -> (64, 128)",
        "block outputs (128, 128) -> (128, 64)",
    ]
    assert kernel_moves(KERNEL, {**KERNEL, "blocks": KERNEL["blocks"][:2], "grid": [16]}) == [
        "grid (8, 2) -> (16,)",
        "blocks 3 -> 2",
    ]
    assert kernel_moves(KERNEL, KERNEL) == []


def test_a_gpu_kernel_has_no_vmem_estimate_to_move():
    gpu = {**KERNEL, "vmem_estimate_bytes": None}
    assert kernel_moves(KERNEL, gpu) == ["VMEM est. 384.0 KiB -> none"]
    assert kernel_moves(gpu, KERNEL) == ["VMEM est. none -> 384.0 KiB"]
    compared = findings(with_kernel(vmem_estimate_bytes=None), with_kernel(vmem_estimate_bytes=None, grid=[1]))
    assert [(f.message, f.change, f.before, f.after) for f in compared.findings] == [
        ("kernel scale_add_kernel: grid (8, 2) -> (1,)", Change.OTHER, None, None)
    ]
    assert compared.deltas == {}


def test_a_kernel_added_or_removed_is_one_finding_each_and_other_fields_are_paths():
    renamed = copy.deepcopy(SPECS)
    renamed["kernels"]["scale_add_v2"] = renamed["kernels"].pop("scale_add_kernel")
    assert [(f.kind, f.artifact, f.message, f.subject) for f in findings(SPECS, renamed).findings] == [
        ("kernels", "kernels", "kernel scale_add_kernel removed", "scale_add_kernel"),
        ("kernels", "kernels", "kernel scale_add_v2 added", "scale_add_v2"),
    ]
    semantics = findings(SPECS, with_kernel(dimension_semantics=["parallel", "arbitrary"]))
    assert len(semantics.findings) == 1 and "dimension_semantics" in semantics.findings[0].message
    assert semantics.deltas == {}
    block_and_map = copy.deepcopy(KERNEL["blocks"])
    block_and_map[1]["block"] = [64, 64]
    block_and_map[1]["index_map"] = "{ lambda ; a:i32[] b:i32[]. let in (b, a) }"
    both = findings(SPECS, with_kernel(blocks=block_and_map))
    assert both.findings[0].message == "kernel scale_add_kernel: block (128, 128) -> (64, 64)"
    assert len(both.findings) == 2
    assert both.findings[1].message == (
        "['kernels']['scale_add_kernel']['blocks'][1]['index_map']: "
        '"{ lambda ; a:i32[] b:i32[]. let in (a, b) }" -> "{ lambda ; a:i32[] b:i32[]. let in (b, a) }"'
    )
    assert "bytes" not in both.findings[1].message, "a block's bytes move with its shape, named once"
    assert findings(SPECS, SPECS).findings == []


def test_a_kernel_removed_before_a_kept_one_leaves_the_kept_ones_changes_named():
    before = copy.deepcopy(SPECS)
    before["kernels"] = {"a_gone": KERNEL, "scale_add_kernel": KERNEL}
    after = with_kernel(dimension_semantics=["parallel", "arbitrary"])
    assert [f.message for f in findings(before, after).findings] == [
        "kernel a_gone removed",
        "['kernels']['scale_add_kernel']['dimension_semantics'][1]: \"parallel\" -> \"arbitrary\"",
    ]


def test_a_side_without_kernels_has_none():
    assert [f.message for f in findings({}, SPECS).findings][:1] == ["kernel scale_add_kernel added"]
    assert [f.message for f in findings(SPECS, {}).findings][:1] == ["kernel scale_add_kernel removed"]
