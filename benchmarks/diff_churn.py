"""Pull-request churn of accepted one-op edits: lines of ``git diff`` after ``--stages-update``
against the ``+``/``-`` rows of the renumbering-proof diff the failure message shows.

Usage: python benchmarks/diff_churn.py

Copies the project to a temporary git repository and, for each planted edit of the example
suite (an op added, an op removed, a shape changed, a collective moved into a loop): runs the
affected test once without update (``--stages-report`` gives the renumbering-proof diff of each
stage text, the rows ``-vv`` prints), accepts the edit with ``--stages-update`` and counts, per
snapshot file, the lines ``git diff --numstat`` adds plus deletes. A file's ratio is its git
lines over its diff rows; the goal (LIMIT) is at most 3. Takes about a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".jaxpr.txt": "jaxpr", ".stablehlo.mlir": "stablehlo", ".compiled.hlo.txt": "compiled"}
LIMIT = 3.0


@dataclass(frozen=True)
class Edit:
    """A planted edit of ``path``: ``old`` becomes ``new``.

    ``backwards``: the committed code is the edited state, so ``new`` is recorded first and
    the edit is the way back to ``old`` (a collective moved into a loop, from before it).
    """

    name: str
    select: str
    path: str
    old: str
    new: str
    backwards: bool = False


ATTENTION = '    x = x + attention(q, k, v).reshape(batch, seq, width) @ p["wo"]\n'
GATHER_IN_LOOP = "        w = jax.sharding.reshard(w, jax.sharding.PartitionSpec())\n"
GATHER_BEFORE_LOOP = "    ws = jax.sharding.reshard(ws, jax.sharding.PartitionSpec(None, None, None))\n"
EDITS = (
    Edit(
        "add an op (tanh)",
        "transformer_block",
        "examples/models.py",
        ATTENTION,
        ATTENTION.replace("x + attention", "x + jnp.tanh(attention").replace('["wo"]\n', '["wo"])\n'),
    ),
    Edit(
        "remove an op (relu)",
        "mlp_train_step or bf16_inference",
        "examples/models.py",
        "        x = jax.nn.relu(x @ w + b)\n",
        "        x = x @ w + b\n",
    ),
    Edit("change a shape", "rnn_scan", "examples/test_models.py", "spec(10, 8, 32)", "spec(12, 8, 32)"),
    Edit(
        "move a collective into a loop",
        "scan_layers_sharded",
        "examples/models.py",
        GATHER_IN_LOOP + "        return jnp.tanh(h @ w), None\n\n    return",
        "        return jnp.tanh(h @ w), None\n\n" + GATHER_BEFORE_LOOP + "    return",
        backwards=True,
    ),
)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def _pytest(repo: Path, select: str, *args: str) -> None:
    """The selected example tests on cpu1 and cpu8; an update (``--stages-update`` in ``args``) must pass."""
    command = [sys.executable, "-m", "pytest", "examples/test_models.py", "-k", select, "-q", "-p", "no:cacheprovider"]
    command += ["--stages-configs", "cpu1,cpu8", *args]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(command, check=False, cwd=repo, env=env, capture_output=True, text=True)
    if "--stages-update" in args and done.returncode:
        raise SystemExit(f"the update of {select} failed:\n{done.stdout[-3000:]}")


def _replace(repo: Path, path: str, old: str, new: str) -> None:
    file = repo / path
    text = file.read_text()
    if old not in text:
        raise SystemExit(f"{path} no longer holds the line this benchmark edits: {old.strip()!r}")
    file.write_text(text.replace(old, new, 1))


def _proof_rows(report: Path) -> dict[str, int]:
    """Per snapshot file: the ``+``/``-`` rows of its renumbering-proof diff (a changed line is one of each)."""
    rows = {}
    for call in json.loads(report.read_text())["calls"]:
        for finding in call["findings"]:
            hunks = (finding.get("detail") or {}).get("hunks")
            suffix = next((s for s, a in SUFFIXES.items() if a == finding["artifact"]), None)
            if hunks is None or suffix is None:
                continue
            tags = [row[0] for hunk in hunks for row in hunk]
            path = f"snapshots/{call['folder']}/{call['name']}{suffix}"
            rows[path] = tags.count("+") + tags.count("-") + 2 * tags.count("~")
    return rows


def _git_lines(repo: Path) -> dict[str, int]:
    """Per changed file under snapshots/: the lines ``git diff --numstat`` counts, added plus deleted."""
    out = {}
    for line in _git(repo, "diff", "--numstat", "snapshots").splitlines():
        added, deleted, path = line.split("\t")
        out[path] = int(added) + int(deleted)
    return out


def measure(repo: Path, edit: Edit) -> list[tuple[str, int, int | None]]:
    """(file, git diff lines, renumbering-proof rows) of each snapshot file the accepted edit changed."""
    old, new = (edit.new, edit.old) if edit.backwards else (edit.old, edit.new)
    if edit.backwards:
        _replace(repo, edit.path, new, old)
        _pytest(repo, edit.select, "--stages-update")
        _git(repo, "commit", "-qam", "the state before the edit")
    _replace(repo, edit.path, old, new)
    report = repo / "churn-report.json"
    _pytest(repo, edit.select, f"--stages-report={report}")
    rows = _proof_rows(report)
    _pytest(repo, edit.select, "--stages-update")
    found = [(path, lines, rows.get(path)) for path, lines in sorted(_git_lines(repo).items())]
    _git(repo, "reset", "-q", "--hard", "start")
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "project"
        shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "site"))
        _git(repo, "init", "-q")
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "start")
        _git(repo, "tag", "start")
        _git(repo, "config", "user.name", "bench")
        _git(repo, "config", "user.email", "bench@example.com")
        worst = 0.0
        head = "file (under snapshots/examples/test_models/)"
        print(f"{'edit':<30} {head:<55} {'git diff':>8} {'diff rows':>9} ratio")
        for edit in EDITS:
            total = 0
            for path, lines, rows in measure(repo, edit):
                total += lines
                short = path.removeprefix("snapshots/examples/test_models/")
                ratio = f"{lines / rows:.1f}" if rows else "-"
                worst = max(worst, lines / rows) if rows else worst
                print(f"{edit.name:<30} {short:<55} {lines:>8} {rows if rows is not None else '-':>9} {ratio:>5}")
            print(f"{edit.name:<30} {'all files, JSON included':<55} {total:>8}")
        print(f"worst ratio of a stage file: {worst:.1f} (the goal is at most {LIMIT:.0f})")


if __name__ == "__main__":
    main()
