"""The canonical order of independent operations is the same in every process.

It sorts by structural hashes; were they Python's ``hash`` of strings, which changes with
``PYTHONHASHSEED``, two texts that are one program only up to order could compare equal in one
run and unequal in the next (a flaky verdict).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "examples" / "test_models"
CANONICAL = """
import hashlib, sys
from pathlib import Path
from pytest_stages.ir import dataflow
from pytest_stages.ir.renaming import naming
rules = naming(sys.argv[1])
text = dataflow.reordered(sys.argv[1], Path(sys.argv[2]).read_text(), rules.split, rules.defined, rules.key)
print(hashlib.sha256(text.encode()).hexdigest())
"""


def _canonical_digest(dialect: str, path: Path, seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [sys.executable, "-c", CANONICAL, dialect, str(path)], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("dialect", "path"),
    [
        ("jaxpr", SNAPSHOTS / "test_mlp_train_step" / "cpu1" / "train_step.jaxpr.txt"),
        ("mlir", SNAPSHOTS / "test_transformer_block" / "cpu1" / "transformer_block.stablehlo.mlir"),
        ("hlo", SNAPSHOTS / "test_mlp_train_step" / "cpu1" / "train_step.compiled.hlo.txt"),
    ],
    ids=["jaxpr", "stablehlo", "compiled"],
)
def test_the_canonical_order_of_a_committed_snapshot_is_the_same_under_every_hash_seed(
    dialect: str, path: Path
) -> None:
    assert path.exists()
    assert len({_canonical_digest(dialect, path, seed) for seed in (1, 2, 3, 4)}) == 1
