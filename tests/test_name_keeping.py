"""What an update writes for a changed program: the snapshot's numbered names and layout kept, its
function names never.

A jaxpr names its variables in order and wraps its long lines where those names make them long,
so one equation added early (or a helper JAX binds as a top-level ``let``) renames every later
variable and moves the line breaks of every long binder list. An update must write only the
change. Names that carry meaning (a function JAX names after the user's, ``@argmax``) follow the
new program.
"""

from __future__ import annotations

import difflib

import jax
import jax.numpy as jnp

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.ir.renaming import equivalent, keep_names, naming
from pytest_stages.stage.activation import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.staging import stage

# A two-block transformer's train step in plain JAX (its activation ACT), as a module a test project holds:
# 38 parameters of a dozen shapes, three times over (parameters and two optimizer moments), so that
# the jaxpr's binder lists wrap, differently once an added helper has renamed every variable.
TRAIN_STEP = """
import jax
import jax.numpy as jnp


def spec(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def layer_params(width=32, heads=4):
    head = width // heads
    return {
        "scale": spec(width), "bias": spec(width), "wq": spec(width, heads, head), "bq": spec(heads, head),
        "wk": spec(width, heads, head), "bk": spec(heads, head), "wo": spec(heads, head, width), "bo": spec(width),
        "w1": spec(width, 4 * width), "b1": spec(4 * width), "w2": spec(4 * width, width), "b2": spec(width),
    }


def norm(x, scale, bias):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-6) * scale + bias


def block(p, x):
    h = norm(x, p["scale"], p["bias"])
    q = jnp.einsum("bsd,dhk->bshk", h, p["wq"]) + p["bq"]
    k = jnp.einsum("bsd,dhk->bshk", h, p["wk"]) + p["bk"]
    a = jax.nn.softmax(jnp.einsum("bshk,bthk->bhst", q, k), axis=-1)
    x = x + jnp.einsum("bhst,bthk,hkd->bsd", a, k, p["wo"]) + p["bo"]
    return x + ACT(norm(x, p["scale"], p["bias"]) @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def loss(params, x):
    for p in params:
        x = block(p, x)
    return (x ** 2).mean()


def train_step(params, mu, nu, x):
    grads = jax.grad(loss)(params, x)
    mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, mu, grads)
    nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, nu, grads)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, mu, nu)
    return params, mu, nu


def arguments():
    params = [layer_params() for _ in range(2)]
    return params, params, params, spec(2, 8, 32)
"""
TEST = """
from model import arguments, train_step


def test_step(stage_snapshot):
    stage_snapshot(train_step, *arguments())
"""


def _train_step_jaxpr(act: str) -> str:
    namespace: dict = {}
    exec(TRAIN_STEP.replace("ACT(", f"{act}("), namespace)
    return _texts(namespace["train_step"], *namespace["arguments"]())["jaxpr"]


def _texts(function, *args, stages=("jaxpr",)):
    result = stage(
        function,
        args,
        {},
        name="f",
        active=activate(DeviceConfig(name="cpu1")),
        stages=stages,
        analyses=(),
        events=CompileEvents(),
    )
    return result.texts


