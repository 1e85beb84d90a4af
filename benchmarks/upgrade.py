"""A real JAX upgrade: record the example suite with jax/jaxlib 0.10.0, check it with the pinned version.

Builds a venv with jax==0.10.0 jaxlib==0.10.0 (or reuses ``--venv``), copies this repository's
pyproject.toml and examples/ into a temporary folder (the committed snapshots stay untouched),
records the snapshots there with the old versions, then checks them with this interpreter's
(pinned) versions, under ``on_version_mismatch = "semantic"`` and ``"fail"``. Prints the upgrade
section of the terminal summary and both outcomes. Needs network or a wheel cache for 0.10.0.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite import add_setting

REPO = Path(__file__).resolve().parent.parent
OLD = "0.10.0"
SECTION = "pytest-stages: What the upgrade did"


def build_venv(venv: Path) -> Path:
    """A venv with jax/jaxlib ``OLD`` and this project (the other pins from constraints.txt)."""
    python = venv / "bin" / "python"
    if python.exists():
        return python
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pins = [line for line in (REPO / "constraints.txt").read_text().splitlines() if not line.startswith("jax")]
    constraints = venv / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-c", str(constraints), f"jax=={OLD}", f"jaxlib=={OLD}", str(REPO)],
        check=True,
    )
    return python


def pytest(python: Path, project: Path, *args: str) -> tuple[str, float]:
    """Run pytest on the copied example suite; its output and wall time."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(python), "-m", "pytest", "examples", "-p", "no:cacheprovider", "-W", "ignore::UserWarning", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,  # failing tests are an outcome to report, not an error
    )
    return done.stdout + done.stderr, time.perf_counter() - start


def outcome(output: str) -> str:
    lines = [line.strip("= ") for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    return lines[-1] if lines else "(no outcome line)"


def section(output: str) -> list[str]:
    lines = output.splitlines()
    if SECTION not in lines:
        return []
    start = lines.index(SECTION)
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[start:end]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, help=f"venv with jax {OLD} to build or reuse")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="stages-upgrade-"))
    try:
        old_python = build_venv(options.venv or work / "venv")
        project = work / "project"
        project.mkdir()
        shutil.copy(REPO / "pyproject.toml", project / "pyproject.toml")
        shutil.copytree(REPO / "examples", project / "examples", ignore=shutil.ignore_patterns("__pycache__"))
        recorded, seconds = pytest(old_python, project, "--stages-update", "-q")
        meta = json.loads(next((project / "snapshots").rglob("_stages.json")).read_text())
        print(f"recorded with jax {meta['jax']}, jaxlib {meta['jaxlib']}: {outcome(recorded)} ({seconds:.1f} s)")
        checked, seconds = pytest(Path(sys.executable), project, "--stages-report=upgrade.json")
        print(
            f'checked with the pinned versions, on_version_mismatch = "semantic": {outcome(checked)} ({seconds:.1f} s)'
        )
        print("\n".join(section(checked)) or "(no upgrade section)")
        add_setting(project, 'on_version_mismatch = "fail"')
        strict, seconds = pytest(Path(sys.executable), project)
        print(f'checked with the pinned versions, on_version_mismatch = "fail": {outcome(strict)} ({seconds:.1f} s)')
        calls = json.loads((project / "upgrade.json").read_text())["calls"]
        print("per call (semantic run): drift cause, drifted artifacts, the findings that failed the test")
        for call in calls:
            drifted = ", ".join(a for a, state in sorted(call["status"].items()) if state in ("changed", "improved"))
            failed = [
                f"{f['artifact']}: {f['message']}" for f in call["findings"] if f["failing"] and f["kind"] != "text"
            ]
            print(f"  {call['nodeid']} {call['name']}: {call['drift_cause']} [{drifted}]")
            print("".join(f"      fails on {line}\n" for line in failed), end="")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
