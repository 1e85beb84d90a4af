"""Whole modules, whatever their length, and the order of independent operations.

The renumbering-proof diff and name keeping align every line of a module (no window), and texts
that are one dataflow graph with independent operations in another order are one program; a real
change among moved lines (a constant, an op, an edge) is still a drift.
"""

from __future__ import annotations

import difflib
import re

import jax
import jax.numpy as jnp
import pytest
from conftest import projections

from pytest_stages.check.drift import compare_text
from pytest_stages.check.message import details
from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.normalize import normalize_hlo
from pytest_stages.ir.renaming import equivalent, keep_names
from pytest_stages.ir.textdiff import edit_script

# One op of a long chain: (opcode, whether it reads the parameter too)
CYCLE = [("add", True), ("multiply", True), ("tanh", False), ("subtract", True), ("exponential", False)]


def chain(ops: list[str]) -> str:
    """A compiled-HLO module of one long chain of ops, numbered in order as XLA numbers them.

    Its lines repeat five canonical forms over and over, as the layers of a model do.
    """
    lines = ["HloModule chain, entry_computation_layout={(f32[8]{0})->f32[8]{0}}", ""]
    lines += ["ENTRY %main.0 (p.1: f32[8]) -> f32[8] {", "  %p.1 = f32[8]{0} parameter(0)"]
    last = "%p.1"
    for k, op in enumerate(ops, start=2):
        reads = f"{last}, %p.1" if dict(CYCLE).get(op, True) else last
        root = "ROOT " if k == len(ops) + 1 else ""
        lines.append(f"  {root}%{op}.{k} = f32[8]{{0}} {op}({reads})")
        last = f"%{op}.{k}"
    return "\n".join([*lines, "}", ""])


OPS = [CYCLE[k % len(CYCLE)][0] for k in range(6000)]


