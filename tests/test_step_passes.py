"""The step-time kernel model's passes and relayouts (``ir/hlo_kernels.py``), on HLO trimmed from programs compiled
for one TPU v5e chip (``benchmarks/step_time.py``): a softmax that reduces its rows and broadcasts them back twice,
a cumulative sum's prefix window, copies into another layout. Pure functions over text.
"""

from __future__ import annotations

import pytest

from pytest_stages.analyse import step_time
from pytest_stages.ir import hlo_kernels

# jax.nn.softmax of f32[64,1024,1024]: the max and the sum, each a window over the whole row (2047 wide), in one
# kernel. Measured on the chip: 1.207 ms, the time of two reads and one write at the achievable bandwidth.
SOFTMAX = """HloModule jit_softmax

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[]{:T(128)} parameter(0)
  %b = f32[]{:T(128)} parameter(1)
  ROOT %m = f32[]{:T(128)} maximum(%a, %b)
}

%sum (c: f32[], d: f32[]) -> f32[] {
  %c = f32[]{:T(128)} parameter(0)
  %d = f32[]{:T(128)} parameter(1)
  ROOT %s = f32[]{:T(128)} add(%c, %d)
}

%shifted (param_0.10: f32[64,1024,1024]) -> f32[64,1024,1024] {
  %param_0.10 = f32[64,1024,1024]{2,1,0:T(8,128)} parameter(0)
  %low = f32[]{:T(128)} constant(-inf)
  %reduce-window.11 = f32[64,1024,1024]{2,1,0:T(8,128)} reduce-window(%param_0.10, %low), \
window={size=1x1x2047 pad=0_0x0_0x1023_1023}, to_apply=%max
  %sub.4 = f32[64,1024,1024]{2,1,0:T(8,128)} subtract(%param_0.10, %reduce-window.11)
  ROOT %exp.4 = f32[64,1024,1024]{2,1,0:T(8,128)} exponential(%sub.4)
}

%fused_computation.3 (param_0.11: f32[64,1024,1024]) -> f32[64,1024,1024] {
  %param_0.11 = f32[64,1024,1024]{2,1,0:T(8,128)} parameter(0)
  %fusion.4 = f32[64,1024,1024]{2,1,0:T(8,128)} fusion(%param_0.11), kind=kOutput, calls=%shifted
  %zero = f32[]{:T(128)} constant(0)
  %reduce-window.7 = f32[64,1024,1024]{2,1,0:T(8,128)} reduce-window(%fusion.4, %zero), \
window={size=1x1x2047 pad=0_0x0_0x1023_1023}, to_apply=%sum
  ROOT %div.0 = f32[64,1024,1024]{2,1,0:T(8,128)} divide(%fusion.4, %reduce-window.7)
}

ENTRY %main.3 (x.1: f32[64,1024,1024]) -> f32[64,1024,1024] {
  %x.1 = f32[64,1024,1024]{2,1,0:T(8,128)} parameter(0)
  ROOT %fusion.3 = f32[64,1024,1024]{2,1,0:T(8,128)} fusion(%x.1), kind=kOutput, calls=%fused_computation.3
}
""".replace("\\\n", "")

# jnp.cumsum(x, axis=1) of f32[4096,4096]: the 128-wide prefix window of each lane group, which XLA emits as a
# depthwise convolution (backend_config emitter "EmitDepthwiseAllBatchInLanes").
PREFIX = """HloModule jit_cumsum

%sum (c: f32[], d: f32[]) -> f32[] {
  %c = f32[]{:T(128)} parameter(0)
  %d = f32[]{:T(128)} parameter(1)
  ROOT %s = f32[]{:T(128)} add(%c, %d)
}

%fused_computation.2 (param_0.3: f32[4096,32,128]) -> f32[4096,32,128] {
  %param_0.3 = f32[4096,32,128]{0,1,2:T(8,128)} parameter(0)
  %zero = f32[]{:T(128)} constant(0)
  ROOT %reduce-window.2 = f32[4096,32,128]{0,1,2:T(8,128)S(1)} reduce-window(%param_0.3, %zero), \
window={size=1x1x128 pad=0_0x0_0x127_0}, to_apply=%sum
}

ENTRY %main.4 (x.1: f32[4096,32,128]) -> f32[4096,32,128] {
  %x.1 = f32[4096,32,128]{0,1,2:T(8,128)} parameter(0)
  ROOT %fusion = f32[4096,32,128]{0,1,2:T(8,128)S(1)} fusion(%x.1), kind=kOutput, calls=%fused_computation.2
}
""".replace("\\\n", "")

