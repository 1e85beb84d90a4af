"""Registered stage functions: collected as ``stages::name[config]`` items without test boilerplate."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import TWO_CONFIGS as CONFIGS

from pytest_stages.hooks.registry import registrations

CONFTEST = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
from pytest_stages import register

f32 = jnp.float32

@register(args=(jax.ShapeDtypeStruct((8, 8), f32),), budget={"flops": 1e6})
def square(x):
    return jnp.tanh(x @ x)

def batch(stage_config):
    return (jax.ShapeDtypeStruct((64, 16), f32, sharding=NamedSharding(stage_config.mesh, P("data"))),)

register(lambda x: x.sum(0), args=batch, name="colsum", configs=["cpu8"], jit={"donate_argnums": 0})
"""


def setup(project, conftest=CONFTEST, settings=""):
    project.configure(settings, configs=CONFIGS)
    project.write("conftest.py", conftest)


def test_registered_functions_become_items_per_config(project):
    setup(project)
    result = project.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(["stages::square[cpu1]", "stages::square[cpu8]", "stages::colsum[cpu8]"])


def test_update_then_compare_then_drift(project):
    setup(project)
    project.run("--stages-update").assert_outcomes(passed=3)
    files = project.snapshots()
    assert "stages/square/cpu1/square.compiled.hlo.txt" in files
    assert '"donated": true' in files["stages/colsum/cpu8/colsum.sharding.json"].decode()
    project.run().assert_outcomes(passed=3)
    setup(project, CONFTEST.replace("jnp.tanh(x @ x)", "jnp.sin(x @ x)"))
    result = project.run("-k", "square")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'square' on config cpu1 differs from its snapshots in snapshots/stages/square/cpu1/",
            "    ops: +1 sin, -1 tanh",
        ]
    )
    assert project.snapshots() == files


def test_registered_budgets_are_enforced(project):
    setup(project, CONFTEST.replace('budget={"flops": 1e6}', 'budget={"flops": 10}'))
    result = project.run("--stages-update", "-k", "square and cpu1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  budget: flops 1024 exceeds the ceiling 10"])


