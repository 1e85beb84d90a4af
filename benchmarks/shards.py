"""A compile-bound suite as one process and as 2 and 4 pytest-split shards run at once; a shared cache; the merge.

Usage: python benchmarks/shards.py [--functions 16] [--repeat 1] [--calls 1000]

1. The benchmark suite of ``suite.py`` (``--functions`` staged functions on 8 CPU devices,
   snapshots recorded once) runs in compare mode as one ``pytest`` process, then as 2 and as 4
   shard processes (``--splits N --group G``) started together, as a CI matrix would on N
   machines. Printed: the wall time of the batch (all shards done), its CPU seconds, and the
   speed-up over one process next to the most this machine's cores allow (min(N, cores)).
2. A shared compile cache: ``compilation_cache`` set to one folder for every shard; two
   2-shard runs in a row, the first cold (empty folder), the second warm. Printed: wall times
   and the cache hits each run's shards report.
3. The merge: ``--calls`` call records (copies of the real shards' records, spread over 4
   shard reports) merged with ``python -m pytest_stages merge``'s function, writing JSON,
   Markdown and HTML. Printed: seconds (median of ``--repeat``).
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from suite import add_setting, benchmark_environment, make_project, pytest_command, run_measured

from pytest_stages.report import cli

HITS = re.compile(r"(\d+) of (\d+) compile\(s\) were hits")  # "... cache (x): 5 of 6 compile(s) were hits"


def shards(root: Path, splits: int, *args: str) -> tuple[float, float, list[str]]:
    """``splits`` shard processes started together: (wall seconds until all are done, CPU seconds, outputs)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    processes = [
        subprocess.Popen(
            pytest_command(
                "--splits", str(splits), "--group", str(group), *args, f"--stages-report=shard-{group}.json"
            ),
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for group in range(1, splits + 1)
    ]
    outputs = [process.communicate()[0] for process in processes]
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), outputs


def hits(outputs: list[str]) -> str:
    found = [tuple(map(int, m.groups())) for out in outputs for m in HITS.finditer(out)]
    return f"{sum(h for h, _ in found)} of {sum(r for _, r in found)} compiles were cache hits"


def splitting(root: Path, repeat: int) -> None:
    cores = os.cpu_count() or 1
    start_up = [run_measured(pytest_command("--collect-only"), root) for _ in range(repeat)]
    print(
        f"start-up (--collect-only, what every shard pays before staging) wall "
        f"{statistics.median(w for w, _ in start_up):5.2f} s  CPU {statistics.median(c for _, c in start_up):5.2f} s"
    )
    one = [run_measured(pytest_command(), root) for _ in range(repeat)]
    serial = statistics.median(wall for wall, _ in one)
    print(f"1 process           wall {serial:7.2f} s  CPU {statistics.median(c for _, c in one):7.2f} s")
    for splits in (2, 4):
        runs = [shards(root, splits) for _ in range(repeat)]
        wall = statistics.median(w for w, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        print(
            f"{splits} shards at once    wall {wall:7.2f} s  CPU {cpu:7.2f} s  speed-up {serial / wall:4.2f}x "
            f"(at most {min(splits, cores)}x on {cores} cores; {serial / wall / min(splits, cores):4.0%} of that)"
        )


def shared_cache(root: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="stages-shared-cache-"))
    add_setting(root, f'compilation_cache = "{folder}"')
    cold, _, cold_out = shards(root, 2)
    warm, _, warm_out = shards(root, 2)
    print(f"shared cache, 2 shards: cold wall {cold:7.2f} s ({hits(cold_out)})")
    print(f"shared cache, 2 shards: warm wall {warm:7.2f} s ({hits(warm_out)}); warm/cold {warm / cold:4.2f}")
    shutil.rmtree(folder)


def merging(root: Path, calls: int, repeat: int) -> None:
    reports = [json.loads((root / f"shard-{group}.json").read_text()) for group in (1, 2)]
    records = [call for report in reports for call in report["calls"]]
    out = Path(tempfile.mkdtemp(prefix="stages-merge-"))
    paths = []
    for group in range(4):
        report = copy.deepcopy(reports[0])
        report["run"]["split"] = {"splits": 4, "group": group + 1}
        report["calls"] = []
        for k in range(group, calls, 4):
            call = dict(records[k % len(records)], nodeid=f"test_suite.py::test_copy[{k}]")
            report["calls"].append(call)
            report["run"]["collection"]["items"][call["nodeid"]] = call["folder"]
            report["run"]["finished"].append(call["nodeid"])
            report["run"]["outcomes"][call["nodeid"]] = "passed"
        paths.append(out / f"shard-{group + 1}.json")
        paths[-1].write_text(json.dumps(report))
    outputs = [str(out / f"merged{suffix}") for suffix in (".json", ".md", ".html")]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        args = ["merge", *map(str, paths), "--rootdir", str(root)]
        cli.main([*args, *(f"--report={path}" for path in outputs)], stream=io.StringIO())
        times.append(time.perf_counter() - start)
    merged = json.loads(Path(outputs[0]).read_text())
    print(
        f"merge of {len(merged['calls'])} calls from 4 shard reports (JSON, Markdown, HTML written): "
        f"{statistics.median(times):.3f} s (median of {repeat})"
    )
    shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--calls", type=int, default=1000)
    options = parser.parse_args()
    benchmark_environment()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-shards-")), options.functions)
    run_measured(pytest_command("--stages-update"), root)
    print(f"{os.cpu_count()} cores; {options.functions} staged functions; compare mode; no compile cache in part 1")
    splitting(root, options.repeat)
    merging(root, options.calls, max(options.repeat, 3))
    shared_cache(root)
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
