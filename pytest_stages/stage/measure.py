"""``--stages-measure``: the compiled program's step time on the attached device, beside its estimate.

``ROUNDS`` rounds of ``CALLS`` queued calls after a warm-up, the median round per call (docs/step-time.md);
only where the platform is attached, and into the reports, never a snapshot: they are the host's figures.
A program that cannot run on made-up inputs is reported ``not_measured`` with the reason, never a failure:
the measurement must not change a verdict.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import jax  # imported only by a run that stages (calls/snapshot_call.py binds this module late)

from pytest_stages.core.records import StepTime

WARM_UP = 3
ROUNDS = 5
CALLS = 20


def measured(compiled: object, lowered: object, estimated: float | None) -> StepTime:
    """``measured_seconds`` (median), ``measured_min``/``measured_max`` (rounds) and ``estimate_over_measured``;
    ``{"not_measured": reason}`` where the program raises on made-up inputs (a callback that rejects them)."""
    try:
        return _timed(compiled, lowered, estimated)
    except Exception as error:  # noqa: BLE001  (whatever the program raises, the verdict stands)
        # the last line of a runtime error names the cause (a callback's error follows its traceback)
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        cause = f": {lines[-1][:300]}" if lines else ""
        return {
            "not_measured": f"the call raised {type(error).__name__} on made-up inputs (random floats, zero "
            f"integers){cause}; time it with inputs of your own (docs/step-time.md)"
        }


def _timed(compiled: Any, lowered: Any, estimated: float | None) -> StepTime:
    infos = lowered.args_info
    shardings = compiled.input_shardings
    donated = any(getattr(info, "donated", False) for info in jax.tree.leaves(infos))
    keys = iter(jax.random.split(jax.random.key(0), len(jax.tree.leaves(infos)) * (WARM_UP + ROUNDS * CALLS + 1)))

    def inputs() -> tuple[Any, Any]:
        args, kwargs = jax.tree.map(lambda info, sharding: _array(info, sharding, next(keys)), infos, shardings)
        return args, kwargs

    args, kwargs = inputs()
    for _ in range(WARM_UP):
        jax.block_until_ready(compiled(*args, **kwargs))
        if donated:
            args, kwargs = inputs()
    rounds = [_one_at_a_time(compiled, inputs) if donated else _queued(compiled, args, kwargs) for _ in range(ROUNDS)]
    seconds = statistics.median(rounds)
    found: StepTime = {
        "measured_seconds": seconds,
        "measured_min": min(rounds),
        "measured_max": max(rounds),
        "measured_calls": "one at a time (donated inputs)" if donated else f"{CALLS} queued",
    }
    if estimated is not None and seconds > 0:
        found["estimate_over_measured"] = estimated / seconds
    return found


def _array(info: Any, sharding: Any, key: Any) -> Any:
    aval = info._aval if hasattr(info, "_aval") else info  # JAX's ArgInfo keeps its abstract value private
    if jax.numpy.issubdtype(aval.dtype, jax.numpy.floating):
        value = (jax.random.normal(key, aval.shape) * 0.05).astype(aval.dtype)
    else:
        value = jax.numpy.zeros(aval.shape, aval.dtype)
    return value if sharding is None else jax.device_put(value, sharding)


def _queued(compiled: Any, args: Any, kwargs: Any) -> float:
    start = time.perf_counter()
    last = None
    for _ in range(CALLS):
        last = compiled(*args, **kwargs)
    jax.block_until_ready(last)
    return (time.perf_counter() - start) / CALLS


def _one_at_a_time(compiled: Any, inputs: Callable[[], tuple[Any, Any]]) -> float:
    total = 0.0
    for _ in range(CALLS):
        args, kwargs = inputs()
        jax.block_until_ready((args, kwargs))
        start = time.perf_counter()
        jax.block_until_ready(compiled(*args, **kwargs))
        total += time.perf_counter() - start
    return total / CALLS
