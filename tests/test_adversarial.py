"""Inputs an adversarial trial found to lose data, raise, abort or hang (issue 46, item 7): each now an error.

Every test here failed before its fix (see the commit that added it): a prune that deleted a
test's snapshots, a traceback, a read that never ended.
"""

from __future__ import annotations

import pytest
from conftest import SIMPLE_TEST

SIN_TEST = """
import jax, jax.numpy as jnp, pytest

def test_sin(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")
"""


@pytest.mark.parametrize(("configs", "shown"), [("[]", "[]"), ('""', "''"), ('","', "','"), ("()", "()")])
def test_a_stages_marker_naming_no_config_fails_and_the_prune_keeps_its_files(project, configs, shown):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write(
        "tests/test_m.py", SIN_TEST.replace("def test_sin", f"@pytest.mark.stages(configs={configs})\ndef test_sin")
    )
    result = project.run("--stages-prune")
    output = project.output(result)
    assert project.snapshots() == before, output
    result.assert_outcomes(errors=1)
    assert f"@pytest.mark.stages(configs={shown}) on tests/test_m.py::test_sin names no config" in output, output
    assert "--stages-prune refused: 1 collection error(s) (tests/test_m.py::test_sin[bad-configs])" in output, output
