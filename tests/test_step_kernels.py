"""The step-time estimate kernel by kernel (``ir/hlo_kernels.py``), on compiled HLO as XLA writes it for a TPU v5e.

Each text below is trimmed from a program compiled for one v5e chip (``benchmarks/step_corpus.py``): a batched
dot lowered to a base-dilated convolution, an int8 product, a sort, a gather of rows; the kernels' work and
bytes are checked as pure functions. Then ``--stages-measure`` on a program that rejects made-up inputs, and
the one ``step`` a config without a topology records on every host, in inner sessions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_stages.analyse import step_time
from pytest_stages.ir import hlo_kernels

# jnp.matmul of two f32[4096,64,64]: XLA on TPU lowers the batched dot to a convolution whose window spans the
# batch, base-dilated by its size (the window is 4096 wide; each output meets one input position of it).
BATCHED = """HloModule jit_matmul

%fused_computation (param_0: bf16[4096,64,64], param_1: bf16[4096,64,64]) -> f32[4096,64,64] {
  %param_0 = bf16[4096,64,64]{2,1,0:T(8,128)(2,1)S(1)} parameter(0)
  %param_1 = bf16[4096,64,64]{2,1,0:T(8,128)(2,1)} parameter(1)
  ROOT %conv = f32[4096,64,64]{2,1,0:T(8,128)} convolution(%param_0, %param_1), window={size=4096 stride=4095 \
lhs_dilate=4096}, dim_labels=0bf_0io->0bf
}

ENTRY %main.1 (a.1: bf16[4096,64,64], b.1: bf16[4096,64,64]) -> f32[4096,64,64] {
  %a.1 = bf16[4096,64,64]{2,1,0:T(8,128)(2,1)S(1)} parameter(0)
  %b.1 = bf16[4096,64,64]{2,1,0:T(8,128)(2,1)} parameter(1)
  ROOT %fusion = f32[4096,64,64]{2,1,0:T(8,128)} fusion(%a.1, %b.1), kind=kOutput, calls=%fused_computation
}
""".replace("\\\n", "")

PRODUCT = """HloModule jit_run

