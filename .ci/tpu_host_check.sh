#!/usr/bin/env bash
# The TPU-host check of xdist (docs/sharded-ci.md, "On a host with an attached accelerator") and of a
# registered function whose args fail there. Not run by CI (no accelerator there).
# Run from the repository root on the TPU v5e host, in the environment where `pytest examples` runs
# (pytest-stages from this tree installed or on PYTHONPATH, with the tpu extra). OUT=${OUT:-/tmp}.
set -u; OUT=${OUT:-/tmp}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this tree's pytest_stages, also from the scratch folder
python -c "import jax; print(jax.devices())"
# 1. The example suite: -n 0 and -n 2 give the same outcomes; every [tpu] item runs on gw0.
python -m pytest examples -p no:cacheprovider -n 0 -rA -q > "$OUT/n0.txt" 2>&1; echo "n0 rc=$?"
python -m pytest examples -p no:cacheprovider -n 2 -rA -v > "$OUT/n2.txt" 2>&1; echo "n2 rc=$?"
outcomes() { grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ' "$1" | sed 's/ - .*//' | sort; }
diff <(outcomes "$OUT/n0.txt") <(outcomes "$OUT/n2.txt") && echo "SAME OUTCOMES: $(outcomes "$OUT/n0.txt" | wc -l) items"
tail -1 "$OUT/n0.txt"; tail -1 "$OUT/n2.txt"
echo "[tpu] items not on gw0 (expect 0): $(grep -E '^\[gw[0-9]+\].*\[tpu\]' "$OUT/n2.txt" | grep -vc '^\[gw0\]')"
echo "[tpu] items on gw0: $(grep -cE '^\[gw0\].*\[tpu\]' "$OUT/n2.txt")"
grep -n "Device or resource busy\|INTERNALERROR" "$OUT/n2.txt" | head -3
# 2. A registered function whose args build their own mesh for 8 devices (the host has one chip).
d=$(mktemp -d)
cat > "$d/pyproject.toml" <<'EOF'
[tool.pytest_stages]
[[tool.pytest_stages.configs]]
name = "cpu8"
devices = 8
mesh = { data = 8 }
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
EOF
cat > "$d/conftest.py" <<'EOF'
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
from pytest_stages import register

def own_mesh(stage_config):  # user code sized for 8 devices: on this host jax.make_mesh finds the one chip
    mesh = jax.make_mesh((8,), ("data",))
    return (jax.ShapeDtypeStruct((64, 16), jnp.float32, sharding=NamedSharding(mesh, P("data"))),)

register(lambda x: x.sum(0), args=own_mesh, name="meshed")
register(lambda x: jnp.tanh(x), args=(jax.ShapeDtypeStruct((8,), jnp.float32),), name="plain")
EOF
(cd "$d" && python -m pytest -p no:cacheprovider --stages-update -rA 2>&1 | grep -E "pytest-stages: the args|^(PASSED|FAILED|ERROR)|INTERNALERROR|wrote|passed|failed")
rm -rf "$d/snapshots"
(cd "$d" && python -m pytest -p no:cacheprovider --stages-update -n 2 -rA -v 2>&1 | grep -E "pytest-stages: the args|^\[gw|^(PASSED|FAILED|ERROR)|INTERNALERROR|wrote|passed|failed")
find "$d/snapshots" -name '_stages.json' | sort
