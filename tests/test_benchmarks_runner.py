"""benchmarks/run.py: every script in benchmarks/ is a named suite or a shared module, and ``--list`` shows each."""

import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"


def test_list_names_every_suite_with_what_it_measures() -> None:
    listed = subprocess.run([sys.executable, str(RUNNER), "--list"], capture_output=True, text=True, check=False)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split(None, 2) for line in listed.stdout.splitlines()]
    names = {row[0] for row in rows}
    assert {"overhead", "small-suite", "step-time", "field-edits"} <= names
    assert all(len(row) == 3 and row[1] in {"cpu", "tpu", "chip"} for row in rows), listed.stdout
