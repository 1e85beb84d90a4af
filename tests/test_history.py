"""``pytest-stages history``: the figures of each call read from the commits that recorded them, in real git
repositories: a user's project whose function widens (staged by real JAX), hand-made snapshot histories for
the hostile cases (shallow clone, merge, corrupt and hand-edited files, renames, no git, no repository, a bad
revision), format-1 snapshots, and the page of charts (in Chromium where it is installed)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_drift import _chromium

from pytest_stages.core.paths import shown_path
from pytest_stages.report.cli import main
from pytest_stages.store.history import Call, figures

DATA = Path(__file__).parent / "data" / "upgrade_0fe98ff" / "snapshots"
CPU1 = '\n[[tool.pytest_stages.configs]]\nname = "cpu1"\ndevices = 1\n'
WIDEN = """
import jax, jax.numpy as jnp

WIDTH = {width}

def widen(x, w):
    return jnp.tanh(x @ w)

def test_widen(stage_snapshot):
    x = jax.ShapeDtypeStruct((4, WIDTH), jnp.float32)
    stage_snapshot(widen, x, jax.ShapeDtypeStruct((WIDTH, WIDTH), jnp.float32))
"""
COST = "snapshots/tests/test_m/test_f/cpu1/f.cost.json"
READ = re.compile(r"in \d+\.\d\d s")


class Repo:
    """A git repository holding a project: files written and committed with fixed names and dates."""

    def __init__(self, path: Path, settings: str = "") -> None:
        self.path = path
        self.commits = 0
        path.mkdir(parents=True, exist_ok=True)
        (path / "pyproject.toml").write_text(f"[tool.pytest_stages]\n{textwrap.dedent(settings)}{CPU1}")
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        self.commits += args[0] == "commit"
        env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@example.com",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@example.com",
            "GIT_COMMITTER_DATE": f"2026-12-0{1 + self.commits % 8}T12:00:00+00:00",
            "GIT_AUTHOR_DATE": "2026-12-01T12:00:00+00:00",
        }
        done = subprocess.run(["git", *args], cwd=self.path, env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def commit(self, subject: str, files: dict[str, str | None]) -> str:
        """Write (None: delete) ``files`` and commit them; the commit's short hash."""
        for name, text in files.items():
            path = self.path / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", subject)
        return self.git("rev-parse", "--short=7", "HEAD")

    def history(self, *args: str) -> tuple[int, str]:
        out = io.StringIO()
        status = main(["history", "--rootdir", str(self.path), *args], out)
        return status, READ.sub("in S s", out.getvalue())


def cost(flops: float, **more: float) -> str:
    return json.dumps({"compiled": {"flops": flops, **more}}, indent=2)


@pytest.fixture(scope="module")
def widened(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, list[str]]:
    """A user's project with three commits that widen one function, 8 -> 16 -> 32, each recorded by pytest."""
    repo = Repo(tmp_path_factory.mktemp("widen") / "project")
    shas = []
    for width in (8, 16, 32):
        (repo.path / "test_widen.py").write_text(WIDEN.format(width=width))
        run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--stages-update", "test_widen.py"]
        subprocess.run(run, cwd=repo.path, check=True, capture_output=True)
        shas.append(repo.commit("record widen at 8" if width == 8 else f"widen to {width}", {}))
    return repo, shas


def test_the_widening_commits_are_listed_with_their_subjects_and_flops(widened):
    repo, (first, second, third) = widened
    status, out = repo.history("--figure", "flops")
    assert status == 0
    assert out.splitlines() == [
        f"pytest-stages history: read 3 commit(s) that touched snapshots/ (first parent), {first} (2026-12-02) to "
        f"{third} (2026-12-04), in S s; 2 move(s) beyond tolerance in 1 call(s)",
        "",
        "test_widen.py::test_widen [cpu1] widen",
        f"  {second} 2026-12-03 flops 512 -> 2048 (+300.0%)  widen to 16",
        f"  {third} 2026-12-04 flops 2048 -> 8192 (+300.0%)  widen to 32",
    ]
    status, out = repo.history()
    assert f"  {third} 2026-12-04 peak_bytes 1536 -> 5120 (+233.3%)  widen to 32" in out.splitlines()


def test_json_holds_the_moves_and_each_figures_values_commit_by_commit(widened):
    repo, shas = widened
    status, out = repo.history("--json", "-k", "widen and cpu1", "--figure", "flops")
    data = json.loads(out)
    assert status == 0 and [c["subject"] for c in data["commits"]] == [
        "record widen at 8",
        "widen to 16",
        "widen to 32",
    ]
    assert [(m["commit"][:7], m["old"], m["new"], m["change"]) for m in data["moves"]] == [
        (shas[1], 512, 2048, 3.0),
        (shas[2], 2048, 8192, 3.0),
    ]
    [series] = data["series"]
    assert series["nodeid"] == "test_widen.py::test_widen" and series["figure"] == "flops"
    assert [(sha[:7], value) for sha, value in series["points"]] == list(zip(shas, [512, 2048, 8192], strict=True))


