"""On a host with one attached TPU v5e chip: its compile of the pods one-chip step against the snapshot.

The snapshot ``examples/pods/snapshots/.../v5e-1chip/`` was recorded compile-only (topology
``v5e:1x1``) on a CPU machine. This compiles the same function on the attached chip and prints
which ``cost_analysis()`` and ``memory_analysis()`` figures differ from it. Run from the repository
root: ``python benchmarks/tpu_one_chip.py``.
"""

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from pytest_stages.analyse.analyses import cost, memory

FOLDER = Path("examples/pods/snapshots/test_pods/test_train_step_one_chip/v5e-1chip")


def differing(then: dict[str, Any], now: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {k: (then.get(k), now.get(k)) for k in sorted(set(then) | set(now)) if then.get(k) != now.get(k)}


def main() -> None:
    sys.path[:0] = ["examples", "examples/pods"]
    test_pods = importlib.import_module("test_pods")
    params = {name: jnp.zeros(shape, jnp.bfloat16) for name, shape in test_pods.shapes().items()}
    x = jnp.zeros((test_pods.BATCH, test_pods.SEQ, test_pods.WIDTH), jnp.bfloat16)
    lowered = jax.jit(test_pods.train_step).trace(params, x).lower()
    compiled = lowered.compile()
    print("device:", jax.devices()[0].device_kind)
    for name, figures in (("cost", cost(compiled, lowered)["compiled"]), ("memory", memory(compiled))):
        recorded = json.loads((FOLDER / f"train_step.{name}.json").read_text())
        then = recorded.get("compiled", recorded)
        now = json.loads(json.dumps(figures))
        diff = differing(then, now)
        print(f"{name}: {len(then)} figures compile-only on CPU, {len(now)} on the chip; differing: {diff or 'none'}")


if __name__ == "__main__":
    main()
