"""ir.dataflow.state_plan on calls: a StableHLO private function called once, a jaxpr ``scan``'s constants and a
custom-derivative call's operands, each as JAX 0.10.2 prints them.

As in tests/test_state_order_preconditions.py, each text reads two weights asymmetrically (``tanh`` of the
first only) and comes in two copies: as written, and with the weights exchanged in the call's operands
and in the callee's parameters (one program), which must compare equal. A copy that is not the same
program (the callee reading the other weight, a callee shared by two calls, a count that does not
match) must compare unequal: there a permutation would be a false "equal".
"""

from __future__ import annotations

import pytest

from pytest_stages.ir import dataflow
from pytest_stages.ir.renaming import equivalent

# --- StableHLO: a private function called once ----------------------------------------------------

T8 = "tensor<8xf32>"
TI = "tensor<i32>"


def mlir_call(
    *,
    swapped: bool = False,
    operands: str | None = None,
    types: str | None = None,
    extra_main: tuple[str, ...] = (),
    body: str = "tanh",
) -> str:
    """``main`` calls ``@g(x, w1, w2, n)``; ``g`` returns tanh(w1) * w2 * x + n. ``swapped``: w1 and w2
    exchanged in the call's operands and in ``g``'s parameters (one program). The other arguments
    replace the parts a rewrite reads."""
    if operands is None:
        operands = "%arg0, %arg2, %arg1, %arg3" if swapped else "%arg0, %arg1, %arg2, %arg3"
    if types is None:
        types = f"{T8}, {T8}, {T8}, {TI}"
    w1, w2 = ("%arg2", "%arg1") if swapped else ("%arg1", "%arg2")
    return "\n".join(
        [
            "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {",
            f"  func.func public @main(%arg0: {T8}, %arg1: {T8}, %arg2: {T8}, %arg3: {TI}) -> ({T8}) {{",
            f"    %0 = call @g({operands}) : ({types}) -> {T8}",
            *extra_main,
            f"    return %0 : {T8}",
            "  }",
            f"  func.func private @g(%arg0: {T8}, %arg1: {T8}, %arg2: {T8}, %arg3: {TI}) -> {T8} {{",
            f"    %0 = stablehlo.{body} {w1} : {T8}",
            f"    %1 = stablehlo.multiply %0, {w2} : {T8}",
            f"    %2 = stablehlo.multiply %1, %arg0 : {T8}",
            f"    %3 = stablehlo.convert %arg3 : ({TI}) -> tensor<f32>",
            f"    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> {T8}",
            f"    %5 = stablehlo.add %2, %4 : {T8}",
            f"    return %5 : {T8}",
            "  }",
            "}",
            "",
        ]
    )


def test_mlir_call_operands_exchanged_with_the_callee_parameters_is_one_program():
    """The call's operands and the callee's parameters are one list: permuted together, one program."""
    plain, swapped = mlir_call(), mlir_call(swapped=True)
    assert plain != swapped
    found = dataflow.state_plan("mlir", plain)
    assert found is not None and found.wanted == {2}
    assert equivalent("mlir", plain, swapped)
    assert equivalent("mlir", swapped, plain)


def test_mlir_call_rewrite_puts_operands_types_and_parameters_in_one_order():
    """Both copies rewrite to one text: operands, their types and the callee's parameters moved alike
    (the weights' types differ from the counter's, so a type left behind shows)."""
    plain, swapped = mlir_call(), mlir_call(swapped=True)
    rewritten = []
    for text in (plain, swapped):
        found = dataflow.state_plan("mlir", text)
        assert found is not None
        keys = {"%arg0": "3", "%arg1": "1", "%arg2": "2", "%arg3": "0"}
        rewritten.append(found.apply({2: keys}))
    first = rewritten[0].split("\n")
    assert first[2] == f"    %0 = call @g(%arg3, %arg1, %arg2, %arg0) : ({TI}, {T8}, {T8}, {T8}) -> {T8}"
    assert first[5] == f"  func.func private @g(%arg3: {TI}, %arg1: {T8}, %arg2: {T8}, %arg0: {T8}) -> {T8} {{"
    lines = plain.split("\n")
    assert first[:2] + first[3:5] + first[6:] == lines[:2] + lines[3:5] + lines[6:]
    second = rewritten[1].split("\n")
    assert second[2] == f"    %0 = call @g(%arg3, %arg1, %arg2, %arg0) : ({TI}, {T8}, {T8}, {T8}) -> {T8}"
    assert second[5] == f"  func.func private @g(%arg3: {TI}, %arg2: {T8}, %arg1: {T8}, %arg0: {T8}) -> {T8} {{"


