"""The merge of a large set of shard reports: seconds and peak memory, the old JSON writer beside the new.

Usage: python benchmarks/merge.py [--megabytes 95] [--functions 4] [--repeat 1]

A generated project (``suite.py``, ``--functions`` staged functions) runs once to record its
snapshots and once more writing a JSON report; its call records are copied (renamed
``test_copy[k]``, a folder each) into 4 shard reports of ``--megabytes`` MB together, as a large split suite's
shards would be. Each merge (``pytest-stages merge SHARDS --report=merged.json``) runs in its
own process, so its peak RSS (``ru_maxrss``) is its own:

- ``indented``: the merged report written as before (``json.dumps(..., indent=2)`` of the whole
  report, which Python's pure-Python encoder writes, as one string);
- ``streamed``: as ``pytest-stages merge`` writes it now (one call a line, each encoded by the
  C encoder and written as it is made).

Printed: seconds and peak RSS of each (median of ``--repeat``), their ratios, and whether the two
merged reports parse to the same data.
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite import benchmark_environment, make_project, pytest_command, run_measured

from pytest_stages.report import cli
from pytest_stages.report.render import report_json
from pytest_stages.store.storage import write_atomically


def indented_write_report(path: Path, report: object) -> None:
    """The JSON writer before streaming (reporting.write_report's ``.json`` branch, as it was)."""
    data = json.loads("".join(report_json(report)))  # type: ignore[arg-type]
    write_atomically(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def child(writer: str, root: str, out: str, paths: list[str]) -> None:
    """One merge in this process; prints ``{"seconds": .., "peak_mb": ..}``."""
    if writer == "indented":
        cli.write_report = indented_write_report  # the merge as it wrote before, all else the same
    start = time.perf_counter()
    cli.main(["merge", *paths, "--rootdir", root, f"--report={out}"], stream=io.StringIO())
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb}))


def shard_reports(root: Path, out: Path, megabytes: float) -> list[Path]:
    """4 shard reports of ``megabytes`` MB together, of copies of the real report's call records."""
    report = json.loads((root / "report.json").read_text())
    records = report["calls"]
    per_call = sum(len(json.dumps(call)) for call in records) / len(records)
    calls = int(megabytes * 1e6 / (per_call + 150))  # 150: a call's item, outcome and finished entries
    paths = []
    for group in range(4):
        shard = json.loads(json.dumps(report))
        shard["run"]["split"] = {"splits": 4, "group": group + 1}
        shard["calls"] = []
        run = shard["run"]
        for k in range(group, calls, 4):
            call = dict(records[k % len(records)], nodeid=f"test_suite.py::test_copy[{k}]")
            call["folder"] = f"test_suite/test_copy_{k}/{call['folder'].rsplit('/', 1)[-1]}"  # one folder per item
            shard["calls"].append(call)
            run["collection"]["items"][call["nodeid"]] = call["folder"]
            run["finished"].append(call["nodeid"])
            run["outcomes"][call["nodeid"]] = "passed"
        paths.append(out / f"shard-{group + 1}.json")
        paths[-1].write_text(json.dumps(shard))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=95)
    parser.add_argument("--functions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        writer, root, out, *paths = options.child
        child(writer, root, out, paths)
        return
    benchmark_environment()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-merge-project-")), options.functions)
    run_measured(pytest_command("--stages-update"), root)
    run_measured(pytest_command("--stages-report=report.json"), root)
    out = Path(tempfile.mkdtemp(prefix="stages-merge-"))
    paths = shard_reports(root, out, options.megabytes)
    size = sum(path.stat().st_size for path in paths) / 1e6
    calls = sum(len(json.loads(path.read_text())["calls"]) for path in paths)
    print(f"{calls} calls in 4 shard reports, {size:.1f} MB; merged to JSON in a process of its own")
    figures: dict[str, list[dict[str, float]]] = {"indented": [], "streamed": []}
    for _ in range(options.repeat):
        for writer, runs in figures.items():  # side by side: each repeat runs both, one after the other
            command = [sys.executable, __file__, "--child", writer, str(root), str(out / f"{writer}.json")]
            done = subprocess.run([*command, *map(str, paths)], check=True, capture_output=True, text=True)
            runs.append(json.loads(done.stdout.splitlines()[-1]))
    medians = {
        writer: {key: statistics.median(f[key] for f in runs) for key in ("seconds", "peak_mb")}
        for writer, runs in figures.items()
    }
    for writer, median in medians.items():
        written = (out / f"{writer}.json").stat().st_size / 1e6
        print(
            f"{writer:9} {median['seconds']:7.2f} s  peak RSS {median['peak_mb']:7.0f} MB  "
            f"merged report {written:6.1f} MB  (median of {options.repeat})"
        )
    old, new = medians["indented"], medians["streamed"]
    print(
        f"streamed/indented: time {new['seconds'] / old['seconds']:.2f}, peak RSS {new['peak_mb'] / old['peak_mb']:.2f}"
    )
    same = json.loads((out / "indented.json").read_text()) == json.loads((out / "streamed.json").read_text())
    print(f"the two merged reports parse to the same data: {same}")
    shutil.rmtree(out)
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
