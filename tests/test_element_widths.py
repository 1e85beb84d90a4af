"""Element widths: one table of XLA's types, read by the snapshots' byte counts and by the step estimate.

An fp8, fp4, int4 or int2 array counts its own bits wherever bytes are counted: in a shape's bytes,
in a loop's HBM traffic and in the rate of a matrix product (fp8 operands are not float32's).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.analyse import step_time
from pytest_stages.ir import hlo, hlo_kernels

# Every narrow type JAX has, with its width in bits.
NARROW = [
    (jnp.float8_e4m3fn, 8),
    (jnp.float8_e5m2, 8),
    (jnp.float8_e4m3b11fnuz, 8),
    (jnp.float8_e4m3fnuz, 8),
    (jnp.float8_e5m2fnuz, 8),
    (jnp.float8_e4m3, 8),
    (jnp.float8_e3m4, 8),
    (jnp.float8_e8m0fnu, 8),
    (jnp.float4_e2m1fn, 4),
    (jnp.int4, 4),
    (jnp.uint4, 4),
    (jnp.int2, 2),
    (jnp.uint2, 2),
]


@pytest.mark.parametrize(("dtype", "bits"), NARROW, ids=lambda value: getattr(value, "__name__", str(value)))
def test_an_array_of_a_narrow_type_counts_its_own_bits(dtype, bits):
    text = jax.jit(lambda x: x).lower(jnp.zeros((64, 128), dtype)).as_text(dialect="hlo")
    name = next(line.split(" = ")[1].split("[")[0] for line in text.splitlines() if "parameter(0)" in line)
    assert hlo.dtype_bits(name) == bits
    assert hlo.shape_bytes(f"{name}[64,128]") == 64 * 128 * bits // 8
    assert hlo.shape_bytes(f"({name}[64,128]{{1,0}}, f32[2])") == 64 * 128 * bits // 8 + 8


# A loop of 16 iterations that negates a 64 x 128 array of the type T, as XLA's compiled text writes it.
LOOP = """HloModule jit_loop

%body (arg: (s32[], T[64,128])) -> (s32[], T[64,128]) {
  %arg = (s32[]{:T(128)}, T[64,128]{1,0}) parameter(0)
  %counter = s32[]{:T(128)} get-tuple-element(%arg), index=0
  %x = T[64,128]{1,0} get-tuple-element(%arg), index=1
  %one = s32[]{:T(128)} constant(1)
  %next = s32[]{:T(128)} add(%counter, %one)
  %negated = T[64,128]{1,0} negate(%x)
  ROOT %tuple = (s32[]{:T(128)}, T[64,128]{1,0}) tuple(%next, %negated)
}

%condition (arg.1: (s32[], T[64,128])) -> pred[] {
  %arg.1 = (s32[]{:T(128)}, T[64,128]{1,0}) parameter(0)
  %limit = s32[]{:T(128)} constant(16)
  %i = s32[]{:T(128)} get-tuple-element(%arg.1), index=0
  ROOT %lt = pred[]{:T(512)} compare(%i, %limit), direction=LT
}

ENTRY %main (x0: T[64,128]) -> T[64,128] {
  %x0 = T[64,128]{1,0} parameter(0)
  %zero = s32[]{:T(128)} constant(0)
  %init = (s32[]{:T(128)}, T[64,128]{1,0}) tuple(%zero, %x0)
  %while = (s32[]{:T(128)}, T[64,128]{1,0}) while(%init), condition=%condition, body=%body
  ROOT %out = T[64,128]{1,0} get-tuple-element(%while), index=1
}
"""


@pytest.mark.parametrize(("dtype", "bits"), [("f8e4m3fn", 8), ("f8e5m2", 8), ("f4e2m1fn", 4), ("s4", 4), ("bf16", 16)])
def test_a_loop_over_narrow_elements_moves_their_own_bytes_each_iteration(dtype, bits):
    """Each iteration's negate reads and writes the array (64 x 128 elements of ``bits``); the counter is the
    core's scalar work, no kernel."""
    program = hlo_kernels.Module(LOOP.replace("T[", f"{dtype}[")).program()
    assert program.unknown_trips == 0
    ((body, trips),) = program.entry.loops
    assert trips == 16
    assert [(k.opcode, k.hbm_bytes) for k in body.kernels if k.hbm_bytes] == [("negate", 2 * 64 * 128 * bits // 8)]


# A product of two 512 x 512 matrices with float32 results, its operands of the type named.
PRODUCT = """HloModule jit_product

ENTRY %main (a: T[512,512], b: T[512,512]) -> f32[512,512] {
  %a = T[512,512]{1,0} parameter(0)
  %b = T[512,512]{1,0} parameter(1)
  ROOT %dot = f32[512,512]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def test_an_fp8_product_runs_at_the_narrow_rate_not_at_float32s():
    """On an H100 float32 products run at the TF32 rate, half the bf16 rate; fp8 at twice the bf16 rate."""
    figures = {"compiled": {"flops": 2.0 * 512**3, "bytes accessed": 1.0}}
    fp8, bf16, f32 = (
        step_time.estimate(figures, PRODUCT.replace("T[", f"{dtype}["), "NVIDIA H100 80GB HBM3")
        for dtype in ("f8e4m3fn", "bf16", "f32")
    )
    assert hlo_kernels.Module(PRODUCT.replace("T[", "f8e4m3fn[")).program().entry.kernels[0].macs == (("f8", 512**3),)
    assert fp8["compute_seconds"] == pytest.approx(bf16["compute_seconds"] / 2)
    assert bf16["compute_seconds"] == pytest.approx(f32["compute_seconds"] / 2, rel=0.01)