def test_a_selection_that_takes_no_call_lists_no_move(widened):
    repo, _ = widened
    assert "0 move(s) beyond tolerance in 0 call(s)" in repo.history("test_other.py")[1]
    assert "0 move(s) beyond tolerance in 0 call(s)" in repo.history("-k", "not widen")[1]
    assert "2 move(s)" in repo.history("test_widen.py::test_widen", "--figure", "flops")[1]


def test_the_page_charts_each_figure_with_its_moves_and_their_subjects(widened, tmp_path):
    repo, shas = widened
    page = tmp_path / "history.html"
    status, out = repo.history("--html", str(page))
    assert status == 0 and out.endswith(f"pytest-stages history: wrote {page}\n")
    html = page.read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html
    flops = html[html.index("<h3>flops</h3>") : html.index("</svg>", html.index("<h3>flops</h3>"))]
    assert flops.count('class="rise"') == 2 and flops.count('class="point"') == 3
    assert f"{shas[1]} +300.0% widen to 16" in flops and f"{shas[2]} +300.0% widen to 32" in flops
    # A page it wrote is replaced; any other file is not.
    assert repo.history("--html", str(page))[0] == 0
    page.write_text("<html>mine</html>")
    status, out = repo.history("--html", str(page))
    assert status == 2 and page.read_text() == "<html>mine</html>"
    assert out == (
        f"pytest-stages history: --html {shown_path(str(page))} is a file that is not a page `pytest-stages history` "
        "wrote, and writing the page would replace it. Name another file, e.g. --html stages-history.html.\n"
    )


def test_the_page_renders_in_chromium(widened, tmp_path):
    from PIL import Image

    repo, _ = widened
    page = tmp_path / "history.html"
    repo.history("--html", str(page))
    dom = _chromium("--dump-dom", page.as_uri()).stdout
    assert "pytest-stages history" in dom and "widen to 32" in dom and "<svg" in dom
    shot = tmp_path / "history.png"
    _chromium("--window-size=1000,900", f"--screenshot={shot}", page.as_uri())
    with Image.open(shot) as image:
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=1 << 20)}
    assert (207, 34, 46) in colours and (9, 105, 218) in colours  # the rise markers, the line


def test_a_ceiling_written_with_its_unit_or_in_jaxs_spelling_is_drawn_as_the_plugin_reads_it(tmp_path):
    """The ceilings are the budgets the plugin judges: a count written as a string, a size with its unit under
    JAX's name of the figure (before: both left out of the charts, read raw from the pyproject)."""
    repo = Repo(
        tmp_path,
        '[tool.pytest_stages.budgets]\n"tests/test_m.py::*" = { flops = "150", temp_size_in_bytes = "2 KiB" }\n',
    )
    memory = COST.replace("cost.json", "memory.json")
    repo.commit("first", {COST: cost(100), memory: json.dumps({"temp_size_in_bytes": 1000})})
    repo.commit("second", {COST: cost(120), memory: json.dumps({"temp_size_in_bytes": 1500})})
    assert repo.history("--html", str(tmp_path / "h.html"))[0] == 0
    page = (tmp_path / "h.html").read_text()
    assert "stages_budget ceiling 150</text>" in page
    assert "stages_budget ceiling 2048</text>" in page  # the temp_bytes chart, 2 KiB in bytes


def test_a_move_within_its_tolerance_is_not_listed_and_the_budget_ceiling_is_drawn(tmp_path):
    repo = Repo(
        tmp_path,
        '[tool.pytest_stages.tolerance]\nflops = "5%"\n'
        '[tool.pytest_stages.budgets]\n"tests/test_m.py::*" = { flops = 150 }\n',
    )
    repo.commit("first", {COST: cost(100)})
    repo.commit("within", {COST: cost(104)})
    beyond = repo.commit("beyond", {COST: cost(120)})
    status, out = repo.history()
    assert status == 0
    assert out.splitlines()[2:] == [
        "tests/test_m.py::test_f [cpu1] f",
        f"  {beyond} 2026-12-04 flops 104 -> 120 (+15.4%)  beyond",
    ]
    repo.history("--html", str(tmp_path / "h.html"))
    assert "stages_budget ceiling 150</text>" in (tmp_path / "h.html").read_text()


