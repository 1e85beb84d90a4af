"""The field list's edits on an attached chip: does the estimated step time move the way the measured one does?

Usage: python benchmarks/step_time_edits.py --json PATH [--only EDIT ...] [--platform tpu]
       python benchmarks/step_time_edits.py --table PATH   (the table of a saved run)

Copies examples/field into a scratch folder where its one-device config, ``cpu1`` (the one the
edited calls run on), stages for the attached platform instead (``--platform``, ``tpu`` by
default: no topology, so the plugin compiles for the chip and ``--stages-measure`` runs it).
Then runs the edits' calls once as they are, and once per edit of
:data:`KINDS` (docs/field.md: the edits that change what the chip runs), each time with
``--stages-update --stages-measure --stages-report``: every call's estimate and measured step
time (median of 5 rounds of 20 queued calls) before and after the edit. An edit's direction is
right when the estimate moves the way the measured time does, and "flat" when the measured
change is within the spread of either side's rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from diff_churn import _replace
from field_edits import EDITS, FIELD, ROOT, Edit

# The field list's kinds of edit that change the program the chip runs.
KINDS = ("dtype", "activation", "jax.checkpoint", "shape", "loop count")


CONFIG = 'name = "cpu1"\ndevices = 1\n'


def _run(repo: Path, tests: tuple[str, ...], select: str, report: Path) -> str:
    """The selected calls on the one-device config, recorded and measured; pytest's output."""
    command = [sys.executable, "-m", "pytest", *tests, "-p", "no:cacheprovider", "-W", "ignore", "-q"]
    command += ["--stages-configs=cpu1", "--stages-update", "--stages-measure", f"--stages-report={report}"]
    command += ["-k", select] if select else []
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    if not any(point.name == "stages" for point in entry_points(group="pytest11")):  # a chip host, not installed
        env["PYTEST_PLUGINS"] = "pytest_stages.plugin"
    done = subprocess.run(command, check=False, cwd=repo, env=env, capture_output=True, text=True)
    return done.stdout[-2000:] + done.stderr[-2000:]


def _steps(report: Path) -> dict[str, dict[str, Any]]:
    """Each call's ``step`` entry of a JSON report, by ``nodeid name``."""
    if not report.exists():
        return {}
    calls = json.loads(report.read_text())["calls"]
    return {f"{call['nodeid']} {call['name']}": call.get("step", {}) for call in calls}


def _select(edit: Edit) -> str:
    """The edit's ``-k`` expression without its config (``--stages-configs`` picks the one measured)."""
    return re.sub(r"\s+and\s+cpu\d+", "", edit.select)


def measure(platform: str, chip: str | None, only: list[str] | None, out: Path) -> None:
    """Run the corpus unedited, then each chosen edit; save every call's step figures to ``out``."""
    edits = [e for e in EDITS if e.kind in KINDS and (not only or e.name in only)]
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "field"
        shutil.copytree(FIELD, repo, ignore=shutil.ignore_patterns("snapshots", "__pycache__"))
        settings = (repo / "pyproject.toml").read_text()
        if CONFIG not in settings:
            raise SystemExit(f"examples/field/pyproject.toml no longer holds the config this edits: {CONFIG!r}")
        named = f'chip = {{ name = "{chip}" }}\n' if chip else ""
        staged = f'name = "cpu1"\nplatform = "{platform}"\n{named}'
        (repo / "pyproject.toml").write_text(settings.replace(CONFIG, staged))
        saved: dict[str, Any] = {"platform": platform, "edits": {}}
        report = repo / "report.json"
        tests = tuple(dict.fromkeys(test for edit in edits for test in edit.tests))
        select = " or ".join(dict.fromkeys(f"({_select(edit)})" for edit in edits))
        saved["baseline_output"] = _run(repo, tests, select, report)
        saved["baseline"] = _steps(report)
        print(saved["baseline_output"][-600:], flush=True)
        for edit in edits:
            original = (repo / edit.path).read_text()
            _replace(repo, edit.path, edit.old, edit.new)
            report.unlink(missing_ok=True)
            output = _run(repo, edit.tests, _select(edit), report)
            (repo / edit.path).write_text(original)
            saved["edits"][edit.name] = {"kind": edit.kind, "steps": _steps(report), "output": output}
            print(f"{edit.name}: {len(saved['edits'][edit.name]['steps'])} call(s)", flush=True)
            out.write_text(json.dumps(saved, indent=1))
        out.write_text(json.dumps(saved, indent=1))


def _direction(before: dict[str, Any], after: dict[str, Any]) -> tuple[float, float, str]:
    """The measured and estimated change, and whether the estimate moved the measured way."""
    measured = after["measured_seconds"] / before["measured_seconds"] - 1
    estimated = after["estimated_seconds"] / before["estimated_seconds"] - 1
    noise = max((s["measured_max"] - s["measured_min"]) / s["measured_seconds"] for s in (before, after))
    if abs(measured) <= noise:
        return measured, estimated, f"flat (within the rounds' spread, {noise:.0%})"
    if estimated == 0:
        return measured, estimated, "estimate unmoved"
    return measured, estimated, "right" if (measured > 0) == (estimated > 0) else "WRONG"


def table(saved: dict[str, Any]) -> str:
    """Per edit and call: measured and estimated before -> after, and the direction's verdict."""
    lines = [
        "| edit | kind | call | measured before -> after | estimated before -> after | measured | estimated "
        "| direction |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, edit in saved["edits"].items():
        for call, after in edit["steps"].items():
            before = saved["baseline"].get(call, {})
            keys = ("measured_seconds", "estimated_seconds")
            if not all(k in before and k in after for k in keys):
                lines.append(f"| {name} | {edit['kind']} | {call} | not measured: {after.get('unknown', '')} |||||")
                continue
            measured, estimated, verdict = _direction(before, after)
            ms = [f"{s['measured_seconds'] * 1e3:.3f}" for s in (before, after)]
            es = [f"{s['estimated_seconds'] * 1e3:.3f}" for s in (before, after)]
            short = call.split("::", 1)[-1]
            lines.append(
                f"| {name} | {edit['kind']} | {short} | {ms[0]} -> {ms[1]} ms | {es[0]} -> {es[1]} ms "
                f"| {measured:+.1%} | {estimated:+.1%} | {verdict} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="measure, and save the figures here")
    parser.add_argument("--table", type=Path, help="print the table of a saved run")
    parser.add_argument("--only", nargs="*", help="only these edits (docs/field.md names)")
    parser.add_argument("--platform", default="tpu", help="its platform (cpu, to try this script on a CPU)")
    parser.add_argument("--chip", help="the chip its estimate is for (default: the device's; with cpu: v5e, say)")
    args = parser.parse_args()
    if args.json:
        measure(args.platform, args.chip, args.only, args.json)
    saved = args.table or args.json
    if saved:
        print(table(json.loads(saved.read_text())))


if __name__ == "__main__":
    main()
