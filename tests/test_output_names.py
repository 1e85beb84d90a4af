"""Output leaves of sharding.json/layout.json are named as the function returns them, as inputs are."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.stage.adapters import EQUINOX_MARKER, adapt

nnx = pytest.importorskip("flax.nnx")
eqx = pytest.importorskip("equinox")
optax = pytest.importorskip("optax")


def output_names(fn, *args):
    """The adapter's names for the compiled program's output shardings, in JAX's flat order."""
    adapter = adapt(fn, args, {}, static_scalars=False)
    lowered = adapter.lower(adapter.trace(), None)
    tree = lowered.compile().output_shardings
    return [name for name, _ in adapter.named_outputs(tree, lowered.args_info, lowered.out_info)]


def loss_and_grads(params, x):
    def loss(params):
        return jnp.sum((x @ params["w"] + params["b"]) ** 2)

    return jax.value_and_grad(loss)(params)


PARAMS = {"w": jnp.ones((4, 2)), "b": jnp.ones(2)}


def test_a_tuple_and_a_dict_are_named_by_their_paths_as_inputs_are():
    assert output_names(loss_and_grads, PARAMS, jnp.ones((3, 4))) == ["output[0]", "output[1]['b']", "output[1]['w']"]
    returned_dict = lambda params, x: {"loss": x.sum(), "grads": (params["w"], params["b"])}  # noqa: E731
    assert output_names(returned_dict, PARAMS, jnp.ones(3)) == [
        "output['grads'][0]",
        "output['grads'][1]",
        "output['loss']",
    ]


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(8, 16, rngs=rngs)
        self.l2 = nnx.Linear(16, 2, rngs=rngs)

    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))


@nnx.jit
def nnx_train_step(model, optimizer, x, y):
    def loss(model):
        return ((model(x) - y) ** 2).mean()

    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value


def test_an_nnx_train_steps_output_state_reads_like_its_input_state():
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    names = output_names(nnx_train_step, model, optimizer, jnp.ones((4, 8)), jnp.ones((4, 2)))
    state = [".".join(["model", *map(str, path)]) for path, _ in nnx.to_flat_state(nnx.state(model))]
    state += [".".join(["optimizer", *map(str, path)]) for path, _ in nnx.to_flat_state(nnx.state(optimizer))]
    assert names == [*state, "output"]
    assert names[:2] == ["model.l1.bias", "model.l1.kernel"]


class Growing(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(4, 4, rngs=rngs)

    def __call__(self, x):
        return self.l1(x)


@nnx.jit
def grows(model, x):
    """Adds a variable: the output state no longer lines up with the input's, place for place."""
    model.a_first = nnx.Variable(jnp.zeros(4))
    return model(x)


def test_an_nnx_state_that_changed_shape_keeps_the_paths_of_jaxs_output_tree():
    names = output_names(grows, Growing(nnx.Rngs(0)), jnp.ones((2, 4)))
    state = [f"output[0][0].states[0][{index}]" for index in range(3)]
    assert names == [*state, "output"]


@nnx.jit(static_argnums=0)
def scales_first(scale, first, second):
    """A static argument: flax's state has a place for it, JAX's inputs do not."""
    first.l1.kernel[...] = first.l1.kernel[...] * scale
    return second.l1(jnp.ones(4)).sum()


def test_nnx_inputs_after_a_static_argument_keep_their_own_names():
    args = (2.0, Growing(nnx.Rngs(0)), Growing(nnx.Rngs(1)))
    adapter = adapt(scales_first, args, {}, static_scalars=False)
    lowered = adapter.lower(adapter.trace(), None)
    names = [name for name, _ in adapter.named_leaves(lowered.args_info)]
    assert names == ["first.l1.bias", "first.l1.kernel", "second.l1.bias", "second.l1.kernel"]


def test_nnx_state_is_not_mirrored_onto_the_inputs_of_another_argument():
    names = output_names(scales_first, 2.0, Growing(nnx.Rngs(0)), Growing(nnx.Rngs(1)))
    state = [f"output[0][{arg}].states[0][{index}]" for arg in (1, 2) for index in range(2)]
    assert names == [*state, "output"]


class Linear(eqx.Module):
    l1: eqx.nn.Linear

    def __call__(self, x):
        return self.l1(x)


def test_equinox_names_the_returned_module_and_its_marker():
    model = Linear(eqx.nn.Linear(4, 4, key=jax.random.key(0)))
    step = eqx.filter_jit(lambda model, x: (model(x), model))
    assert output_names(step, model, jnp.ones(4)) == [
        EQUINOX_MARKER,
        "output[0]",
        "output[1].l1.weight",
        "output[1].l1.bias",
    ]


PLAIN_TEST = """
import functools
import jax, jax.numpy as jnp

@functools.partial(jax.jit, donate_argnums=0)
def step(params, x):
    def loss(params):
        return jnp.sum((x @ params["w"]) ** 2)
    value, grads = jax.value_and_grad(loss)(params)
    return value, {"w": params["w"] - 0.1 * grads["w"]}

def test_step(stage_snapshot):
    stage_snapshot(step, {"w": jnp.ones((4, 2))}, jnp.ones((3, 4)))
"""

NNX_TEST = """
import jax, jax.numpy as jnp
from flax import nnx

class Model(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(8, 2, rngs=rngs)

@nnx.jit(donate_argnums=0)
def step(model, x):
    model.l1.kernel.value = model.l1.kernel.value * 0.5
    return (x @ model.l1.kernel.value).sum()

def test_step(stage_snapshot):
    stage_snapshot(step, Model(nnx.Rngs(0)), jnp.ones((4, 8)))
"""


@pytest.mark.filterwarnings("ignore:Some donated buffers were not usable")
@pytest.mark.parametrize(
    "source, outputs, aliased",
    [
        (PLAIN_TEST, ["output[0]", "output[1]['w']"], {"params['w']": "output[1]['w']"}),
        (NNX_TEST, ["model.l1.bias", "model.l1.kernel", "output"], {"model.l1.kernel": "model.l1.kernel"}),
    ],
    ids=["jax.jit", "nnx.jit"],
)
def test_sharding_and_layout_files_name_the_outputs_and_the_donations_by_them(project, source, outputs, aliased):
    project.write("test_model.py", source)
    project.run("--stages-update").assert_outcomes(passed=1)
    folder = project.path / "snapshots" / "test_model" / "test_step" / "cpu1"
    sharding = json.loads((folder / "step.sharding.json").read_text())
    layout = json.loads((folder / "step.layout.json").read_text())
    assert list(sharding["outputs"]) == list(layout["outputs"]) == outputs
    for name, output in aliased.items():
        assert sharding["inputs"][name]["aliased_to"] == output
    project.run().assert_outcomes(passed=1)
