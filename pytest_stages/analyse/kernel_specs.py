"""Kernel findings: a staged program's Pallas kernels in, their grid, blocks, scratch and VMEM estimate out.

Read from the jaxpr's ``pallas_call`` equations (``grid_mapping``, ``compiler_params``,
``cost_estimate``, ``input_output_aliases``), where Pallas states what the kernel author chose,
on every platform alike (TPU and GPU, compile-only or attached). The VMEM figure is an estimate
with its rule (:data:`VMEM_RULE`), not what Mosaic allocates. :func:`uncosted_calls` finds the
kernel custom calls of a StableHLO text that carry no cost estimate: XLA counts nothing inside them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from pytest_stages import jax_compat
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.ir.kernel_payloads import kernels

SOURCE = "the jaxpr's pallas_call equations (grid_mapping, compiler_params, cost_estimate)"
DOUBLE_BUFFERED = 2
VMEM_RULE = (
    "estimate: each blocked operand in VMEM counts its block's bytes x its buffers (2: Pallas double-buffers "
    "them across grid steps, or pl.Buffered(n)), plus the VMEM scratch buffers once; operands left in "
    "HBM/ANY or SMEM count 0; Mosaic's padding to its tiling and internal scratch are not counted"
)
# Kernel custom calls in StableHLO: Mosaic TPU, Triton (Pallas GPU) and Mosaic GPU.
KERNEL_CALL = re.compile(r"stablehlo\.custom_call @(tpu_custom_call|__gpu\$xla\.gpu\.triton|mosaic_gpu\w*)\(.*$", re.M)
_KERNEL_NAME = lazy_pattern(r'\b(?:kernel_)?name = "([^"]*)"')
NOT_IN_VMEM = ("any", "hbm", "smem", "semaphore")


def kernel_specs(jaxpr: object, device_kind: str | None = None) -> dict[str, object] | None:
    """``kernels.json``: an entry per ``pallas_call`` by kernel name, the rule, VMEM's size (None: no kernel)."""
    if not jax_compat.pallas_loaded():
        return None
    found: dict[str, Any] = {}
    for eqn in _pallas_calls(jaxpr.jaxpr if hasattr(jaxpr, "jaxpr") else jaxpr):
        entry = _kernel(eqn.params, gpu=_on_gpu(eqn.params, device_kind))
        name, count = entry.pop("name"), 1
        key = name
        while key in found and found[key] != entry:
            count += 1
            key = f"{name}#{count}"
        found[key] = entry
    if not found:
        return None
    specs: dict[str, object] = {"kernels": found, "source": SOURCE}
    if any("vmem_estimate_bytes" in kernel for kernel in found.values()):
        specs["vmem_estimate_rule"] = VMEM_RULE
    capacity = jax_compat.tpu_vmem_bytes(device_kind) if device_kind else None
    if capacity is not None:
        specs["vmem_capacity"] = {
            "bytes": capacity,
            "source": f"JAX's TPU table (jax._src.pallas.mosaic.tpu_info) for {device_kind!r}, per TensorCore",
        }
    return specs


def _pallas_calls(jaxpr: Any) -> Iterator[Any]:
    """Every ``pallas_call`` equation, also inside nested jaxprs (jit, scan, cond, custom_vjp), in order."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "pallas_call":
            yield eqn
            continue
        for sub in jax_compat.jaxprs_in_params(eqn.params):
            yield from _pallas_calls(sub)


def _on_gpu(params: Mapping[str, object], device_kind: str | None) -> bool:
    """A Pallas GPU kernel (Mosaic GPU, Triton): staged for a GPU, or given GPU compiler parameters."""
    module = type(params.get("compiler_params")).__module__
    gpu_device = device_kind is not None and not device_kind.startswith("TPU") and device_kind != "cpu"
    return gpu_device or "gpu" in module or "triton" in module


def _kernel(params: dict[str, Any], *, gpu: bool) -> dict[str, Any]:
    """One kernel's entry; ``name`` is popped by the caller to key it. A GPU kernel has no VMEM: no estimate."""
    mapping = params["grid_mapping"]
    debug = getattr(params.get("jaxpr"), "debug_info", None)
    blocks = [_block(bm) for bm in mapping.block_mappings]
    scratch = [_scratch(aval) for aval in mapping.scratch_avals]
    compiler = params.get("compiler_params")
    estimate = params.get("cost_estimate")
    entry: dict[str, object] = {
        "name": getattr(debug, "func_name", None) or "kernel",
        "grid": [_plain(g) for g in mapping.grid],
        "blocks": blocks,
        "scratch": scratch,
        "dimension_semantics": _semantics(compiler),
        "input_output_aliases": {f"args[{i}]": f"outputs[{o}]" for i, o in params.get("input_output_aliases", ())},
        "cost_estimate": None if estimate is None else _estimate(estimate),
        "vmem_estimate_bytes": _vmem_bytes(blocks, scratch),
    }
    limit = getattr(compiler, "vmem_limit_bytes", None)
    if limit is not None:
        entry["vmem_limit_bytes"] = int(limit)
    if gpu:
        del entry["vmem_estimate_bytes"]
        for buffer in (*blocks, *scratch):
            del buffer["in_vmem"]
    return entry


