"""Keyword arguments are traced as jax.jit traces them: one a function needs static fails saying how to keep it so."""

from __future__ import annotations

KEYWORDS = """
import functools
import jax, jax.numpy as jnp

X = jax.ShapeDtypeStruct((4, 3), jnp.float32)

def flip(x, mode):
    return x if mode == "same" else -x

def test_axis(stage_snapshot):
    stage_snapshot(jnp.sum, X, axis=0)

def test_mode(stage_snapshot):
    stage_snapshot(flip, X, mode="same")

def test_traced_array_keyword(stage_snapshot):
    stage_snapshot(lambda x, w: x * w, X, w=jax.ShapeDtypeStruct((3,), jnp.float32))

def test_partial(stage_snapshot):
    stage_snapshot(functools.partial(jnp.sum, axis=(0, 1)), X)

def test_static_argnames(stage_snapshot):
    stage_snapshot(jax.jit(flip, static_argnames="mode"), X, mode="same", name="flip")

def test_static_scalars(stage_snapshot):
    stage_snapshot(jnp.sum, X, axis=0, static_scalars=True)
"""


def test_a_keyword_the_function_needs_static_fails_naming_it_and_the_fixes_pass(project):
    project.write("test_k.py", KEYWORDS)
    result = project.run("--stages-update")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: stage_snapshot(sum): tracing failed with ConcretizationTypeError:",
            "*depends on the value of the argument axis*",
            "stage_snapshot traces keyword arguments as jax.jit does, so axis=0 reached sum as a traced value where "
            "it needs a Python value. Keep it static: stage_snapshot(functools.partial(sum, axis=0), ...), or stage "
            "jax.jit(sum, static_argnames='axis') with the same keywords (Python scalars also stay static with "
            "static_scalars=True). Its snapshots were left untouched.",
            "pytest-stages: stage_snapshot(flip): tracing failed with TypeError:",
            "*",
            "stage_snapshot traces keyword arguments as jax.jit does, so mode='same' reached flip as a traced value "
            "where it needs a Python value. Keep it static: stage_snapshot(functools.partial(flip, mode='same'), "
            "...), or stage jax.jit(flip, static_argnames='mode') with the same keywords. Its snapshots were left "
            "untouched.",
        ],
        consecutive=False,
    )
    assert "Fix the function or its arguments" not in project.output(result)