def test_mlir_call_rewrite_without_a_move_leaves_the_text_as_written():
    """Keys already in order move nothing: the text comes back byte for byte."""
    plain = mlir_call()
    found = dataflow.state_plan("mlir", plain)
    assert found is not None
    assert found.apply({2: {"%arg0": "0", "%arg1": "1", "%arg2": "2", "%arg3": "3"}}) == plain
    assert found.apply({}) == plain


def test_mlir_call_to_a_callee_reading_the_other_weight_is_another_program():
    """The callee takes tanh of the second weight in the exchanged copy: not one program."""
    plain = mlir_call()
    other = mlir_call(swapped=True, body="tanh").replace("stablehlo.tanh %arg2", "stablehlo.tanh %arg1")
    assert not equivalent("mlir", plain, other)
    assert not equivalent("mlir", plain, mlir_call(swapped=True, body="sqrt"))


# Each breaks one thing the call rewrite reads; the copies are then compared as written.
BROKEN_CALL = {
    "callee called twice": {
        "extra_main": (f"    %1 = call @g(%arg0, %arg1, %arg2, %arg3) : ({T8}, {T8}, {T8}, {TI}) -> {T8}",)
    },
    "callee named elsewhere": {
        "extra_main": ('    %1 = stablehlo.custom_call @h(%arg0) {callee = "@g"} : (' + T8 + ") -> " + T8,)
    },
    "fewer types than operands": {"types": f"{T8}, {T8}, {T8}"},
}


@pytest.mark.parametrize("broken", list(BROKEN_CALL))
def test_mlir_call_read_otherwise_than_planned_is_left_as_written(broken):
    """A callee another place may call (or name) takes its parameters in its own order; a call whose
    lists differ in length is not read by position. Neither is permuted."""
    parts = BROKEN_CALL[broken]
    plain, swapped = mlir_call(**parts), mlir_call(swapped=True, **parts)
    found = dataflow.state_plan("mlir", plain)
    assert found is None
    assert not equivalent("mlir", plain, swapped)


def test_mlir_call_with_fewer_callee_parameters_is_left_as_written():
    """The callee declares three parameters for four operands: the lists are not one list."""
    plain = mlir_call().replace(f", %arg3: {TI}) -> {T8} {{", f") -> {T8} {{")
    swapped = mlir_call(swapped=True).replace(f", %arg3: {TI}) -> {T8} {{", f") -> {T8} {{")
    assert dataflow.state_plan("mlir", plain) is None
    assert not equivalent("mlir", plain, swapped)


def mlir_call2(*, swapped: bool = False, body: str = "tanh") -> str:
    """``main`` calls ``@g(w1, w2)``, which returns tanh(w1) * w2; ``swapped``: w1 and w2 exchanged in
    the call's operands and in ``g``'s parameters (one program)."""
    operands, w1, w2 = ("%arg1, %arg0", "%arg1", "%arg0") if swapped else ("%arg0, %arg1", "%arg0", "%arg1")
    return "\n".join(
        [
            "module @jit_f {",
            f"  func.func public @main(%arg0: {T8}, %arg1: {T8}) -> ({T8}) {{",
            f"    %0 = call @g({operands}) : ({T8}, {T8}) -> {T8}",
            f"    return %0 : {T8}",
            "  }",
            f"  func.func private @g(%arg0: {T8}, %arg1: {T8}) -> {T8} {{",
            f"    %0 = stablehlo.{body} {w1} : {T8}",
            f"    %1 = stablehlo.multiply %0, {w2} : {T8}",
            f"    return %1 : {T8}",
            "  }",
            "}",
            "",
        ]
    )


