"""Pull-request churn of accepted one-line edits on the field corpus (examples/field: penzai, diffrax).

Usage: python benchmarks/diff_churn_field.py [EDIT-NAME-SUBSTRING...]

Copies examples/field to a temporary git repository, records its snapshots (they are not
committed in this repository: docs/field.md) and commits them. Then, for each edit of the
user's code (a changed constant, a removed donation, a dtype cast, remat per block, a reshard,
a hidden-size change, a solver tolerance): runs the affected calls once without update and
keeps the failure headline, accepts the edit with ``--stages-update``, and per changed
snapshot file counts the lines ``git diff --numstat`` adds plus deletes, against the ``+``/``-``
rows the ``pytest-stages diff`` driver prints for the same two files (the semantic diff; a
changed line is one of each). Issue #47 asks for git lines <= 3x the semantic rows on every
edit, and <= 100 git lines for a one-constant change. Runs on whatever code this tree holds;
takes about six minutes on two cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from diff_churn import Edit, _git, _replace

from pytest_stages.report.diff_driver import diff_lines

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "examples" / "field"
TRAIN = "test_train_step and cpu1"
EDITS = (
    Edit("changed constant (RMS eps)", TRAIN, "lm.py", "RMS_EPS = 1e-6\n", "RMS_EPS = 1e-5\n"),
    Edit("removed donation", TRAIN, "lm.py", ", donate_argnums=(0, 1))\n\n\ndef sharded", ")\n\n\ndef sharded"),
    Edit("dtype cast (bf16 logits)", TRAIN, "lm.py", "LOGITS_DTYPE = jnp.float32\n", "LOGITS_DTYPE = jnp.bfloat16\n"),
    Edit("remat per block", TRAIN, "lm.py", "REMAT_BLOCKS = False\n", "REMAT_BLOCKS = True\n"),
    Edit(
        "reshard the logits",
        "test_sharded_train_step and cpu8",
        "lm.py",
        'with_sharding_constraint(logits, P("data"))',
        'with_sharding_constraint(logits, P("data", None, "model"))',
    ),
    Edit("hidden size 256 -> 320", "test_forward", "lm.py", "HIDDEN = 256\n", "HIDDEN = 320\n"),
    Edit("changed constant (ODE rtol)", "test_ode_solve", "ode.py", "RTOL = 1e-5\n", "RTOL = 1e-6\n"),
)


def _pytest(repo: Path, select: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    """The corpus's calls (``select``: a ``-k`` expression), with this tree's pytest-stages."""
    command = [sys.executable, "-m", "pytest", "test_corpus.py", "-q", "-p", "no:cacheprovider", *args]
    command += ["-k", select] if select else []
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, check=False, cwd=repo, env=env, capture_output=True, text=True)


def _update(repo: Path, select: str | None) -> None:
    done = _pytest(repo, select, "--stages-update")
    if done.returncode:
        raise SystemExit(f"the update of {select or 'the corpus'} failed:\n{done.stdout[-3000:]}")


def _headlines(stdout: str) -> list[str]:
    """The headline lines of each failure message (indented two spaces below its title)."""
    lines, out, inside = stdout.splitlines(), [], False
    for line in lines:
        if line.startswith("pytest-stages: '"):
            inside = True
            continue
        if inside and line.startswith("  ") and not line.startswith("- "):
            out.append(line.strip())
        else:
            inside = False
    return out


def _semantic_rows(repo: Path, path: str) -> tuple[int, bool]:
    """The ``+``/``-`` rows the diff driver prints for the committed and the updated file, and
    whether it stopped at its window (then the rows are a lower bound: the change is not shown)."""
    old = _git(repo, "show", f"HEAD:{path}") if _git(repo, "ls-files", path).strip() else ""
    new = (repo / path).read_text(encoding="utf-8") if (repo / path).exists() else ""
    lines = diff_lines(path, (path, path), old, new)
    rows = sum(1 for line in lines if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))
    return rows, any("beyond the diffed window" in line for line in lines)


def _git_lines(repo: Path) -> dict[str, int]:
    """Per changed file under snapshots/: added plus deleted lines (``git diff --numstat``, new files included)."""
    _git(repo, "add", "-A", "snapshots")
    out = {}
    for line in _git(repo, "diff", "--cached", "--numstat", "snapshots").splitlines():
        added, deleted, path = line.split("\t")
        out[path] = int(added) + int(deleted)
    return out


def measure(repo: Path, edit: Edit) -> tuple[list[tuple[str, int, tuple[int, bool]]], list[str], float]:
    """(file, git lines, (semantic rows, cut at the window)) per changed snapshot file, the headlines, seconds."""
    start = time.perf_counter()
    _replace(repo, edit.path, edit.old, edit.new)
    headlines = _headlines(_pytest(repo, edit.select).stdout)
    _update(repo, edit.select)
    found = [(path, lines, _semantic_rows(repo, path)) for path, lines in sorted(_git_lines(repo).items())]
    _git(repo, "reset", "-q", "--hard", "start")
    return found, headlines, time.perf_counter() - start


def main() -> None:
    chosen = [e for e in EDITS if not sys.argv[1:] or any(word in e.name for word in sys.argv[1:])]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "field"
        shutil.copytree(FIELD, repo, ignore=shutil.ignore_patterns("snapshots", "__pycache__", ".pytest_cache"))
        started = time.perf_counter()
        _update(repo, None)
        print(f"recorded the corpus in {time.perf_counter() - started:.0f} s")
        _git(repo, "init", "-q")
        _git(repo, "config", "user.name", "bench")
        _git(repo, "config", "user.email", "bench@example.com")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "start")
        _git(repo, "tag", "start")
        rows = []
        for edit in chosen:
            found, headlines, seconds = measure(repo, edit)
            print(f"\n== {edit.name} ({edit.path}: {edit.old.strip()!r} -> {edit.new.strip()!r}), {seconds:.0f} s")
            for headline in headlines:
                print(f"   headline: {headline}")
            print(f"   {'file (under snapshots/test_corpus/)':<60} {'git lines':>9} {'semantic':>8} ratio")
            for path, lines, (semantic, cut) in found:
                short = path.removeprefix("snapshots/test_corpus/")
                ratio = f"{lines / semantic:.1f}" if semantic else "-"
                print(f"   {short:<60} {lines:>9} {semantic:>7}{'*' if cut else ' '} {ratio:>5}")
            git_total, semantic_total = sum(f[1] for f in found), sum(f[2][0] for f in found)
            worst = max((lines / n for _, lines, (n, _) in found if n), default=0.0)
            cut = any(f[2][1] for f in found)
            rows.append((edit.name, git_total, semantic_total, cut, worst))
        print(f"\n{'edit':<30} {'git lines':>9} {'semantic rows':>13} {'ratio':>6} {'worst file':>10}")
        for name, git_total, semantic_total, cut, worst in rows:
            ratio = f"{git_total / semantic_total:.1f}" if semantic_total else "-"
            print(f"{name:<30} {git_total:>9} {semantic_total:>12}{'*' if cut else ' '} {ratio:>6} {worst:>10.1f}")
        if any(cut for _, _, _, cut, _ in rows):
            print("* the diff driver said it left part of the change out: its rows are a lower bound")
        print("goals (#47): every ratio <= 3; a one-constant change <= 100 git lines")


if __name__ == "__main__":
    main()
