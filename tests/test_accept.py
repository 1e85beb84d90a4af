"""The review loop between CI and the developer: pending sets, ``pytest-stages accept`` and ``review``.

Inner sessions over a small project (two test modules, a CPU config and a ``tpu`` config that a
CPU host lowers only, so its environment record differs) record their snapshots, then a change
is compared by two pytest-split shards on ``cpu1`` and a separate "accelerator runner" session
on ``tpu``, each writing its pending set. ``accept`` must turn the three sets into exactly the
tree one ``--stages-update`` writes; stale, foreign and conflicting sets, bad pending folders and
a kill at any point of an accept must leave the tree as it was.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Project

from pytest_stages.core.records import CallRecord, Finding, Kind
from pytest_stages.report import cli
from pytest_stages.report.markdown import COMMENT_LIMIT, markdown
from pytest_stages.report.render import RunReport
from pytest_stages.store.pending import read_set

ROOT = Path(__file__).resolve().parents[1]

PYPROJECT = """
[project]
name = "demo"

[tool.pytest_stages]
analyses = ["cost", "ops"]

[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1

[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

# STAGES_CHANGE picks the program: unset is the recorded one, "1" the change under review, "2" another change.
TEST_A = """
import os, jax, jax.numpy as jnp

def change():
    return os.environ.get("STAGES_CHANGE", "")

def test_one(stage_snapshot):
    f = {"": jnp.sin, "1": jnp.cos, "2": jnp.tanh}[change()]
    stage_snapshot(lambda x: f(x), jax.ShapeDtypeStruct((4,), jnp.float32), name="act")

def test_two(stage_snapshot):
    k = {"": 2.0, "1": 3.0, "2": 4.0}[change()]
    stage_snapshot(lambda x: x * k + 1, jax.ShapeDtypeStruct((4,), jnp.float32), name="affine")
"""

TEST_B = """
import os, jax, jax.numpy as jnp

def test_three(stage_snapshot):
    extra = os.environ.get("STAGES_CHANGE", "") == "1"
    stage_snapshot(lambda x: (jnp.exp(x) if extra else x).sum(), jax.ShapeDtypeStruct((8,), jnp.float32), name="red")

def test_four(stage_snapshot):
    stage_snapshot(lambda x: x.T @ x, jax.ShapeDtypeStruct((4, 4), jnp.float32), name="gram")
"""


def make_project(pytester: pytest.Pytester) -> Project:
    project = Project(pytester)
    project.write("pyproject.toml", PYPROJECT)
    project.write("tests/test_a.py", TEST_A)
    project.write("tests/test_b.py", TEST_B)
    project.run("--stages-update").assert_outcomes(passed=8)
    return project


def accept(project: Project, *args: str) -> tuple[int, str]:
    """``pytest-stages accept ARGS`` at the project root, in this process: (exit status, output)."""
    stream = io.StringIO()
    status = cli.main(["accept", "--rootdir", str(project.path), *args], stream=stream)
    return status, stream.getvalue()


def pending(project: Project, name: str, *args: str, change: str = "1") -> Path:
    """A compare run with STAGES_CHANGE=``change`` writing the pending set ``name``; its path."""
    os.environ["STAGES_CHANGE"] = change
    try:
        project.run(f"--stages-pending={name}", *args)
    finally:
        del os.environ["STAGES_CHANGE"]
    return project.path / name


def one_paragraph(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    return lines[0]


def test_shards_and_an_accelerator_runner_accept_into_what_one_update_writes(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    recorded = project.snapshots()
    reports = [project.path / f"shard-{n}.json" for n in ("1", "2", "tpu")]
    shard_1 = pending(
        project,
        "stages-pending-1",
        "--splits",
        "2",
        "--group",
        "1",
        "--stages-configs",
        "cpu1",
        f"--stages-report={reports[0]}",
    )
    shard_2 = pending(
        project,
        "stages-pending-2",
        "--splits",
        "2",
        "--group",
        "2",
        "--stages-configs",
        "cpu1",
        f"--stages-report={reports[1]}",
    )
    runner = pending(project, "stages-pending-tpu", "--stages-configs", "tpu", f"--stages-report={reports[2]}")
    assert project.snapshots() == recorded  # a compare run with --stages-pending never writes a snapshot
    # Each shard holds its own calls only; the runner's set records its own environment.
    calls = {name: {e.key for e in read_set(path).entries} for name, path in [("1", shard_1), ("2", shard_2)]}
    assert calls["1"] and calls["2"] and not calls["1"] & calls["2"]
    assert {e.manifest["environment"]["platform"] for e in read_set(runner).entries} == {"tpu"}
    assert {e.manifest["environment"]["staging"] for e in read_set(runner).entries} == {"lowered"}
    entry = read_set(shard_1).entries[0]
    assert entry.manifest["base"] and entry.manifest["plugin"] and entry.manifest["project"] == "demo"
    assert entry.manifest["record"]["findings"] and entry.manifest["record"]["pending"] == "stages-pending-1"

    # The merge of the shards' reports points at their pending sets, with the one command that accepts them.
    merged = project.path / "merged.md"
    status = cli.main(
        ["merge", "--rootdir", str(project.path), "--report", str(merged), *(str(r) for r in reports)],
        stream=io.StringIO(),
    )
    comment = merged.read_text()
    assert status == 1 and "### Pending changes" in comment
    assert (
        "pytest-stages accept stages-pending-1 stages-pending-2 stages-pending-tpu".replace(
            "stages-pending-", "stages-pending/stages-pending-"
        )
        in comment
    )

    status, output = accept(project, "--dry-run", str(shard_1), str(shard_2), str(runner))
    assert status == 0 and output.endswith("pytest-stages accept: dry run, nothing written\n")
    assert project.snapshots() == recorded
    status, output = accept(project, "--keep", str(shard_1), str(shard_2), str(runner))
    assert status == 0, output
    accepted = project.snapshots()
    listed = output.splitlines()[1:]
    assert sorted(line.strip() for line in listed) == sorted(
        f"snapshots/{name}" for name in accepted if accepted[name] != recorded.get(name)
    )

    shutil.rmtree(project.path / "snapshots")
    for name, data in recorded.items():
        (project.path / "snapshots" / name).parent.mkdir(parents=True, exist_ok=True)
        (project.path / "snapshots" / name).write_bytes(data)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        project.run("--stages-update").assert_outcomes(passed=8)
    finally:
        del os.environ["STAGES_CHANGE"]
    assert accepted == project.snapshots()  # byte for byte, every file and every manifest


def test_xdist_workers_write_the_set_one_process_writes(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    serial = pending(project, "serial", "--stages-configs", "cpu1")
    workers = pending(project, "workers", "--stages-configs", "cpu1", "-p", "xdist", "-n", "2")

    def contents(folder: Path) -> dict[str, object]:
        out: dict[str, object] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = json.loads(path.read_text()) if path.name.endswith(".pending.json") else path.read_bytes()
            if isinstance(data, dict):  # the compile times differ from run to run; the set's own name
                data["record"].pop("compile_seconds")
                data["record"].pop("pending")
            out[path.relative_to(folder).as_posix()] = data
        return out

    assert contents(serial) == contents(workers) and len(contents(serial)) > 6


def test_a_run_starts_its_pending_set_afresh(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        result = project.run("--stages-pending=p", "--stages-configs", "cpu1")
    finally:
        del os.environ["STAGES_CHANGE"]
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 3 call(s) left what --stages-update would write in the pending set(s) p: "
            "`pytest-stages review p` walks them, `pytest-stages accept p` applies them"
        ]
    )
    folder = project.path / "p"
    assert len(read_set(folder).entries) == 3
    assert {entry.manifest["commit"] for entry in read_set(folder).entries} == {None}, "no git checkout here"
    project.run("--stages-pending=p", "--stages-configs", "cpu1").assert_outcomes(passed=4)  # the change reverted
    assert not [path for path in folder.rglob("*") if path.is_file()]  # no older call left to accept by mistake
    (folder / "notes.txt").write_text("mine")
    result = project.run("--stages-pending=p")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (folder / "notes.txt").read_text() == "mine"
    assert "holds files that are not a pending set pytest-stages wrote" in "\n".join(result.errlines)


def test_a_pending_set_records_the_commit_its_run_compared_against(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    git = ["git", "-C", str(project.path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "record"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    folder = pending(project, "p", "--stages-configs", "cpu1")
    assert {entry.manifest["commit"] for entry in read_set(folder).entries} == {head}


def test_selection_by_node_id_keyword_and_config(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    both = pending(project, "p")
    status, output = accept(project, "--dry-run", str(both), "tests/test_a.py::test_one", "--configs", "cpu1")
    assert status == 0 and "1 call(s) from 1 pending set(s):" in output
    assert "tests/test_a.py::test_one[cpu1] 'act' on cpu1" in output
    status, output = accept(project, "--dry-run", str(both), "-k", "two or three")
    assert status == 0 and "4 call(s)" in output and "test_one" not in output


def test_a_stale_set_is_refused_and_nothing_written(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    stale = pending(project, "p")
    os.environ["STAGES_CHANGE"] = "2"  # someone else's change lands on the tree first
    try:
        project.run("--stages-update", "tests/test_a.py::test_one")
    finally:
        del os.environ["STAGES_CHANGE"]
    before = project.snapshots()
    status, output = accept(project, str(stale))
    assert status == 2 and project.snapshots() == before
    message = one_paragraph(output)
    assert "tests/test_a.py::test_one[" in message and "is stale: snapshots/tests/test_a/test_one/" in message
    assert "changed since the run that wrote the set compared against it" in message
    assert message.endswith(
        "Nothing was written. Rerun the compare with --stages-pending on the current tree "
        "(rebase and let CI run again), then accept the new set."
    )


def test_a_set_of_another_environment_is_refused_and_nothing_written(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    meta = project.path / "snapshots/tests/test_a/test_one/cpu1/_stages.json"
    data = json.loads(meta.read_text())
    data["machine"] = "aarch64" if data.get("machine") != "aarch64" else "x86_64"  # recorded on another host
    meta.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    foreign = pending(project, "p", "tests/test_a.py::test_one", "--stages-configs", "cpu1")
    before = project.snapshots()
    status, output = accept(project, str(foreign))
    assert status == 2 and project.snapshots() == before
    message = one_paragraph(output)
    assert "is recorded for another environment than config cpu1's own" in message
    assert f"holds snapshots recorded on cpu ({data['machine']})" in message
    assert "accept does not replace snapshots of another platform or device kind" in message
    # The same set, once pyproject.toml defines the config otherwise: refused as recorded for another config.
    meta.write_text(before["tests/test_a/test_one/cpu1/_stages.json"].decode())
    project.write("pyproject.toml", PYPROJECT.replace('name = "cpu1"\ndevices = 1', 'name = "cpu1"\ndevices = 2'))
    status, output = accept(project, str(foreign))
    assert status == 2 and "defined otherwise (devices differ" in one_paragraph(output)


def test_two_sets_that_disagree_about_a_file_are_refused(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    first = pending(project, "first", "tests/test_a.py::test_one", "--stages-configs", "cpu1")
    second = pending(project, "second", "tests/test_a.py::test_one", "--stages-configs", "cpu1", change="2")
    before = project.snapshots()
    status, output = accept(project, str(first), str(second))
    assert status == 2 and project.snapshots() == before
    message = one_paragraph(output)
    assert message.startswith(f"pytest-stages accept: {first} and {second} disagree about snapshots/tests/test_a/")
    assert "would write different contents to it. Nothing was written." in message
    # The same set twice (an artifact downloaded twice) agrees with itself.
    status, output = accept(project, "--dry-run", str(first), str(shutil.copytree(first, project.path / "again")))
    assert status == 0, output


KILLER = """
import os, signal, sys
count, limit = 0, int(sys.argv[1])
def killing(real):
    def call(*args, **kwargs):
        global count
        count += 1
        if count == limit:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return call
os.rename, os.replace = killing(os.rename), killing(os.replace)
from pytest_stages.report.cli import main
sys.exit(main(["accept", "--keep", *sys.argv[2:]]))
"""


def test_a_kill_at_any_point_of_an_accept_leaves_the_old_tree(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    sets = [str(pending(project, "p", "--stages-configs", "cpu1"))]
    recorded = project.snapshots()
    accept(project, "--keep", *sets)
    accepted = project.snapshots()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    outcomes = []
    for limit in range(1, 60):
        _restore(project, recorded)
        done = subprocess.run(
            [sys.executable, "-c", KILLER, str(limit), "--rootdir", str(project.path), *sets],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0:
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
        if (project.path / "snapshots/.stages-accept.json").exists():
            refused = project.run("-q")  # a run refuses to use the tree until the accept is recovered
            assert "an interrupted `pytest-stages accept` left" in "\n".join(refused.outlines + refused.errlines)
        midway = project.snapshots()
        status, output = accept(project, "--recover")
        assert status == 0, output
        after = project.snapshots()
        assert after in (recorded, accepted), f"kill at rename {limit}: {output}"
        left = [p for p in (project.path / "snapshots").rglob(".*") if ".pytest-stages" not in p.parts]  # the lock
        assert not left, f"kill at rename {limit} left files"
        outcomes.append((midway not in (recorded, accepted), after == recorded))
    else:
        pytest.fail("the accept never finished")
    # Kills during the swap itself (the tree half old, half new) were exercised and rolled back.
    assert (True, True) in outcomes
    assert len(outcomes) > 8


def _restore(project: Project, files: dict[str, bytes]) -> None:
    shutil.rmtree(project.path / "snapshots")
    for name, data in files.items():
        (project.path / "snapshots" / name).parent.mkdir(parents=True, exist_ok=True)
        (project.path / "snapshots" / name).write_bytes(data)


def test_bad_pending_folders_are_refused_with_nothing_written(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    good = pending(project, "p", "tests/test_a.py::test_one", "--stages-configs", "cpu1")
    before = project.snapshots()

    def refused(path: Path | str, *extra: str) -> str:
        status, output = accept(project, str(path), *extra)
        assert status == 2 and project.snapshots() == before, output
        return one_paragraph(output)

    assert "does not exist" in refused(project.path / "missing")
    (project.path / "empty").mkdir()
    assert "holds no call (no *.pending.json manifest)" in refused(project.path / "empty")
    (project.path / "link").symlink_to(good)
    assert "is a symlink" in refused(project.path / "link")
    os.mkfifo(project.path / "fifo")
    assert "is not a folder (a file, FIFO or device)" in refused(project.path / "fifo")
    edited = Path(shutil.copytree(good, project.path / "edited"))
    jaxpr = next(edited.rglob("*.jaxpr.txt"))
    jaxpr.write_text(jaxpr.read_text() + "# a hand edit\n")
    assert "its bytes are not those its manifest's digest says" in refused(edited)
    inside = Path(shutil.copytree(good, project.path / "inside"))
    os.mkfifo(next(inside.rglob("*.pending.json")).parent / "x.cost.json")
    assert "is a symlink, FIFO or device" in refused(inside)
    # A snapshot folder that holds a folder of someone else's: accept swaps whole folders, so it stops and
    # puts back what it had staged (no journal, no copy left beside).
    (project.path / "snapshots/tests/test_a/test_one/cpu1/mine").mkdir()
    assert "is a folder, FIFO or device inside a snapshot folder" in refused(good)
    assert sorted(p.name for p in (project.path / "snapshots").glob(".*")) == [".pytest-stages"]
    (project.path / "snapshots/tests/test_a/test_one/cpu1/mine").rmdir()
    # Another project: its name, or tests this checkout does not have.
    other = project.path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text(PYPROJECT.replace('"demo"', '"other"'))
    status, output = accept(project, str(good), "--rootdir", str(other))
    assert status == 2 and "is from another project: it was written by the project 'demo', this is 'other'" in output
    (other / "pyproject.toml").write_text(PYPROJECT)
    status, output = accept(project, str(good), "--rootdir", str(other))
    assert status == 2 and "its test module tests/test_a.py is not in" in output
    assert not (other / "snapshots").exists()


def test_review_through_a_terminal_accepts_rejects_and_skips(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one or two or three")
    recorded = project.snapshots()
    entries = read_set(folder).entries
    assert [e.key[0] for e in entries] == [
        "tests/test_a.py::test_one[cpu1]",
        "tests/test_a.py::test_two[cpu1]",
        "tests/test_b.py::test_three[cpu1]",
    ]
    status, output = in_a_terminal(project, ["a", "r", "s"], color=True)
    assert status == 0, output
    assert "(1/3) " in output and "tests/test_a.py::test_one[cpu1] 'act' on cpu1" in output
    assert "\x1b[" in output  # colour on a terminal
    assert "pytest-stages review: 1 accepted, 1 rejected, 1 skipped" in output
    after = project.snapshots()
    accepted, rejected, skipped = entries
    for name, data in accepted.texts.items():
        assert after[f"{accepted.folder}/{name}"] != recorded.get(f"{accepted.folder}/{name}")
        if name != "_stages.json":
            assert after[f"{accepted.folder}/{name}"] == data
    for entry in (rejected, skipped):
        assert all(after[k] == v for k, v in recorded.items() if k.startswith(entry.folder))
    left = read_set(folder).entries
    assert [e.key for e in left] == [skipped.key]  # accepted and rejected calls leave the pending set

    stream = io.StringIO()
    status = cli.main(["review", "--rootdir", str(project.path), str(folder)], stream=stream)
    assert status == 2 and "Run it in a terminal, pass --accept-all or --reject-all, or list" in stream.getvalue()
    assert "\x1b[" not in stream.getvalue()
    # The pending files of a local run (pending_dir): review without a folder takes them.
    project.write(
        "pyproject.toml", PYPROJECT.replace("[tool.pytest_stages]", '[tool.pytest_stages]\npending_dir = "p"')
    )
    stream = io.StringIO()
    status = cli.main(["review", "--rootdir", str(project.path), "--reject-all"], stream=stream)
    assert status == 0 and "0 accepted, 1 rejected, 0 skipped" in stream.getvalue()
    assert not list(folder.rglob("*"))
    assert project.snapshots() == after


def in_a_terminal(
    project: Project, answers: list[str | None], pager: str = "cat", color: bool = False
) -> tuple[int, str]:
    """``pytest-stages review p`` on a pseudo-terminal: each prompt answered in turn, None for Ctrl-C (SIGINT).

    Its exit status and everything it printed; ``color`` leaves NO_COLOR unset, else it is set.
    """
    main, child = os.openpty()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "PAGER": pager}
    env.pop("NO_COLOR", None)
    if not color:
        env["NO_COLOR"] = "1"
    # Ctrl-C at its default in the child, as in a terminal: a run started in the background (nohup, a CI job
    # without job control) ignores SIGINT, and a Python child inherits an ignored SIGINT and never sees it.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest_stages", "review", "p"],
            cwd=project.path,
            stdin=child,
            stdout=child,
            stderr=child,
            env=env,
            close_fds=True,
        )
    finally:
        signal.signal(signal.SIGINT, before)
    os.close(child)
    seen, left = b"", list(answers)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 1)
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if left and seen.count(b"quit (q)? ") > len(answers) - len(left):
            answer = left.pop(0)
            if answer is None:
                process.send_signal(signal.SIGINT)
            else:
                os.write(main, (answer + "\n").encode())
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:  # a hang: fail with what it printed, not a bare timeout
        process.kill()
        process.wait()
        raise AssertionError(f"review did not exit; it printed:\n{seen.decode(errors='replace')[-4000:]}") from None
    finally:
        os.close(main)
    return process.returncode, seen.decode(errors="replace")


def record(nodeid: str, name: str, pending_set: str, lines: int) -> CallRecord:
    hunk = [["-", i, f"  %{i} = add %a, %b", None, None, None] for i in range(lines)]
    return CallRecord(
        nodeid,
        "cpu1",
        name,
        f"tests/test_a/{name}/cpu1",
        status={"hlo": "changed"},
        deltas={"flops": [10.0, 12.0]},
        findings=[
            Finding(
                Kind.TEXT,
                "hlo",
                "HLO drifted: 1 op added",
                detail={"summary": ["+1 add"], "hunks": [hunk]},
            )
        ],
        pending=pending_set,
    )


def test_the_pull_request_comment_names_each_call_its_set_and_the_command_and_fits(monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    monkeypatch.setenv("GITHUB_REPOSITORY", "me/proj")
    small = markdown(RunReport([record("tests/test_a.py::test_x", "f", "stages-pending-1", 3)], False, {}))
    assert "### Pending changes" in small
    assert "gh run download 4242 -R me/proj -p stages-pending-1 -D stages-pending" in small
    assert "pytest-stages accept stages-pending/stages-pending-1" in small
    assert "<details><summary>" in small and "flops 10-&gt;12 (+20.0%)" in small
    many = [record(f"tests/test_a.py::test_{i}", f"f{i}", f"stages-pending-{i % 3}", 400) for i in range(300)]
    big = markdown(RunReport(many, False, {}))
    assert len(big) <= COMMENT_LIMIT
    assert "left out to fit GitHub's 65,536-character comment limit" in big
