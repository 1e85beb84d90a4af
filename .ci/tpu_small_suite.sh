#!/usr/bin/env bash
# The performance figures of the TPU v5e host (docs/performance.md): the small suite against the same calls by
# hand, where a warm compare's extra time goes there, and the compile-only cache against the attached chip.
# Not run by CI (no accelerator there). Run from the repository root on the TPU v5e host, in the environment
# where `pytest examples` runs (pytest-stages from this tree on PYTHONPATH, with the tpu extra and
# pytest-xdist), with nothing else running; about 25 minutes. Everything is also kept under OUT=${OUT:-/tmp}.
# STEPS=13 runs steps 1 and 3 only (default: all three).
set -u; OUT=${OUT:-/tmp}; STEPS=${STEPS:-123}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this tree's pytest_stages, also from the scratch folders
unset PYTHONDONTWRITEBYTECODE  # as on a user's machine: bytecode cached (the benchmarks unset it too)
python -c "import jax, pytest_stages; print(jax.devices(), pytest_stages.__file__)"
git log --oneline -1
# 1. The small suite's ratios (goal: cold, warm and -n 2 each <= 1.10x here); last time (3 rounds, with
#    stage/deep_recursion.py) cold 0.940x, warm 0.974x, -n 2 1.037x; before it 1.108x, 1.162x and 1.132x.
[[ $STEPS == *1* ]] && python benchmarks/small_suite.py --repeat 5 2>&1 | tee "$OUT/small_suite.txt"
# 2. Where a warm compare's extra time goes against the hand-written tests with JAX's cache warm: the phases and
#    steps of each run, timed by a probe plugin without a profiler (cProfile hid the frame-stack chunk thrash).
if [[ $STEPS == *2* ]]; then
python benchmarks/warm_phases.py --repeat 5 2>&1 | tee "$OUT/warm_phases.txt"
d=$(mktemp -d)
python - "$d" <<'EOF' > /dev/null
import sys
from pathlib import Path

sys.path.insert(0, "benchmarks")
from small_suite import make_project

make_project(Path(sys.argv[1]) / "warm", 20, '"jaxcache"')
make_project(Path(sys.argv[1]) / "plain-warm", 20, "false", jax_cache=True)
EOF
# The modules a warm compare imports that the hand-written tests do not (python -X importtime, -s so that
# imports during the tests are printed too), with their own microseconds, largest first.
(cd "$d/warm" && python -X importtime -m pytest -q -s -p no:cacheprovider -p no:hypothesispytest -W ignore \
  test_staged.py 2> "$OUT/imports_warm.txt" > /dev/null)
(cd "$d/plain-warm" && python -X importtime -m pytest -q -s -p no:cacheprovider -p no:hypothesispytest -W ignore \
  test_plain.py -p no:stages 2> "$OUT/imports_plain_warm.txt" > /dev/null)
python - "$OUT" <<'EOF' 2>&1 | tee "$OUT/small_suite_imports.txt"
import re, sys
def modules(path):
    found = {}
    for line in open(path):
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
        if match:
            found[match.group(3)] = int(match.group(1))
    return found
warm, plain = modules(f"{sys.argv[1]}/imports_warm.txt"), modules(f"{sys.argv[1]}/imports_plain_warm.txt")
extra = {name: us for name, us in warm.items() if name not in plain}
own = sum(us for name, us in extra.items() if name.startswith("pytest_stages"))
print(f"modules imported by the warm compare only: {len(extra)}, {sum(extra.values()) / 1000:.1f} ms "
      f"({own / 1000:.1f} ms of it pytest_stages)")
for name, us in sorted(extra.items(), key=lambda item: -item[1])[:15]:
    print(f"  {us / 1000:7.1f} ms  {name}")
EOF
# File system calls of each (if strace is installed): a call costs tens of microseconds on this host.
if command -v strace > /dev/null; then
  for run in "warm test_staged.py" "plain-warm test_plain.py -p no:stages"; do
    set -- $run
    folder=$1; shift
    (cd "$d/$folder" && strace -f -c -e trace=%file,read,close -o "$OUT/strace_$folder.txt" python -m pytest -q \
      -p no:cacheprovider -p no:hypothesispytest -W ignore "$@" > /dev/null)
    echo "$folder: $(tail -1 "$OUT/strace_$folder.txt")"
  done
fi
rm -rf "$d"
fi
# 3. A warm compile-only call against the same call on the attached chip (goal: <= 1.2x): v5e1 (v5e:1x1,
#    the compile-only cache) against tpu (the chip, JAX's persistent cache), the example suite's 11 calls.
[[ $STEPS == *3* ]] && python benchmarks/compile_only.py --attached --repeat 5 2>&1 | tee "$OUT/compile_only_attached.txt"
