"""CI: the docs' CI recipes work in a user's project, as written.

Builds a scratch project from the docs' own snippets (read from the markdown, never copied
here): the README's example test, the budgets page's marker example and its budgets table, with
this checkout's wheel under ``wheels/``, where the docs' workflows install it from
(``pip install --find-links wheels pytest-stages``; jax pinned by constraints.txt through
PIP_CONSTRAINT, so the commands stay as the docs print them). Then runs, each in a fresh venv:

1. the README example's commands (install, with the checkout's path ``/path/to/pytest-stages``
   read as the wheel; record; compare);
2. the budgets workflow's ``run:`` commands (docs/budgets.md), its install then a record of the
   snapshots (the README's install has no ``tpu`` extra, so its run skipped the topology) then its gate;
3. the sharded recipe's shard job once per matrix group, then its merge job in another venv
   (docs/sharded-ci.md), which must pass and write the reports and the step summary;
4. the review workflow (docs/review.md): its CPU job once per matrix group, its attached job (the
   attached config lowered only: no chip here), then its merge job's commands over the reports the
   jobs left (as the artifacts' download puts them), which must write the comment and the pull
   request's number. The comment workflow's one step posts with ``gh`` to GitHub, which a scratch
   project has not: its number check runs, the post does not.

The scratch project's configs are named unlike any of this repository's (``PROJECT_CONFIGS``: a
CPU config, a TPU topology that needs the ``tpu`` extra, a TPU platform that needs the chip), so a
workflow that names a config of this repository, or installs less than its configs need, fails
here (every gate runs with ``--stages-strict``).

Usage: python .ci/docs_recipes.py DIST_FOLDER   (the folder holding the built wheel)
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The scratch project's configs: none named as this repository's (cpu1, cpu8, tpu, v5e, h100).
PROJECT_CONFIGS = """
[[tool.pytest_stages.configs]]
name = "laptop"
devices = 1

[[tool.pytest_stages.configs]]
name = "pod-slice"
platform = "tpu"
topology = "v5e:2x2"

[[tool.pytest_stages.configs]]
name = "on-chip"
platform = "tpu"
"""


def section(page: str, heading: str) -> str:
    """The text of ``page`` under the heading ``heading`` up to the next heading of its level or above."""
    text = (ROOT / page).read_text(encoding="utf-8")
    found = re.search(rf"^(#+) {re.escape(heading)}$", text, re.M)
    if found is None:
        raise SystemExit(f"docs_recipes: no heading {heading!r} in {page}")
    body = text[found.end() :]
    end = re.search(rf"^#{{1,{len(found.group(1))}}} ", body, re.M)
    return body[: end.start()] if end else body


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``text``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S)


def run_steps(workflow: str) -> dict[str, list[str]]:
    """Each job's ``run:`` commands in a GitHub Actions workflow: a one-line ``run:``, each line of a
    ``run: |`` block, or a ``run: >`` block folded into one line."""
    jobs: dict[str, list[str]] = {}
    job = ""
    lines = workflow.splitlines()
    for index, line in enumerate(lines):
        named = re.match(r"^ {2}([\w-]+):\s*$", line)
        if named:
            job = named.group(1)
            continue
        step = re.match(r"^(\s*(?:- )?)run: (.*)$", line)
        if step is None:
            continue
        command = step.group(2).strip()
        if command not in ("|", ">"):
            jobs.setdefault(job, []).append(command)
            continue
        key = len(step.group(1))  # the column of ``run``: the block's lines are indented deeper
        block = []
        for body in lines[index + 1 :]:
            if body.strip() and len(body) - len(body.lstrip()) <= key:
                break
            if body.strip():
                block.append(body.strip())
        jobs.setdefault(job, []).extend(block if command == "|" else [" ".join(block)])
    return jobs


def matrix_groups(workflow: str) -> list[str]:
    found = re.search(r"group: \[([^\]]*)\]", workflow)
    if found is None:
        raise SystemExit("docs_recipes: the sharded recipe has no matrix of groups")
    return [group.strip() for group in found.group(1).split(",")]


def venv(folder: Path) -> dict[str, str]:
    """A fresh venv; the environment its commands run in (jax pinned by constraints.txt)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("STAGES_", "PYTEST_", "JAX_")) and key != "PYTHONPATH"
    }
    env.update(
        PATH=f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(folder),
        PIP_CONSTRAINT=str(ROOT / "constraints.txt"),
        PIP_QUIET="1",
    )
    return env


def sh(command: str, project: Path, env: dict[str, str], allowed: tuple[int, ...] = (0,)) -> None:
    print(f"docs_recipes: $ {command}", flush=True)
    status = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], check=False, cwd=project, env=env).returncode
    if status not in allowed:
        raise SystemExit(f"docs_recipes: `{command}` exited {status}")


