"""Two independent lines swapped are one program in every text, also where it reads copies of a value or XLA fuses it.

An Equinox model's two embedding lookups each clamp their constant index (the same expression
twice): swapped, each lookup reads the other copy. XLA compiles two independent projections
into two identical fused computations and sums them in a fusion whose operands follow the
order the lines ran. Each compares equal; a real change of the same lines does not.
"""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.renaming import equivalent

eqx = pytest.importorskip("equinox")

# An Equinox encoder's embeddings (token and position tables, as BERT's), the two lookups in the order given.
EMBEDDINGS = """
import equinox as eqx, jax, jax.numpy as jnp

class Embeddings(eqx.Module):
    tokens: eqx.nn.Embedding
    positions: eqx.nn.Embedding

    def __init__(self, key):
        first, second = jax.random.split(key)
        self.tokens = eqx.nn.Embedding(32, 8, key=first)
        self.positions = eqx.nn.Embedding(16, 8, key=second)

    def __call__(self, tokens):
        positions = jnp.arange(tokens.shape[0])
{lookups}
        return jnp.tanh(tokens_embedded + positions_embedded).sum()
"""
TOKENS_FIRST = (
    "        tokens_embedded = jax.vmap(self.tokens)(tokens)\n"
    "        positions_embedded = jax.vmap(self.positions)(positions)"
)
POSITIONS_FIRST = "\n".join(TOKENS_FIRST.split("\n")[::-1])


def _embedding_texts(lookups: str) -> dict[str, str]:
    """The normalized jaxpr and StableHLO of the embeddings' gradient (as a train step takes it)."""
    namespace: dict[str, object] = {}
    exec(compile(EMBEDDINGS.format(lookups=lookups), "embeddings.py", "exec"), namespace)
    model = namespace["Embeddings"](jax.random.key(0))  # type: ignore[operator]
    params, static = eqx.partition(model, eqx.is_array)

    def grads(params, tokens):
        return jax.grad(lambda p: eqx.combine(p, static)(tokens))(params)

    tokens = jnp.zeros((16,), jnp.int32)
    return {
        "jaxpr": normalize_jaxpr(str(jax.make_jaxpr(grads)(params, tokens))),
        "mlir": normalize_mlir(jax.jit(grads).lower(params, tokens).as_text()),
    }


@pytest.fixture(scope="module")
def embeddings() -> tuple[dict[str, str], dict[str, str]]:
    return _embedding_texts(TOKENS_FIRST), _embedding_texts(POSITIONS_FIRST)


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir"])
def test_two_embedding_lookups_swapped_are_one_program(embeddings, dialect: str) -> None:
    """Each lookup clamps the same constant index: the copies are one value, whichever lookup reads which."""
    before, after = (texts[dialect] for texts in embeddings)
    assert before != after
    clamp = {"jaxpr": r"= lt 0:i32\[\] 0:i32\[\]", "mlir": r"stablehlo\.constant dense<0> : tensor<i32>"}[dialect]
    assert len(re.findall(clamp, before)) >= 2  # the expression the two lookups both compute
    assert equivalent(dialect, before, after)


def test_a_lookup_of_the_other_table_is_another_program(embeddings) -> None:
    """Reading the positions table for the tokens (and the tokens table for the positions) is a real change."""
    before = embeddings[0]["jaxpr"]
    edited = _embedding_texts(
        TOKENS_FIRST.replace("self.tokens)(tokens", "self.@)(tokens")
        .replace("self.positions)(positions", "self.tokens)(positions")
        .replace("self.@", "self.positions")
    )
    assert not equivalent("jaxpr", before, edited["jaxpr"])
    assert not equivalent("mlir", embeddings[0]["mlir"], edited["mlir"])


def _compiled(fn, *args: jax.Array) -> str:
    return normalize_hlo(jax.jit(fn).lower(*args).compile().as_text()).replace(fn.__name__, "f")


def _sum_ab(x, w1, w2):
    a = jnp.tanh(x @ w1)
    b = jnp.sin(x @ w2)
    return a + b


def _sum_ba(x, w1, w2):
    b = jnp.sin(x @ w2)
    a = jnp.tanh(x @ w1)
    return b + a


def _difference_ba(x, w1, w2):
    b = jnp.sin(x @ w2)
    a = jnp.tanh(x @ w1)
    return b - a


ARGS = (jnp.ones((8, 16)), jnp.ones((16, 16)), jnp.ones((16, 16)))


@pytest.fixture(scope="module")
def compiled() -> dict[str, str]:
    return {fn.__name__: _compiled(fn, *ARGS) for fn in (_sum_ab, _sum_ba, _difference_ba)}


def test_two_projections_swapped_compile_to_one_program(compiled) -> None:
    """XLA fuses each projection into a computation of its own, alike but for their names, and sums them in a
    fusion whose operands and parameters follow the order the lines ran: one program."""
    before, after = compiled["_sum_ab"], compiled["_sum_ba"]
    summed = re.compile(r" = f32\[8,16\]\{1,0\} fusion\((%\S+), (%\S+)\), kind=kLoop")
    assert before != after and summed.search(before) and summed.search(after)
    assert equivalent("hlo", before, after)


def test_the_fused_sum_of_other_operands_is_another_program(compiled) -> None:
    """The fusion's operands swapped without its computation's parameters (the sine of the other projection),
    or the sum made a difference, is a real change."""
    before = compiled["_sum_ab"]
    summed = re.search(r"(?<= fusion\()(%\S+), (%\S+)(?=\), kind=kLoop)", before)
    assert summed is not None
    swapped = before[: summed.start()] + f"{summed[2]}, {summed[1]}" + before[summed.end() :]
    assert not equivalent("hlo", before, swapped)
    assert not equivalent("hlo", before, compiled["_difference_ba"])


# A TPU fusion whose backend_config names its operands by position (the committed TPU snapshot of an RNN scan).
TPU_RNN = Path(__file__).parent.parent / "snapshots/examples/test_models/test_rnn_scan/tpu/rnn.compiled.hlo.txt"


def test_a_fusion_whose_config_names_its_operands_keeps_their_order() -> None:
    """Its operands permuted together with its computation's parameters, the ``aliasing_operands`` indices left
    as they were, alias another operand: another program."""
    text = TPU_RNN.read_text(encoding="utf-8")
    fusion = re.search(r"fusion\((%\S+), (%\S+), (%\S+), (.*?)\), kind=kOutput, calls=(%\S+), .*\"indices\":\[", text)
    assert fusion is not None
    header = re.search(
        rf"^{re.escape(fusion[5])} \((\w[\w.]*): (\S+), (\w[\w.]*: \S+), (\w[\w.]*): (\S+), ", text, re.M
    )
    assert header is not None
    permuted = text[: fusion.start(1)] + f"{fusion[3]}, {fusion[2]}, {fusion[1]}" + text[fusion.end(3) :]
    permuted = permuted.replace(
        header[0], f"{fusion[5]} ({header[4]}: {header[5]}, {header[3]}, {header[1]}: {header[2]}, ", 1
    )
    permuted = re.sub(rf"(%{re.escape(header[1])} = .* parameter\()0\)", r"\g<1>2)", permuted)
    permuted = re.sub(rf"(%{re.escape(header[4])} = .* parameter\()2\)", r"\g<1>0)", permuted)
    assert permuted.count(" parameter(") == text.count(" parameter(") and permuted != text
    assert not equivalent("hlo", text, permuted)
