"""ir.dataflow.state_plan's preconditions, each held on small stage texts: where one fails, no permutation is applied.

Each text is a loop whose body reads two weights asymmetrically (``tanh`` of the first only), in
two copies: as written, and with the two weights exchanged in the loop's state and in every place
the loop reads them (one program). Well formed, the two compare equal (the permutation applies).
With one precondition broken (the state read elsewhere, a region not where it is looked for, a
count that does not match, an unknown parameter), the rewrite would leave some reader of the
state as it is; the copies are then not shown to be one program, and must compare unequal.
"""

from __future__ import annotations

import pytest

from pytest_stages.ir import dataflow
from pytest_stages.ir.renaming import equivalent

# --- compiled HLO ---------------------------------------------------------------------------------

STATE = "(s32[], f32[8]{0}, f32[8]{0}, f32[8]{0})"
SHAPE = "(s32[], f32[8], f32[8], f32[8])"
GTE_OUT = "  %out = f32[8]{0} get-tuple-element(%loop), index=1"


def hlo(
    *, swapped: bool = False, entry: tuple[str, ...] = (GTE_OUT,), root: str = "  ROOT %r0 = f32[8]{0} copy(%out)"
) -> str:
    """A ``while`` over (i, x, w1, w2); ``swapped``: w1 and w2 exchanged in the init tuple, the body's
    reads and its root (one program). ``entry``: the lines after the loop, before ``root``."""
    w1, w2 = (3, 2) if swapped else (2, 3)
    first, second = ("%w2", "%w1") if swapped else ("%w1", "%w2")
    kept = "%b, %a" if swapped else "%a, %b"
    lines = [
        "HloModule m, is_scheduled=true",
        "",
        f"%body (p: {SHAPE}) -> {SHAPE} {{",
        f"  %p = {STATE} parameter(0)",
        f"  %a = f32[8]{{0}} get-tuple-element(%p), index={w1}",
        f"  %b = f32[8]{{0}} get-tuple-element(%p), index={w2}",
        "  %x = f32[8]{0} get-tuple-element(%p), index=1",
        "  %i = s32[] get-tuple-element(%p), index=0",
        "  %t = f32[8]{0} tanh(%a)",
        "  %m = f32[8]{0} multiply(%t, %b)",
        "  %y = f32[8]{0} add(%m, %x)",
        f"  ROOT %r = {STATE} tuple(%i, %y, {kept})",
        "}",
        "",
        f"%cond (q: {SHAPE}) -> pred[] {{",
        f"  %q = {STATE} parameter(0)",
        "  %n = s32[] get-tuple-element(%q), index=0",
        "  %five = s32[] constant(5)",
        "  ROOT %lt = pred[] compare(%n, %five), direction=LT",
        "}",
        "",
        "ENTRY %main (x0: f32[8], w1: f32[8], w2: f32[8]) -> f32[8] {",
        "  %x0 = f32[8]{0} parameter(0)",
        "  %w1 = f32[8]{0} parameter(1)",
        "  %w2 = f32[8]{0} parameter(2)",
        "  %zero = s32[] constant(0)",
        f"  %init = {STATE} tuple(%zero, %x0, {first}, {second})",
        f"  %loop = {STATE} while(%init), condition=%cond, body=%body",
        *entry,
        root,
        "}",
    ]
    return "\n".join(lines) + "\n"


def test_hlo_loop_state_exchanged_with_all_its_readers_is_one_program():
    """The baseline of the tests below: their texts are permuted by the rewrite where nothing is broken."""
    assert hlo() != hlo(swapped=True)
    assert dataflow.state_plan("hlo", hlo()) is not None
    assert equivalent("hlo", hlo(), hlo(swapped=True))
    assert not equivalent("hlo", hlo(), hlo(swapped=True).replace("tanh(%a)", "tanh(%b)"))


