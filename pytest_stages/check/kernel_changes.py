"""Kernel findings (``kernels.json``): a kernel's grid, blocks and VMEM estimate moved, as its author reads them.

``kernel add_kernel: block (128, 128) -> (256, 128); VMEM est. 384.0 KiB -> 768.0 KiB``; anything else that
changed is one finding per changed path, as for any JSON artifact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_stages.analyse.artifacts import check_kind
from pytest_stages.check.changed_paths import structure
from pytest_stages.core.records import Change, Compared, Finding, Pair
from pytest_stages.core.units import format_bytes

HEADLINED = ("grid", "blocks", "vmem_estimate_bytes")


def kernel_findings(pair: Pair) -> Compared:
    """The kernel family: grid, block and VMEM moves per kernel, then the other changed paths."""
    before, after = pair.before.get("kernels", {}), pair.after.get("kernels", {})
    kind = check_kind(pair.artifact)
    findings = []
    for name in sorted(set(before) | set(after)):
        if name not in after or name not in before:
            message = f"kernel {name} {'removed' if name not in after else 'added'}"
            findings.append(Finding(kind, pair.artifact, message, subject=name))
            continue
        moves = kernel_moves(before[name], after[name])
        if moves:
            old, new = before[name].get("vmem_estimate_bytes"), after[name].get("vmem_estimate_bytes")
            fields: dict[str, Any] = {"change": Change.FIGURE, "before": old, "after": new} if old != new else {}
            findings.append(Finding(kind, pair.artifact, f"kernel {name}: {'; '.join(moves)}", subject=name, **fields))
    both = set(before) & set(after)
    rest = structure(
        Pair(pair.artifact, pair.expected, pair.actual, _without(pair.before, both), _without(pair.after, both))
    )
    deltas = {
        f"kernel {name} vmem": [before[name]["vmem_estimate_bytes"], after[name]["vmem_estimate_bytes"]]
        for name in sorted(both)
        if _vmem(before[name]) is not None
        and _vmem(after[name]) is not None
        and _vmem(before[name]) != _vmem(after[name])
    }
    return Compared(findings + rest.findings, deltas)


def kernel_moves(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """``grid (4,) -> (2,)``, ``block (128, 128) -> (256, 128)``, ``VMEM est. 384.0 KiB -> 768.0 KiB``."""
    moves = []
    if old["grid"] != new["grid"]:
        moves.append(f"grid {_shape(old['grid'])} -> {_shape(new['grid'])}")
    changed = [
        (b0["operand"], _shape(b0["block"]), _shape(b1["block"]))
        for b0, b1 in zip(old["blocks"], new["blocks"], strict=False)
        if b0["block"] != b1["block"]
    ]
    if len({(was, now) for _, was, now in changed}) == 1:
        moves.append(f"block {changed[0][1]} -> {changed[0][2]}")
    else:
        moves += [f"block {operand} {was} -> {now}" for operand, was, now in changed]
    if len(old["blocks"]) != len(new["blocks"]):
        moves.append(f"blocks {len(old['blocks'])} -> {len(new['blocks'])}")
    if _vmem(old) != _vmem(new):
        was, now = (format_bytes(k["vmem_estimate_bytes"]) if _vmem(k) is not None else "none" for k in (old, new))
        moves.append(f"VMEM est. {was} -> {now}")
    return moves


def _vmem(kernel: Mapping[str, Any]) -> int | None:
    """A kernel's VMEM estimate (None for a GPU kernel: no VMEM there)."""
    value = kernel.get("vmem_estimate_bytes")
    return None if value is None else int(value)


def _shape(dims: Sequence[object]) -> str:
    """``[128, None]`` -> ``(128, None)``; one dimension keeps its comma, as Python writes it: ``(4,)``."""
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def _without(specs: Mapping[str, Any], names: set[str]) -> dict[str, object]:
    """The specs of kernels ``names`` less what :func:`kernel_moves` names (grid, block shapes, VMEM)."""
    kernels = {}
    for name, kernel in specs.get("kernels", {}).items():
        if name not in names:
            continue
        kept = {k: v for k, v in kernel.items() if k not in HEADLINED}
        kept["blocks"] = [{k: v for k, v in b.items() if k not in ("block", "bytes")} for b in kernel["blocks"]]
        kernels[name] = kept
    return {**specs, "kernels": kernels}