def _diff(old: str, new: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a line diff (what a pull request shows)."""
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0))
    removed = [line[1:] for line in lines if line[:1] == "-" and not line.startswith("---")]
    added = [line[1:] for line in lines if line[:1] == "+" and not line.startswith("+++")]
    return removed, added


def test_an_added_top_level_let_changes_only_its_own_lines_in_the_jaxpr():
    """``gelu`` -> ``silu`` in a train step: JAX binds silu and its derivative as top-level ``let``s and renames
    every variable after them, rewrapping every binder list; the update writes the lets, the gelu
    lines replaced by the calls and the lines reading the replaced values, no binder list and no renamed line."""
    old, new = _train_step_jaxpr("jax.nn.gelu"), _train_step_jaxpr("jax.nn.silu")
    assert new.startswith("let silu = {")
    assert len(_diff(old, new)[0]) > 700  # JAX's own text: nearly every line renamed

    kept = keep_names("jaxpr", old, new)
    removed, added = _diff(old, kept)
    assert equivalent("jaxpr", kept, new)
    header = old[old.index("{ lambda ;") : old.index(". let\n")]
    assert not [line for line in removed if line in header]
    assert len(removed) <= 60, removed  # gelu's 11 equations and their 12 in the backward pass, per block
    assert len(added) <= 30, added  # the 12 lines of the lets, a call of each per block, the readers
    lets = new[: new.index("\n{ lambda ;")].count("\n") + 1
    assert all(" = " not in line or "silu" in line or "reduce_sum" in line for line in added[lets:]), added


def _ref_mlp(logits_dtype):
    """A 4-layer MLP whose parameters are ``jax.Ref``s (as JAX's training cookbook keeps its train state),
    its loss a ``log_softmax`` of logits computed in ``logits_dtype``; each Ref updated in place."""

    def step(params, x):
        h = x
        for ref in params[:-1]:
            h = jax.nn.relu(h @ ref[...])
        logits = jnp.einsum("bd,dv->bv", h, params[-1][...], preferred_element_type=logits_dtype)
        loss = -jax.nn.log_softmax(logits).mean()
        for ref in params:
            ref[...] = ref[...] * 0.5
        return loss

    return step


def test_a_refs_binder_reads_writes_and_index_are_names_and_a_primitive_or_dtype_is_not():
    """What JAX prints for Refs (jax/_src/state/primitives.py): a binder ``p:Ref{f32[4]}``, a read
    ``v:f32[4] <- p[...]``, a write ``p[...] <- v``, an indexed add ``p[0:2,i] += v``; a primitive's
    parameters (``pjit[`` at a line's end, ``jit[name=f]``) and a ``bool[4]`` dtype stay no names."""
    rules = naming("jaxpr")
    assert rules is not None
    text = (
        "{ lambda ; p:Ref{f32[4]} i:i32[]. let\n    v:f32[4] <- p[...]\n    p[...] <- v\n"
        "    p[0:2,i] += v\n    m:bool[4] = lt v v\n    pjit[\n      name=f\n    ] v\n"
        "    w:f32[4] = jit[name=f jaxpr=f] v\n  in (w,) }"
    )
    assert sorted(rules.names(text)) == ["i", "m", "p", "v", "w"]
    assert rules.split.findall(text) == [*"pivppvpivmvvvwvw"]


def test_a_let_that_disappears_renames_no_ref_parameter_and_no_ref_read():
    """Issue #67's reproduction: float32 logits inline the ``let log_softmax`` JAX bound at the top, and
    every later variable shifts, the ``Ref{...}`` parameters (``n o p q r`` came back ``a b c d e``) and
    their reads ``v:bf16[16,16] <- p[...]`` included. The update renames none of them."""
    refs = [jax.ref.new_ref(jnp.ones((16, 16), jnp.bfloat16)) for _ in range(5)]
    x = jnp.ones((4, 16), jnp.bfloat16)
    old, new = (str(jax.make_jaxpr(_ref_mlp(dtype))(refs, x)) for dtype in (jnp.bfloat16, jnp.float32))
    assert old.startswith("let log_softmax = {") and "let log_softmax" not in new
    assert len(_diff(old, new)[0]) > 60  # JAX's own text: every line after the let renamed

    kept = keep_names("jaxpr", old, new)
    removed, added = _diff(old, kept)
    assert equivalent("jaxpr", kept, new)
    parameters = old[old.index("\n{ lambda ;") : old.index(". let\n", old.index("\n{ lambda ;"))]
    assert parameters.count(":Ref{bf16[16,16]}") == 5 and parameters in kept
    assert not [line for line in removed + added if "[...]" in line], (removed, added)
    # The let's 14 lines, the logits' dot_general (2 lines), the call and the casts around it.
    assert len(removed) <= 22 and len(added) <= 20, (removed, added)


def test_the_kept_jaxpr_compares_equal_and_a_second_update_writes_nothing(project):
    """The flow users meet: record, swap the activation, update (only the change written, under the
    snapshot's names and line breaks), then a compare passes and another update writes 0 files,
    though JAX prints the same program with other names and line breaks."""
    jaxpr = project.path / "snapshots" / "test_model" / "test_step" / "cpu1" / "train_step.jaxpr.txt"
    project.write("test_model.py", TEST)
    project.write("model.py", TRAIN_STEP.replace("ACT(", "jax.nn.gelu("))
    project.run("--stages-update").assert_outcomes(passed=1)
    before = jaxpr.read_text()

    project.write("model.py", TRAIN_STEP.replace("ACT(", "jax.nn.silu("))
    project.run("--stages-update").assert_outcomes(passed=1)
    removed, added = _diff(before, jaxpr.read_text())
    assert len(removed) + len(added) <= 90, (removed, added)

    project.run().assert_outcomes(passed=1)
    again = project.run("--stages-update")
    again.assert_outcomes(passed=1)
    again.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])


def _pick(reduce):
    def f(x):
        return reduce(jnp.tanh(x) * 3.0, axis=-1)

    return f


def test_a_function_name_follows_the_new_program():
    """``argmax`` -> ``argmin``: StableHLO's private function is ``@argmin`` after the update, never the
    snapshot's ``@argmax`` (a name that says what the function does), while its numbered values stay kept."""
    x = jax.ShapeDtypeStruct((4, 8), jnp.float32)
    old = _texts(_pick(jnp.argmax), x, stages=("stablehlo",))["stablehlo"]
    new = _texts(_pick(jnp.argmin), x, stages=("stablehlo",))["stablehlo"]
    assert "func.func private @argmax(" in old
    kept = keep_names("mlir", old, new)
    assert "func.func private @argmin(" in kept
    assert "call @argmin(" in kept
    assert "argmax" not in kept
    assert equivalent("mlir", kept, new)


def test_a_numbered_function_keeps_its_snapshot_number():
    """A function that JAX numbers afresh (``@_where`` -> ``@_where_0``) is the same function: its snapshot
    name is kept, so an update that only renumbers functions writes the snapshot back."""
    old = (
        "module @jit_f {\n  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
        "    %0 = call @_where(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n    return %0 : tensor<8xf32>\n  }\n"
        "  func.func private @_where(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
        "    %0 = stablehlo.tanh %arg0 : tensor<8xf32>\n    return %0 : tensor<8xf32>\n  }\n}\n"
    )
    new = old.replace("@_where", "@_where_0").replace("stablehlo.tanh %arg0", "stablehlo.sine %arg0")
    kept = keep_names("mlir", old, new)
    assert kept == old.replace("stablehlo.tanh %arg0", "stablehlo.sine %arg0")
    argmin = new.replace("@_where_0", "@argmin")
    assert "@argmin" in keep_names("mlir", old, argmin)