def _changed_lines(old: str, new: str) -> int:
    """Lines of a plain line diff (``git diff``'s count): what a pull request shows."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("---", "+++")))


def drifted() -> tuple[str, str]:
    """The 6000-op chain, and the same with an op inserted at line 104 (renumbering all after it) and one
    changed at line 5004."""
    ops = list(OPS)
    ops[5000] = "maximum"
    ops.insert(100, "negate")
    return chain(OPS), chain(ops)


def test_a_change_past_line_2000_is_shown_where_it_is_after_a_renumbering_insert():
    old, new = drifted()
    script = edit_script("hlo", old, new)
    assert [(row.tag, row.old, row.new) for row in script.rows if row.tag != "="] == [
        ("+", None, 104),
        ("~", 104, 105),  # reads the inserted op's value
        ("~", 5004, 5005),
        ("~", 5005, 5006),  # reads the changed op's value
    ]
    diff = unified(script, 100)
    assert "-  %add.5002 = f32[8]{0} add(%exponential.5001, %p.1)" in diff
    assert "+  %maximum.5003 = f32[8]{0} maximum(%exponential.5002, %p.1)" in diff
    assert any(line.startswith("@@ -5003,") for line in diff)
    assert not any(line.startswith("...") for line in diff)  # the whole diff, nothing cut


def test_the_drift_message_of_a_long_module_counts_exactly_the_changed_ops():
    old, new = drifted()
    finding = compare_text("compiled", old, new, diff_lines=40)
    assert finding is not None
    message = "\n".join(details(finding))
    assert "ops: -1 add, +1 maximum, +1 negate" in message
    assert "beyond" not in message and "more diff lines" not in message


def test_an_update_of_a_long_module_keeps_every_name_the_alignment_maps():
    old, new = drifted()
    kept = keep_names("hlo", old, new)
    assert equivalent("hlo", kept, new)
    # +negate, -/+ its reader, -/+ the changed op, -/+ its reader: the maximum that replaced add.5002 may not keep
    # that name (a kept name never carries another op's meaning), so it takes the new text's, and its reader with it
    assert _changed_lines(old, kept) == 7
    assert "  %maximum.5003 = f32[8]{0} maximum(%exponential.5001, %p.1)" in kept.splitlines()
    assert "%add.5002" not in kept
    assert _changed_lines(old, new) > 11000  # JAX's own names: every line after the insert


# --- the order of independent operations ------------------------------------------------------


def mlp(x, w1, w2, w3, *, swapped=False, scale=1.0, op=jnp.tanh, rewired=False):
    """Two projections of an MLP, in either order; ``scale``, ``op`` and ``rewired`` make real changes."""
    if swapped:
        h2 = x @ w2
        h1 = x @ w1
    else:
        h1 = x @ w1
        h2 = x @ w2
    return (op(h1) * (h1 if rewired else h2) * scale) @ w3


ARGS = [jax.ShapeDtypeStruct((8, 64), jnp.float32)] + [jax.ShapeDtypeStruct((64, 64), jnp.float32)] * 3


def staged(**change) -> dict[str, str]:
    """The three stage texts of :func:`mlp` as snapshots hold them."""

    def f(x, w1, w2, w3):
        return mlp(x, w1, w2, w3, **change)

    traced = jax.jit(f).trace(*ARGS)
    lowered = traced.lower()
    return {
        "jaxpr": str(traced.jaxpr),
        "mlir": lowered.as_text(),
        "hlo": normalize_hlo(lowered.compile().as_text()),
    }


@pytest.fixture(scope="module")
def texts() -> dict[str, dict[str, str]]:
    return {
        "plain": staged(),
        "swapped": staged(swapped=True),
        "constant": staged(swapped=True, scale=2.0),
        "op": staged(swapped=True, op=jnp.sin),
        "rewired": staged(swapped=True, rewired=True),
    }


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir"])
def test_two_independent_lines_swapped_are_one_program_and_an_update_writes_the_snapshot_back(texts, dialect):
    plain, swapped = texts["plain"][dialect], texts["swapped"][dialect]
    assert plain != swapped  # JAX prints them in the traced order
    assert equivalent(dialect, plain, swapped)
    assert keep_names(dialect, plain, swapped) == plain


def test_on_cpu_xla_compiles_the_swap_to_the_same_instructions(texts):
    plain, swapped = texts["plain"]["hlo"], texts["swapped"]["hlo"]
    assert sorted(plain.splitlines()) == sorted(swapped.splitlines())  # the multiset of instructions is equal
    assert equivalent("hlo", plain, swapped)


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir", "hlo"])
@pytest.mark.parametrize("change", ["constant", "op", "rewired"])
def test_a_real_change_among_swapped_lines_is_still_a_drift(texts, dialect, change):
    assert not equivalent(dialect, texts["plain"][dialect], texts[change][dialect])


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir"])
def test_swapped_operands_after_a_reorder_are_a_drift(texts, dialect):
    """Moved lines must match under one renaming: reading ``h1`` where ``h2`` was read is another program
    (``tanh(h1) * h2`` read as ``h2 * tanh(h1)``, the product's operands swapped, is not)."""
    swapped = texts["swapped"][dialect]
    if dialect == "jaxpr":
        commuted, changed = swapped.replace("mul g e", "mul e g"), swapped.replace("mul g e", "mul g f")
    else:
        commuted = swapped.replace("stablehlo.multiply %2, %0", "stablehlo.multiply %0, %2")
        changed = swapped.replace("stablehlo.multiply %2, %0", "stablehlo.multiply %2, %1")
    assert swapped not in (changed, commuted)
    assert not equivalent(dialect, texts["plain"][dialect], changed)
    assert equivalent(dialect, texts["plain"][dialect], commuted)


def test_a_swap_inside_a_nested_jit_function_is_one_program():
    """The swap inside a jitted helper called twice: the jaxpr's shared ``let inner = ...`` and
    StableHLO's ``func.func private @inner``, whose caller's calls keep their place, reorder too."""

    def make(swapped):
        @jax.jit
        def inner(x, w1, w2):
            return mlp(x, w1, w2, w2.T, swapped=swapped)

        return lambda x, w1, w2: inner(x, w1, w2).sum() + inner(x * 2, w1, w2).sum()

    texts = []
    for swapped in (False, True):
        traced = jax.jit(make(swapped)).trace(*ARGS[:3])
        texts.append({"jaxpr": str(traced.jaxpr), "mlir": traced.lower().as_text()})
    for dialect in ("jaxpr", "mlir"):
        assert texts[0][dialect] != texts[1][dialect]
        assert equivalent(dialect, texts[0][dialect], texts[1][dialect]), dialect


EFFECTS = {
    "hlo": (
        "ENTRY %main.0 (p.1: f32[8], q.2: f32[8]) -> (f32[8], f32[8]) {\n"
        "  %p.1 = f32[8]{0} parameter(0)\n  %q.2 = f32[8]{0} parameter(1)\n"
        "  %OP.3 = f32[8]{0} OP(%p.1), replica_groups={}, to_apply=%add\n"
        "  %OP.4 = f32[8]{0} OP(%q.2), replica_groups={}, to_apply=%add\n"
        "  ROOT %tuple.5 = (f32[8]{0}, f32[8]{0}) tuple(%OP.3, %OP.4)\n}\n",
        ("all-reduce", "negate"),
    ),
    "mlir": (
        "module @m {\n  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {\n"
        "    %0 = stablehlo.OP @f(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n"
        "    %1 = stablehlo.OP @f(%arg1) : (tensor<8xf32>) -> tensor<8xf32>\n"
        "    %2 = stablehlo.add %0, %1 : tensor<8xf32>\n    return %2 : tensor<8xf32>\n  }\n}\n",
        ("custom_call", "negate"),
    ),
    "jaxpr": (
        "{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = OP[ordered=True] a\n    d:f32[] = OP[ordered=True] b\n"
        "    e:f32[] = add c d\n  in (e,) }",
        ("io_callback", "sin"),
    ),
}


@pytest.mark.parametrize("dialect", ["hlo", "mlir", "jaxpr"])
def test_side_effects_keep_their_order_and_pure_ops_may_move(dialect):
    """Two independent collectives (custom calls, callbacks) swapped run in another order: a drift.
    The same two lines with a pure op are one program in either order."""
    text, (effect, pure) = EFFECTS[dialect]
    lines = text.split("\n")
    at = next(k for k, line in enumerate(lines) if "OP" in line)
    swapped = "\n".join([*lines[:at], lines[at + 1], lines[at], *lines[at + 2 :]])
    assert equivalent(dialect, text.replace("OP", pure), swapped.replace("OP", pure))
    assert not equivalent(dialect, text.replace("OP", effect), swapped.replace("OP", effect))


# --- inside loops and called functions ----------------------------------------------------------


@jax.jit
def sine(y, w):
    return jnp.sin(y @ w)


@jax.jit
def cosine(y, w):
    return jnp.cos(y @ w)


def called(y, w1, w2, *, swapped):
    """Two independent calls of jitted functions (StableHLO's ``func.call``, the jaxpr's ``jit`` eqns)."""
    if swapped:
        b = cosine(y, w2)
        a = sine(y, w1)
    else:
        a = sine(y, w1)
        b = cosine(y, w2)
    return a * b + y


def looped(kind: str, swapped: bool):
    """A loop whose body has the two lines; its weights are carried, so the loop's state keeps its order."""

    def fori(x, w1, w2):
        body = projections if kind == "fori" else called
        step = lambda i, c: (body(*c, swapped=swapped), *c[1:])  # noqa: E731
        return jax.lax.fori_loop(0, 5, step, (x, w1, w2))[0]

    def while_(x, w1, w2):
        step = lambda c: (c[0] + 1, projections(*c[1:], swapped=swapped), *c[2:])  # noqa: E731
        return jax.lax.while_loop(lambda c: c[0] < 5, step, (0, x, w1, w2))[1]

    return while_ if kind == "while" else fori


@pytest.fixture(scope="module")
def loops() -> dict[tuple[str, bool], dict[str, str]]:
    """The three stage texts of each loop, plain and swapped."""
    out = {}
    for kind in ("fori", "while", "calls"):
        for swapped in (False, True):
            traced = jax.jit(looped(kind, swapped)).trace(*ARGS[:3])
            lowered = traced.lower()
            out[kind, swapped] = {
                "jaxpr": str(traced.jaxpr),
                "mlir": lowered.as_text(),
                "hlo": normalize_hlo(lowered.compile().as_text()),
            }
    return out


@pytest.mark.parametrize("kind", ["fori", "while", "calls"])
@pytest.mark.parametrize("dialect", ["jaxpr", "mlir"])
def test_a_swap_inside_a_loop_body_or_between_calls_is_one_program(loops, kind, dialect):
    """The lines sit in a ``fori_loop``/``while_loop`` body (the jaxpr's nested ``{ lambda ...``,
    StableHLO's ``stablehlo.while`` region or a private function it calls); "calls" swaps two
    ``func.call`` ops (and ``jit`` eqns whose nested jaxprs reuse the caller's names)."""
    plain, swapped = loops[kind, False][dialect], loops[kind, True][dialect]
    assert plain != swapped
    assert equivalent(dialect, plain, swapped)
    assert keep_names(dialect, plain, swapped) == plain


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir", "hlo"])
@pytest.mark.parametrize("kind", ["fori", "calls"])
def test_a_real_change_inside_a_loop_body_is_still_a_drift(loops, kind, dialect):
    """The sine swapped for a cosine inside the called function, or the two weights swapped: other programs."""
    swapped = loops[kind, True][dialect]
    changed = swapped.replace("sin", "cos") if kind == "calls" else swapped.replace("tanh", "sin")
    assert changed != swapped
    assert not equivalent(dialect, loops[kind, False][dialect], changed)


@pytest.mark.parametrize("kind", ["fori", "calls"])
def test_on_cpu_xla_compiles_a_swap_inside_a_loop_to_the_same_instructions(loops, kind):
    """JAX 0.10.2 on CPU: the same text, so compare passes; a schedule that moves the body's independent
    instructions (two fusions of the while body) is the same program too."""
    plain, swapped = loops[kind, False]["hlo"], loops[kind, True]["hlo"]
    assert sorted(plain.splitlines()) == sorted(swapped.splitlines())
    assert equivalent("hlo", plain, swapped)
    lines = plain.split("\n")
    fusions = [
        k for k, line in enumerate(lines) if re.match(r"  %\w*fusion\S* = f32\[8,64\]\S* fusion\(%get-tup", line)
    ]
    assert len(fusions) >= 2 and fusions[1] == fusions[0] + 1
    moved = [*lines[: fusions[0]], lines[fusions[1]], lines[fusions[0]], *lines[fusions[1] + 1 :]]
    assert equivalent("hlo", plain, "\n".join(moved))


def test_on_cpu_xla_permutes_a_while_loops_state_after_the_swap(loops):
    """With ``while_loop`` (JAX 0.10.2, CPU) XLA put the two carried weights in the loop's tuple in the
    other order after the swap: positions the body returns unchanged, so the same program with its
    state permuted (:func:`pytest_stages.ir.dataflow.state_plan`), which compares equal."""
    plain, swapped = loops["while", False]["hlo"], loops["while", True]["hlo"]
    tuples = [re.findall(r"tuple\(%copy\S+ %copy\S+ (%\w+)\.\d+, (%\w+)\.\d+\)", text) for text in (plain, swapped)]
    assert tuples == [[("%w1", "%w2")], [("%w2", "%w1")]]
    assert equivalent("hlo", plain, swapped)


def captured(swapped: bool) -> dict[str, str]:
    """A ``fori_loop`` whose body closes over the two weights: they become its constants in the order the
    body first reads them, so the swap permutes the loop's operands, its body's parameters and results."""
    step = lambda x, w1, w2: jax.lax.fori_loop(0, 5, lambda i, y: projections(y, w1, w2, swapped=swapped), x)  # noqa: E731
    traced = jax.jit(step).trace(*ARGS[:3])
    lowered = traced.lower()
    return {"jaxpr": str(traced.jaxpr), "mlir": lowered.as_text(), "hlo": normalize_hlo(lowered.compile().as_text())}


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir", "hlo"])
def test_a_swap_that_permutes_a_loops_captured_state(dialect):
    plain, swapped = captured(False)[dialect], captured(True)[dialect]
    assert plain != swapped
    assert equivalent(dialect, plain, swapped)


def effectful_calls(dialect: str, swapped: bool) -> str:
    """Two calls of one jitted function with a callback inside, in either order (the jaxpr's shared
    ``let inner = ...``, StableHLO's ``func.call`` of a function with a ``custom_call``)."""

    @jax.jit
    def inner(x):
        return jax.experimental.io_callback(lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * 2

    def f(x, y):
        if swapped:
            b = inner(y)
            a = inner(x)
        else:
            a = inner(x)
            b = inner(y)
        return a - b

    traced = jax.jit(f).trace(*ARGS[:1] * 2)
    return str(traced.jaxpr) if dialect == "jaxpr" else traced.lower().as_text()


# StableHLO calls whose callees are below them: @main calls @pure (below) and @outer (below), which calls @effect.
CHAIN = """module @m {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %0 = call @CALLEE(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    %1 = call @CALLEE(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
    %2 = stablehlo.subtract %0, %1 : tensor<8xf32>
    return %2 : tensor<8xf32>
  }
  func.func private @pure(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.negate %arg0 : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @outer(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = call @effect(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @effect(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.custom_call @log(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}"""


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir"])
def test_calls_of_a_function_with_a_side_effect_keep_their_order(dialect):
    plain, swapped = effectful_calls(dialect, False), effectful_calls(dialect, True)
    assert plain != swapped
    assert not equivalent(dialect, plain, swapped)


def test_loops_whose_shared_body_jaxpr_has_a_side_effect_keep_their_order():
    """A jaxpr's shared ``let body = { lambda ...`` read by ``while[body_jaxpr=body ...]``."""
    text = (
        "let body = { lambda ; a:f32[]. let b:f32[] = OP a in (b,) } in\n"
        "let cond = { lambda ; a:f32[]. let b:bool[] = lt a 1.0:f32[] in (b,) } in\n"
        "{ lambda ; c:f32[] d:f32[]. let\n"
        "    e:f32[] = while[body_jaxpr=body body_nconsts=0 cond_jaxpr=cond cond_nconsts=0] c\n"
        "    f:f32[] = while[body_jaxpr=body body_nconsts=0 cond_jaxpr=cond cond_nconsts=0] d\n"
        "    g:f32[] = sub e f\n"
        "  in (g,) }"
    )
    swapped = text.replace("] c\n", "] X\n").replace("] d\n", "] c\n").replace("] X\n", "] d\n")
    swapped = swapped.replace("sub e f", "sub f e")
    assert equivalent("jaxpr", text.replace("OP", "sin"), swapped.replace("OP", "sin"))
    assert not equivalent("jaxpr", text.replace("OP", "io_callback"), swapped.replace("OP", "io_callback"))


def test_a_call_keeps_its_place_when_its_callees_callee_below_it_has_a_side_effect():
    """Known only once the text is read again: ``@outer`` is pure until ``@effect`` below it is read."""

    def swap(text: str) -> str:
        lines = text.split("\n")
        lines[2:4] = [lines[3].replace("%1", "%0"), lines[2].replace("%0", "%1")]
        return "\n".join(lines).replace("subtract %0, %1", "subtract %1, %0")

    pure, effect = CHAIN.replace("CALLEE", "pure"), CHAIN.replace("CALLEE", "outer")
    assert equivalent("mlir", pure, swap(pure))
    assert not equivalent("mlir", effect, swap(effect))
    # a quoted name (a jitted lambda's @"<lambda>") is not read as a name: its calls keep their place
    quoted = effect.replace("@outer", '@"<lambda>"')
    assert not equivalent("mlir", quoted, swap(quoted))


# --- as users meet it: inner sessions on real JAX ---------------------------------------------

DEEP_MODEL = """
import jax.numpy as jnp

SIN_AT = None


def deep(x, w):
    for k in range(250):
        x = jnp.tanh(x @ w) + x
        if k == SIN_AT:
            x = jnp.sin(x)
    return x
"""
DEEP_TEST = """
import jax, jax.numpy as jnp
from model import deep

def test_deep(stage_snapshot):
    stage_snapshot(deep, jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 16), jnp.float32))
"""
DEEP_FILES = ("deep.jaxpr.txt", "deep.stablehlo.mlir", "deep.compiled.hlo.txt")


def test_a_change_deep_in_a_long_module_is_shown_and_an_update_keeps_the_names(project):
    """250 layers: 3.7k lines of compiled HLO. One op added at layer 230 shows past line 2000 in the
    failure message, and the update rewrites a few lines of each file, not the renumbered rest."""
    project.configure(settings="diff_lines = 400")
    project.write("model.py", DEEP_MODEL)
    project.write("test_deep.py", DEEP_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    folder = project.path / "snapshots" / "test_deep" / "test_deep" / "cpu1"
    before = {name: (folder / name).read_text() for name in DEEP_FILES}
    assert len(before["deep.compiled.hlo.txt"].splitlines()) > 3000

    project.write("model.py", DEEP_MODEL.replace("SIN_AT = None", "SIN_AT = 230"))
    result = project.run()
    result.assert_outcomes(failed=1)
    output = project.output(result)
    compiled = output[output.index("compiled (deep.compiled.hlo.txt): IR drift") :]
    starts = [int(start) for start in re.findall(r"^ +@@ -(\d+),", compiled, re.MULTILINE)]
    assert max(starts) > 2000, compiled
    assert re.search(r"^ +\+ .* sine\(", compiled, re.MULTILINE)
    assert "beyond" not in output

    project.run("--stages-update").assert_outcomes(passed=1)
    after = {name: (folder / name).read_text() for name in DEEP_FILES}
    kept = {name: _changed_lines(before[name], after[name]) for name in DEEP_FILES}
    # the new sin and its two readers (the next layer's matmul and add); compiled: XLA really
    # re-fuses the layer around it (a new fusion, new computations)
    assert kept["deep.jaxpr.txt"] == 5, kept
    assert kept["deep.stablehlo.mlir"] == 5, kept
    assert kept["deep.compiled.hlo.txt"] <= 40, kept
    project.run().assert_outcomes(passed=1)
    for name in DEEP_FILES:  # what JAX prints, recorded from scratch: the renumbered rest of each file
        (folder / name).unlink()
    project.run("--stages-update").assert_outcomes(passed=1)
    scratch = {name: _changed_lines(before[name], (folder / name).read_text()) for name in DEEP_FILES}
    assert all(scratch[name] > 100 for name in DEEP_FILES), (scratch, kept)


MLP_MODEL = """
import jax.numpy as jnp


def mlp(x, w1, w2, w3):
    h1 = x @ w1
    h2 = x @ w2
    return (jnp.tanh(h1) * h2) @ w3
"""
MLP_TEST = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
from model import mlp

def test_mlp(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    def arg(*shape):
        sharding = NamedSharding(mesh, P()) if mesh is not None else None
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=sharding)
    stage_snapshot(mlp, arg(64, 256), arg(256, 512), arg(256, 512), arg(512, 256))
"""
SWAPPED = MLP_MODEL.replace("    h1 = x @ w1\n    h2 = x @ w2\n", "    h2 = x @ w2\n    h1 = x @ w1\n")


def test_two_projections_swapped_pass_on_cpu_configs_and_an_update_writes_nothing(project):
    from conftest import TWO_CONFIGS

    project.configure(configs=TWO_CONFIGS)
    project.write("model.py", MLP_MODEL)
    project.write("test_mlp.py", MLP_TEST)
    project.run("--stages-update").assert_outcomes(passed=2)
    recorded = project.snapshots()

    assert SWAPPED != MLP_MODEL
    project.write("model.py", SWAPPED)
    project.run().assert_outcomes(passed=2)
    result = project.run("--stages-update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert project.snapshots() == recorded


V5E = """
[[tool.pytest_stages.configs]]
name = "v5e"
platform = "tpu"
topology = "v5e:2x2"
mesh = { data = 2, model = 2 }
"""


@pytest.mark.extras("tpu")
def test_two_projections_swapped_on_a_tpu_topology_are_never_an_ir_drift(project):
    project.configure(configs=V5E)
    project.write("model.py", MLP_MODEL)
    project.write("test_mlp.py", MLP_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)

    project.write("model.py", SWAPPED)
    result = project.run()
    output = project.output(result)
    assert "IR drift" not in output
    assert result.ret == 0 or "cost" in output or "memory" in output, output


# An operand list wrapped onto a next line belongs to the eqn above it: the same lines with that eqn
# printed first (its continuation now after the other) are another program.
WRAPPED = """{ lambda ; a:f32[] b:f32[] c:f32[] d:f32[]. let
    e:f32[] = foo[
      p=1
    ] a b
    f:f32[] = bar[
      p=1
    ] c
      d
  in (e, f) }"""


def test_a_jaxpr_eqns_wrapped_operands_move_with_it():
    """``bar(c, d)`` and ``foo(a, b)`` against ``bar(c)`` and ``foo(a, b, d)``: the wrapped ``d`` once stayed
    in place while the eqns were sorted, so the two compared equal."""
    lines = WRAPPED.split("\n")
    moved = "\n".join([lines[0], *lines[4:7], *lines[1:4], *lines[7:]])
    assert sorted(moved.split("\n")) == sorted(lines)
    assert not equivalent("jaxpr", WRAPPED, moved)
    reordered = "\n".join([lines[0], *lines[4:8], *lines[1:4], *lines[8:]])  # bar(c, d) first: one program
    assert equivalent("jaxpr", WRAPPED, reordered)
