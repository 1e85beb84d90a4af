"""ir.dataflow.state_plan's rewrite, line by line: given the hashes of the values passed in, exactly which lines
change and how (StableHLO ``while`` results read after the loop, a jaxpr body whose binders span
lines, a ``while``'s condition constants).

The equivalence tests elsewhere show that two copies of one program meet; these pin the rewrite
itself, so a rewrite that moves a list but forgets one of its readers (or moves lines outside the
loop's function) fails here even where both copies would be bent alike.
"""

from __future__ import annotations

from pytest_stages.ir import dataflow
from pytest_stages.ir.renaming import equivalent

T8 = "tensor<8xf32>"
TYPES = f"{T8}, {T8}, tensor<i32>, {T8}"

# A function with a loop of its own, whose result %0#0 is read: the rewrite of main's loop (also
# named %0) must leave it be, before main as after it.
OTHER = [
    f"  func.func private @other(%arg0: {T8}, %arg1: {T8}) -> {T8} {{",
    f"    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : {T8}, {T8}",
    "    cond {",
    "      %c = stablehlo.constant dense<true> : tensor<i1>",
    "      stablehlo.return %c : tensor<i1>",
    "    } do {",
    f"      %1 = stablehlo.tanh %iterArg : {T8}",
    f"      %2 = stablehlo.sine %iterArg_0 : {T8}",
    f"      stablehlo.return %1, %2 : {T8}, {T8}",
    "    }",
    f"    return %0#0 : {T8}",
    "  }",
]


def mlir(*, swapped: bool = False, body: str = "tanh") -> str:
    """main's ``stablehlo.while`` over (w1, w2, i, x), its results w1 (``%0#0``) and x read after it;
    ``swapped``: w1 and w2 exchanged in the state, the body's reads and the results read (one program)."""
    w1, w2 = ("%iterArg_0", "%iterArg") if swapped else ("%iterArg", "%iterArg_0")
    inits = "%arg2, %iterArg_0 = %arg1" if swapped else "%arg1, %iterArg_0 = %arg2"
    first = "%0#1" if swapped else "%0#0"
    return "\n".join(
        [
            "module @jit_f {",
            *OTHER,
            f"  func.func public @main(%arg0: {T8}, %arg1: {T8}, %arg2: {T8}) -> ({T8}) {{",
            "    %c = stablehlo.constant dense<0> : tensor<i32>",
            f"    %0:4 = stablehlo.while(%iterArg = {inits}, %iterArg_1 = %c, %iterArg_2 = %arg0) : {TYPES}",
            "    cond {",
            "      %c_3 = stablehlo.constant dense<5> : tensor<i32>",
            "      %1 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
            "      stablehlo.return %1 : tensor<i1>",
            "    } do {",
            "      %c_3 = stablehlo.constant dense<1> : tensor<i32>",
            "      %1 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>",
            f"      %2 = stablehlo.multiply %iterArg_2, {w1} : {T8}",
            f"      %3 = stablehlo.{body} %2 : {T8}",
            f"      %4 = stablehlo.multiply %iterArg_2, {w2} : {T8}",
            f"      %5 = stablehlo.multiply %3, %4 : {T8}",
            f"      stablehlo.return %iterArg, %iterArg_0, %1, %5 : {TYPES}",
            "    }",
            f"    %1 = stablehlo.add %0#3, {first} : {T8}",
            f"    return %1 : {T8}",
            "  }",
            *OTHER[:1],
            *(line.replace("%0#0", "%0#1") if "return %0" in line else line for line in OTHER[1:]),
            "}",
            "",
        ]
    ).replace("@other(%arg0", "@other2(%arg0", 1)


def test_mlir_loop_results_read_after_the_loop_move_with_its_state():
    """A result of an invariant position read after the loop (``%0#0``) is renumbered with it: the
    copies are one program, and the body reading the other weight is another."""
    plain, swapped = mlir(), mlir(swapped=True)
    assert equivalent("mlir", plain, swapped)
    assert equivalent("mlir", swapped, plain)
    assert not equivalent("mlir", plain, mlir(swapped=True, body="sine"))
    assert not equivalent("mlir", plain, swapped.replace("%0#3, %0#1", "%0#3, %0#0"))


