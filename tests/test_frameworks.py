"""Functions from Flax, Equinox, Haiku and Optax, staged as users write them (the real frameworks)."""

from __future__ import annotations

import json

import pytest
from conftest import ONE_CONFIG, TWO_CONFIGS

# Imported here, once: pytester's in-process runs drop modules first imported inside them, and a
# framework re-imported in a later run no longer matches the classes its objects come from.
for framework in ("flax.nnx", "flax.linen", "equinox", "haiku", "optax"):
    pytest.importorskip(framework)

NOT_ATTACHED = (
    ONE_CONFIG
    + """
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
"""
)

NNX_TEST = """
import jax, jax.numpy as jnp, optax
from flax import nnx

class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(8, 16, rngs=rngs)
        self.l2 = nnx.Linear(16, 2, rngs=rngs)
    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))

@nnx.jit
def train_step(model, optimizer, x, y):
    def loss(model):
        return ((model(x) - y) ** 2).mean()
    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value

def test_nnx(stage_snapshot):
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    stage_snapshot(train_step, model, optimizer, jnp.ones((4, 8)), jnp.ones((4, 2)))
"""

EQX_TEST = """
import jax, jax.numpy as jnp, equinox as eqx

class Model(eqx.Module):
    l1: eqx.nn.Linear
    activation: callable = jax.nn.relu
    def __call__(self, x):
        return self.activation(self.l1(x))

@eqx.filter_jit
def forward(model, x):
    return jax.vmap(model)(x)

def test_eqx(stage_snapshot):
    model = Model(eqx.nn.Linear(8, 4, key=jax.random.key(0)))
    stage_snapshot(forward, model, jnp.ones((2, 8)))
"""

LINEN_TEST = """
import jax, jax.numpy as jnp
import flax.linen as nn

class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(16)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.Dense(2)(x)

def test_linen(stage_snapshot):
    net = Net()
    variables = net.init(jax.random.key(0), jnp.ones((4, 8)), train=False)
    stage_snapshot(net.apply, variables, jnp.ones((4, 8)), train=True, mutable=["batch_stats"])
"""

HAIKU_TEST = """
import jax, jax.numpy as jnp, haiku as hk

def forward(x, is_training):
    return hk.nets.MLP([16, 2], activate_final=is_training)(x)

model = hk.transform(forward)

def test_haiku(stage_snapshot):
    params = model.init(jax.random.key(0), jnp.ones((4, 8)), True)
    stage_snapshot(model.apply, params, None, jnp.ones((4, 8)), True, name="mlp")
"""


def inputs(project, test, name, config="cpu1"):
    """The input leaf names of a sharding snapshot (sorted: the JSON has sorted keys)."""
    path = project.path / "snapshots" / "test_model" / test / config / f"{name}.sharding.json"
    return list(json.loads(path.read_text())["inputs"])


def record_then_compare(project, source, passed=1):
    project.write("test_model.py", source)
    project.run("--stages-update").assert_outcomes(passed=passed)
    files = project.snapshots()
    project.run().assert_outcomes(passed=passed)
    assert project.snapshots() == files
    return files


def test_an_nnx_jit_train_step_with_optax_names_model_and_optimizer_leaves(project):
    files = record_then_compare(project, NNX_TEST)
    assert "test_model/test_nnx/cpu1/train_step.jaxpr.txt" in files
    names = inputs(project, "test_nnx", "train_step")
    assert names[:4] == ["model.l1.bias", "model.l1.kernel", "model.l2.bias", "model.l2.kernel"]
    assert "optimizer.opt_state.0.mu.l1.kernel" in names
    assert names[-2:] == ["x", "y"]


def test_nnx_jit_drift_is_seen(project):
    record_then_compare(project, NNX_TEST)
    project.write("test_model.py", NNX_TEST.replace("jax.nn.relu", "jnp.tanh"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["pytest-stages: 'train_step' on config cpu1 differs from its snapshots*"])


def test_equinox_filter_jit_keeps_its_partition(project):
    files = record_then_compare(project, EQX_TEST)
    assert "max" in files["test_model/test_eqx/cpu1/forward.jaxpr.txt"].decode()
    assert inputs(project, "test_eqx", "forward") == ["model.l1.bias", "model.l1.weight", "x"]


def test_equinox_filter_jit_on_a_platform_not_attached_is_skipped(project):
    project.configure(configs=NOT_ATTACHED)
    project.write("test_model.py", EQX_TEST)
    result = project.run("--stages-update", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*pytest-stages: stage_snapshot(forward): equinox.filter_jit has no lowering_platforms, "
            "so it cannot be lowered for 'tpu', which is not attached; narrow this test to attached configs "
            "with @pytest.mark.stages(configs=[[]...[]])",
        ]
    )


def test_a_linen_apply_with_static_flags_names_its_variables_leaves(project):
    record_then_compare(project, LINEN_TEST)
    assert inputs(project, "test_linen", "apply") == [
        "variables['batch_stats']['BatchNorm_0']['mean']",
        "variables['batch_stats']['BatchNorm_0']['var']",
        "variables['params']['BatchNorm_0']['bias']",
        "variables['params']['BatchNorm_0']['scale']",
        "variables['params']['Dense_0']['bias']",
        "variables['params']['Dense_0']['kernel']",
        "variables['params']['Dense_1']['bias']",
        "variables['params']['Dense_1']['kernel']",
        "x",
    ]