def _semantics(compiler: object) -> list[str] | None:
    """The grid's dimension semantics as words (``parallel``, ``arbitrary``); None where the kernel gives none."""
    semantics = getattr(compiler, "dimension_semantics", None) if compiler is not None else None
    return None if semantics is None else [str(s).rsplit(".", 1)[-1].lower() for s in semantics]


def _vmem_bytes(blocks: list[dict[str, Any]], scratch: list[dict[str, Any]]) -> int:
    """The kernel's VMEM estimate: each block in VMEM times its buffers, plus the scratch in VMEM."""
    vmem = sum(b["bytes"] * b["buffers"] for b in blocks if b["in_vmem"]) + sum(
        s["bytes"] for s in scratch if s["in_vmem"]
    )
    return int(vmem)


def _block(mapping: Any) -> dict[str, object]:
    """A block: the operand, its whole array, the block shape (None: a squeezed dim), index map, memory space."""
    ref = mapping.transformed_block_aval
    inner = getattr(ref, "inner_aval", ref)
    space = str(getattr(ref, "memory_space", "default")).lower()
    mode = getattr(mapping, "pipeline_mode", None)
    buffers = getattr(mode, "buffer_count", None) or DOUBLE_BUFFERED
    return {
        "operand": str(mapping.origin),
        "array": _aval(mapping.array_aval),
        "block": [_dim(d) for d in mapping.block_shape],
        "index_map": " ".join(str(mapping.index_map_jaxpr).split()),
        "memory_space": space,
        "buffers": int(buffers),
        "bytes": _bytes(inner),
        "in_vmem": not space.startswith(NOT_IN_VMEM),
    }


def _scratch(aval: object) -> dict[str, object]:
    inner = getattr(aval, "inner_aval", aval)
    space = str(getattr(aval, "memory_space", "vmem")).lower()
    return {
        "shape": _aval(inner),
        "memory_space": space,
        "bytes": _bytes(inner),
        "in_vmem": not space.startswith(NOT_IN_VMEM),
    }


def _dim(dim: object) -> int | None:
    """A block dimension's size: ``Blocked(128)`` -> 128, a squeezed one (``None``, ``Squeezed()``) -> None."""
    size = dim if isinstance(dim, int) else getattr(dim, "block_size", None)
    return None if size is None else int(size)


def _aval(aval: object) -> str:
    """``f32[512,128]`` (a semaphore or other non-array type: its text)."""
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    if shape is None or dtype is None:
        return str(aval)
    return f"{getattr(dtype, 'name', dtype)}[{','.join(map(str, shape))}]"


def _bytes(aval: object) -> int:
    """Bytes of one buffer of ``aval`` (0 for what has no array shape: semaphores)."""
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    itemsize = getattr(dtype, "itemsize", None)
    if shape is None or not isinstance(itemsize, int):
        return 0
    return int(math.prod(int(d) for d in shape) * itemsize)


def _estimate(estimate: object) -> dict[str, object]:
    """``pl.CostEstimate`` as figures: flops, transcendentals, bytes accessed."""
    fields = ("flops", "transcendentals", "bytes_accessed", "remote_bytes_transferred")
    return {f: int(getattr(estimate, f)) for f in fields if getattr(estimate, f, None) is not None}


def _plain(value: object) -> object:
    return int(value) if isinstance(value, int) else str(value)


def uncosted_calls(stablehlo: str) -> list[str]:
    """The kernel custom calls of a StableHLO text without a cost estimate, by kernel name, in order.

    The name is the call's ``kernel_name``, else its decoded kernel's, else its target's.
    """
    return [_call_name(match) for match in KERNEL_CALL.finditer(stablehlo) if "cost_estimate" not in match[0]]


def _call_name(call: re.Match[str]) -> str:
    named = _KERNEL_NAME.search(call[0])
    if named:
        return named[1]
    decoded = kernels(call[0])
    return decoded[0].name if decoded and not decoded[0].error else call[1]
