#!/usr/bin/env bash
# The TPU-host check of xdist (docs/sharded-ci.md, "On a host with an attached accelerator"), of a
# registered function whose args fail there, and of a crash of the worker holding the chip. Not run by
# CI (no accelerator there).
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
# 3. The worker holding the chip dies in the first chip item (once): the worker xdist starts in its
# place (gw2) opens the chip and runs the chip items left; no INTERNALERROR.
c=$(mktemp -d)
cat > "$c/pyproject.toml" <<'EOF'
[tool.pytest_stages]
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
EOF
cat > "$c/test_a_crash.py" <<EOF
import os

def test_crash(stage_config):
    if stage_config.name == "tpu" and not os.path.exists("$c/crashed"):
        open("$c/crashed", "w").close()
        os._exit(1)
EOF
cat > "$c/test_models.py" <<EOF
import os, jax, jax.numpy as jnp

def log(stage_config):  # worker, config, JAX_PLATFORMS, the platform JAX opened
    with open("$c/ran.log", "a") as out:
        out.write(f"{os.environ.get('PYTEST_XDIST_WORKER')} {stage_config.name} {os.environ.get('JAX_PLATFORMS')} {jax.devices()[0].platform}\\n")
EOF
for i in 0 1 2 3 4 5; do
    printf '\ndef test_f%s(stage_snapshot, stage_config):\n    log(stage_config)\n    stage_snapshot(lambda x: jnp.tanh(x) * %s, jax.ShapeDtypeStruct((8,), jnp.float32), name="f")\n' "$i" "$i" >> "$c/test_models.py"
done
touch "$c/crashed"
(cd "$c" && python -m pytest -q -p no:cacheprovider --stages-update 2>&1 | tail -1)
rm -f "$c/crashed" "$c/ran.log"
(cd "$c" && python -m pytest -p no:cacheprovider -n 2 -v 2>&1 | grep -E "^\[gw|INTERNALERROR|passed|failed|replacing")
echo "worker config JAX_PLATFORMS platform:"; sort "$c/ran.log" | uniq -c
