"""A typo is an error naming the key and the close match, never a setting silently ignored."""

from __future__ import annotations

import pytest
from conftest import TWO_CONFIGS

TYPO = """
import jax, jax.numpy as jnp, pytest

X = jax.ShapeDtypeStruct((4,), jnp.float32)

@pytest.mark.stages(config=["cpu1"])
def test_typo(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)

@pytest.mark.stages(["cpu1"])
def test_positional(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)

@pytest.mark.stages(configs=["cpu1"])
def test_right(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)
"""


def test_an_unknown_stages_marker_keyword_fails_its_test_naming_the_close_match(project):
    project.configure(configs=TWO_CONFIGS)
    project.write("test_m.py", TYPO)
    result = project.run("--stages-update")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: @pytest.mark.stages on test_m.py::test_typo: unknown keyword 'config' (did you mean "
            "'configs'?); the stages marker takes configs, stages, analyses, tolerance.",
            "*",
            "pytest-stages: @pytest.mark.stages on test_m.py::test_positional: the stages marker takes keywords only "
            "(configs, stages, analyses, tolerance), got ['cpu1']; write e.g. @pytest.mark.stages(configs=['cpu1']).",
        ],
        consecutive=False,
    )
    # The typo widened nothing: only test_right staged, on its one config.
    assert sorted({name.split("/")[1] for name in project.snapshots()}) == ["test_right"]
    assert "Traceback" not in project.output(result)


def test_unknown_budget_and_tolerance_names_are_errors_with_the_close_match(project):
    project.configure("[tool.pytest_stages.tolerance]\nflop = 0.1\n")
    project.write("test_m.py", TYPO.replace('(config=["cpu1"])', "(configs=['cpu1'])"))
    result = project.run()
    assert result.ret == 4
    assert (
        "ERROR: pytest-stages: [tool.pytest_stages.tolerance]: unknown metric 'flop' (did you mean 'flops'?); "
        "choose from default, flops, transcendentals, bytes_accessed, argument_bytes,"
    ) in result.stderr.str()
    project.configure('[tool.pytest_stages.budgets]\n"*" = { temp_byte = "1 MiB" }\n')
    result = project.run()
    assert result.ret == 4
    assert (
        "ERROR: pytest-stages: [tool.pytest_stages.budgets] '*': unknown budget metric 'temp_byte' (did you mean "
        "'temp_bytes'?); use one of flops, transcendentals, bytes_accessed, estimated_seconds, temp_bytes,"
    ) in result.stderr.str()


def test_a_closed_set_option_prints_its_values(project):
    result = project.run("--stages-check=texts")
    assert result.ret == 4
    assert result.stderr.lines[0] == (
        "ERROR: pytest-stages: --stages-check: unknown name 'texts' (did you mean 'text'?); choose from text, cost, "
        "memory, sharding, layout, kernels, compiles, budget."
    )


BUDGETED = """
import jax, jax.numpy as jnp

def test_step(stage_snapshot):
    stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32))

def test_other(stage_snapshot):
    stage_snapshot(lambda x: x + 1, jax.ShapeDtypeStruct((4,), jnp.float32))
"""

UNMATCHED = (
    "pytest-stages: [tool.pytest_stages.budgets] 'tests/test_modle.py::*' matches no test this run collected, so its "
    "ceilings apply to nothing: correct the pattern (it is matched against test ids such as "
    "tests/test_model.py::test_step[cpu1]) or remove it."
)


def test_a_budget_pattern_matching_no_test_is_named_once_on_a_whole_run_only(project):
    project.configure(
        '[tool.pytest_stages.budgets]\n"tests/test_modle.py::*" = { flops = 1e9 }\n'
        '"tests/test_model.py::test_step*" = { flops = 1e9 }\n'
    )
    project.write("tests/test_model.py", BUDGETED)
    whole = project.run("--stages-update")
    whole.assert_outcomes(passed=2)
    assert whole.outlines.count(UNMATCHED) == 1
    assert "test_step*" not in project.output(whole)
    # Under xdist: the controller says it, once; the workers never.
    assert project.run("-p", "xdist", "-n", "2").outlines.count(UNMATCHED) == 1
    # A partial run cannot tell: a -k selection, a path argument, a --stages-configs selection.
    for partial in (("-k", "step"), ("tests/test_model.py",), ("--stages-configs=cpu1",)):
        result = project.run(*partial)
        assert result.ret == 0
        assert "matches no test" not in project.output(result), partial


NEAR_MISS_MARKS = """
import jax, jax.numpy as jnp, pytest

X = jax.ShapeDtypeStruct((4,), jnp.float32)

@pytest.mark.stage_budget(flops=1)
def test_budget_typo(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)

@pytest.mark.stage_budget(compiles=0)
def test_compiles_typo(stage_compiles):
    with stage_compiles(jax.jit(lambda x: x + 1)) as log:
        pass

@pytest.mark.slow
def test_own_mark(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)
"""


def test_a_near_miss_of_a_plugin_mark_fails_its_test_naming_the_right_mark(project):
    project.write("test_m.py", NEAR_MISS_MARKS)
    result = project.run("--stages-update", "-W", "ignore::pytest.PytestUnknownMarkWarning")
    result.assert_outcomes(passed=1, errors=2)
    for nodeid in ("test_m.py::test_budget_typo", "test_m.py::test_compiles_typo"):
        result.stdout.fnmatch_lines(
            [
                f"pytest-stages: test {nodeid}: @pytest.mark.stage_budget is no mark of pytest-stages, so it would "
                "apply nothing; did you mean @pytest.mark.stages_budget? Rename it (the plugin's marks: stages, "
                "stages_budget)."
            ]
        )
    # The budget was not silently dropped: the typo test recorded nothing; a mark of the user's own is no error.
    assert sorted({name.split("/")[1] for name in project.snapshots()}) == ["test_own_mark"]
    assert "Traceback" not in project.output(result)


@pytest.mark.parametrize(
    "table", ["[tool.pytest-stages]", "[tool.pytest_stage]", "[tool.pytest-stages.budgets]", "[pytest_stages]"]
)
def test_a_near_miss_of_the_settings_table_is_a_usage_error_naming_the_right_table(project, table):
    project.write("pyproject.toml", f"{table}\nsnapshot_dir = 'snaps'\n")
    project.write("test_m.py", TYPO)
    written = table.strip("[]").split(".budgets")[0]
    assert project.usage_error(project.run()) == (
        f"{project.path / 'pyproject.toml'} has a [{written}] table, which pytest-stages does not read: its "
        f"settings live in [tool.pytest_stages] (with an underscore, as Python names the package). Rename "
        f"[{written}] to [tool.pytest_stages] (and each [{written}.<name>] to [tool.pytest_stages.<name>])."
    )


def test_tables_of_other_tools_are_not_taken_for_near_misses(project):
    project.write("pyproject.toml", "[tool.pytest-split]\nx = 1\n[tool.pytest_jax]\ny = 2\n[tool.pytest.ini_options]\n")
    project.write("test_m.py", "def test_plain():\n    pass\n")
    project.run().assert_outcomes(passed=1)