def test_mlir_loop_rewrite_moves_pairs_types_returns_and_results_in_its_function_only():
    """With w2's hash before w1's, the pairs, the return line and main's ``%0#0`` take the new order;
    the other functions' own ``%0#k`` and everything else stay as written."""
    plain = mlir()
    found = dataflow.state_plan("mlir", plain)
    assert found is not None
    (at,) = found.wanted
    assert plain.split("\n")[at].startswith("    %0:4 = stablehlo.while(")
    probes = {at: {"%arg1": "b", "%arg2": "a", "%c": "c", "%arg0": "d"}}
    expected = (
        plain.replace("(%iterArg = %arg1, %iterArg_0 = %arg2,", "(%iterArg_0 = %arg2, %iterArg = %arg1,")
        .replace("stablehlo.return %iterArg, %iterArg_0, %1", "stablehlo.return %iterArg_0, %iterArg, %1")
        .replace("add %0#3, %0#0", "add %0#3, %0#1")
    )
    assert found.apply(probes) == expected
    assert found.apply({at: {"%arg1": "a", "%arg2": "b"}}) == plain
    assert found.apply({}) == plain


# --- jaxpr ----------------------------------------------------------------------------------------


def scan(*, swapped: bool = False, body: str = "tanh e") -> str:
    """A ``scan`` over a ``let`` body whose binders JAX wrapped over two lines (the constants' types are
    long); ``swapped``: the constants passed in the other order, the binders with them (one program)."""
    first, second = ("f", "e") if swapped else ("e", "f")
    return "\n".join(
        [
            f"let jaxpr1 = {{ lambda ; {first}:f32[128,128,8] {second}:f32[128,128,8]",
            "    g:f32[8]. let",
            f"    h:f32[128,128,8] = {body}",
            "    i:f32[128,128,8] = mul h f",
            "    j:f32[8] = reduce_sum[axes=(0, 1) out_sharding=None] i",
            "    k:f32[8] = mul j g",
            "  in (k,) } in",
            "{ lambda ; a:f32[8] b:f32[128,128,8] c:f32[128,128,8]. let",
            "    d:f32[8] = scan[",
            "      jaxpr=jaxpr1",
            "      length=3",
            "      num_carry=1",
            "      num_consts=2",
            "      reverse=False",
            "      unroll=1",
            "    ] c b a" if swapped else "    ] b c a",
            "  in (d,) }",
            "",
        ]
    )


def test_jaxpr_let_body_with_binders_over_two_lines_is_rewritten_on_one_line():
    """The binders of a wrapped ``let`` body are read over their lines and printed back on one, with
    the ``let`` name kept: both copies rewrite to this one text."""
    out = []
    for swapped in (False, True):
        found = dataflow.state_plan("jaxpr", scan(swapped=swapped))
        assert found is not None
        (at,) = found.wanted
        out.append(found.apply({at: {"a": "0", "b": "2", "c": "1"}}))
    lines = scan().split("\n")
    assert out[0] == out[1]
    assert out[0].split("\n") == [
        "let jaxpr1 = { lambda ; f:f32[128,128,8] e:f32[128,128,8] g:f32[8]. let",
        *lines[2:15],
        "    ] c b a",
        *lines[16:],
    ]


def test_jaxpr_let_body_with_binders_over_two_lines_is_one_program_permuted():
    """The same through ``equivalent``: the copies meet; the body reading the other constant does not."""
    assert equivalent("jaxpr", scan(), scan(swapped=True))
    assert not equivalent("jaxpr", scan(), scan(swapped=True, body="tanh f"))


