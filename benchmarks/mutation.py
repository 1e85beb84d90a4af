"""Mutation score of the pure core: how many mutants of its modules the fast unit tests kill.

Not part of CI (minutes of CPU). It runs the pinned mutmut over a scratch copy of the working
tree, so the tool never rewrites the project's own files:

    python benchmarks/mutation.py                   # all modules, 1 worker
    python benchmarks/mutation.py --max-children 2 --work /tmp/mutwork
    python benchmarks/mutation.py --survivors       # also list every surviving mutant
    python benchmarks/mutation.py --work /tmp/mutwork2 --recheck /tmp/mutwork   # only the survivors of an earlier run
    python benchmarks/mutation.py --modules check/ops.py check/drift.py   # only these modules

Steps: a scratch venv (``--venv``, default /tmp/mutvenv) gets ``mutmut==MUTMUT`` and sees this
interpreter's packages through a ``.pth`` file; the tree (tracked and untracked, not ignored
files) is copied to ``--work``; a ``[tool.mutmut]`` table naming MODULES and the selected
tests is appended to the copy's pyproject.toml; ``mutmut run`` runs there. Tests are the ones
in TEST_FILES that start no inner pytest session and stage nothing (fixtures in SLOW_FIXTURES
excluded). It prints generated / killed / survived per module, the total and the survival rate.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter
from pathlib import Path

MUTMUT = "3.8.1"
ROOT = Path(__file__).resolve().parent.parent
MODULES = (
    "pytest_stages/check/decide.py",
    "pytest_stages/check/compare.py",
    "pytest_stages/check/drift.py",
    "pytest_stages/check/ops.py",
    "pytest_stages/check/collectives.py",
    "pytest_stages/check/figures.py",
    "pytest_stages/check/figure_text.py",
    "pytest_stages/check/placement.py",
    "pytest_stages/check/changed_paths.py",
    "pytest_stages/check/budgets.py",
    "pytest_stages/check/kernel_changes.py",
    "pytest_stages/check/message.py",
    "pytest_stages/store/names.py",
    "pytest_stages/store/prune.py",
    "pytest_stages/store/storage.py",
    "pytest_stages/store/inventory.py",
    "pytest_stages/ir/textdiff.py",
    "pytest_stages/ir/dialect_names.py",
    "pytest_stages/ir/diff_render.py",
    "pytest_stages/ir/normalize.py",
    "pytest_stages/ir/literals.py",
    "pytest_stages/ir/state_rewrite.py",
    "pytest_stages/ir/hlo_state.py",
    "pytest_stages/ir/mlir_state.py",
    "pytest_stages/ir/jaxpr_state.py",
    "pytest_stages/core/units.py",
)
TEST_FILES = (
    "tests/test_budgets.py",
    "tests/test_collectives.py",
    "tests/test_compare.py",
    "tests/test_core_units.py",
    "tests/test_decide.py",
    "tests/test_drift_details.py",
    "tests/test_figure_text.py",
    "tests/test_figures.py",
    "tests/test_inventory.py",
    "tests/test_kernel_changes.py",
    "tests/test_literals.py",
    "tests/test_state_order_calls.py",
    "tests/test_hlo_state.py",
    "tests/test_state_order_preconditions.py",
    "tests/test_state_order_rewrite.py",
    "tests/test_message.py",
    "tests/test_names.py",
    "tests/test_normalize_json.py",
    "tests/test_ops.py",
    "tests/test_placement.py",
    "tests/test_runner.py",
    "tests/test_storage.py",
    "tests/test_store.py",
    "tests/test_textdiff.py",
    "tests/test_textdiff_drifts.py",
    "tests/test_textdiff_long.py",
    "tests/test_prune_rules.py",
    "tests/test_findings.py",
    "tests/test_normalize.py",
    "tests/test_properties.py",
    "tests/test_hlo.py",
    "tests/test_drift.py",
    "tests/test_upgrade.py",
)
# In a recheck's --work: the run whose survivors it re-ran.
RECHECK_OF = "recheck_of.txt"
# Fixtures that start inner pytest sessions or stage whole programs: seconds per mutant, not milliseconds.
SLOW_FIXTURES = frozenset({"pytester", "project", "drifted", "staged", "testdir"})
# mutmut's exit codes, as its mutmut.stats.status_by_exit_code reads them. A mutant no selected test
# reaches ("no tests") survives as surely as one the tests run and miss; a timeout is a kill.
STATUS = {1: "killed", 3: "killed", 0: "survived", 33: "survived", 5: "survived"}
STATUS.update(dict.fromkeys((24, 36, 152, 255, -24), "timeout"))

_COLLECT_PLUGIN = """
import json, os
SLOW = set(json.loads(os.environ["MUTATION_SLOW_FIXTURES"]))
def pytest_collection_modifyitems(items):
    fast = [item.nodeid for item in items if not SLOW & set(getattr(item, "fixturenames", ()))]
    with open(os.environ["MUTATION_SELECTED"], "w", encoding="utf-8") as stream:
        json.dump(fast, stream)
"""


def scratch_venv(venv: Path) -> Path:
    """A venv with the pinned mutmut that also sees this interpreter's packages (the project's)."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "project_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = subprocess.run(
        [str(python), "-m", "pip", "show", "mutmut"], capture_output=True, text=True, check=False
    ).stdout
    if f"Version: {MUTMUT}" not in installed:
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"mutmut=={MUTMUT}"], check=True)
    return venv / "bin" / "mutmut"