def test_a_corrupt_or_hand_edited_file_is_skipped_with_a_note(tmp_path):
    repo = Repo(tmp_path)
    repo.commit("first", {COST: cost(100)})
    broken = repo.commit("broken", {COST: '{"compiled": {"flops": 1'})
    edited = repo.commit("edited", {COST: '{"compiled": ["flops"]}'})
    fixed = repo.commit("fixed", {COST: cost(300)})
    status, out = repo.history()
    assert status == 0
    assert f"  {fixed} 2026-12-05 flops 100 -> 300 (+200.0%)  fixed" in out.splitlines()
    assert (
        f"  {broken} (broken): snapshots/tests/test_m/test_f/cpu1/f.cost.json does not hold what pytest-stages writes "
        "there (not valid JSON); skipped: its figures are compared with the last file that read."
    ) in out.splitlines()
    assert (
        f"  {edited} (edited): snapshots/tests/test_m/test_f/cpu1/f.cost.json does not hold what pytest-stages writes "
        "there (the file['compiled'] is a list, not an object); skipped: its figures are compared with the last file "
        "that read."
    ) in out.splitlines()


def test_a_rename_git_sees_is_followed_and_one_it_does_not_see_is_said(tmp_path):
    repo = Repo(tmp_path)
    repo.commit("first", {COST: cost(100, transcendentals=7, **{"bytes accessed": 64})})
    moved = COST.replace("test_f", "test_g")
    renamed = repo.commit("rename", {COST: None, moved: cost(200, transcendentals=7, **{"bytes accessed": 64})})
    status, out = repo.history()
    assert f"  {renamed} 2026-12-03 flops 100 -> 200 (+100.0%)  rename" in out.splitlines()
    assert (
        "  tests/test_m.py::test_g [cpu1] f was renamed from tests/test_m.py::test_f [cpu1] f (git saw the rename): "
        "its figures are followed through it."
    ) in out.splitlines()
    unseen = repo.commit("rewrite", {moved: None, COST.replace("test_f", "test_h"): '{"compiled": {"flops": 9}}'})
    status, out = repo.history()
    assert status == 0
    assert (
        f"  {unseen} (rewrite): the snapshots of tests/test_m.py::test_g [cpu1] f were deleted and those of "
        "tests/test_m.py::test_h [cpu1] f added; git saw no rename (the files changed too much, or the call did "
        "not move whole), so their figures are listed apart."
    ) in out.splitlines()


def test_a_merge_reads_as_the_change_it_brought_and_its_branch_with_all_parents(tmp_path):
    repo = Repo(tmp_path)
    repo.commit("first", {COST: cost(100)})
    repo.git("checkout", "-q", "-b", "side")
    side = repo.commit("side doubles f", {COST: cost(200)})
    repo.git("checkout", "-q", "main")
    repo.commit("other", {"snapshots/tests/test_m/test_f/cpu1/g.cost.json": cost(5)})
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = repo.git("rev-parse", "--short=7", "HEAD")
    status, out = repo.history()
    assert f"  {merge} 2026-12-04 flops 100 -> 200 (+100.0%)  merge side" in out.splitlines()
    assert (
        f"  1 merge commit(s) ({merge}) read as the change each brought to its first parent: a figure a merged branch "
        "moved is listed at the merge (pass --all-parents to list the branch's own commits too)."
    ) in out.splitlines()
    status, out = repo.history("--all-parents")
    assert status == 0
    assert f"  {side} 2026-12-03 flops 100 -> 200 (+100.0%)  side doubles f" in out.splitlines()


def test_a_shallow_clone_says_how_many_commits_it_read_and_how_to_fetch_more(tmp_path):
    repo = Repo(tmp_path / "origin")
    for flops in (1, 2, 3, 4):
        repo.commit(f"flops {flops}", {COST: cost(flops)})
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", (tmp_path / "origin").as_uri(), str(tmp_path / "clone")], check=True
    )
    clone = Repo.__new__(Repo)
    clone.path, clone.commits = tmp_path / "clone", 0
    status, out = clone.history()
    head = clone.git("rev-parse", "--short=7", "HEAD~1")
    assert status == 0 and out.startswith("pytest-stages history: read 2 commit(s)")
    assert (
        f"  this clone is shallow: 2 commit(s) that touched snapshots/ were read, and the history before {head} is "
        "not in it; fetch the rest with `git fetch --unshallow` (in GitHub Actions: `fetch-depth: 0` in "
        "actions/checkout's `with:`), and run `pytest-stages history` again."
    ) in out.splitlines()


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "no git",
            "git was not found on PATH: `pytest-stages history` reads the snapshots' history through git's command "
            "line. Install git (e.g. `apt-get install git`) and run it again.",
        ),
        (
            "no repository",
            "{root} is not in a git repository: the history of the snapshots is read from the commits that recorded "
            "them. Run `pytest-stages history` in a clone of the project (`git clone URL`), or `git init` and commit "
            "the snapshot folder to start one.",
        ),
        (
            "bad revision",
            "--since 'no-such-branch' names no commit of this repository. Name a commit, tag or branch that `git log` "
            "shows, e.g. --since main or --since HEAD~20.",
        ),
    ],
)
def test_what_git_cannot_give_is_one_paragraph(tmp_path, monkeypatch, case, expected):
    repo = Repo(tmp_path / "project")
    repo.commit("first", {COST: cost(1)})
    args: tuple[str, ...] = ()
    if case == "no git":
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    elif case == "no repository":
        shutil.rmtree(repo.path / ".git")
        monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    else:
        args = ("--since", "no-such-branch")
    status, out = repo.history(*args)
    assert (status, out) == (2, f"pytest-stages history: {expected.format(root=repo.path)}\n")