def test_mlir_call_with_two_operands_is_permuted():
    """Two operands are the smallest list with an order to put right."""
    assert dataflow.state_plan("mlir", mlir_call2()) is not None
    assert equivalent("mlir", mlir_call2(), mlir_call2(swapped=True))
    assert not equivalent("mlir", mlir_call2(), mlir_call2(swapped=True, body="sine"))


def test_mlir_call_with_one_operand_has_nothing_to_permute():
    """One operand, one order: no plan."""
    text = "\n".join(
        [
            "module @jit_f {",
            f"  func.func public @main(%arg0: {T8}) -> ({T8}) {{",
            f"    %0 = call @g(%arg0) : ({T8}) -> {T8}",
            f"    return %0 : {T8}",
            "  }",
            f"  func.func private @g(%arg0: {T8}) -> {T8} {{",
            f"    %0 = stablehlo.tanh %arg0 : {T8}",
            f"    return %0 : {T8}",
            "  }",
            "}",
        ]
    )
    assert dataflow.state_plan("mlir", text) is None


# --- jaxpr: scan constants, custom-derivative operands --------------------------------------------

CALLEE = (
    "          h:f32[8] = tanh f",
    "          i:f32[8] = mul h g",
    "          j:f32[8] = mul i e",
    "        in (j,) }",
)


