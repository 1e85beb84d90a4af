"""The benchmarks' one entry point: each named suite runs its script, with the arguments given after the name.

Usage: python benchmarks/run.py --list
       python benchmarks/run.py SUITE [ARGUMENT ...]     (e.g. ``run.py small-suite --repeat 5``)
       python benchmarks/run.py SUITE --help             (that suite's own options)

``--list`` prints every suite with where it runs and what it measures (the first line of its
script's docstring, so the two cannot drift apart). Each suite's last figures and their date are in
benchmarks/README.md, section "Suites". A script in this folder that is neither a suite nor one of
the shared modules below makes ``--list`` fail, so a new benchmark is registered here or not at all.
"""

import argparse
import ast
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Where each suite runs: "cpu" (any machine with the test extras), "tpu" (a host with one attached
# TPU v5e chip, .ci/tpu_small_suite.sh), "chip" (measure on an attached accelerator, report anywhere).
SUITES = {
    "overhead": ("overhead.py", "cpu"),
    "small-suite": ("small_suite.py", "cpu"),
    "warm-phases": ("warm_phases.py", "cpu"),
    "import-cost": ("import_cost.py", "cpu"),
    "compile-only": ("compile_only.py", "cpu"),
    "compile-noise": ("compile_time_noise.py", "cpu"),
    "topology-time": ("topology_time.py", "cpu"),
    "scale": ("scale.py", "cpu"),
    "memory": ("memory.py", "cpu"),
    "shards": ("shards.py", "cpu"),
    "merge": ("merge.py", "cpu"),
    "history": ("history_speed.py", "cpu"),
    "large-modules": ("large_modules.py", "cpu"),
    "diff-size": ("diff_size.py", "cpu"),
    "diff-churn": ("diff_churn.py", "cpu"),
    "field-edits": ("field_edits.py", "cpu"),
    "hostile-store": ("hostile_store.py", "cpu"),
    "limits": ("limits.py", "cpu"),
    "code-choices": ("code_choices.py", "cpu"),
    "upgrade": ("upgrade.py", "cpu"),
    "mutation": ("mutation.py", "cpu"),
    "step-time": ("step_time.py", "chip"),
    "step-time-edits": ("step_time_edits.py", "chip"),
    "tpu-kernels": ("tpu_kernels.py", "tpu"),
    "tpu-one-chip": ("tpu_one_chip.py", "tpu"),
}
# Modules the suites import or load, not run on their own.
SHARED = {"run.py", "suite.py", "phase_probe.py", "step_corpus.py"}


def summary(script: str) -> str:
    """The first line of ``script``'s module docstring: what the suite measures."""
    docstring = ast.get_docstring(ast.parse((HERE / script).read_text(encoding="utf-8"))) or ""
    return docstring.splitlines()[0] if docstring else ""


def unregistered() -> list[str]:
    """Scripts in this folder that are neither a suite nor a shared module."""
    registered = {script for script, _ in SUITES.values()} | SHARED
    return sorted(path.name for path in HERE.glob("*.py") if path.name not in registered)


def listing() -> str:
    width = max(map(len, SUITES))
    return "\n".join(f"{name:<{width}}  {where:<4}  {summary(script)}" for name, (script, where) in SUITES.items())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="%(prog)s --list | SUITE [ARGUMENT ...]"
    )
    parser.add_argument("--list", action="store_true", help="print each suite, where it runs and what it measures")
    parser.add_argument("suite", nargs="?", choices=sorted(SUITES), metavar="SUITE")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="passed to the suite's script")
    options = parser.parse_args()
    if options.list:
        missing = unregistered()
        if missing:
            sys.exit(
                f"benchmarks/{', benchmarks/'.join(missing)}: not a suite of benchmarks/run.py. Add each to its "
                "SUITES (a name, the script, where it runs) or, for a module the suites import, to SHARED."
            )
        print(listing())
        return 0
    if options.suite is None:
        parser.error("name a suite (--list shows them)")
    script = HERE / SUITES[options.suite][0]
    return subprocess.run([sys.executable, str(script), *options.arguments], cwd=HERE.parent, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
