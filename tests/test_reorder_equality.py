"""Reorders of independent statements in real framework code are one program.

A Flax NNX gated MLP with its two projections swapped: a decode loop's constants come out in
another order (the body a top-level ``let jaxpr = { lambda ...`` named by ``body_jaxpr=jaxpr``),
and the backward pass sums the two gradient contributions the other way round (``add_any a b``
-> ``add_any b a``). Both compare equal; an edit of either does not.
"""

from __future__ import annotations

import random
import re

import jax
import jax.numpy as jnp
import pytest
from conftest import TWO_CONFIGS

from pytest_stages.check.message import SAME_PROGRAM
from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.renaming import equivalent

nnx = pytest.importorskip("flax.nnx")
optax = pytest.importorskip("optax")

# The NNX model of the tests, its gated MLP's two projections in the order ``{projections}`` gives.
NNX_MODEL = """
import jax, jax.numpy as jnp, optax
from flax import nnx

class MLP(nnx.Module):
    def __init__(self, rngs):
        self.gate_proj = nnx.Linear(16, 64, use_bias=False, rngs=rngs)
        self.up_proj = nnx.Linear(16, 64, use_bias=False, rngs=rngs)
        self.down_proj = nnx.Linear(64, 16, use_bias=False, rngs=rngs)

    def __call__(self, x):
{projections}
        return self.down_proj(jax.nn.gelu(ff_gate) * ff1)

class Model(nnx.Module):
    def __init__(self, rngs):
        self.embed = nnx.Embed(32, 16, rngs=rngs)
        self.norm = nnx.RMSNorm(16, rngs=rngs)
        self.mlp = MLP(rngs)

    def __call__(self, tokens):
        x = self.embed(tokens)
        x = x + self.mlp(self.norm(x))
        return self.embed.attend(x)

@nnx.jit
def decode(model, tokens):
    def body(carry):
        i, toks = carry
        return i + 1, toks.at[:, i + 1].set(jnp.argmax(model(toks)[:, i], axis=-1))
    return jax.lax.while_loop(lambda carry: carry[0] < 4, body, (0, tokens))[1]

@nnx.jit
def train_step(model, optimizer, tokens):
    def loss(model):
        logits = model(tokens[:, :-1])
        return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()
    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value
"""
GATE_FIRST = "        ff_gate = self.gate_proj(x)\n        ff1 = self.up_proj(x)"
UP_FIRST = "        ff1 = self.up_proj(x)\n        ff_gate = self.gate_proj(x)"

NNX_TEST = """
from model import Model, decode, train_step
import jax.numpy as jnp, optax
from flax import nnx

def test_decode(stage_snapshot):
    stage_snapshot(decode, Model(nnx.Rngs(0)), jnp.zeros((2, 8), jnp.int32))

def test_train(stage_snapshot):
    model = Model(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    stage_snapshot(train_step, model, optimizer, jnp.zeros((2, 8), jnp.int32))
"""


def _stage_texts(source: str) -> dict[str, dict[str, str]]:
    """The normalized jaxpr, StableHLO and compiled HLO of the model's decode and train step."""
    namespace: dict[str, object] = {}
    exec(compile(source, "model.py", "exec"), namespace)
    jax.clear_caches()
    model = namespace["Model"](nnx.Rngs(0))  # type: ignore[operator]
    tokens = jnp.zeros((2, 8), jnp.int32)
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    out = {}
    for name, args in (("decode", (model, tokens)), ("train_step", (model, optimizer, tokens))):
        traced = namespace[name].trace(*args).traced  # type: ignore[attr-defined]  (flax's Traced holds JAX's)
        lowered = traced.lower()
        out[name] = {
            "jaxpr": normalize_jaxpr(str(traced.jaxpr)),
            "mlir": normalize_mlir(lowered.as_text()),
            "hlo": normalize_hlo(lowered.compile().as_text()),
        }
    return out


@pytest.fixture(scope="module")
def nnx_texts() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    return tuple(_stage_texts(NNX_MODEL.format(projections=order)) for order in (GATE_FIRST, UP_FIRST))  # type: ignore[return-value]


def test_the_nnx_reorder_is_one_program_and_an_edit_of_it_is_not(nnx_texts) -> None:
    before, after = nnx_texts
    decode = before["decode"]["jaxpr"], after["decode"]["jaxpr"]
    train = before["train_step"]["jaxpr"], after["train_step"]["jaxpr"]
    # the shapes met in Flax NNX code: the loop body a top-level let named by body_jaxpr=jaxpr, its constants permuted;
    # the backward pass's sums of two contributions
    assert "let jaxpr = { lambda" in decode[0] and "body_jaxpr=jaxpr" in decode[0]
    assert decode[0] != decode[1] and "add_any" in train[0] and train[0] != train[1]
    for name in ("decode", "train_step"):
        for dialect in ("jaxpr", "mlir", "hlo"):
            assert equivalent(dialect, before[name][dialect], after[name][dialect]), (name, dialect)
    # the loop's operands permuted but not its body's binders: another program
    operands = re.search(r"\n    \] (\w+) (\w+) (\w+) (\w+)", decode[1])
    assert operands is not None
    swapped = decode[1].replace(operands[0], re.sub(r"(\w+) (\w+)$", r"\2 \1", operands[0]))
    assert swapped != decode[1] and not equivalent("jaxpr", decode[0], swapped)
    # a sum made a difference, or a product a quotient
    for old, new in (("add_any", "sub"), ("= mul ", "= div ")):
        assert not equivalent("jaxpr", train[0], train[1].replace(old, new, 1))