def test_a_haiku_transformed_apply_names_its_params_by_module_path(project):
    record_then_compare(project, HAIKU_TEST)
    assert inputs(project, "test_haiku", "mlp") == [
        "params['mlp/~/linear_0']['b']",
        "params['mlp/~/linear_0']['w']",
        "params['mlp/~/linear_1']['b']",
        "params['mlp/~/linear_1']['w']",
        "x",
    ]


def test_register_a_library_function_from_conftest(project):
    project.configure(configs=ONE_CONFIG)
    project.write(
        "conftest.py",
        """
        import jax, jax.numpy as jnp, optax
        from pytest_stages import register

        tx = optax.adamw(1e-3)
        params = {"w": jax.ShapeDtypeStruct((8, 8), jnp.float32)}
        state = jax.eval_shape(tx.init, params)
        register(tx.update, name="adamw_update", args=(params, state, params))
    """,
    )
    result = project.run("--stages-list")
    assert "stages::adamw_update[cpu1]  (updates['w']: float32[8, 8], state[0].count: int32[]," in project.output(
        result
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    names = list(
        json.loads((project.path / "snapshots/stages/adamw_update/cpu1/adamw_update.sharding.json").read_text())[
            "inputs"
        ]
    )
    assert "state[0].mu['w']" in names


def test_conftest_that_builds_arrays_at_import_gets_the_devices(pytester):
    pytester.makepyprojecttoml("[tool.pytest_stages]\n" + TWO_CONFIGS)
    pytester.makeconftest("""
        import jax.numpy as jnp
        WEIGHTS = jnp.ones((8, 8))
    """)
    pytester.makepyfile(
        test_model="""
        import jax
        from conftest import WEIGHTS

        def test_f(stage_snapshot, stage_config):
            assert len(jax.devices()) == 8
            stage_snapshot(lambda x: x @ WEIGHTS.T, jax.ShapeDtypeStruct((8, 8), WEIGHTS.dtype), name="f")
    """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update")
    result.assert_outcomes(passed=2)


SCALAR_TEST = """
import jax.numpy as jnp

def scale(x, n):
    return jnp.sin(x) * n

def test_scale(stage_snapshot):
    stage_snapshot(scale, jnp.ones(4), 3)
"""


def test_python_scalars_are_invisible_unless_static_and_noted_on_failure(project):
    record_then_compare(project, SCALAR_TEST)
    project.write("test_model.py", SCALAR_TEST.replace("jnp.ones(4), 3", "jnp.ones(4), 4"))
    project.run().assert_outcomes(passed=1)
    project.write("test_model.py", SCALAR_TEST.replace("jnp.sin", "jnp.cos"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "  note: argument n was a Python int, traced as a weakly typed i32[]: its value is not part of the "
            "program, so changing it changes no snapshot; pass static_scalars=True to stage_snapshot (or set "
            "static_scalars = true) to bake it in",
        ]
    )


def test_static_scalars_make_the_value_part_of_the_program(project):
    static = SCALAR_TEST.replace("jnp.ones(4), 3)", "jnp.ones(4), 3, static_scalars=True)")
    record_then_compare(project, static)
    project.write("test_model.py", static.replace("jnp.ones(4), 3", "jnp.ones(4), 4"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "note: argument n" not in project.output(result)
    project.configure("static_scalars = true")
    project.write("test_model.py", SCALAR_TEST)
    project.run().assert_outcomes(passed=1)


def test_large_captured_constants_are_warned_about(project):
    project.write(
        "test_model.py",
        """
        import jax.numpy as jnp
        import numpy as np

        WEIGHTS = jnp.asarray(np.arange(600 * 600, dtype=np.float32).reshape(600, 600))

        def test_closure(stage_snapshot):
            stage_snapshot(lambda x: x @ WEIGHTS, jnp.ones((2, 600)), name="closure")
            stage_snapshot(lambda x, w: x @ w, jnp.ones((2, 600)), WEIGHTS, name="argument")
    """,
    )
    result = project.pytester.runpytest("-p", "no:cacheprovider", "--stages-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*CapturedConstantsWarning: stage_snapshot(closure): the lowered module carries 1.4 MiB of constants "
            "(over the 1.0 MiB threshold): arrays closed over by the function are baked into the program and its "
            "snapshots; pass them as arguments (or raise constants_warn_bytes in [[]tool.pytest_stages[]])",
        ]
    )
    assert "stage_snapshot(argument)" not in project.output(result)


@pytest.mark.filterwarnings("ignore:Some donated buffers were not usable")
@pytest.mark.parametrize(
    "donate, expected",
    [
        ("none", [("x", False), ("model.l1.weight", False), ("model.l1.bias", False)]),
        ("all-except-first", [("model.l1.weight", True), ("model.l1.bias", True), ("x", False)]),
    ],
)
def test_equinox_leaf_names_follow_its_donation_groups(donate, expected):
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from pytest_stages.stage.adapters import adapt

    class Model(eqx.Module):
        l1: eqx.nn.Linear

        def __call__(self, x):
            return self.l1(x)

    model = Model(eqx.nn.Linear(4, 4, key=jax.random.key(0)))
    adapter = adapt(
        eqx.filter_jit(lambda x, model: model(x), donate=donate), (jnp.ones(4), model), {}, static_scalars=False
    )
    lowered = adapter.lower(None, None)
    assert [(name, info.donated) for name, info in adapter.named_leaves(lowered.args_info)] == expected