def test_functions_in_listed_modules_are_collected(project):
    project.pytester.syspathinsert()
    project.configure('modules = ["mypkg.models"]', configs=CONFIGS)
    project.write("mypkg/__init__.py", "")
    project.write(
        "mypkg/models.py",
        """
        import jax, jax.numpy as jnp
        import pytest_stages

        @pytest_stages.register(args=(jax.ShapeDtypeStruct((4,), jnp.float32),), configs=["cpu1"])
        def step(x):
            return x * 2
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    assert "stages/step/cpu1/step.jaxpr.txt" in project.snapshots()


def test_a_module_that_cannot_be_imported_is_a_collection_error(project):
    project.configure('modules = ["missing.models"]', configs=CONFIGS)
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: cannot import 'missing.models' listed in [[]tool.pytest_stages[]] modules: "
            "ModuleNotFoundError: No module named 'missing'"
        ]
    )


# User code that builds its own mesh for more devices than the process has (on a TPU host,
# `jax.make_mesh` finds the one chip): its args function raises on every config.
FAILING_ARGS = """
def own_mesh(stage_config):
    mesh = jax.make_mesh((16,), ("data",))
    return (jax.ShapeDtypeStruct((64, 16), f32, sharding=NamedSharding(mesh, P("data"))),)

register(lambda x: x.sum(0), args=own_mesh, name="meshed")
"""


@pytest.mark.parametrize("workers", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
def test_failing_args_fail_their_items_alone_and_the_others_update(project, workers):
    setup(project, CONFTEST + FAILING_ARGS)
    result = project.run("--stages-update", *workers)
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: the args of registered function 'meshed' (conftest.py:*) failed on config '{config}': "
            "ValueError: Number of devices 8 must be >= the product of mesh_shape (16,). This test fails alone; *"
            for config in ("cpu1", "cpu8")
        ]
        + [f"FAILED stages::meshed[[]{config}[]] - Failed: pytest-stages: the args of*" for config in ("cpu1", "cpu8")]
    )
    assert "INTERNALERROR" not in project.output(result)
    files = project.snapshots()
    assert "stages/square/cpu1/square.jaxpr.txt" in files
    assert "stages/colsum/cpu8/colsum.sharding.json" in files
    assert not [name for name in files if name.startswith("stages/meshed/")]


def test_a_failing_registration_never_loses_its_snapshots(project):
    setup(project)
    project.run("--stages-update").assert_outcomes(passed=3)
    files = project.snapshots()
    # Its args fail: it fails alone and owns its folder, as a failing test does; the prune runs.
    setup(
        project,
        CONFTEST.replace("def batch(stage_config):\n", "def batch(stage_config):\n    raise ValueError('no mesh')\n"),
    )
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=2, failed=1)
    assert "--stages-prune refused" not in project.output(result)
    assert project.snapshots() == files
    # Its options are wrong: the folder it meant is not known, so nothing is pruned.
    setup(project, CONFTEST.replace('budget={"flops": 1e6}', 'budget=["flops"]'))
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: --stages-prune refused: 2 collection error(s) "
            "(stages::square[[]cpu1[]], stages::square[[]cpu8[]]);*"
        ]
    )
    assert project.snapshots() == files


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            'register(square, args=(jax.ShapeDtypeStruct((2,), f32),), name="bogus", jit={"bogus_option": 1})',
            "register('bogus', jit=...) at conftest.py:*: 'bogus_option' is not an option of jax.jit; use jax.jit's "
            "keyword arguments (in_shardings, *).",
        ),
        (
            'register(square, args=(jax.ShapeDtypeStruct((2,), f32),), name="bogus", jit={"donate_argnums": "x"})',
            "register('bogus', jit=...) at conftest.py:*: jax.jit refuses these options: TypeError: 'str' object "
            "cannot be interpreted as an integer. Fix the jit= options of this registration.",
        ),
        (
            "register(lambda x: x, args=(jax.ShapeDtypeStruct((2,), f32),), name=5)",
            "register('<lambda>') at conftest.py:*: name=5 must be a non-empty string (it names the test and its "
            "snapshot folder).",
        ),
        (
            'register(lambda x: x, args=jax.ShapeDtypeStruct((2,), f32), name="bogus")',
            "register('bogus') at conftest.py:*: args=ShapeDtypeStruct must be a tuple of the function's arguments "
            "or a function of the stage_config returning that tuple.",
        ),
        (
            'register(lambda x: x, args=(), name="bogus", budget=["flops"])',
            "register('bogus') at conftest.py:*: budget=[[]'flops'[]] must be a dict with string keys, e.g. "
            'budget={"flops": 1e9}.',
        ),
    ],
    ids=["unknown-jit-option", "refused-jit-value", "name", "args", "budget"],
)
def test_bad_register_options_fail_their_items_with_one_paragraph(project, call, message):
    setup(project, CONFTEST + "\n" + call + "\n")
    result = project.run("--stages-update", "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines([f"pytest-stages: {message}"] * 2)
    assert "Traceback" not in project.output(result) and "INTERNALERROR" not in project.output(result)


def test_an_unknown_config_of_a_registration_fails_its_item(project):
    setup(project, CONFTEST.replace('configs=["cpu8"]', 'configs=["cpu8", "tpu9"]'))
    result = project.run("--stages-update")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: register('colsum', configs=...) at conftest.py:* names unknown config 'tpu9'; "
            "choose from cpu1, cpu8."
        ]
    )


@pytest.mark.parametrize("workers", [(), ("-p", "xdist", "-n", "2")], ids=["serial", "xdist"])
def test_duplicate_names_are_a_collection_error(project, workers):
    setup(project, CONFTEST + "\nregister(square, args=(jax.ShapeDtypeStruct((2, 2), f32),))\n")
    result = project.run(*workers)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["pytest-stages: 'square' is registered twice; give each registration its own name=."])
    assert "INTERNALERROR" not in project.output(result)


def test_stages_list_shows_args_shapes_dtypes_and_shardings(project):
    setup(project)
    result = project.run("--stages-list")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "stages::square?cpu1?  (x: float32?8, 8?)",
            "stages::colsum?cpu8?  (x: float32?64, 16? P(?data?))",
        ]
    )
    assert project.snapshots() == {}


def test_registered_functions_run_under_xdist(project):
    setup(project)
    project.run("--stages-update").assert_outcomes(passed=3)
    files = project.snapshots()
    project.run("-p", "xdist", "-n", "2").assert_outcomes(passed=3)
    assert project.snapshots() == files


def test_path_arguments_collect_only_the_registrations_under_them(project):
    setup(project)
    project.write("other/test_plain.py", "def test_plain():\n    pass\n")
    project.run("other").assert_outcomes(passed=1)
    project.run("other", str(project.path)).assert_outcomes(passed=1, failed=3)


def test_a_module_imported_before_the_session_keeps_its_registrations(project, monkeypatch):
    """Registrations live on their module: a second session in one process still finds them.

    The listed module is imported before both in-process sessions (so pytester does not unload
    it between them) and declares its registration once; each session must collect it.
    """
    setup(project, conftest="")
    project.configure('modules = ["entry_kept"]', configs=CONFIGS)
    project.write(
        "entry_kept.py",
        """
        import jax, jax.numpy as jnp
        from pytest_stages import register

        register(lambda x: x * 2, args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="double")
    """,
    )
    monkeypatch.syspath_prepend(str(project.path))
    monkeypatch.delitem(__import__("sys").modules, "entry_kept", raising=False)
    __import__("entry_kept")
    for _ in range(2):
        result = project.run("--collect-only", "-q")
        result.stdout.fnmatch_lines(["stages::double[cpu1]", "stages::double[cpu8]"])


def test_gathering_registrations_never_loads_a_lazy_module(tmp_path, monkeypatch):
    """A module imported through ``importlib.util.LazyLoader`` runs on first attribute access:
    looking for registrations in ``sys.modules`` must not be that access."""
    (tmp_path / "lazy_side_effect.py").write_text("raise RuntimeError('a lazy module was loaded')\n")
    spec = importlib.util.spec_from_file_location("lazy_side_effect", tmp_path / "lazy_side_effect.py")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "lazy_side_effect", module)
    assert registrations(tmp_path) == []