def test_a_repository_without_commits_has_no_history_yet(tmp_path):
    status, out = Repo(tmp_path).history()
    assert (status, out) == (
        0,
        "pytest-stages history: no commit of HEAD touched snapshots/ (first parent): there is no history to read "
        "yet; 0 move(s) beyond tolerance in 0 call(s)\n",
    )


def test_format_1_snapshots_read(tmp_path):
    repo = Repo(tmp_path)
    files = {f"snapshots/{p.relative_to(DATA).as_posix()}": p.read_text() for p in DATA.rglob("*") if p.is_file()}
    assert '"format": 1' in files["snapshots/test_upgrade_suite/test_wide/cpu1/_stages.json"]
    repo.commit("format 1", files)
    wide = "snapshots/test_upgrade_suite/test_wide/cpu1/wide.cost.json"
    data = json.loads(files[wide])
    data["compiled"]["flops"] *= 2
    moved = repo.commit("wider", {wide: json.dumps(data)})
    status, out = repo.history("--json")
    history = json.loads(out)
    assert status == 0
    assert {(s["nodeid"], s["name"]) for s in history["series"] if s["figure"] == "flops"} == {
        ("test_upgrade_suite.py::test_dict_state", "update"),
        ("test_upgrade_suite.py::test_nnx", "sgd_step"),
        ("test_upgrade_suite.py::test_wide", "wide"),
    }
    [move] = history["moves"]
    assert (move["commit"][:7], move["figure"], move["change"]) == (moved, "flops", 1.0)
    assert history["notes"] == []


def test_the_figures_of_each_snapshot_file():
    assert figures(
        "cost", {"compiled": {"flops": 2.0}, "lowered": {"flops": 9.0}, "step": {"estimated_seconds": 1e-3}}
    ) == {
        "flops": 2.0,
        "transcendentals": 0,
        "bytes_accessed": 0,
        "estimated_seconds": 1e-3,
    }
    memory = {"argument_size_in_bytes": 8, "output_size_in_bytes": 4, "temp_size_in_bytes": 2}
    memory |= {"generated_code_size_in_bytes": 0, "alias_size_in_bytes": 4}
    assert figures("memory", memory)["peak_bytes"] == 10
    ops = {"collectives": [{"op": "all-gather", "bytes": 64}, {"op": "all-gather", "bytes": 32}, {"op": "all-reduce"}]}
    assert figures("ops", ops) == {
        "collectives[all-gather]": 2,
        "collectives[all-reduce]": 1,
        "collective_bytes[all-gather]": 96,
    }
    assert figures("compiles", {"functions": {"mlp": {"compiles": 3}}}) == {"compiles[mlp]": 3}
    assert Call("stages", "train_step", "cpu1", "f").nodeid == "stages::train_step"


def test_the_markdown_report_shows_a_moved_figures_recent_values(widened, tmp_path):
    repo, shas = widened
    test_file = repo.path / "test_widen.py"
    test_file.write_text(WIDEN.format(width=64))
    report = tmp_path / "report.md"
    try:
        run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--stages-report={report}"]
        done = subprocess.run([*run, "test_widen.py"], cwd=repo.path, capture_output=True, text=True, check=False)
    finally:
        test_file.write_text(WIDEN.format(width=32))
    assert done.returncode == 1, done.stdout
    lines = report.read_text().splitlines()
    assert lines[lines.index("### Recent history of the moved figures") + 2 :][:2] == [
        f"- `test_widen.py::test_widen[cpu1]` widen on cpu1: bytes_accessed ▁▁▃█ 768 ({shas[0]}) → 2048 ({shas[1]}) → "
        f"6144 ({shas[2]}) → 20480 (this run)",
        f"- `test_widen.py::test_widen[cpu1]` widen on cpu1: flops ▁▁▃█ 512 ({shas[0]}) → 2048 ({shas[1]}) → "
        f"8192 ({shas[2]}) → 32768 (this run)",
    ]
