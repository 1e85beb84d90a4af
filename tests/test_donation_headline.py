"""A donation change is headlined plainly: which arguments are no longer (or now) donated, at the line that jits
the staged function, where ``donate_argnums`` is set (JAX keeps no record of it: the one ``jit`` call naming
the function in its file), else at the function's own line."""

from __future__ import annotations

from pytest_stages.check.placement import compare_placement

MODEL = """
import jax, jax.numpy as jnp

def make_step():
    return jax.jit(lambda p, s, x: ({{k: v - x.sum() for k, v in p.items()}}, [v + 1 for v in s]){donate})
"""
TEST = """
import jax.numpy as jnp
import model

def test_step(stage_snapshot):
    p, s = {"w": jnp.ones((4, 4)), "b": jnp.ones(4)}, [jnp.zeros(4), jnp.zeros(4)]
    stage_snapshot(model.make_step(), p, s, jnp.ones(4), name="step")
"""


def test_a_removed_donation_names_the_arguments_and_the_functions_line(project) -> None:
    project.configure('stages = ["jaxpr"]\nanalyses = ["sharding"]')
    project.write("model.py", MODEL.format(donate=", donate_argnums=(0, 1)"))
    project.write("test_model.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("model.py", MODEL.format(donate=""))
    result = project.run()
    result.assert_outcomes(failed=1)
    headline = next(line for line in result.outlines if line.startswith("  sharding: "))
    assert headline == (
        "  sharding: arguments p, s (4 arrays) no longer donated (XLA had reused its buffer) at model.py:5 in make_step"
    ), headline


NAMED = """
import jax, jax.numpy as jnp

def make_step():
    def step(p, x):
        return {{k: v - x.sum() for k, v in p.items()}}

    return jax.jit(step{donate})
"""


def test_a_new_donation_names_the_line_that_jits_the_function(project) -> None:
    """The sampler's case (issue #67): ``donate_argnums`` added to ``jax.jit(decode)``, lines below ``decode``."""
    project.configure('stages = ["jaxpr"]\nanalyses = ["sharding"]')
    project.write("model.py", NAMED.format(donate=""))
    project.write("test_model.py", TEST.replace("model.make_step(), p, s,", "model.make_step(), p,"))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("model.py", NAMED.format(donate=", donate_argnums=(0,)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    headline = next(line for line in result.outlines if line.startswith("  sharding: "))
    assert headline.endswith(" at model.py:8 in make_step"), headline


def _leaf(donated: bool) -> dict[str, object]:
    return {"sharding": None, "donated": donated, "aliased_to": "output[0]" if donated else None}


def test_inputs_that_are_whole_arguments_are_named_by_the_arguments() -> None:
    names = [*(f"params[{k}]" for k in range(4)), "opt_state[0].mu", "opt_state[0].nu", "x"]
    before = {"inputs": {n: _leaf(n != "x") for n in names}, "outputs": {}, "collectives": []}
    after = {"inputs": {n: _leaf(False) for n in names}, "outputs": {}, "collectives": []}
    (found,) = compare_placement("sharding", before, after)
    assert found.message == "arguments opt_state, params (6 arrays) no longer donated (XLA had reused its buffer)"
    assert found.subject == "donation"
    # a part of an argument is named by its leaves
    after["inputs"]["params[3]"] = _leaf(True)
    (found,) = compare_placement("sharding", before, after)
    assert found.message == (
        "5 inputs (opt_state[0].mu, opt_state[0].nu, params[0], +2 more) no longer donated (XLA had reused its buffer)"
    )