def custom_call(primitive: str, *, swapped: bool = False, binders: str | None = None) -> str:
    """A ``custom_jvp_call`` or ``custom_vjp_call`` of tanh(w1) * w2 * x as JAX 0.10.2 prints it;
    ``swapped``: w1 and w2 exchanged in the operands and in ``call_jaxpr``'s binders (one program)."""
    if binders is None:
        binders = "e:f32[8] g:f32[8] f:f32[8]" if swapped else "e:f32[8] f:f32[8] g:f32[8]"
    params = {
        "custom_jvp_call": ("call_jaxpr", "jvp=<lambda>", "symbolic_zeros=False"),
        "custom_vjp_call": ("bwd=<lambda>", "call_jaxpr", "fwd=<lambda>", "symbolic_zeros=False"),
    }[primitive]
    lines = ["{ lambda ; a:f32[8] b:f32[8] c:f32[8]. let", f"    d:f32[8] = {primitive}[", "      name=f"]
    for param in params:
        if param == "call_jaxpr":
            lines += [f"      call_jaxpr={{ lambda ; {binders}. let", *CALLEE]
        else:
            lines.append(f"      {param}")
    lines += ["    ] a c b" if swapped else "    ] a b c", "  in (d,) }", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("primitive", ["custom_jvp_call", "custom_vjp_call"])
def test_jaxpr_custom_call_operands_exchanged_with_its_binders_is_one_program(primitive):
    """Every operand of a custom-derivative call is its ``call_jaxpr``'s binder: permuted together,
    one program; the callee reading the other weight is another."""
    plain, swapped = custom_call(primitive), custom_call(primitive, swapped=True)
    assert plain != swapped
    found = dataflow.state_plan("jaxpr", plain)
    assert found is not None and found.wanted == {11 if primitive == "custom_vjp_call" else 10}
    assert equivalent("jaxpr", plain, swapped)
    assert equivalent("jaxpr", swapped, plain)
    assert not equivalent("jaxpr", plain, swapped.replace("tanh f", "tanh g"))
    assert not equivalent("jaxpr", plain, swapped.replace("] a c b", "] a b c"))


@pytest.mark.parametrize("primitive", ["custom_jvp_call", "custom_vjp_call"])
def test_jaxpr_custom_call_rewrite_moves_operands_and_binders_alike(primitive):
    """Both copies rewrite to one text: the operand line and the binders in the order of the keys."""
    out = []
    for swapped in (False, True):
        text = custom_call(primitive, swapped=swapped)
        found = dataflow.state_plan("jaxpr", text)
        assert found is not None
        (at,) = found.wanted
        out.append(found.apply({at: {"a": "2", "b": "0", "c": "1"}}))
    assert out[0] == out[1]
    assert "    ] b c a\n" in out[0]
    assert "call_jaxpr={ lambda ; f:f32[8] g:f32[8] e:f32[8]. let\n" in out[0]


@pytest.mark.parametrize("binders", ["e:f32[8] f:f32[8]", "e:f32[8] f:f32[8] g:f32[8] z:f32[8]"], ids=["fewer", "more"])
@pytest.mark.parametrize("primitive", ["custom_jvp_call", "custom_vjp_call"])
def test_jaxpr_custom_call_with_binders_not_one_per_operand_is_left_as_written(primitive, binders):
    """A ``call_jaxpr`` with fewer or more binders than the call has operands is not read by position."""
    plain = custom_call(primitive, binders=binders)
    swapped = custom_call(primitive, swapped=True, binders=binders)
    assert dataflow.state_plan("jaxpr", plain) is None
    assert not equivalent("jaxpr", plain, swapped)


@pytest.mark.parametrize("primitive", ["custom_jvp_call", "custom_vjp_call"])
def test_jaxpr_custom_call_binders_wrapped_over_two_lines_are_read_whole(primitive):
    """JAX wraps a long binder list; the rewrite reads it over its lines and prints it on one."""
    wrapped = {False: "e:f32[8] f:f32[8]\n          g:f32[8]", True: "e:f32[8] g:f32[8]\n          f:f32[8]"}
    plain = custom_call(primitive, binders=wrapped[False])
    swapped = custom_call(primitive, swapped=True, binders=wrapped[True])
    found = dataflow.state_plan("jaxpr", plain)
    assert found is not None
    (at,) = found.wanted
    assert found.apply({at: {"a": "0", "b": "2", "c": "1"}}) == custom_call(primitive, swapped=True)
    assert equivalent("jaxpr", plain, swapped)
    assert not equivalent("jaxpr", plain, swapped.replace("tanh f", "tanh g"))


def scan(
    *,
    swapped: bool = False,
    named: bool = False,
    consts: str = "num_consts=2",
    extra: tuple[str, ...] = (),
    let_consts: str = "",
    operands: str = "",
) -> str:
    """A ``scan`` whose constants are two weights, the first through ``tanh``, as JAX 0.10.2 prints it;
    ``swapped``: the constants passed in the other order and the body's binders with them (one
    program). ``named``: the body printed as ``let jaxpr1`` before the jaxpr; ``extra``: lines at the
    end of the outer jaxpr's eqns; ``operands``: more operands after the three."""
    binders = "f:f32[8] e:f32[8] g:f32[8]" if swapped else "e:f32[8] f:f32[8] g:f32[8]"
    body = [
        "          h:f32[8] = tanh e",
        "          i:f32[8] = mul h f",
        "          j:f32[8] = mul i g",
        "        in (j,) }",
    ]
    if named:
        head = [
            f"let jaxpr1 = {{ lambda {let_consts}; {binders}. let",
            *(line[6:] for line in body[:-1]),
            "  in (j,) } in",
        ]
        param = ["      jaxpr=jaxpr1"]
    else:
        head, param = [], [f"      jaxpr={{ lambda ; {binders}. let", *body]
    lines = [
        *head,
        "{ lambda ; a:f32[8] b:f32[8] c:f32[8]. let",
        "    d:f32[8] = scan[",
        *param,
        "      length=3",
        "      num_carry=1",
        f"      {consts}",
        "      reverse=False",
        "      unroll=1",
        ("    ] c b a" if swapped else "    ] b c a") + (f" {operands}" if operands else ""),
        *extra,
        "  in (d,) }",
        "",
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("named", [False, True], ids=["inline", "let"])
def test_jaxpr_scan_constants_exchanged_with_the_body_binders_is_one_program(named):
    """A scan's constants are its body's first binders: permuted together, one program; the body
    reading the other constant, or the carry moved among them, is another."""
    plain, swapped = scan(named=named), scan(swapped=True, named=named)
    assert plain != swapped
    assert dataflow.state_plan("jaxpr", plain) is not None
    assert equivalent("jaxpr", plain, swapped)
    assert equivalent("jaxpr", swapped, plain)
    assert not equivalent("jaxpr", plain, swapped.replace("tanh e", "tanh f"))
    assert not equivalent("jaxpr", plain, swapped.replace("] c b a", "] c a b"))


def test_jaxpr_scan_rewrite_moves_only_the_constants():
    """The carry (last operand, last binder) keeps its place; the two constants take the keys' order."""
    out = []
    for swapped in (False, True):
        text = scan(swapped=swapped)
        found = dataflow.state_plan("jaxpr", text)
        assert found is not None
        (at,) = found.wanted
        out.append(found.apply({at: {"a": "0", "b": "2", "c": "1"}}))
    assert out[0] == out[1]
    assert "    ] c b a\n" in out[0]
    assert "jaxpr={ lambda ; f:f32[8] e:f32[8] g:f32[8]. let\n" in out[0]


BROKEN_SCAN = {
    "constants count unknown": {"consts": "num_consts=n"},
    "constants count not printed": {"consts": "_split_transpose=False"},
    "more constants than binders": {"consts": "num_consts=4"},
    "parameter outside the known set": {
        "extra": (),
        "consts": "num_consts=2\n      _split_transpose=False\n      carry=1",
    },
    "let body named by another eqn": {"named": True, "extra": ("    k:f32[8] = pjit[name=jaxpr1] a",)},
    "let body with constants of its own": {"named": True, "let_consts": "z:f32[8] "},
    "more constants than binders, as many operands": {"consts": "num_consts=4", "operands": "a"},
}


def test_jaxpr_scan_with_one_constant_has_nothing_to_permute():
    """One constant, one order: no plan (not a rewrite that only reprints the body's binders)."""
    assert dataflow.state_plan("jaxpr", scan(consts="num_consts=1")) is None


@pytest.mark.parametrize("broken", list(BROKEN_SCAN))
def test_jaxpr_scan_read_otherwise_than_planned_is_left_as_written(broken):
    """A scan whose constants' count or body cannot be read as planned keeps its operands' order."""
    parts = BROKEN_SCAN[broken]
    plain, swapped = scan(**parts), scan(swapped=True, **parts)
    assert dataflow.state_plan("jaxpr", plain) is None
    assert not equivalent("jaxpr", plain, swapped)


def test_jaxpr_with_all_four_primitives_plans_each_eqn():
    """A text holding a ``while``, a ``scan`` and both custom-derivative calls: each eqn's operand
    line is planned (the quick test for these primitives lets such a text through)."""
    loop = [
        "    _:i32[] d:f32[8] = while[",
        "      body_jaxpr={ lambda ; e:f32[8] f:f32[8] g:i32[] h:f32[8]. let",
        "          i:i32[] = add g 1:i32[]",
        "          j:f32[8] = tanh e",
        "          k:f32[8] = mul j f",
        "          l:f32[8] = mul h k",
        "        in (i, l) }",
        "      body_nconsts=2",
        "      cond_jaxpr={ lambda ; o:i32[] p:f32[8]. let",
        "          q:bool[] = lt o 5:i32[]",
        "        in (q,) }",
        "      cond_nconsts=0",
        "    ] b c 0:i32[] a",
    ]
    parts = [
        loop,
        scan().split("\n")[1:-2],
        custom_call("custom_jvp_call").split("\n")[1:-2],
        custom_call("custom_vjp_call").split("\n")[1:-2],
    ]
    eqns = [line.replace(" d:f32[8] = ", f" d{k}:f32[8] = ") for k, part in enumerate(parts) for line in part]
    text = "\n".join(["{ lambda ; a:f32[8] b:f32[8] c:f32[8]. let", *eqns, "  in (d3,) }", ""])
    found = dataflow.state_plan("jaxpr", text)
    assert found is not None
    lines = text.split("\n")
    assert {lines[k] for k in found.wanted} == {"    ] b c 0:i32[] a", "    ] b c a", "    ] a b c"}
    assert len(found.wanted) == 4