def test_hlo_loop_with_exactly_two_unchanged_positions_is_permuted():
    """With the counter counting, only the two weights come back unchanged: two positions are enough
    to permute (and the body reading the other weight is another program)."""

    def counting(text: str) -> str:
        return text.replace(
            "  %t = f32[8]{0} tanh(%a)",
            "  %one = s32[] constant(1)\n  %j = s32[] add(%i, %one)\n  %t = f32[8]{0} tanh(%a)",
        ).replace(f"ROOT %r = {STATE} tuple(%i, ", f"ROOT %r = {STATE} tuple(%j, ")

    plain, swapped = counting(hlo()), counting(hlo(swapped=True))
    assert "tuple(%j, " in plain and "tuple(%j, " in swapped
    assert dataflow.state_plan("hlo", plain) is not None
    assert equivalent("hlo", plain, swapped)
    assert not equivalent("hlo", plain, swapped.replace("tanh(%a)", "tanh(%b)"))


def test_hlo_init_tuple_read_outside_the_loop_is_left_as_written():
    """The entry reads position 2 of the init tuple too: w1 in one text, w2 in the other. The rewrite
    permutes the loop's places only, so applied here it would make the two programs look one."""
    entry = ("  %extra = f32[8]{0} get-tuple-element(%init), index=2", GTE_OUT)
    root = "  ROOT %r0 = f32[8]{0} add(%out, %extra)"
    plain, swapped = hlo(entry=entry, root=root), hlo(swapped=True, entry=entry, root=root)
    assert dataflow.state_plan("hlo", plain) is None
    assert not equivalent("hlo", plain, swapped)


def test_hlo_loop_result_read_whole_is_left_as_written():
    """The entry returns the loop's whole state, so the weights' order in it is the program's output:
    (.., w1, w2) in one text, (.., w2, w1) in the other."""
    root = f"  ROOT %r0 = {STATE} copy(%loop)"
    plain, swapped = hlo(entry=(), root=root), hlo(swapped=True, entry=(), root=root)
    assert dataflow.state_plan("hlo", plain) is None
    assert not equivalent("hlo", plain, swapped)


# --- StableHLO ------------------------------------------------------------------------------------

TENSOR = "tensor<8xf32>"
RETURN = f"stablehlo.return %iterArg, %iterArg_0, %1, %5 : {TENSOR}, {TENSOR}, tensor<i32>, {TENSOR}"