ENTRY %main (a: T[8192,8192], b: T[8192,8192]) -> s32[8192,8192] {
  %a = T[8192,8192]{1,0:T(8,128)} parameter(0)
  %b = T[8192,8192]{1,0:T(8,128)} parameter(1)
  ROOT %dot = s32[8192,8192]{1,0:T(8,128)} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""

SORT = """HloModule jit_sort

%compare (p0: f32[], p1: f32[]) -> pred[] {
  %p0 = f32[] parameter(0)
  %p1 = f32[] parameter(1)
  ROOT %lt = pred[] compare(%p0, %p1), direction=LT
}

ENTRY %main (x: f32[256,32768]) -> f32[256,32768] {
  %x = f32[256,32768]{1,0:T(8,128)} parameter(0)
  ROOT %sort = f32[256,32768]{1,0:T(8,128)} sort(%x), dimensions={1}, to_apply=%compare
}
"""

# jax.lax.top_k(x, k) of x: f32[256,32768] (k = 16 and 64 in the measured set): XLA on TPU copies the rows onto
# the lanes, then a TopK custom call keeps each row's best k.
TOP_K = """HloModule jit_top_k

%greater (p0: f32[], p1: f32[], p2: s32[], p3: s32[]) -> pred[] {
  %p0 = f32[] parameter(0)
  %p1 = f32[] parameter(1)
  %p2 = s32[] parameter(2)
  %p3 = s32[] parameter(3)
  ROOT %gt = pred[] compare(%p0, %p1), direction=GT
}

ENTRY %main.1 (x.1: f32[256,32768]) -> (f32[256,K], s32[256,K]) {
  %x.1 = f32[256,32768]{1,0:T(8,128)} parameter(0)
  %copy = f32[256,32768]{0,1:T(8,128)S(1)} copy(%x.1)
  ROOT %custom-call = (f32[256,K]{0,1:T(8,128)}, s32[256,K]{0,1:T(8,128)}) custom-call(%copy), \
custom_call_target="TopK", called_computations={%greater}
}
""".replace("\\\n", "")

# table[indices]: 16384 rows of a 32768 x 1024 float32 table.
GATHER = """HloModule jit_gather

%fused_computation (param_0.2: f32[32768,1024], param_1: s32[16384]) -> f32[16384,1024] {
  %param_0.2 = f32[32768,1024]{1,0:T(8,128)} parameter(0)
  %param_1 = s32[16384]{0:T(1024)} parameter(1)
  %indices = s32[16384,1]{0,1:T(1,128)} bitcast(%param_1)
  ROOT %gather.1 = f32[16384,1024]{1,0:T(8,128)} gather(%param_0.2, %indices), offset_dims={1}, \
collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1024}
}

ENTRY %main (table.1: f32[32768,1024], i: s32[16384]) -> f32[16384,1024] {
  %table.1 = f32[32768,1024]{1,0:T(8,128)} parameter(0)
  %i = s32[16384]{0:T(1024)} parameter(1)
  ROOT %gather_fusion = f32[16384,1024]{1,0:T(8,128)} fusion(%table.1, %i), kind=kCustom, calls=%fused_computation
}
""".replace("\\\n", "")


def only_kernel(text: str) -> hlo_kernels.Kernel:
    (kernel,) = hlo_kernels.Module(text).program().entry.kernels
    return kernel


def test_a_batched_dot_counts_its_products_never_the_dilated_window():
    """4096 products of 64 x 64 by 64 x 64: 1.07 G multiply-adds, each product's 64 features padded to the
    128-wide matrix unit (x4); the dilated window would count 4096 times as many (the 305x of issue 66)."""
    kernel = only_kernel(BATCHED)
    assert kernel.macs == (("bf16", 4096 * 64 * 64 * 128 * 2),)
    # Only b is read from HBM (a lives on chip, S(1)); the f32 result is written; the minor 64 of each padded to
    # the (8, 128) tile of its layout.
    assert kernel.hbm_bytes == 4096 * 64 * 128 * (2 + 4)
    found = step_time.estimate({"compiled": {"flops": 2.1e9}}, BATCHED, "TPU v5 lite")
    assert found["binding"] == "HBM"
    assert found["estimated_seconds"] == pytest.approx(4096 * 64 * 128 * 6 / (819e9 * 0.8) + 0.04e-6)


def test_an_int8_product_runs_at_the_int8_rate():
    """On a v5e int8 products run at 394 TOPS, twice the bf16 rate (measured: 2.89 ms for 8192^3)."""
    int8, bf16 = (
        step_time.estimate({"compiled": {}}, PRODUCT.replace("T[", f"{t}["), "TPU v5 lite") for t in ("s8", "bf16")
    )
    assert only_kernel(PRODUCT.replace("T[", "s8[")).macs == (("s8", 8192.0**3),)
    assert int8["binding"] == bf16["binding"] == "compute"
    assert int8["compute_seconds"] == pytest.approx(2 * 8192**3 / (394e12 * 0.95))
    assert bf16["compute_seconds"] == pytest.approx(2 * 8192**3 / (197e12 * 0.95))


def test_a_sort_is_costed_by_its_sorting_network_not_by_its_bytes():
    """XLA counts no flops for a sort: 256 rows of 32768 take 15 x 16 / 2 = 120 stages of a bitonic network."""
    kernel = only_kernel(SORT)
    assert kernel.sort == 256 * 32768 * 120
    found = step_time.estimate({"compiled": {"bytes accessed": 6.7e7}}, SORT, "TPU v5 lite")
    assert found["binding"] == "compute"
    assert found["estimated_seconds"] == pytest.approx(256 * 32768 * 120 / 0.16e12 + 0.04e-6)


def test_a_top_k_compares_each_element_with_each_of_the_k_values_kept():
    """Measured on v5e: top_k 16 of 32768 (256 rows) 0.525 ms, top_k 64 of the same 1.778 ms: the time grows
    with k (3.4x for 4x), not with log k, as a sorted run of k that every element meets would."""
    kernels = [hlo_kernels.Module(TOP_K.replace("K]", f"{k}]")).program().entry.kernels for k in (16, 64)]
    assert [kernel.top_k for *_, kernel in kernels] == [256 * 32768 * 16, 256 * 32768 * 64]
    estimates = [
        step_time.estimate({"compiled": {}}, TOP_K.replace("K]", f"{k}]"), "TPU v5 lite")["estimated_seconds"]
        for k in (16, 64)
    ]
    assert estimates[1] / estimates[0] == pytest.approx(1.778 / 0.525, rel=0.2)


# jnp.flip(x, axis) * 2 of x: bf16[8192,4096], as XLA on TPU compiles it: a reverse into on-chip memory, then the
# product.
FLIP = """HloModule jit_flip

ENTRY %main.2 (x.1: bf16[8192,4096]) -> bf16[8192,4096] {
  %x.1 = bf16[8192,4096]{1,0:T(8,128)(2,1)} parameter(0)
  ROOT %rev.0 = bf16[8192,4096]{1,0:T(8,128)(2,1)S(1)} reverse(%x.1), dimensions={AXIS}
}
"""


def test_a_reverse_along_the_lanes_is_a_relayout_and_along_the_rows_only_a_read():
    """Flipping the minor (lane) axis permutes the lanes of every vector register: the bytes read and written at
    the relayout rate (measured on v5e: 0.703 ms for the flip and the product, 0.205 ms counted as their HBM
    bytes alone); flipping the rows reads them in another order, HBM bytes only."""
    lanes, rows = (only_kernel(FLIP.replace("AXIS", axis)) for axis in ("1", "0"))
    assert lanes.relayout_bytes == 2 * 8192 * 4096 * 2
    assert rows.relayout_bytes == 0
    assert lanes.hbm_bytes == rows.hbm_bytes == 8192 * 4096 * 2


def test_a_gather_reads_the_rows_it_gathers_not_the_whole_table():
    """16384 rows of 4 KiB read and written (XLA's bytes accessed counts the 128 MiB table too), at the share of
    the bandwidth a gather of rows reaches."""
    kernel = only_kernel(GATHER)
    rows = 16384 * 1024 * 4
    assert kernel.gathered
    assert kernel.hbm_bytes == 2 * rows + 16384 * 4  # the rows read, the rows written, the indices
    found = step_time.estimate({"compiled": {"bytes accessed": 6.0e8}}, GATHER, "TPU v5 lite")
    assert found["hbm_seconds"] == pytest.approx((2 * rows + 16384 * 4) / (819e9 * 0.8 * 0.5))


def test_a_tiled_layout_counts_its_padding_and_on_chip_arrays_no_hbm_bytes():
    assert hlo_kernels.tiled_bytes("f32[8,3]{1,0:T(8,128)}") == 8 * 128 * 4
    assert hlo_kernels.tiled_bytes("f32[8,3]{1,0:T(8,128)S(1)}") == 0


# An einsum of the cookbook train step (256 wide) as XLA on TPU lowers it: a window of 3 x 8 taps padded around an
# input 1 wide in both spatial dimensions, so each output position meets one input element of its 24 taps.
PADDED = """HloModule jit_step

%fused_computation (param_0: bf16[32,64,256,1,1], param_1: bf16[3,256,8,16,1]) -> bf16[32,64,3,8,16] {
  %param_0 = bf16[32,64,256,1,1]{2,1,4,3,0:T(8,128)(2,1)S(1)} parameter(0)
  %param_1 = bf16[3,256,8,16,1]{1,3,2,0,4:T(8,128)(2,1)S(1)} parameter(1)
  ROOT %convolution.52 = bf16[32,64,3,8,16]{1,4,3,2,0:T(8,128)(2,1)S(1)} convolution(%param_0, %param_1), \
window={size=1x3x8 pad=0_0x2_2x7_7 rhs_reversal=0x1x1}, dim_labels=0bf12_1i2o0->0b12f
}

ENTRY %main (a: bf16[32,64,256,1,1], b: bf16[3,256,8,16,1]) -> bf16[32,64,3,8,16] {
  %a = bf16[32,64,256,1,1]{2,1,4,3,0:T(8,128)(2,1)S(1)} parameter(0)
  %b = bf16[3,256,8,16,1]{1,3,2,0,4:T(8,128)(2,1)S(1)} parameter(1)
  ROOT %fusion = bf16[32,64,3,8,16]{1,4,3,2,0:T(8,128)(2,1)S(1)} fusion(%a, %b), kind=kOutput, calls=%fused_computation
}
""".replace("\\\n", "")


def test_a_convolution_counts_the_taps_that_meet_its_input_not_its_padding():
    """Each of the 786432 outputs meets one input element of its 3 x 8 window (the rest is padding): 256 input
    features each, the 16 output features padded to the 128-wide matrix unit; counting all 24 taps made the step
    0.41 ms a kernel, 1.83x the chip's time for the whole step."""
    assert only_kernel(PADDED).macs == (("bf16", 32 * 64 * 3 * 8 * 16 * 256 * 128 / 16),)
    # A 3x3 window with one element of padding on each side of 28: the edge positions meet 2 of 3 taps.
    conv = hlo_kernels.Op("%c", "f32[16,28,28,512]", "convolution", (), "window={size=3x3 pad=1_1x1_1}", False)
    assert hlo_kernels._taps(conv, {"0": 28, "1": 28}, {"0": 28, "1": 28}) == pytest.approx((82 / 28) ** 2)


# jnp.take_along_axis(x, i, axis=1) on f32[4096,1024]: a gather of single elements, one per index (trimmed: the
# index arithmetic before it left out).
ELEMENTS = """HloModule jit_take_rows

%fused_computation (param_0.2: f32[4096,1024], param_1.5: s32[4096,1024,2]) -> f32[4096,1024] {
  %param_0.2 = f32[4096,1024]{1,0:T(8,128)S(1)} parameter(0)
  %param_1.5 = s32[4096,1024,2]{2,1,0:T(8,128)S(1)} parameter(1)
  ROOT %gather.5 = f32[4096,1024]{1,0:T(8,128)S(1)} gather(%param_0.2, %param_1.5), offset_dims={}, \
collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=2, slice_sizes={1,1}
}

ENTRY %main.5 (x.1: f32[4096,1024], i.1: s32[4096,1024,2]) -> f32[4096,1024] {
  %x.1 = f32[4096,1024]{1,0:T(8,128)S(1)} parameter(0)
  %i.1 = s32[4096,1024,2]{2,1,0:T(8,128)S(1)} parameter(1)
  ROOT %gather_fusion = f32[4096,1024]{1,0:T(8,128)S(1)} fusion(%x.1, %i.1), kind=kCustom, calls=%fused_computation
}
""".replace("\\\n", "")

# jax.ops.segment_sum of f32[65536,256] into 1024 segments: 65536 updates of one row each.
SEGMENTS = """HloModule jit_run

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%fused_computation (param_0.1: f32[1024,256], param_1: s32[65536], param_2: f32[65536,256]) -> f32[1024,256] {
  %param_0.1 = f32[1024,256]{1,0:T(8,128)} parameter(0)
  %param_1 = s32[65536]{0:T(1024)} parameter(1)
  %param_2 = f32[65536,256]{1,0:T(8,128)} parameter(2)
  ROOT %scatter-add.1 = f32[1024,256]{1,0:T(8,128)} scatter(%param_0.1, %param_1, %param_2), \
update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add
}

ENTRY %main (z: f32[1024,256], i: s32[65536], u: f32[65536,256]) -> f32[1024,256] {
  %z = f32[1024,256]{1,0:T(8,128)} parameter(0)
  %i = s32[65536]{0:T(1024)} parameter(1)
  %u = f32[65536,256]{1,0:T(8,128)} parameter(2)
  ROOT %scatter_fusion = f32[1024,256]{1,0:T(8,128)} fusion(%z, %i, %u), kind=kCustom, calls=%fused_computation
}
""".replace("\\\n", "")


def test_a_gather_of_single_elements_and_a_scatter_cost_a_time_per_index():
    """Each index of a gather of one-element slices is a load of its own (41.9 ms measured for the 4.2 M of
    take_along_axis on f32[4096,1024]), each update of a scatter is applied in order (0.52 ms for the 65536 of a
    segment_sum): 9 ns each on a v5e, far above what the bytes take. A gather of rows streams them: no such time."""
    assert only_kernel(ELEMENTS).indices == 4096 * 1024
    assert only_kernel(SEGMENTS).indices == 65536
    assert only_kernel(GATHER).indices == 0
    found = step_time.estimate({"compiled": {}}, ELEMENTS, "TPU v5 lite")
    assert found["binding"] == "compute"
    assert found["estimated_seconds"] == pytest.approx(4096 * 1024 * 9e-9 + 0.04e-6)
    # The updates' bytes (read, then read and written in place) at the gather share of the bandwidth: 0.62 ms
    # against 0.59 ms for the updates one after another; without that time it would be 0.62 ms too.
    rows = only_kernel(SEGMENTS).hbm_bytes / (819e9 * 0.8 * 0.5)
    segments = step_time.estimate({"compiled": {}}, SEGMENTS, "TPU v5 lite", {"hbm_gbps": 1638})
    assert segments["estimated_seconds"] == pytest.approx(65536 * 9e-9 + 0.04e-6)
    assert rows / 2 < 65536 * 9e-9 < rows


# The embedding gradient of a small language model as XLA on TPU compiles it: a loop over the tokens, each trip
# reading the token's id out of an array (a dynamic slice) and using it as the offset of an update.
READS = """HloModule jit_step

%fused_update (p0: f32[128,512], p1: s32[]) -> f32[128,1] {
  %p0 = f32[128,512]{0,1:T(8,128)S(1)} parameter(0)
  %p1 = s32[]{:T(128)} parameter(1)
  %zero = s32[]{:T(128)} constant(0)
  ROOT %column = f32[128,1]{0,1:T(1,128)S(1)} dynamic-slice(%p0, %zero, %p1), dynamic_slice_sizes={128,1}
}

%body (state: (s32[], f32[128,512], s32[2048])) -> (s32[], f32[128,512], s32[2048]) {
  %state = (s32[]{:T(128)}, f32[128,512]{0,1:T(8,128)S(1)}, s32[2048]{0:T(1024)S(1)}) parameter(0)
  %i = s32[]{:T(128)} get-tuple-element(%state), index=0
  %table = f32[128,512]{0,1:T(8,128)S(1)} get-tuple-element(%state), index=1
  %ids = s32[2048]{0:T(1024)S(1)} get-tuple-element(%state), index=2
  %id = s32[1]{0:T(128)} dynamic-slice(%ids, %i), dynamic_slice_sizes={1}
  %offset = s32[]{:T(128)} bitcast(%id)
  %column = f32[128,1]{0,1:T(1,128)S(1)} fusion(%table, %offset), kind=kLoop, calls=%fused_update
  %zero = s32[]{:T(128)} constant(0)
  %updated = f32[128,512]{0,1:T(8,128)S(1)} dynamic-update-slice(%table, %column, %zero, %offset)
  %one = s32[]{:T(128)} constant(1)
  %next = s32[]{:T(128)} add(%i, %one)
  ROOT %out = (s32[]{:T(128)}, f32[128,512]{0,1:T(8,128)S(1)}, s32[2048]{0:T(1024)S(1)}) tuple(%next, %updated, %ids)
}

%condition (state.1: (s32[], f32[128,512], s32[2048])) -> pred[] {
  %state.1 = (s32[]{:T(128)}, f32[128,512]{0,1:T(8,128)S(1)}, s32[2048]{0:T(1024)S(1)}) parameter(0)
  %i.1 = s32[]{:T(128)} get-tuple-element(%state.1), index=0
  %n = s32[]{:T(128)} constant(2048)
  ROOT %more = pred[]{:T(512)} compare(%i.1, %n), direction=LT
}

ENTRY %main (t: f32[128,512], ids.1: s32[2048]) -> f32[128,512] {
  %t = f32[128,512]{0,1:T(8,128)S(1)} parameter(0)
  %ids.1 = s32[2048]{0:T(1024)S(1)} parameter(1)
  %start = s32[]{:T(128)} constant(0)
  %init = (s32[]{:T(128)}, f32[128,512]{0,1:T(8,128)S(1)}, s32[2048]{0:T(1024)S(1)}) tuple(%start, %t, %ids.1)
  %loop = (s32[]{:T(128)}, f32[128,512]{0,1:T(8,128)S(1)}, s32[2048]{0:T(1024)S(1)}) while(%init), \
condition=%condition, body=%body
  ROOT %result = f32[128,512]{0,1:T(8,128)S(1)} get-tuple-element(%loop), index=1
}
""".replace("\\\n", "")


def test_an_offset_read_from_an_array_costs_the_scalar_units_wait_each_trip():
    """The token id a dynamic slice reads out of an array is the next update's offset: the scalar unit that
    issues the kernels waits for it each trip (a 2048-token embedding gradient: 5.1 ms measured, 0.75 ms counted
    without the wait). The loop counter, a scalar of the scalar unit's own, is no such read."""
    ((body, trips),) = hlo_kernels.Module(READS).program().entry.loops
    assert (trips, body.scalar_reads) == (2048, 1)
    found = step_time.estimate({"compiled": {}}, READS, "TPU v5 lite")
    waits = 2048 * 1.5e-6
    assert waits < found["estimated_seconds"] < waits + 2048 * 0.5e-6
    bare = step_time.estimate({"compiled": {}}, READS, "TPU v5 lite", {"scalar_read_us": 1e-9})
    assert found["estimated_seconds"] - bare["estimated_seconds"] == pytest.approx(waits, rel=1e-3)


# 128 windows of 128 rows summed, each window's first row computed from an element of the table (a
# ``fori_loop`` of ``lax.dynamic_slice`` at ``int(abs(big[i, 0]) * 1000) % 8064``), as XLA on TPU compiles it: a
# kernel slices the element out, the scalar unit turns it into the row, a fused dynamic slice takes it.
WINDOWS = """HloModule jit_run

%fused_pick (p0: f32[8192,2048], p1: s32[]) -> f32[1,1] {
  %p0 = f32[8192,2048]{1,0:T(8,128)} parameter(0)
  %p1 = s32[]{:T(128)} parameter(1)
  %zero = s32[]{:T(128)} constant(0)
  %one = f32[1,1]{1,0:T(1,128)} dynamic-slice(%p0, %p1, %zero), dynamic_slice_sizes={1,1}
  ROOT %abs = f32[1,1]{1,0:T(1,128)} abs(%one)
}

%fused_window (p0.1: f32[8192,2048], p1.1: s32[], p2: f32[128,2048]) -> f32[128,2048] {
  %p0.1 = f32[8192,2048]{1,0:T(8,128)} parameter(0)
  %p1.1 = s32[]{:T(128)} parameter(1)
  %p2 = f32[128,2048]{1,0:T(8,128)S(1)} parameter(2)
  %zero.1 = s32[]{:T(128)} constant(0)
  %rows = f32[128,2048]{1,0:T(8,128)} dynamic-slice(%p0.1, %p1.1, %zero.1), dynamic_slice_sizes={128,2048}
  ROOT %sum = f32[128,2048]{1,0:T(8,128)S(1)} add(%p2, %rows)
}

%body (state: (s32[], f32[128,2048], f32[8192,2048])) -> (s32[], f32[128,2048], f32[8192,2048]) {
  %state = (s32[]{:T(128)}, f32[128,2048]{1,0:T(8,128)S(1)}, f32[8192,2048]{1,0:T(8,128)}) parameter(0)
  %i = s32[]{:T(128)} get-tuple-element(%state), index=0
  %acc = f32[128,2048]{1,0:T(8,128)S(1)} get-tuple-element(%state), index=1
  %big = f32[8192,2048]{1,0:T(8,128)} get-tuple-element(%state), index=2
  %picked = f32[1,1]{1,0:T(1,128)} fusion(%big, %i), kind=kLoop, calls=%fused_pick
  %scale = f32[1,1]{1,0:T(1,128)} constant({ {1000} })
  %scaled = f32[1,1]{1,0:T(1,128)S(6)} multiply(%picked, %scale)
  %whole = s32[1,1]{1,0:T(1,128)S(6)} convert(%scaled)
  %rows.1 = s32[1,1]{1,0:T(1,128)} constant({ {8064} })
  %row = s32[1,1]{1,0:T(1,128)} remainder(%whole, %rows.1)
  %start = s32[]{:T(128)} bitcast(%row)
  %window = f32[128,2048]{1,0:T(8,128)S(1)} fusion(%big, %start, %acc), kind=kLoop, calls=%fused_window
  %one.1 = s32[]{:T(128)} constant(1)
  %next = s32[]{:T(128)} add(%i, %one.1)
  ROOT %out = (s32[]{:T(128)}, f32[128,2048]{1,0:T(8,128)S(1)}, f32[8192,2048]{1,0:T(8,128)}) \
tuple(%next, %window, %big)
}

%condition (state.1: (s32[], f32[128,2048], f32[8192,2048])) -> pred[] {
  %state.1 = (s32[]{:T(128)}, f32[128,2048]{1,0:T(8,128)S(1)}, f32[8192,2048]{1,0:T(8,128)}) parameter(0)
  %i.1 = s32[]{:T(128)} get-tuple-element(%state.1), index=0
  %n = s32[]{:T(128)} constant(128)
  ROOT %more = pred[]{:T(512)} compare(%i.1, %n), direction=LT
}

ENTRY %main (big.1: f32[8192,2048], h: f32[128,2048]) -> f32[128,2048] {
  %big.1 = f32[8192,2048]{1,0:T(8,128)} parameter(0)
  %h = f32[128,2048]{1,0:T(8,128)S(1)} parameter(1)
  %zero.2 = s32[]{:T(128)} constant(0)
  %init = (s32[]{:T(128)}, f32[128,2048]{1,0:T(8,128)S(1)}, f32[8192,2048]{1,0:T(8,128)}) tuple(%zero.2, %h, %big.1)
  %loop = (s32[]{:T(128)}, f32[128,2048]{1,0:T(8,128)S(1)}, f32[8192,2048]{1,0:T(8,128)}) while(%init), \
condition=%condition, body=%body
  ROOT %result = f32[128,2048]{1,0:T(8,128)S(1)} get-tuple-element(%loop), index=1
}
""".replace("\\\n", "")


def test_an_offset_computed_from_a_value_read_back_costs_the_wait_through_the_scalar_arithmetic():
    """The window's first row is a kernel's result turned into an offset by the scalar unit's own arithmetic
    (multiply, convert, remainder) and taken by a dynamic slice inside a fusion: the scalar unit waits for that
    kernel each trip (measured on v5e: 0.481 ms for 128 trips, 0.248 ms counted without the wait, 1.8 µs a
    trip). The loop counter, the fused pick's offset, is no such read."""
    ((body, trips),) = hlo_kernels.Module(WINDOWS).program().entry.loops
    assert (trips, body.scalar_reads) == (128, 1)
    found = step_time.estimate({"compiled": {}}, WINDOWS, "TPU v5 lite")
    bare = step_time.estimate({"compiled": {}}, WINDOWS, "TPU v5 lite", {"scalar_read_us": 1e-9})
    assert found["estimated_seconds"] - bare["estimated_seconds"] == pytest.approx(128 * 1.5e-6, rel=1e-3)


CPU_V5E = """
[[tool.pytest_stages.configs]]
name = "cpu1"
chip = { name = "v5e" }
"""
CALLBACK = """
import jax
import jax.numpy as jnp
import numpy as np


def picky(x):
    if not np.all(np.asarray(x) > 100):
        raise ValueError("expected a calibrated input above 100")
    return np.asarray(x)


def test_step(stage_snapshot):
    def f(x):
        return jax.pure_callback(picky, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * 2

    stage_snapshot(f, jax.ShapeDtypeStruct((8, 128), jnp.float32), name="step")
"""


def test_a_program_that_rejects_made_up_inputs_is_reported_not_measured_and_keeps_its_verdict(project, tmp_path):
    project.configure(configs=CPU_V5E)
    project.write("test_step.py", CALLBACK)
    project.run("--stages-update").assert_outcomes(passed=1)
    report = tmp_path / "report.json"
    result = project.run("--stages-measure", f"--stages-report={report}")
    result.assert_outcomes(passed=1)
    step = json.loads(report.read_text())["calls"][0]["step"]
    assert "measured_seconds" not in step
    assert step["not_measured"].startswith("the call raised ")
    assert "on made-up inputs (random floats, zero integers)" in step["not_measured"]
    assert "expected a calibrated input above 100" in step["not_measured"]
    assert step["not_measured"].endswith("time it with inputs of your own (docs/step-time.md)")
    assert any("test_step[cpu1]" in line and "; not measured" in line for line in result.outlines)
    assert "Traceback" not in result.stdout.str()


TPU_NO_TOPOLOGY = """
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
"""


@pytest.mark.extras("tpu")
def test_a_config_without_a_topology_records_the_one_step_every_host_records(project):
    """Lowered in CPU CI, compiled next to the chip: its ``step`` says so on both, with the fix, and never a figure
    of one host (tests/test_measure_on_chip.py checks the chip's side)."""
    project.configure(configs=TPU_NO_TOPOLOGY)
    project.write(
        "test_step.py", CALLBACK.replace("jax.pure_callback(picky, jax.ShapeDtypeStruct(x.shape, x.dtype), x)", "x")
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    cost = json.loads(Path(project.path, "snapshots/test_step/test_step/tpu/step.cost.json").read_text())
    assert cost["step"] == step_time.host_dependent_step()
    assert 'add topology = "v5e:1x1"' in cost["step"]["unknown"]
