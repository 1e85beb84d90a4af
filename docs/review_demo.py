"""Rebuild docs/review.png and the attributed failure shown in docs/failures.md ("Why did it drift?").

Usage: python docs/review_demo.py   (needs Debian's chromium for the screenshot)

Records a 500-op model in a throw-away project, plants one multiply in it, runs
pytest with ``--stages-report=review.html`` and screenshots the page.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MODEL = """import jax.numpy as jnp


def block(x, w):
    for k in range(125):
        x = jnp.tanh(x @ w) + jnp.sin(x)
    return x
"""
TEST = """import jax, jax.numpy as jnp
from model import block


def test_block(stage_snapshot):
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32)
    stage_snapshot(block, x, x)
"""
SETTINGS = '[tool.pytest_stages]\nstages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = ["cost"]\n'


def main() -> None:
    out = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text(SETTINGS)
        (root / "model.py").write_text(MODEL)
        (root / "test_model.py").write_text(TEST)
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        subprocess.run([*pytest, "--stages-update"], cwd=root, check=True, capture_output=True)
        planted = MODEL.replace("jnp.sin(x)\n", "jnp.sin(x)\n        if k == 60:\n            x = x * 3.0\n")
        (root / "model.py").write_text(planted)
        # The planted multiply fails this run: its output is the failure to print, not an error.
        run = subprocess.run(
            [*pytest, "--stages-report=review.html"], cwd=root, capture_output=True, text=True, check=False
        )
        print(run.stdout)
        chromium = shutil.which("chromium")
        if chromium is None:
            sys.exit("chromium not found: install Debian's chromium package for the screenshot")
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1400,1100",
                f"--screenshot={out / 'review.png'}",
                (root / "review.html").as_uri(),
            ],
            check=True,
            capture_output=True,
        )
        print(f"wrote {out / 'review.png'}")


if __name__ == "__main__":
    main()