def while_loop(*, swapped: bool = False, cond_nconsts: str = "2", compare: str = "lt") -> str:
    """A ``while`` whose condition takes two constants (a bound and a scale) and the body none;
    ``swapped``: the constants passed in the other order, the condition's binders with them."""
    binders = "q:f32[] p:f32[]" if swapped else "p:f32[] q:f32[]"
    return "\n".join(
        [
            "{ lambda ; a:f32[8] b:f32[] c:f32[]. let",
            "    _:i32[] d:f32[8] = while[",
            "      body_jaxpr={ lambda ; e:i32[] f:f32[8]. let",
            "          g:i32[] = add e 1:i32[]",
            "          h:f32[8] = sin f",
            "        in (g, h) }",
            "      body_nconsts=0",
            f"      cond_jaxpr={{ lambda ; {binders} o:i32[] r:f32[8]. let",
            "          s:f32[] = convert_element_type[new_dtype=float32 weak_type=False] o",
            "          t:f32[] = mul s q",
            f"          u:bool[] = {compare} t p",
            "        in (u,) }",
            f"      cond_nconsts={cond_nconsts}",
            "    ] c b 0:i32[] a" if swapped else "    ] b c 0:i32[] a",
            "  in (d,) }",
            "",
        ]
    )


def test_jaxpr_while_condition_constants_move_with_the_condition_binders():
    """The first ``cond_nconsts`` operands are the condition's first binders: permuted together, one
    program; the condition comparing otherwise is another."""
    plain, swapped = while_loop(), while_loop(swapped=True)
    found = dataflow.state_plan("jaxpr", plain)
    assert found is not None
    (at,) = found.wanted
    rewritten = found.apply({at: {"a": "0", "b": "2", "c": "1"}})
    assert "    ] c b 0:i32[] a\n" in rewritten
    assert "cond_jaxpr={ lambda ; q:f32[] p:f32[] o:i32[] r:f32[8]. let\n" in rewritten
    assert equivalent("jaxpr", plain, swapped)
    assert not equivalent("jaxpr", plain, while_loop(swapped=True, compare="gt"))


def two_groups(*, swapped: bool = False, body: str = "mul h f") -> str:
    """A ``while`` with two condition constants and two body constants (operands 0-1 and 2-3);
    ``swapped``: each pair passed in the other order, each jaxpr's binders with it (one program)."""
    cond = "q:f32[] p:f32[]" if swapped else "p:f32[] q:f32[]"
    body_binders = "f:f32[8] e:f32[8]" if swapped else "e:f32[8] f:f32[8]"
    return "\n".join(
        [
            "{ lambda ; a:f32[8] b:f32[] c:f32[] w:f32[8] x:f32[8]. let",
            "    _:i32[] d:f32[8] = while[",
            f"      body_jaxpr={{ lambda ; {body_binders} g:i32[] h:f32[8]. let",
            "          i:i32[] = add g 1:i32[]",
            "          j:f32[8] = tanh e",
            f"          k:f32[8] = {body}",
            "          l:f32[8] = mul j k",
            "        in (i, l) }",
            "      body_nconsts=2",
            f"      cond_jaxpr={{ lambda ; {cond} o:i32[] r:f32[8]. let",
            "          s:f32[] = convert_element_type[new_dtype=float32 weak_type=False] o",
            "          t:f32[] = mul s q",
            "          u:bool[] = lt t p",
            "        in (u,) }",
            "      cond_nconsts=2",
            "    ] c b x w 0:i32[] a" if swapped else "    ] b c w x 0:i32[] a",
            "  in (d,) }",
            "",
        ]
    )


def test_jaxpr_while_condition_and_body_constants_each_move_with_their_own_binders():
    """Two groups in one eqn: the condition's constants (operands 0-1) and the body's (2-3, counted
    from where the condition's end) are each ordered by their keys and each jaxpr's binders follow."""
    out = []
    for swapped in (False, True):
        text = two_groups(swapped=swapped)
        found = dataflow.state_plan("jaxpr", text)
        assert found is not None
        (at,) = found.wanted
        assert found.apply({}) == two_groups()  # no hashes: ordered by the names, b c and w x
        out.append(found.apply({at: {"a": "0", "b": "4", "c": "3", "w": "2", "x": "1"}}))
    assert out[0] == out[1]
    assert "    ] c b x w 0:i32[] a\n" in out[0]
    assert "body_jaxpr={ lambda ; f:f32[8] e:f32[8] g:i32[] h:f32[8]. let\n" in out[0]
    assert "cond_jaxpr={ lambda ; q:f32[] p:f32[] o:i32[] r:f32[8]. let\n" in out[0]
    assert equivalent("jaxpr", two_groups(), two_groups(swapped=True))
    assert not equivalent("jaxpr", two_groups(), two_groups(swapped=True, body="mul h e"))


