"""Diff size for one planted op in a 500-op model: a plain line diff vs. the renumbering-proof one.

Usage: python benchmarks/diff_size.py

Stages the model before and after one inserted multiply (real files, so JAX records source
lines) and prints, per stage text, its length, the +/- lines of a plain unified diff, the
rows of pytest-stages' diff, and the source lines it attributes the change to.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import tempfile
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # as the plugin does: no TPU/CUDA plugin start-up or warnings

import jax
import jax.numpy as jnp

from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.ir.diff_render import describe_sources, sources
from pytest_stages.ir.sources import describe_all
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.stage.activation import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.staging import stage

MODEL = """\
import jax.numpy as jnp


def block(x, w):
    for k in range(125):
        x = jnp.tanh(x @ w) + jnp.sin(x)
    return x
"""
PLANTED = MODEL.replace("jnp.sin(x)\n", "jnp.sin(x)\n        if k == 60:\n            x = x * 3.0\n")
TEXTS = ("jaxpr", "stablehlo", "hlo", "compiled")


def staged(folder: Path, source: str):
    folder.mkdir()
    path = folder / "model.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"model_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = (jax.ShapeDtypeStruct((8, 8), jnp.float32),) * 2
    return stage(
        module.block,
        args,
        {},
        name="block",
        active=activate(DeviceConfig(name="cpu1")),
        stages=TEXTS,
        analyses=(),
        events=CompileEvents(),
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        before, after = staged(Path(tmp) / "old", MODEL), staged(Path(tmp) / "new", PLANTED)
        print(f"{'stage':<10} {'lines':>6} {'plain diff':>11} {'our rows':>9}  attributed to")
        for artifact in TEXTS:
            old, new = before.texts[artifact], after.texts[artifact]
            plain = sum(
                1
                for line in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm="")
                if line[:1] in "+-" and line[:3] not in ("+++", "---")
            )
            script = edit_script(BY_NAME[artifact].dialect, old, new)
            rows = [row.tag for row in script.rows if row.tag != "="]
            found = sources(script, describe_all(after.source_lines(artifact) or (), Path(tmp) / "new"))
            counts = ", ".join(f"{rows.count(t)} {n}" for t, n in (("+", "added"), ("-", "removed"), ("~", "changed")))
            print(
                f"{artifact:<10} {len(old.splitlines()):>6} {plain:>11} {len(rows):>9}  ({counts}) "
                f"{describe_sources(found, limit=2)}"
            )


if __name__ == "__main__":
    main()
