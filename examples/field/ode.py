"""A neural ODE solved by diffrax (the installed library): an MLP vector field, Tsit5, adaptive steps."""

from __future__ import annotations

import diffrax
import jax
import jax.numpy as jnp

WIDTH = 32
RTOL = 1e-5


def init(key):
    """The vector field's weights: a two-layer MLP on a ``WIDTH`` state."""
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w1": jax.random.normal(k1, (WIDTH, 4 * WIDTH)) / WIDTH**0.5,
        "w2": jax.random.normal(k2, (4 * WIDTH, WIDTH)) / (4 * WIDTH) ** 0.5,
        "skip": jax.random.normal(k3, (WIDTH, WIDTH)) / WIDTH**0.5,
    }


def vector_field(t, y, params):
    """An MLP with a linear skip: two independent projections of the state."""
    hidden = jnp.tanh(y @ params["w1"])
    skip = y @ params["skip"]
    return hidden @ params["w2"] + 0.1 * skip


def solve(params, y0):
    """The state at t = 1 from ``y0``, with a PID step-size controller."""
    solution = diffrax.diffeqsolve(
        diffrax.ODETerm(vector_field),
        diffrax.Tsit5(),
        t0=0.0,
        t1=1.0,
        dt0=0.1,
        y0=y0,
        args=params,
        stepsize_controller=diffrax.PIDController(rtol=RTOL, atol=1e-6),
        max_steps=256,
    )
    return solution.ys[-1]
