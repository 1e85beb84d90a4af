"""One name per cost and memory figure in budgets, tolerances and messages; JAX's spelling is read with a warning."""

from __future__ import annotations

import pytest

from pytest_stages.analyse.analyses import FIGURE_KEYS, figure_key, figure_name
from pytest_stages.check.budgets import METRICS, parse_budget
from pytest_stages.config.values import TOLERANCE_METRICS, parse_tolerances, respellings


def test_budgets_and_tolerances_name_each_figure_the_same_way():
    budgeted = [name for name in METRICS if name in FIGURE_KEYS]
    assert budgeted == [
        *("flops", "transcendentals", "bytes_accessed", "temp_bytes", "xla_peak_bytes"),
        *("argument_bytes", "output_bytes", "alias_bytes", "code_bytes"),
    ]
    assert set(budgeted) <= set(TOLERANCE_METRICS)
    for name, key in FIGURE_KEYS.items():
        assert (figure_name(key), figure_key(name), figure_key(key)) == (name, key, key)


@pytest.mark.parametrize(
    ("written", "key"),
    [("temp_bytes", "temp_size_in_bytes"), ("bytes_accessed", "bytes accessed"), ("bytes accessed0{}", None)],
)
def test_a_tolerance_reads_either_spelling_into_the_file_key(written, key):
    assert parse_tolerances({written: "2%"}, "t") == {key or written: 0.02}
    assert parse_tolerances({key or written: "2%"}, "t") == {key or written: 0.02}


def test_a_budget_reads_jax_spelling_as_the_one_name():
    assert parse_budget("b", {"temp_size_in_bytes": "1 KiB", "bytes accessed": 10}) == {
        "temp_bytes": 1024,
        "bytes_accessed": 10,
    }


def test_only_jax_spelling_gets_a_warning_naming_the_one_to_write():
    assert respellings("w", ["temp_bytes", "flops", "default", "bytes accessed0{}", "peak_bytes"]) == []
    assert respellings("w", ["peak_memory_in_bytes"]) == [
        "w: 'peak_memory_in_bytes' is JAX's spelling of 'xla_peak_bytes'; write xla_peak_bytes, the name "
        "pytest-stages uses for this figure in budgets, tolerances and messages (the old spelling is still read)."
    ]


OLD_SPELLING = """
[tool.pytest_stages.tolerance]
temp_size_in_bytes = 0.5

[tool.pytest_stages.budgets]
"*" = { "bytes accessed" = 1 }
"""


def test_old_spellings_still_work_and_warn_once_each(project):
    project.configure(OLD_SPELLING)
    project.write(
        "test_m.py",
        """
        import jax, jax.numpy as jnp, pytest

        @pytest.mark.stages_budget(peak_memory_in_bytes="1 GiB")
        def test_f(stage_snapshot):
            stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32))
        """,
    )
    result = project.run("--stages-update", "-W", "default::pytest.PytestConfigWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  budget: bytes_accessed 32 exceeds the ceiling 1"])
    output = project.output(result)
    for where, old, new in [
        ("[tool.pytest_stages.tolerance]", "temp_size_in_bytes", "temp_bytes"),
        ("[tool.pytest_stages.budgets] '*'", "bytes accessed", "bytes_accessed"),
        ("@pytest.mark.stages_budget on test_m.py::test_f[cpu1]", "peak_memory_in_bytes", "xla_peak_bytes"),
    ]:
        assert output.count(f"pytest-stages: {where}: {old!r} is JAX's spelling of {new!r}; write {new}") == 1, old
