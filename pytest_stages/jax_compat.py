"""Every private or unstable JAX interface pytest-stages relies on, in one place, each with how it breaks.

The supported range is jax/jaxlib 0.8 to 0.12 (``pyproject.toml``, docs/dependencies.md); CI runs
the tests at the pins and both ends (``.ci/run``). Each item below says what JAX could change, what the user
would then see, and which test notices it first. Everything else the plugin calls is JAX's
public API (``jax.jit(...).trace/lower/compile``, ``Compiled.cost_analysis``/``memory_analysis``,
``jax.monitoring``'s listener registration, ``jax.config`` options by name). What it imports is
bound below, imported at its first use (core/lazy.py), so importing this module costs no JAX import.

Not moved here yet: ``jax.experimental.topologies.get_topology_desc`` (compile-only TPU/GPU
devices, ``stage/topology.py``): an experimental API; a change fails ``tests/test_topology.py``.
"""

from __future__ import annotations

import hashlib
import sys
from typing import TYPE_CHECKING, Any

from pytest_stages.core.lazy import lazy_module, lazy_pattern

if TYPE_CHECKING:
    import jax
    import numpy as np
    from jax._src import cache_key, lib
    from jax._src import core as private_core
    from jax._src import monitoring as private_monitoring
    from jax._src.interpreters import mlir, pxla
    from jax._src.lib import triton
    from jax._src.pallas.mosaic import tpu_info
    from jax.extend import core as extend_core
    from jaxlib import _jax
    from jaxlib.mlir import ir, passmanager
else:
    jax = lazy_module("jax")
    np = lazy_module("numpy")
    cache_key = lazy_module("jax._src.cache_key")
    lib = lazy_module("jax._src.lib")
    private_core = lazy_module("jax._src.core")
    private_monitoring = lazy_module("jax._src.monitoring")
    mlir = lazy_module("jax._src.interpreters.mlir")
    pxla = lazy_module("jax._src.interpreters.pxla")
    triton = lazy_module("jax._src.lib.triton")
    tpu_info = lazy_module("jax._src.pallas.mosaic.tpu_info")
    extend_core = lazy_module("jax.extend.core")
    _jax = lazy_module("jaxlib._jax")
    ir = lazy_module("jaxlib.mlir.ir")
    passmanager = lazy_module("jaxlib.mlir.passmanager")

# What crosses into JAX's private modules below (``Lowered._lowering``, jax._src.monitoring, the dialect
# registrations, device lists) stays untyped: those classes are private and change within the supported range.

# --- 1. Monitoring event names (jax/_src/dispatch.py, jax/_src/compiler.py) -----------------------
# The registration is public, the names are not documented. Renamed, the compile counts of
# ``stage_compiles`` read 0 and the cache line vanishes: tests/test_stage_compiles.py and
# tests/test_disk_cache.py fail on the counts.
TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_REQUEST_EVENT = "/jax/compilation_cache/compile_requests_use_cache"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"


def register_listeners(event: Any, duration: Any) -> None:
    """Register an event listener and an event-duration listener with ``jax.monitoring`` (public)."""

    jax.monitoring.register_event_listener(event)
    jax.monitoring.register_event_duration_secs_listener(duration)


def unregister_listeners(event: object, duration: object) -> None:
    """Remove the listeners :func:`register_listeners` registered.

    ``jax.monitoring.unregister_event_listener``/``unregister_event_duration_listener`` are public
    from jax 0.8.3; 0.8.0 has only the private ``jax._src.monitoring._unregister_*_by_callback``.
    Renamed there, the listeners stay registered after the session (counting into a closed
    session): tests/test_stage_compiles.py's listener test fails.
    """
    monitoring: Any = private_monitoring  # typed as this JAX version has it; 0.8.0's names are used
    public = getattr(jax.monitoring, "unregister_event_listener", None)
    (public or monitoring._unregister_event_listener_by_callback)(event)
    public = getattr(jax.monitoring, "unregister_event_duration_listener", None)
    (public or monitoring._unregister_event_duration_listener_by_callback)(duration)


# --- 2. Logger names and message prefixes (jax/_src/...: private module paths) ---------------------
# ``stage_compiles`` reads JAX's explanation of each tracing cache miss and the argument types of
# each lowering from these records. Moved or reworded, a rise in compiles still fails, but its
# message loses JAX's explanation and the signatures: tests/test_stage_compiles.py asserts both.
EXPLAIN_LOGGER = "jax._src.interpreters.partial_eval"
LOWER_LOGGER = "jax._src.interpreters.pxla"
CACHE_LOGGERS = ("jax._src.compiler", "jax._src.compilation_cache")
EXPLAIN_PREFIX = "TRACING CACHE MISS"
# "Compiling %s with global shapes and types %s. Argument mapping: %s." (args: name, types, ...)
LOWER_PREFIX = "Compiling "
# Records JAX logs at WARNING only because explanations are on; dropped while watching. With the persistent
# cache on, "Writing %s to persistent compilation cache with key %r" is one per compile of the block.
EXPLAIN_ONLY = (
    "PERSISTENT COMPILATION CACHE MISS",
    "Not writing persistent cache entry",
    "Writing ",
    EXPLAIN_PREFIX,
)


