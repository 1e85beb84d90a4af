#!/usr/bin/env bash
# Issue #48's figures on the TPU v5e host (docs/performance.md): the small suite against the same calls by
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
# 1. The small suite's ratios (goal: cold, warm and -n 2 each <= 1.10x here); last time cold 1.112x,
#    warm 1.180x, -n 2 1.136x.
[[ $STEPS == *1* ]] && python benchmarks/small_suite.py --repeat 5 2>&1 | tee "$OUT/small_suite.txt"
# 2. Where a warm compare's time goes against the hand-written tests with JAX's cache warm: each run three
#    times under cProfile, the medians of a few phases side by side, and the plugin's own Python time.
if [[ $STEPS == *2* ]]; then
d=$(mktemp -d)
python - "$d" "$OUT" <<'EOF' 2>&1 | tee "$OUT/small_suite_profile.txt"
import pstats, statistics, subprocess, sys
from pathlib import Path

sys.path.insert(0, "benchmarks")
from small_suite import WARM_RUNS, commands, make_project
from suite import run_measured

scratch, out = Path(sys.argv[1]), Path(sys.argv[2])
planned = commands(
    make_project(scratch / "cold", 20, "false"),
    make_project(scratch / "warm", 20, '"jaxcache"'),
    make_project(scratch / "plain-warm", 20, "false", jax_cache=True),
)
for name in WARM_RUNS:
    run_measured(*planned[name])  # fills the caches
PHASES = {  # (file suffix, function name) -> label
    ("_pytest/config/__init__.py", "_main"): "session (after start-up)",
    ("_pytest/main.py", "pytest_collection"): "collection",
    ("_pytest/main.py", "pytest_runtestloop"): "running the tests",
    ("pytest_stages/stage/staging.py", "stage"): "  staging (trace, lower, compile, build)",
    ("pytest_stages/stage/staging.py", "_build"): "    building the artifacts",
    ("pytest_stages/run/runner.py", "_judge"): "  reading and comparing snapshots",
    ("jax/_src/pjit.py", "jit_trace"): "  JAX tracing",
    ("jax/_src/stages.py", "lower"): "  JAX lowering",
    ("jax/_src/stages.py", "compile"): "  JAX compile (cache read)",
}
seconds = {name: {label: [] for label in [*PHASES.values(), "plugin's own Python"]} for name in WARM_RUNS}
for round_ in range(3):
    for name in WARM_RUNS:
        command, folder = planned[name]
        profile = out / f"{name.replace(' ', '_')}{round_}.prof"
        subprocess.run([command[0], "-m", "cProfile", "-o", str(profile), *command[1:]], cwd=folder, check=True,
                       stdout=subprocess.DEVNULL)
        stats = pstats.Stats(str(profile)).stats
        found = dict.fromkeys(seconds[name], 0.0)
        for (path, _, function), (_, _, own, cumulative, _) in stats.items():
            for (suffix, wanted), label in PHASES.items():
                if path.endswith(suffix) and function == wanted:
                    found[label] += cumulative
            if "/pytest_stages/" in path:
                found["plugin's own Python"] += own
        for label, value in found.items():
            seconds[name][label].append(value)
print("median of 3 runs under cProfile (its overhead inflates Python-heavy work), seconds")
print(f"  {'phase':<44}" + "".join(f"{name:>14}" for name in WARM_RUNS))
for label in seconds[WARM_RUNS[0]]:
    print(f"  {label:<44}" + "".join(f"{statistics.median(seconds[n][label]):14.3f}" for n in WARM_RUNS))
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