def copy_tree(work: Path) -> None:
    """The working tree's tracked and untracked (not ignored) files, copied to ``work`` afresh."""
    if work.exists():
        shutil.rmtree(work)
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def fast_tests(work: Path, env: dict[str, str]) -> list[str]:
    """Node ids of the tests in TEST_FILES that use none of SLOW_FIXTURES."""
    (work / "mutation_collect.py").write_text(_COLLECT_PLUGIN, encoding="utf-8")
    selected = work / "selected.json"
    env = {**env, "MUTATION_SLOW_FIXTURES": json.dumps(sorted(SLOW_FIXTURES)), "MUTATION_SELECTED": str(selected)}
    files = sorted({str(p.relative_to(work)) for pattern in TEST_FILES for p in work.glob(pattern)})
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "mutation_collect", *files],
        cwd=work,
        env={**env, "PYTHONPATH": str(work)},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (work / "mutation_collect.py").unlink()
    return json.loads(selected.read_text(encoding="utf-8"))


def configure(work: Path, tests: list[str], modules: tuple[str, ...]) -> None:
    """Append the ``[tool.mutmut]`` table to the copy's pyproject.toml."""
    table = {
        "source_paths": ["pytest_stages"],
        "only_mutate": list(modules),
        "also_copy": ["examples", "snapshots"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"],
        "pytest_add_cli_args_test_selection": tests,
        # JAX's thread pools do not survive a fork of a process that compiled: fork from a clean server.
        "process_isolation": "forkserver",
    }
    lines = [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    with (work / "pyproject.toml").open("a", encoding="utf-8") as stream:
        stream.write("\n[tool.mutmut]\n" + "\n".join(lines) + "\n")


def exit_codes(work: Path, module: str) -> dict[str, int | None]:
    """mutmut's exit code of each mutant of ``module`` in a run under ``work`` (None: not checked).

    A recheck's unchecked mutants keep their code in the run it rechecked (``RECHECK_OF`` names
    it), and so on down a chain of rechecks: added tests cannot revive a mutant they did not reach.
    """
    meta = json.loads((work / "mutants" / f"{module}.meta").read_text(encoding="utf-8"))
    codes: dict[str, int | None] = dict(meta["exit_code_by_key"])
    earlier = work / RECHECK_OF
    if earlier.exists() and None in codes.values():
        before = exit_codes(Path(earlier.read_text(encoding="utf-8").strip()), module)
        codes = {name: code if code is not None else before[name] for name, code in codes.items()}
    return codes


def tally(work: Path, modules: tuple[str, ...]) -> tuple[dict[str, Counter[str]], list[str]]:
    """Per module: generated, killed, timeout, survived, other; and the names of the survivors."""
    counts: dict[str, Counter[str]] = {}
    survivors = []
    for module in modules:
        codes = exit_codes(work, module)
        count = counts.setdefault(module, Counter())
        for name, code in codes.items():
            count["generated"] += 1
            status = STATUS.get(code, "other")
            count[status] += 1
            if status == "survived":
                survivors.append(name)
    return counts, survivors


def report(counts: dict[str, Counter[str]]) -> None:
    total: Counter[str] = Counter()
    columns = ("generated", "killed", "timeout", "survived", "other")
    print(f"{'module':24}" + "".join(f"{c:>10}" for c in columns) + f"{'survival':>10}")
    for module, count in [*counts.items(), ("total", total)]:
        if module != "total":
            total.update(count)
        rate = count["survived"] / count["generated"] if count["generated"] else 0.0
        name = module.removeprefix("pytest_stages/")
        print(f"{name:24}" + "".join(f"{count[c]:10}" for c in columns) + f"{rate:10.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/mutvenv"), help="scratch venv for mutmut")
    parser.add_argument("--work", type=Path, default=Path("/tmp/mutwork"), help="scratch copy of the tree")
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutant runs")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--report-only", action="store_true", help="tally an earlier run in --work")
    parser.add_argument(
        "--recheck",
        type=Path,
        help="an earlier run's --work (a full run, a recheck, an interrupted run): run only what it did not kill",
    )
    parser.add_argument(
        "--modules", nargs="+", metavar="PATH", help="only these of MODULES (paths under pytest_stages/)"
    )
    args = parser.parse_args()
    modules: tuple[str, ...] = MODULES
    if args.modules:
        modules = tuple(f"pytest_stages/{name.removeprefix('pytest_stages/')}" for name in args.modules)
        if unknown := sorted(set(modules) - set(MODULES)):
            parser.error(f"not in MODULES: {', '.join(unknown)}")
    work = args.work.resolve()
    if work == ROOT or ROOT in work.parents:
        parser.error("--work must lie outside the project: mutmut writes there")
    if not args.report_only:
        mutmut = scratch_venv(args.venv)
        copy_tree(work)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        tests = fast_tests(work, env)
        print(f"{len(tests)} tests selected", flush=True)
        configure(work, tests, modules)
        with (work / "mutmut.log").open("w", encoding="utf-8") as log:
            command = [str(mutmut), "run", "--max-children", str(args.max_children)]
            if args.recheck:
                (work / RECHECK_OF).write_text(f"{args.recheck.resolve()}\n", encoding="utf-8")
                command += [
                    n
                    for m in modules
                    for n, c in exit_codes(args.recheck, m).items()
                    if STATUS.get(c) not in ("killed", "timeout")  # survived, or not run: an interrupted run resumes
                ]
            subprocess.run(command, cwd=work, env=env, check=True, stdout=log, stderr=subprocess.STDOUT)
    counts, survivors = tally(work, modules)
    report(counts)
    if args.survivors:
        print("\n".join(survivors))


if __name__ == "__main__":
    main()
