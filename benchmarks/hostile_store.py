"""An adversarial pass over the snapshot store: odd trees, odd pending sets, odd settings, full disks.

One small project is recorded once and two pending sets are written; each case copies it, spoils one
thing, runs one command (pytest, or ``pytest-stages accept|review``) in a fresh process with a timeout,
and judges what it saw:

- **loss**: a file of the project that existed before is gone or changed, where the command may not
  touch it (a snapshot may change only by an update or an accept that exits 0; a pending set only by an
  accept or review that exits 0);
- **traceback**: ``Traceback (most recent call last)`` or ``INTERNALERROR`` in the output;
- **hang**: no exit within the timeout;
- **form**: a ``pytest-stages accept|review`` refusal (exit 2) that is not one ``pytest-stages ...`` line.

Run as root on Linux for the full set (immutable flags, a tmpfs for a full disk); as another user the
cases that need them are left out. ``python benchmarks/hostile_store.py [--only SUBSTRING] [--list]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 240
IS_ROOT = os.geteuid() == 0 and shutil.which("chattr") is not None

PYPROJECT = """
[project]
name = "hostile"

[tool.pytest_stages]
analyses = ["cost", "ops"]
{extra}

[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

TESTS = """
import os, jax, jax.numpy as jnp

def test_one(stage_snapshot):
    f = jnp.cos if os.environ.get("CHANGE") else jnp.sin
    stage_snapshot(lambda x: f(x), jax.ShapeDtypeStruct((4,), jnp.float32), name="act")

def test_two(stage_snapshot):
    k = 3.0 if os.environ.get("CHANGE") else 2.0
    stage_snapshot(lambda x: x * k + 1, jax.ShapeDtypeStruct((4,), jnp.float32), name="affine")
"""

FOLDER = "snapshots/tests/test_a/test_one/cpu1"


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None, prefix: list[str] | None = None):
    """(exit status or "hang", output) of one command in a fresh process."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    try:
        done = subprocess.run(
            [*(prefix or []), sys.executable, *args],
            cwd=cwd,
            env=environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return "hang", str(exc.stdout or "")
    return done.returncode, done.stdout + done.stderr


def pytest_args(*extra: str) -> list[str]:
    return ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::UserWarning", *extra]


def digests(root: Path) -> dict[str, str]:
    """Every plain file under ``root`` (pytest-stages' own folder and the journal's copies left out), by digest."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if ".pytest-stages" in path.parts or path.is_symlink() or not path.is_file():
            continue
        if "__pycache__" in path.parts or relative.startswith(".git/"):
            continue
        try:
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest() if path.stat().st_size < 1 << 26 else "big"
        except OSError:
            found[relative] = "unreadable"
    return found


def make_base(where: Path) -> Path:
    base = where / "base"
    (base / "tests").mkdir(parents=True)
    (base / "pyproject.toml").write_text(PYPROJECT.format(extra=""))
    (base / "tests" / "test_a.py").write_text(TESTS)
    status, output = run(pytest_args("--stages-update"), base)
    assert status == 0, output
    for name, env in (("p1", {"CHANGE": "1"}), ("p2", {"CHANGE": "1"})):
        status, output = run(pytest_args(f"--stages-pending={name}"), base, env)
        assert status == 1, output
    subprocess.run(["git", "init", "-q"], cwd=base, check=True)
    return base


@dataclass
class Case:
    name: str
    spoil: Callable[[Path], None]
    command: list[str]
    env: dict[str, str] | None = None
    needs_root: bool = False


@dataclass
class Verdict:
    case: str
    status: object
    seconds: float
    problems: list[str]