# The same cumulative sum's copies: into the lane-major layout its window wants (a transpose, from HBM to on-chip
# memory), and one that only moves an array between memory spaces (a DMA's work, no relayout).
COPIES = """HloModule jit_cumsum

ENTRY %main.4 (x.1: f32[2048,16,128]) -> f32[2048,16,128] {
  %x.1 = f32[2048,16,128]{2,1,0:T(8,128)} parameter(0)
  %copy.1 = f32[2048,16,128]{0,1,2:T(8,128)S(1)} copy(%x.1)
  ROOT %copy.2 = f32[2048,16,128]{0,1,2:T(8,128)} copy(%copy.1)
}
"""

# A copy fused into the operand of a depthwise convolution is that convolution's read, not a relayout kernel.
FUSED_COPY = """HloModule jit_conv

%to_lanes (param_0.2: bf16[32,56,56,256]) -> bf16[32,56,56,256] {
  %param_0.2 = bf16[32,56,56,256]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  ROOT %copy.4 = bf16[32,56,56,256]{3,0,2,1:T(8,128)(2,1)} copy(%param_0.2)
}

%fused_computation (param_0.3: bf16[32,56,56,256]) -> bf16[32,56,56,256] {
  %param_0.3 = bf16[32,56,56,256]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  %fusion.1 = bf16[32,56,56,256]{3,0,2,1:T(8,128)(2,1)} fusion(%param_0.3), kind=kLoop, calls=%to_lanes
  ROOT %negate.1 = bf16[32,56,56,256]{3,0,2,1:T(8,128)(2,1)S(1)} negate(%fusion.1)
}

ENTRY %main.1 (x.1: bf16[32,56,56,256]) -> bf16[32,56,56,256] {
  %x.1 = bf16[32,56,56,256]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  ROOT %fusion = bf16[32,56,56,256]{3,0,2,1:T(8,128)(2,1)S(1)} fusion(%x.1), kind=kOutput, calls=%fused_computation
}
"""

V5E = step_time.CHIPS["v5e"]


def kernels(text: str) -> tuple[hlo_kernels.Kernel, ...]:
    return hlo_kernels.Module(text).program().entry.kernels


def test_a_softmax_streams_its_rows_once_per_reduction_broadcast_back():
    """Two reductions broadcast back over the row, one after the other: the input read twice, the result written
    once; each window counts its operand's elements once (a reduce, then a broadcast), never 2047 taps."""
    (kernel,) = kernels(SOFTMAX)
    array = 64 * 1024 * 1024 * 4
    assert kernel.hbm_bytes == 2 * array + array
    assert kernel.vector == 2 * 64 * 1024 * 1024 + 64 * 1024 * 1024  # the two windows, the subtract
    found = step_time.estimate({"compiled": {}}, SOFTMAX, "TPU v5 lite")
    assert found["binding"] == "HBM"
    assert found["estimated_seconds"] == pytest.approx(3 * array / (819e9 * 0.8) + V5E.kernel_seconds)


def test_a_prefix_window_counts_each_tap_as_a_depthwise_convolution_does():
    """A 128-wide prefix window: 128 taps an element (the depthwise emitter), not log2(128) = 7 passes."""
    (kernel,) = kernels(PREFIX)
    assert kernel.vector == 4096 * 32 * 128 * 128
    assert kernel.hbm_bytes == 4096 * 32 * 128 * 4  # read from HBM; the result stays on chip


def test_a_copy_into_another_layout_costs_its_bytes_at_the_relayout_rate():
    """The transpose reads 8 MiB from HBM and writes 8 MiB on chip: 16 MiB at the relayout rate, more than its
    8 MiB of HBM traffic takes; a copy that keeps its layout is HBM traffic only."""
    transpose, move = kernels(COPIES)
    array = 2048 * 16 * 128 * 4
    assert transpose.relayout_bytes == 2 * array
    assert transpose.hbm_bytes == array
    assert move.relayout_bytes == 0
    assert move.hbm_bytes == array
    found = step_time.estimate({"compiled": {}}, COPIES, "TPU v5 lite")
    relayout = 2 * array / V5E.relayout_bytes_per_s
    hbm = array / (819e9 * 0.8)
    assert found["estimated_seconds"] == pytest.approx(
        max(V5E.launch_seconds + V5E.input_seconds + V5E.output_seconds, relayout + hbm + 2 * V5E.kernel_seconds)
    )


def test_a_copy_fused_into_another_kernels_operand_is_no_relayout():
    (kernel,) = kernels(FUSED_COPY)
    assert kernel.relayout_bytes == 0
    assert kernel.vector == 32 * 56 * 56 * 256  # the negate


def test_the_relayout_rate_is_a_chip_figure_a_config_can_override():
    chip = step_time.chip_for("TPU v5 lite", {"relayout_gbps": 800})
    assert chip is not None
    assert chip.relayout_bytes_per_s == 800e9
    assert step_time.parse_chip("[tool.pytest-stages]", {"name": "v5e", "relayout_gbps": 800})