def _sums(x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.tanh(x) * jnp.sin(y) + (x - y) + jnp.maximum(x, y)


def _sums_swapped(x: jax.Array, y: jax.Array) -> jax.Array:
    return (x - y) + jnp.sin(y) * jnp.tanh(x) + jnp.maximum(x, y)


def _sums_edited(x: jax.Array, y: jax.Array) -> jax.Array:
    return (y - x) + jnp.sin(y) * jnp.tanh(x) + jnp.maximum(x, y)


def _maximum_swapped(x: jax.Array, y: jax.Array) -> jax.Array:
    return (x - y) + jnp.sin(y) * jnp.tanh(x) + jnp.maximum(y, x)


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir", "hlo"])
def test_commutative_operands_compare_as_a_multiset_and_no_other_operands_do(dialect: str) -> None:
    """``a * b + c`` is ``c + b * a``; ``a - b`` is not ``b - a``; ``max(a, b)`` keeps its order (which of
    -0.0 and 0.0 it gives may follow it)."""
    args = (jnp.ones(4), jnp.ones(4))

    def text(fn):
        lowered = jax.jit(fn).lower(*args)
        return {
            "jaxpr": lambda: normalize_jaxpr(str(jax.make_jaxpr(fn)(*args))),
            "mlir": lambda: normalize_mlir(lowered.as_text()),
            "hlo": lambda: normalize_hlo(lowered.as_text(dialect="hlo")),
        }[dialect]().replace(fn.__name__, "f")

    first = text(_sums)
    assert first != text(_sums_swapped)
    assert equivalent(dialect, first, text(_sums_swapped))
    assert not equivalent(dialect, first, text(_sums_edited))
    if dialect != "hlo":  # the lowered HLO of max(y, x) is max(x, y)'s
        assert not equivalent(dialect, first, text(_maximum_swapped))


def test_the_nnx_reorder_passes_on_cpu1_and_cpu8_and_an_update_writes_nothing(project) -> None:
    """Through the plugin: the decode loop and the train step are one program on both configs, in every
    text the compiled one included (XLA's fusions of the two gradient contributions in the other order)."""
    project.configure('stages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = ["cost"]', configs=TWO_CONFIGS)
    project.write("model.py", NNX_MODEL.format(projections=GATE_FIRST))
    project.write("test_nnx.py", NNX_TEST)
    project.run("--stages-update").assert_outcomes(passed=4)
    before = project.snapshots()
    project.write("model.py", NNX_MODEL.format(projections=UP_FIRST))
    result = project.run()
    out = project.output(result)
    result.assert_outcomes(passed=4)
    assert SAME_PROGRAM not in out and "changed" not in out
    project.run("--stages-update").assert_outcomes(passed=4)
    assert project.snapshots() == before


# A block of several independent projections (attention's q, k, v; a gated MLP's gate and up), the
# statements that compute them in the order a test gives.
BLOCK = """
import jax, jax.numpy as jnp
from flax import nnx

class Block(nnx.Module):
    def __init__(self, rngs):
        for name in ("q", "k", "v", "gate", "up"):
            setattr(self, name, nnx.Linear(16, 16, use_bias=False, rngs=rngs))

    def __call__(self, x):
{statements}
        return (jax.nn.softmax(q * k) * v + jax.nn.gelu(gate) * up).sum()

@nnx.jit
def grads(block, x):
    return nnx.grad(lambda block: block(x))(block)
"""
STATEMENTS = (
    "q = self.q(x)",
    "k = self.k(x) * 0.125",
    "v = self.v(x)",
    "gate = self.gate(x)",
    "up = jnp.tanh(self.up(x))",
)


def _block_texts(statements: list[str]) -> dict[str, str]:
    namespace: dict[str, object] = {}
    exec(compile(BLOCK.format(statements="\n".join(f"        {s}" for s in statements)), "block.py", "exec"), namespace)
    jax.clear_caches()
    traced = namespace["grads"].trace(namespace["Block"](nnx.Rngs(0)), jnp.ones((4, 16))).traced  # type: ignore[attr-defined,operator]
    lowered = traced.lower()
    return {
        "jaxpr": normalize_jaxpr(str(traced.jaxpr)),
        "mlir": normalize_mlir(lowered.as_text()),
        "hlo": normalize_hlo(lowered.compile().as_text()),
    }


@pytest.mark.parametrize("seed", range(3))
def test_random_orders_of_independent_statements_are_one_program(seed: int) -> None:
    """Random permutations of real framework code's independent lines: the same program in every text,
    the one XLA compiled for the CPU included."""
    statements = list(STATEMENTS)
    first = _block_texts(statements)
    random.Random(seed).shuffle(statements)
    assert statements != list(STATEMENTS)
    then = _block_texts(statements)
    assert first["jaxpr"] != then["jaxpr"]
    for dialect in ("jaxpr", "mlir", "hlo"):
        assert equivalent(dialect, first[dialect], then[dialect]), dialect
