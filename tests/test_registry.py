"""Registered stage functions: collected as ``stages::name[config]`` items without test boilerplate."""

from __future__ import annotations

from conftest import TWO_CONFIGS as CONFIGS

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


def test_failing_args_and_duplicate_names_are_collection_errors(project):
    setup(project, CONFTEST.replace('P("data")', 'P("nonexistent")'))
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["pytest-stages: the args of registered function 'colsum' failed on config 'cpu8': ValueError: *"]
    )
    setup(project, CONFTEST + "\nregister(square, args=(jax.ShapeDtypeStruct((2, 2), f32),))\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["pytest-stages: 'square' is registered twice; give each registration its own name=."])


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
