"""How long ``pytest-stages history`` takes over a long history: 1,000 commits of 200 calls.

Usage: python benchmarks/history_speed.py [--commits 1000] [--calls 200] [--changed 20] [--repeat 3]

Builds a git repository with ``git fast-import`` (no checkout): a project whose first commit records
``--calls`` calls (each a cost, memory and ops file, as pytest-stages writes them) and whose every later
commit changes ``--changed`` of the calls' cost and memory files (``--changed`` = ``--calls``: every call
in every commit). Then runs the command as users do, a whole fresh process
(``python -m pytest_stages history --json``), ``--repeat`` times, and prints the median wall seconds with
the commits, files and moves it read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYPROJECT = '[tool.pytest_stages]\n\n[[tool.pytest_stages.configs]]\nname = "cpu1"\ndevices = 1\n'


def cost(call: int, commit: int) -> str:
    flops = 1000.0 * (call + 1) * (1 + (commit % 7)) + commit  # a blob of its own in every commit
    figures = {"bytes accessed": flops * 2, "bytes accessed0{}": flops, "flops": flops, "utilization0{}": 3.0}
    return json.dumps({"compiled": figures}, indent=2, sort_keys=True) + "\n"


def memory(call: int, commit: int) -> str:
    figures = {key: 0 for key in ("alias_size_in_bytes", "generated_code_size_in_bytes", "host_temp_size_in_bytes")}
    figures |= {"argument_size_in_bytes": 4096 * (call + 1), "output_size_in_bytes": 512, "peak_memory_in_bytes": 9000}
    figures["temp_size_in_bytes"] = 1024 * (1 + commit % 5) + commit
    return json.dumps(figures, indent=2, sort_keys=True) + "\n"


def ops(call: int) -> str:
    collectives = [{"bytes": 4096, "op": "all-gather", "shape": "f32[32,32]"}] * (call % 3)
    return json.dumps({"collectives": collectives, "opcodes": {"dot": 2, "add": call % 5}}, indent=2) + "\n"


def stream(commits: int, calls: int, changed: int) -> bytes:
    """git fast-import's input: the whole history, blobs inline."""
    out = []

    def blob(path: str, text: str) -> None:
        data = text.encode()
        out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for n in range(commits):
        subject = f"commit {n}".encode()
        out.append(
            f"commit refs/heads/main\ncommitter a <a@example.com> {1_700_000_000 + n * 60} +0000\n"
            f"data {len(subject)}\n".encode()
            + subject
            + b"\n"
        )
        if n == 0:
            out.append(f"M 100644 inline pyproject.toml\ndata {len(PYPROJECT)}\n{PYPROJECT}\n".encode())
        for call in range(calls) if n == 0 else [(n * changed + i) % calls for i in range(changed)]:
            folder = f"snapshots/tests/test_m{call % 10}/test_f{call}/cpu1"
            blob(f"{folder}/f.cost.json", cost(call, n))
            blob(f"{folder}/f.memory.json", memory(call, n))
            if n == 0:
                blob(f"{folder}/f.ops.json", ops(call))
        out.append(b"\n")
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
        started = time.perf_counter()
        subprocess.run(
            ["git", "fast-import", "--quiet"],
            cwd=repo,
            input=stream(args.commits, args.calls, args.changed),
            check=True,
        )
        subprocess.run(["git", "reset", "-q", "--hard"], cwd=repo, check=True)
        built = time.perf_counter() - started
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        command = [sys.executable, "-m", "pytest_stages", "history", "--json"]
        seconds, cpu, data = [], [], {}
        for _ in range(args.repeat):
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=True)
            seconds.append(time.perf_counter() - started)
            now = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command and the git processes it waited for
            cpu.append(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime)
            data = json.loads(done.stdout)
        files = args.calls * 3 + (args.commits - 1) * args.changed * 2
        print(
            f"history of {len(data['commits'])} commits, {args.calls} calls ({files} figure files changed, "
            f"{args.changed} calls per commit after the first; repository built in {built:.1f} s): "
            f"{len(data['moves'])} moves, {len(data['series'])} series"
        )
        print(
            f"pytest-stages history --json, whole process: median {statistics.median(seconds):.2f} s "
            f"(runs: {', '.join(f'{s:.2f}' for s in seconds)}); reading inside it: {data['seconds']:.2f} s; "
            f"CPU seconds (user + system, git included): median {statistics.median(cpu):.2f}; "
            f"load average before: {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