# --- 3. The HLO module of a lowering, and the CPU client's cost analysis of it ---------------------
def cost_via_cpu(lowered: Any) -> object:
    """Pre-optimization cost of a lowering, counted by the CPU client (``Lowered.cost_analysis()`` of a
    compile-only topology is None).

    Private: ``Lowered._lowering.hlo()`` and ``jaxlib._jax.hlo_module_cost_analysis``. Renamed,
    staging a GPU topology config (``h100``) fails with an AttributeError or ImportError: the
    examples' committed ``h100/*.cost.json`` snapshots (``"lowered"`` figures) stop being compared.
    """
    module = lowered._lowering.hlo().as_hlo_module()
    return _jax.hlo_module_cost_analysis(jax.devices("cpu")[0].client, module)


# --- 4. Layout attributes that come and go -------------------------------------------------------
def sub_byte_element_size(layout: object) -> int | None:
    """``Layout.sub_byte_element_size_in_bits``, or None where this jaxlib has no such attribute.

    jaxlib 0.8.0 and 0.8.3 have none (an ``AttributeError`` there before this function); 0.10.2 has it.
    The layout snapshot leaves the key out where it is None, so snapshots taken with 0.8 differ
    from 0.10's in that key alone, judged under ``on_version_mismatch``: tests/test_layout_versions.py.
    """
    value = getattr(layout, "sub_byte_element_size_in_bits", None)
    return None if value is None else int(value)


# --- 5. Mosaic TPU kernels: decoding a payload, the chip's VMEM --------------------------------
def decode_mosaic(body: bytes) -> tuple[str, str]:
    """A Mosaic TPU kernel's serialized MLIR bytecode in; its MLIR text with and without locations out.

    Private: ``jax._src.lib.tpu.register_dialect``, ``mlir.make_ir_context`` and the
    ``mosaic-serde{serialize=false}`` pass (the way JAX's own ``tpu_custom_call`` downgrades a
    payload), which turns the versioned ``stable_mosaic`` form back into the ``tpu``/``vector``/
    ``arith``/``memref`` dialects. Renamed, a kernel's section says it could not be decoded (its
    payload is then referenced by digest only): tests/test_kernels.py fails on the kernel text.
    Raises ValueError for bytes that are not a Mosaic module.
    """
    register: object = lib.tpu.register_dialect  # type: ignore[attr-defined]
    return _decode_kernel(body, register, "builtin.module(mosaic-serde{serialize=false})")


def jaxprs_in_params(params: object) -> Any:
    """The jaxprs an equation's parameters hold (a jit's, a scan's body, a cond's branches).

    Read as ``jax._src.core.jaxprs_in_params`` (private, JAX 0.8 to 0.12), which JAX imports with
    itself; the public ``jax.extend.core.jaxprs_in_params`` (the same function, from JAX 0.9) is
    only the fallback, because importing ``jax.extend`` imports Pallas too, which hand-written
    staging never loads (its cost: docs/performance.md). Gone from both, every staged
    call's kernels analysis fails: the oldest-JAX subset of .ci/run fails on every test that stages.
    """
    try:
        found = private_core.jaxprs_in_params
    except AttributeError:  # moved out of JAX's core module: the public name
        found = extend_core.jaxprs_in_params
    return found(params)


def pallas_loaded() -> bool:
    """Whether JAX's ``pallas_call`` primitive exists yet: before, no jaxpr can hold a kernel.

    Private: the module that defines it, ``jax._src.pallas.pallas_call`` (jax 0.8.0 to 0.10.2). Moved, every
    kernel goes unseen: tests/test_kernels.py fails on each JAX the CI runs.
    """
    return "jax._src.pallas.pallas_call" in sys.modules


def tpu_vmem_bytes(device_kind: str) -> int | None:
    """VMEM per TensorCore of a TPU device kind (``"TPU v5 lite"``: 128 MiB), None for an unknown kind.

    Private: JAX's own table, ``jax._src.pallas.mosaic.tpu_info`` (``chip_version_from_device_kind``,
    ``get_tpu_info_for_chip``), the figures Pallas itself plans with. Moved, a ``vmem_bytes`` share
    cannot be judged and says so: tests/test_kernels.py fails on the capacity.
    """
    try:
        chip = tpu_info.chip_version_from_device_kind(device_kind)
    except ImportError:  # the first read imports the module
        return None
    if chip is None:
        return None
    return int(tpu_info.get_tpu_info_for_chip(chip, 1).vmem_capacity_bytes)