def mlir(
    *,
    swapped: bool = False,
    results: str = "%0:4",
    types: str = f"{TENSOR}, {TENSOR}, tensor<i32>, {TENSOR}",
    after_while: tuple[str, ...] = (),
    returned: str = f"      {RETURN}",
) -> str:
    """A ``stablehlo.while`` over (w1, w2, i, x); ``swapped``: w1 and w2 exchanged in the state and in
    the body's reads (one program). The other arguments replace the parts a rewrite reads."""
    w1, w2 = ("%iterArg_0", "%iterArg") if swapped else ("%iterArg", "%iterArg_0")
    inits = "%arg2, %iterArg_0 = %arg1" if swapped else "%arg1, %iterArg_0 = %arg2"
    lines = [
        "module @jit_f {",
        f"  func.func public @main(%arg0: {TENSOR}, %arg1: {TENSOR}, %arg2: {TENSOR}) -> ({TENSOR}) {{",
        "    %c = stablehlo.constant dense<0> : tensor<i32>",
        f"    {results} = stablehlo.while(%iterArg = {inits}, %iterArg_1 = %c, %iterArg_2 = %arg0) : {types}",
        *after_while,
        "    cond {",
        "      %c_3 = stablehlo.constant dense<5> : tensor<i32>",
        "      %1 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "      stablehlo.return %1 : tensor<i1>",
        "    } do {",
        "      %c_3 = stablehlo.constant dense<1> : tensor<i32>",
        "      %1 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>",
        f"      %2 = stablehlo.multiply %iterArg_2, {w1} : {TENSOR}",
        f"      %3 = stablehlo.tanh %2 : {TENSOR}",
        f"      %4 = stablehlo.multiply %iterArg_2, {w2} : {TENSOR}",
        f"      %5 = stablehlo.multiply %3, %4 : {TENSOR}",
        returned,
        "    }",
        f"    return %0#3 : {TENSOR}",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def test_mlir_loop_state_exchanged_with_all_its_readers_is_one_program():
    """The baseline of the tests below: their texts are permuted by the rewrite where nothing is broken."""
    assert dataflow.state_plan("mlir", mlir()) is not None
    assert equivalent("mlir", mlir(), mlir(swapped=True))
    assert not equivalent("mlir", mlir(), mlir(swapped=True).replace("tanh %2", "sqrt %2"))


# Each breaks one thing the rewrite reads: the loop's regions are found at fixed places (the cond
# region on the next line, the do region's return on the line before its closing brace at the
# loop's indent) and its lists are read by position (as many results, types and returned values as
# state pairs). A text read otherwise is compared as written.
BROKEN_MLIR = {
    "cond region not on the next line": {"after_while": ("    %c_9 = stablehlo.constant dense<7> : tensor<i32>",)},
    "return line at another indent": {"returned": f"        {RETURN}"},
    "fewer results than state pairs": {"results": "%0:3"},
    "fewer types than state pairs": {"types": f"{TENSOR}, {TENSOR}, tensor<i32>"},
    "fewer returned values than state pairs": {
        "returned": f"      stablehlo.return %iterArg, %iterArg_0, %1 : {TENSOR}, {TENSOR}, tensor<i32>"
    },
}


@pytest.mark.parametrize("broken", list(BROKEN_MLIR))
def test_mlir_loop_read_otherwise_than_planned_is_left_as_written(broken):
    parts = BROKEN_MLIR[broken]
    plain, swapped = mlir(**parts), mlir(swapped=True, **parts)
    assert dataflow.state_plan("mlir", plain) is None
    assert not equivalent("mlir", plain, swapped)


# --- jaxpr ----------------------------------------------------------------------------------------


def jaxpr(*, swapped: bool = False, extra: tuple[str, ...] = ()) -> str:
    """A ``while`` whose body constants are two weights, the first through ``tanh``; ``swapped``: the
    constants passed in the other order and the body's binders with them (one program). ``extra``:
    parameter lines after the known ones."""
    binders = "f:f32[8] e:f32[8]" if swapped else "e:f32[8] f:f32[8]"
    consts = "c b" if swapped else "b c"
    lines = [
        "{ lambda ; a:f32[8] b:f32[8] c:f32[8]. let",
        "    _:i32[] d:f32[8] = while[",
        f"      body_jaxpr={{ lambda ; {binders} g:i32[] h:f32[8]. let",
        "          i:i32[] = add g 1:i32[]",
        "          j:f32[8] = mul h e",
        "          k:f32[8] = tanh j",
        "          l:f32[8] = mul h f",
        "          m:f32[8] = mul k l",
        "        in (i, m) }",
        "      body_nconsts=2",
        "      cond_jaxpr={ lambda ; o:i32[] p:f32[8]. let",
        "          q:bool[] = lt o 5:i32[]",
        "        in (q,) }",
        "      cond_nconsts=0",
        *extra,
        f"    ] {consts} 0:i32[] a",
        "  in (d,) }",
    ]
    return "\n".join(lines) + "\n"


def test_jaxpr_while_constants_exchanged_with_the_body_binders_is_one_program():
    """The baseline of the test below: its texts are permuted by the rewrite where nothing is broken."""
    assert dataflow.state_plan("jaxpr", jaxpr()) is not None
    assert equivalent("jaxpr", jaxpr(), jaxpr(swapped=True))
    assert not equivalent("jaxpr", jaxpr(), jaxpr(swapped=True).replace("tanh j", "sin j"))


def test_jaxpr_eqn_with_a_parameter_outside_the_known_set_is_left_as_written():
    """A parameter the rewrite does not know may hold positions (a carry order, an index) that it
    would leave as they are: such an eqn's operands keep their order."""
    extra = ("      carry_order=1",)
    plain, swapped = jaxpr(extra=extra), jaxpr(swapped=True, extra=extra)
    assert dataflow.state_plan("jaxpr", plain) is None
    assert not equivalent("jaxpr", plain, swapped)


@pytest.mark.parametrize("count", ["n", "-1"])
def test_jaxpr_while_with_condition_constants_not_a_count_is_left_as_written(count):
    """The body's constants start after the condition's: with ``cond_nconsts`` not a count, where
    they start is unknown and the operands keep their order (not a guessed start permuted)."""
    plain = jaxpr().replace("cond_nconsts=0", f"cond_nconsts={count}")
    swapped = jaxpr(swapped=True).replace("cond_nconsts=0", f"cond_nconsts={count}")
    assert dataflow.state_plan("jaxpr", plain) is None
    assert not equivalent("jaxpr", plain, swapped)