def nested(*, swapped: bool = False, inner: str = "max l 0.0:f32[]") -> str:
    """A ``scan`` printed right after another bracketed eqn (a one-operand ``custom_jvp_call``) and
    before another eqn, its inline body holding a bracketed eqn of its own (a ``jit``); ``swapped``:
    the constants in the other order, the body's binders with them (one program)."""
    binders = "f:f32[8] e:f32[8] g:f32[8]" if swapped else "e:f32[8] f:f32[8] g:f32[8]"
    return "\n".join(
        [
            "{ lambda ; a:f32[8] b:f32[8] c:f32[8]. let",
            "    y:f32[8] = custom_jvp_call[",
            "      name=relu",
            "      call_jaxpr={ lambda ; k:f32[8]. let",
            "          l:f32[8] = max k 0.0:f32[]",
            "        in (l,) }",
            "      jvp=jvp",
            "      symbolic_zeros=False",
            "    ] a",
            "    d:f32[8] = scan[",
            f"      jaxpr={{ lambda ; {binders}. let",
            "          h:f32[8] = tanh e",
            "          i:f32[8] = jit[",
            "            name=relu",
            "            jaxpr={ lambda ; l:f32[8]. let",
            f"                m:f32[8] = {inner}",
            "              in (m,) }",
            "          ] h",
            "          j:f32[8] = mul i f",
            "          k:f32[8] = mul j g",
            "        in (k,) }",
            "      length=3",
            "      num_carry=1",
            "      num_consts=2",
            "      reverse=False",
            "      unroll=1",
            "    ] c b y" if swapped else "    ] b c y",
            "    z:f32[8] = sin d",
            "  in (z,) }",
            "",
        ]
    )


def test_jaxpr_scan_after_a_bracketed_eqn_with_one_nested_in_its_body_is_found_whole():
    """The scan's operands are its own ``]`` line at its indent: not the ``] a`` of the eqn printed
    just before it, nor the ``] h`` of the eqn nested in its body, nor the eqn after it."""
    plain = nested()
    found = dataflow.state_plan("jaxpr", plain)
    assert found is not None
    (at,) = found.wanted
    assert plain.split("\n")[at] == "    ] b c y"
    assert found.apply({at: {"b": "1", "c": "0", "y": "2"}}) == nested(swapped=True)
    assert equivalent("jaxpr", plain, nested(swapped=True))
    assert not equivalent("jaxpr", plain, nested(swapped=True, inner="min l 0.0:f32[]"))


def test_jaxpr_while_with_fewer_operands_than_its_constants_is_left_as_written():
    """Two condition and two body constants need four operands: with three, the body's would be read
    past the end; the eqn keeps its order."""
    plain = two_groups().replace("    ] b c w x 0:i32[] a", "    ] b c w")
    assert dataflow.state_plan("jaxpr", plain) is None


def test_jaxpr_operands_wrapped_over_two_lines_are_read_whole():
    """Operands printed over two lines (the second deeper) are one list, printed back on one line."""
    plain = scan().replace("    ] b c a", "    ] b c\n      a")
    found = dataflow.state_plan("jaxpr", plain)
    assert found is not None
    assert found.wanted == {15, 16}
    one_line = scan(swapped=True).replace("f32[128,128,8]\n    g:f32[8]. let", "f32[128,128,8] g:f32[8]. let")
    assert found.apply({15: {"b": "1", "c": "0"}, 16: {"a": "2"}}) == one_line
    assert equivalent("jaxpr", plain, scan(swapped=True))