def decode_gpu_kernel(body: bytes, *, mosaic: bool) -> tuple[str, str]:
    """A Pallas GPU kernel's MLIR bytecode in (Mosaic GPU, or Triton where ``mosaic`` is False); its MLIR
    text with and without locations out.

    Private: ``jax._src.lib.mosaic_gpu_dialect.register_dialect`` and the ``mosaic_gpu-serde
    {serialize=false}`` pass (what ``jax.experimental.mosaic.gpu.core`` runs), which turns the
    ``stable_mosaic_gpu`` form back into the ``gpu``/``nvvm``/``llvm``/``mosaic_gpu`` dialects; for
    Triton, ``jax._src.lib.triton.dialect.register_dialect`` (the ``tt`` dialect). Renamed, a GPU
    kernel's section says it could not be decoded. Raises ValueError.
    """
    dialect: Any = lib.mosaic_gpu_dialect if mosaic else triton.dialect  # type: ignore[attr-defined]
    serde = "builtin.module(mosaic_gpu-serde{serialize=false})" if mosaic else None
    return _decode_kernel(body, dialect.register_dialect, serde)


def _decode_kernel(body: bytes, register_dialect: Any, pipeline: str | None) -> tuple[str, str]:
    """A kernel's MLIR bytecode parsed in a JAX IR context with its dialect registered, ``pipeline``
    (a deserializing pass) run on it; its text with and without locations. Raises ValueError."""
    context = mlir.make_ir_context()
    register_dialect(context)
    with context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(body)
            if pipeline is not None:
                passmanager.PassManager.parse(pipeline).run(module.operation)
        except Exception as exc:  # MLIRError and friends: not a kernel module this jaxlib reads
            raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
        return str(module.operation.get_asm(enable_debug_info=True)), str(module.operation.get_asm())


# --- 7. What JAX's persistent cache key hashes beside the module (jax/_src/cache_key.py, pxla.py) --
# The compile-only cache (stage/topology_results.py) keys a compile on the same parts as JAX's own
# cache: the compile options JAX would pass to XLA (with the debug options JAX clears), the XLA
# flags it reads, the backend's version and the accelerator topology's fingerprint. Private:
# ``pxla.create_compile_options``, ``maybe_concretize_mesh``, ``get_prop_to_input_output``,
# ``Lowered._lowering.compile_args``/``_compiler_options_kvs``/``_device_list`` and
# ``cache_key._hash_*``. Changed, the key cannot be made: the compile-only cache turns itself off
# with a warning and every compile-only call compiles (tests/test_topology_results.py fails on its hits).
def compile_options_digest(lowered: Any) -> str:
    """sha256 of the ``CompileOptions`` a ``lowered.compile()`` passes to XLA, as JAX's cache key hashes them."""
    lowering = lowered._lowering
    args = lowering.compile_args
    devices = lowering._device_list
    inputs = tuple(pxla.maybe_concretize_mesh(s, devices) for s in args["in_shardings"])
    outputs = tuple(pxla.maybe_concretize_mesh(s, devices) for s in args["out_shardings"])
    to_inputs, to_outputs = pxla.get_prop_to_input_output(inputs, outputs, len(args["ordered_effects"]))
    array = np.empty(len(devices), dtype=object)
    array[:] = list(devices)
    options = pxla.create_compile_options(
        lowering._hlo,
        args["tuple_args"],
        to_inputs,
        to_outputs,
        args["backend"],
        array,
        dict(lowering._compiler_options_kvs),
    )
    digest = hashlib.sha256()
    cache_key._hash_serialized_compile_options(digest, options)
    return digest.hexdigest()


def xla_flags_digest() -> str:
    """sha256 of the XLA flags JAX's cache key reads (``XLA_FLAGS``, ``LIBTPU_INIT_ARGS``, ``--xla*`` arguments)."""
    digest = hashlib.sha256()
    cache_key._hash_xla_flags(digest, cache_key.get_flag_prefixes())
    return digest.hexdigest()


def backend_version(lowered: Any) -> str:
    """The platform version of the client a lowering compiles with (libtpu's build for a TPU topology)."""
    backend = lowered._lowering.compile_args["backend"]
    return f"{backend.platform} {backend.platform_version}"


def accelerator_digest(devices: Any) -> str:
    """sha256 of the accelerator topology of ``devices`` as JAX's cache key hashes it (its fingerprint)."""
    array = np.empty(len(devices), dtype=object)
    array[:] = list(devices)
    digest = hashlib.sha256()
    cache_key._hash_accelerator_config(digest, array)
    return digest.hexdigest()


# --- 8. Where the staged function was defined (a jaxpr's ``debug_info.func_src_info``) -------------
# ``"step at /x/model.py:143"``: JAX's own text, not a documented format. Changed, a donation
# finding names no line (tests/test_donation_headline.py fails on the line).
_FUNCTION_SOURCE = lazy_pattern(r"^(.*) at (.+):(\d+)$")


def function_source(jaxpr: object) -> tuple[str, str, int] | None:
    """``(function, file, line)`` where a closed jaxpr's function was defined, None where JAX does not say."""
    info = getattr(getattr(jaxpr, "jaxpr", None), "debug_info", None)
    match = _FUNCTION_SOURCE.match(str(getattr(info, "func_src_info", "") or ""))
    return (match[1], match[2], int(match[3])) if match else None