def installed_version(env: dict[str, str], project: Path, wheel: Path) -> None:
    """The venv's pytest-stages is this checkout's wheel (not another release from an index)."""
    expected = wheel.name.split("-")[1]
    found = subprocess.run(
        ["python", "-c", "import pytest_stages; print(pytest_stages.__version__)"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if found != expected:
        raise SystemExit(f"docs_recipes: pytest-stages {found} was installed, not this checkout's {expected}")


def main() -> None:
    dist = Path(sys.argv[1]).resolve()
    wheel = next(dist.glob("pytest_stages-*.whl"))
    example = section("README.md", "Example")
    budgets = section("docs/budgets.md", "Budgets")
    gate = blocks(section("docs/budgets.md", "A CI gate on budgets (GitHub Actions)"), "yaml")[0]
    workflow = blocks(section("docs/sharded-ci.md", "A GitHub Actions recipe"), "yaml")[0]
    review, comment = blocks(section("docs/review.md", "A GitHub Actions workflow"), "yaml")
    scratch = Path(tempfile.mkdtemp(prefix="stages-recipes-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # its venvs take gigabytes
    project = scratch / "project"
    (project / "tests" / "models").mkdir(parents=True)
    (project / "wheels").mkdir()
    shutil.copy(wheel, project / "wheels")
    (project / "pyproject.toml").write_text(blocks(budgets, "toml")[0] + PROJECT_CONFIGS, encoding="utf-8")
    (project / "tests" / "test_example.py").write_text(blocks(example, "python")[0], encoding="utf-8")
    # The budgets page shows the marker on a test stub: it needs its import to be a module.
    stub = "import pytest\n\n\n" + blocks(budgets, "python")[0]
    (project / "tests" / "models" / "test_step.py").write_text(stub, encoding="utf-8")
    commands = [
        line.replace("/path/to/pytest-stages", str(wheel))
        for block in blocks(example, "bash")
        for line in block.splitlines()
        if line.strip()
    ]

    print("== the README example, then the budgets gate (docs/budgets.md)", flush=True)
    env = venv(scratch / "user")
    for command in commands:
        sh(command, project, env)
    installed_version(env, project, wheel)
    install, *gate_commands = run_steps(gate)["budgets"]
    sh(install, project, env)
    # The README's install has no extra, so its run skipped the TPU topology: a project records its snapshots
    # where its configs' extras are installed, as the gate's install has them.
    sh("pytest --stages-update", project, env)
    for command in gate_commands:
        sh(command, project, env)
    if not (project / "stages.md").is_file():
        raise SystemExit("docs_recipes: the budgets gate wrote no stages.md")

    print("== the sharded recipe (docs/sharded-ci.md): each shard, then the merge", flush=True)
    jobs = run_steps(workflow)
    shard = venv(scratch / "shard")
    for group in matrix_groups(workflow):
        for command in jobs["shard"]:
            sh(command.replace("${{ matrix.group }}", group), project, shard)
    installed_version(shard, project, wheel)
    merge = venv(scratch / "merge")
    merge["GITHUB_STEP_SUMMARY"] = str(scratch / "summary.md")
    for command in jobs["merge"]:
        sh(command, project, merge)
    missing = [name for name in ("stages.html", "stages.json") if not (project / name).is_file()]
    if missing or not (scratch / "summary.md").read_text(encoding="utf-8").strip():
        raise SystemExit(f"docs_recipes: the merge wrote no {missing or 'step summary'}")
    review_workflow(project, scratch, wheel, review, comment)
    print(
        "docs_recipes: the README example, the budgets gate, the sharded recipe and the review workflow ran as written"
    )


def review_workflow(project: Path, scratch: Path, wheel: Path, workflow: str, comment: str) -> None:
    """docs/review.md's workflow: each CPU shard, the TPU job, then the merge and the comment's number check."""
    print("== the review workflow (docs/review.md): the CPU shards, the TPU job, the merge", flush=True)
    jobs = run_steps(workflow)
    for report in project.glob("shard-*.json"):  # the sharded recipe's: this workflow's merge reads its own
        report.unlink()
    cpu = venv(scratch / "review-cpu")
    for group in matrix_groups(workflow):
        for command in jobs["cpu"]:
            sh(command.replace("${{ matrix.group }}", group), project, cpu)
    installed_version(cpu, project, wheel)
    attached = venv(scratch / "review-attached")
    for command in jobs["attached"]:
        sh(command, project, attached)
    (project / "reports").mkdir()  # where the merge job's download puts every job's report
    for report in [*project.glob("shard-*.json"), project / "attached.json"]:
        report.rename(project / "reports" / report.name)
    merge = venv(scratch / "review-merge")
    merge["NUMBER"] = "1"  # the pull request's number, as the workflow passes it
    for command in jobs["merge"]:
        sh(command, project, merge, allowed=(0, 1))  # the merge is the gate: a drift fails it
    if not (project / "comment" / "stages.md").is_file() or (project / "comment" / "number").read_text() != "1\n":
        raise SystemExit("docs_recipes: the review workflow's merge left no comment and number")
    check = next(line for line in run_steps(comment)["comment"] if line.startswith("[["))
    sh(f"number=$(cat comment/number); {check}", project, merge)
    sh(f"number='1; echo injected'; {check}", project, merge, allowed=(1,))


if __name__ == "__main__":
    main()