def judge(case: Case, project: Path, before: dict[str, str], status: object, output: str) -> list[str]:
    problems = []
    if status == "hang":
        return ["hang"]
    if "Traceback (most recent call last)" in output or "INTERNALERROR" in output:
        problems.append("traceback")
    after = digests(project)
    tool = case.command[:2] == ["-m", "pytest_stages"]
    accepting = tool and ("accept" in case.command or "--accept-all" in case.command or "--reject-all" in case.command)
    updating = "--stages-update" in case.command
    for path, digest in before.items():
        if path.startswith("snapshots/") and status == 0 and (updating or accepting):
            if path not in after:
                problems.append(f"loss: {path} deleted")
            continue
        if path.startswith(("p1/", "p2/")) and status == 0 and accepting:
            continue
        if path.startswith(("p1/", "p2/", "snapshots/", "tests/", "pyproject")) and after.get(path) != digest:
            problems.append(f"loss: {path} {'deleted' if path not in after else 'changed'}")
    if tool and status == 2:
        lines = [line for line in output.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith("pytest-stages "):
            problems.append(f"form: {output[:300]!r}")
    if "[Errno " in output:  # a bare OSError, not a sentence that names the thing and the fix
        problems.append("form: bare errno")
    if status not in (0, 1, 2, 3, 4):
        problems.append(f"exit {status}")
    return problems


# --- the spoilers ---------------------------------------------------------------------------------


def nothing(_: Path) -> None:
    pass


def chattr(path: Path, flag: str = "+i") -> None:
    subprocess.run(["chattr", flag, str(path)], check=True)


def unlock_all(project: Path) -> None:
    """Clear every immutable flag a case set, so that the copy can be removed."""
    if IS_ROOT:
        subprocess.run(["chattr", "-R", "-i", str(project)], capture_output=True, check=False)


def first(project: Path, pattern: str, set_name: str = "p1") -> Path:
    return sorted((project / set_name).rglob(pattern))[0]


def each(action: Callable[[Path], None], paths: list[Path]) -> None:
    for path in paths:
        action(path)


def emptied(project: Path) -> None:
    shutil.rmtree(project / "p1")
    (project / "p1").mkdir()


def fifo_snapshot(project: Path) -> None:
    (project / FOLDER / "act.cost.json").unlink()
    os.mkfifo(project / FOLDER / "act.cost.json")


def pending_spoilers() -> dict[str, Callable[[Path], None]]:
    def manifest(p: Path) -> Path:
        return first(p, "*.pending.json")

    def edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
        def spoil(p: Path) -> None:
            path = manifest(p)
            data = json.loads(path.read_text())
            change(data)
            path.write_text(json.dumps(data))

        return spoil

    def set_file(p: Path) -> None:
        shutil.rmtree(p / "p1")
        (p / "p1").write_text("not a set")

    def set_link(p: Path) -> None:
        (p / "p1").rename(p / "p1-real")
        (p / "p1").symlink_to("p1-real")

    def file_to(kind: str) -> Callable[[Path], None]:
        def spoil(p: Path) -> None:
            path = first(p, "*.jaxpr.txt")
            path.unlink()
            {"link": lambda: path.symlink_to("/etc/passwd"), "fifo": lambda: os.mkfifo(path), "dir": path.mkdir}[kind]()

        return spoil

    return {
        "manifest-deleted": lambda p: manifest(p).unlink(),
        "file-truncated": lambda p: first(p, "*.jaxpr.txt").write_text(""),
        "file-appended": lambda p: first(p, "*.jaxpr.txt").open("a").write("x\n"),
        "file-not-utf8": lambda p: first(p, "*.jaxpr.txt").write_bytes(b"\xff\xfe\x00"),
        "file-sparse-70MiB": lambda p: os.truncate(first(p, "*.jaxpr.txt"), 70 << 20),
        "file-is-link": file_to("link"),
        "file-is-fifo": file_to("fifo"),
        "file-is-folder": file_to("dir"),
        "manifest-not-json": lambda p: manifest(p).write_text("{"),
        "manifest-nan": lambda p: manifest(p).write_text('{"schema": NaN}'),
        "manifest-deep": lambda p: manifest(p).write_text("[" * 100000),
        "manifest-folder-traversal": edit_manifest(lambda d: d.update(folder="../../../etc")),
        "manifest-name-traversal": edit_manifest(lambda d: d.update(name="../x")),
        "manifest-other-project": edit_manifest(lambda d: d.update(project="other")),
        "manifest-other-snapshot-dir": edit_manifest(lambda d: d.update(snapshot_dir="elsewhere")),
        "manifest-bad-digest": edit_manifest(lambda d: d["files"].update(dict.fromkeys(d["files"], "0" * 64))),
        "stray-file": lambda p: (first(p, "*.jaxpr.txt").parent / "stray.txt").write_text("x"),
        "stray-gitignore": lambda p: (p / "p1" / ".gitignore").write_text("*\n"),
        "set-emptied": emptied,
        "set-is-a-file": set_file,
        "set-is-a-link": set_link,
        "set-missing": lambda p: shutil.rmtree(p / "p1"),
        "set-read-only": lambda p: each(chattr, [d for d in (p / "p1").rglob("*") if d.is_dir()]),
    }


def tree_spoilers() -> dict[str, tuple[Callable[[Path], None], bool]]:
    """Spoilers of the snapshot tree, each with whether it needs root (immutable flags)."""

    def own(kind: str) -> Callable[[Path], None]:
        def spoil(p: Path) -> None:
            place = p / "snapshots" / ".pytest-stages"
            shutil.rmtree(place, ignore_errors=True)
            if kind == "file":
                place.write_text("mine")
            elif kind == "link":
                place.symlink_to(p / "tests")
            else:
                place.mkdir()
                lock = place / "lock"
                {
                    "lock-dir": lock.mkdir,
                    "lock-fifo": lambda: os.mkfifo(lock),
                    "lock-link": lambda: lock.symlink_to("/dev/zero"),
                }[kind]()

        return spoil

    def link_inside(p: Path) -> None:
        (p / "store").mkdir()
        (p / "snapshots").rename(p / "store" / "snapshots")
        (p / "snapshots").symlink_to("store/snapshots")

    def link_outside(p: Path) -> None:
        outside = Path(tempfile.mkdtemp(prefix="hostile-outside-"))
        shutil.move(str(p / "snapshots"), outside / "snapshots")
        (p / "snapshots").symlink_to(outside / "snapshots")

    def parent_read_only(p: Path) -> None:
        (p / "pyproject.toml").write_text(PYPROJECT.format(extra='snapshot_dir = "sub/snapshots"'))
        (p / "sub").mkdir()
        chattr(p / "sub")

    def journal(text: str) -> Callable[[Path], None]:
        return lambda p: (p / "snapshots" / ".stages-accept.json").write_text(text)

    traversal = json.dumps(
        {
            "schema": "pytest-stages-accept/1",
            "phase": "swapping",
            "swaps": [
                {
                    "folder": "../tests",
                    "staged": ".x.accept-0000aaaa",
                    "old": ".x.accepted-0000aaaa",
                    "existed": True,
                    "created": [],
                }
            ],
        }
    )
    return {
        "nothing": (nothing, False),
        "root-immutable": (lambda p: chattr(p / "snapshots"), True),
        "folder-immutable": (lambda p: each(chattr, [p / FOLDER, (p / FOLDER).parent]), True),
        "parent-read-only-no-tree": (parent_read_only, True),
        "own-folder-a-file": (own("file"), False),
        "own-folder-a-link": (own("link"), False),
        "lock-a-folder": (own("lock-dir"), False),
        "lock-a-fifo": (own("lock-fifo"), False),
        "lock-a-link": (own("lock-link"), False),
        "journal-garbage": (journal("{garbage"), False),
        "journal-traversal": (journal(traversal), False),
        "snapshots-link-inside": (link_inside, False),
        "snapshots-link-outside": (link_outside, False),
        "snapshot-sparse-1100MiB": (lambda p: os.truncate(p / FOLDER / "act.jaxpr.txt", 1100 << 20), False),
        "metadata-corrupt": (lambda p: (p / FOLDER / "_stages.json").write_text("{"), False),
        "snapshot-a-fifo": (fifo_snapshot, False),
        "subfolder-in-snapshot-folder": (lambda p: (p / FOLDER / "mine").mkdir(), False),
        "stray-gitignore-in-root": (lambda p: (p / "snapshots" / ".gitignore").write_text("*.tmp\n"), False),
    }


SETTINGS = {
    "dotdot-inside": 'snapshot_dir = "tests/../snapshots"',
    "dot-slash": 'snapshot_dir = "./snapshots/"',
    "double-slash": 'snapshot_dir = "snapshots//"',
    "absolute-inside": 'snapshot_dir = "{project}/snapshots"',
    "dotdot-outside": 'snapshot_dir = "../snapshots"',
    "root": 'snapshot_dir = "."',
    "git": 'snapshot_dir = ".git/snaps"',
    "empty": 'snapshot_dir = ""',
    "blank": 'snapshot_dir = " "',
    "nul": 'snapshot_dir = "snap\\u0000s"',
    "long-name": 'snapshot_dir = "' + "s" * 300 + '"',
    "a-file": 'snapshot_dir = "pyproject.toml"',
}


def cases() -> list[Case]:
    made = []
    commands = {
        "accept": ["-m", "pytest_stages", "accept", "p1"],
        "accept-two-sets": ["-m", "pytest_stages", "accept", "p1", "p2"],
        "dry-run": ["-m", "pytest_stages", "accept", "--dry-run", "p1"],
        "review-accept-all": ["-m", "pytest_stages", "review", "--accept-all", "p1"],
        "review-reject-all": ["-m", "pytest_stages", "review", "--reject-all", "p1"],
    }
    for spoiler, spoil in pending_spoilers().items():
        for command, args in commands.items():
            made.append(Case(f"set:{spoiler}:{command}", spoil, args, needs_root=spoiler == "set-read-only"))
    tree_commands = {
        "accept": commands["accept"],
        "recover": ["-m", "pytest_stages", "accept", "--recover"],
        "review-accept-all": commands["review-accept-all"],
        "compare": pytest_args(),
        "update": pytest_args("--stages-update"),
        "pending": pytest_args("--stages-pending=p3"),
    }
    for spoiler, (spoil, root) in tree_spoilers().items():
        for command, args in tree_commands.items():
            made.append(Case(f"tree:{spoiler}:{command}", spoil, args, needs_root=root))
    for setting, line in SETTINGS.items():

        def configure(p: Path, line: str = line) -> None:
            (p / "pyproject.toml").write_text(PYPROJECT.format(extra=line.format(project=p)))

        made.append(Case(f"setting:{setting}:update", configure, pytest_args("--stages-update")))
        made.append(Case(f"setting:{setting}:accept", configure, commands["accept"]))
    return made


def limited_cases(scratch: Path) -> list[tuple[Case, list[str]]]:
    """Full disk (a 4 MiB tmpfs, filled) and a file-size limit (``ulimit -f 1``): (case, command prefix)."""
    limit = ["bash", "-c", 'ulimit -f 1; exec "$@"', "-"]
    made = []
    for command, args in {
        "accept": ["-m", "pytest_stages", "accept", "p1"],
        "update": pytest_args("--stages-update"),
        "pending": pytest_args("--stages-pending=p3"),
        "review-accept-all": ["-m", "pytest_stages", "review", "--accept-all", "p1"],
    }.items():
        env = {"CHANGE": "1"} if command in ("update", "pending") else None
        made.append((Case(f"limit:ulimit-f:{command}", nothing, args, env), limit))
        if IS_ROOT:
            made.append((Case(f"limit:full-disk:{command}", nothing, args, env, needs_root=True), ["full-disk"]))
    return made


def fill(project: Path) -> None:
    """Fill the file system of ``project`` to its last few KiB."""
    stream = (project.parent / "filler").open("wb", buffering=0)
    try:
        while True:
            stream.write(b"\0" * 4096)
    except OSError:
        pass
    finally:
        stream.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the cases whose name holds one of these (comma-separated)")
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hostile-store-"))
    todo = [(c, []) for c in cases()] + limited_cases(scratch)
    only = args.only.split(",")
    todo = [(c, p) for c, p in todo if any(o in c.name for o in only) and (IS_ROOT or not c.needs_root)]
    if args.list:
        print("\n".join(c.name for c, _ in todo), f"\n{len(todo)} case(s)")
        return 0
    base = make_base(scratch)
    verdicts = []
    disk = scratch / "disk"
    for case, wrapper in todo:
        where, prefix = scratch, wrapper
        if wrapper == ["full-disk"]:
            disk.mkdir(exist_ok=True)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
            where, prefix = disk, []
        project = where / "case"
        shutil.copytree(base, project, symlinks=True)
        start = time.perf_counter()
        try:
            case.spoil(project)
            before = digests(project)
            if where == disk:
                fill(project)
            status, output = run(case.command, project, case.env, prefix)
            problems = judge(case, project, before, status, output)
        finally:
            unlock_all(project)
            shutil.rmtree(project, ignore_errors=True)
            if where == disk:
                subprocess.run(["umount", str(disk)], check=True)
        verdict = Verdict(case.name, status, time.perf_counter() - start, problems)
        verdicts.append(verdict)
        mark = "FAIL" if problems else "ok  "
        print(f"{mark} {case.name:60} exit {status!s:5} {verdict.seconds:6.1f} s  {'; '.join(problems)}", flush=True)
        if problems:
            print("      " + output.strip().replace("\n", "\n      ")[:2000], flush=True)
    failed = [v for v in verdicts if v.problems]
    kinds = {
        k: sum(any(p.startswith(k) for p in v.problems) for v in verdicts)
        for k in ("loss", "traceback", "hang", "form", "exit")
    }
    print(f"\n{len(verdicts)} case(s), {len(failed)} with problems: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
