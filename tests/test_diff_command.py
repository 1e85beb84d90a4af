"""``pytest-stages diff``: the renumbering-proof diff of snapshot files, by hand and as git's diff driver;
and the Markdown report's diffs cut to fit a pull-request comment."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_stages.core.records import CallRecord, Finding
from pytest_stages.report.cli import main
from pytest_stages.report.diff_command import artifact_of
from pytest_stages.report.markdown import MD_BUDGET, MD_DIFF_LINES, markdown
from pytest_stages.report.render import RunReport

OLD = (
    "HloModule jit_f, is_scheduled=true\n\n"
    "ENTRY %main.4 (x.1: f32[8]) -> f32[8] {\n"
    "  %x.1 = f32[8]{0} parameter(0)\n"
    "  %sine.2 = f32[8]{0} sine(%x.1)\n"
    "  %cosine.3 = f32[8]{0} cosine(%sine.2)\n"
    "  ROOT %add.4 = f32[8]{0} add(%cosine.3, %x.1)\n"
    "}\n"
)
# One tanh inserted after the parameter, as JAX prints it: every later name renumbered.
NEW = (
    "HloModule jit_f, is_scheduled=true\n\n"
    "ENTRY %main.5 (x.1: f32[8]) -> f32[8] {\n"
    "  %x.1 = f32[8]{0} parameter(0)\n"
    "  %tanh.2 = f32[8]{0} tanh(%x.1)\n"
    "  %sine.3 = f32[8]{0} sine(%tanh.2)\n"
    "  %cosine.4 = f32[8]{0} cosine(%sine.3)\n"
    "  ROOT %add.5 = f32[8]{0} add(%cosine.4, %x.1)\n"
    "}\n"
)
EXPECTED = [
    "diff --stages a/f.compiled.hlo.txt b/f.compiled.hlo.txt",
    "ops: +1 tanh",
    "--- a/f.compiled.hlo.txt",
    "+++ b/f.compiled.hlo.txt",
    "@@ -3,6 +3,7 @@",
    " ENTRY %main.5 (x.1: f32[8]) -> f32[8] {",
    "   %x.1 = f32[8]{0} parameter(0)",
    "-  %sine.2 = f32[8]{0} sine(%x.1)",
    "+  %tanh.2 = f32[8]{0} tanh(%x.1)",
    "+  %sine.3 = f32[8]{0} sine(%tanh.2)",
    "   %cosine.4 = f32[8]{0} cosine(%sine.3)",
    "   ROOT %add.5 = f32[8]{0} add(%cosine.4, %x.1)",
    " }",
]


def _run(*args: str) -> tuple[int, list[str]]:
    import io

    out = io.StringIO()
    status = main(list(args), out)
    return status, out.getvalue().splitlines()


def _files(tmp_path: Path, old: str, new: str, name: str = "f.compiled.hlo.txt") -> tuple[str, str]:
    (tmp_path / "a").mkdir(exist_ok=True)
    (tmp_path / "b").mkdir(exist_ok=True)
    (tmp_path / "a" / name).write_text(old)
    (tmp_path / "b" / name).write_text(new)
    return str(tmp_path / "a" / name), str(tmp_path / "b" / name)


def test_two_files_give_the_op_summary_and_the_renumbering_proof_diff(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.compiled.hlo.txt").write_text(OLD)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "f.compiled.hlo.txt").write_text(NEW)
    status, lines = _run("diff", "f.compiled.hlo.txt", "new/f.compiled.hlo.txt")
    assert status == 0
    assert lines[0] == "diff --stages a/new/f.compiled.hlo.txt b/new/f.compiled.hlo.txt"
    assert lines[1:] == [line.replace("a/f", "a/new/f").replace("b/f", "b/new/f") for line in EXPECTED[1:]]


def test_git_arguments_name_the_path_and_an_equivalent_text_is_a_rename_only(tmp_path):
    old, new = _files(tmp_path, OLD, NEW)
    status, lines = _run("diff", "f.compiled.hlo.txt", old, "1" * 40, "100644", new, "2" * 40, "100644")
    assert (status, lines) == (0, EXPECTED)
    renamed = OLD.replace("sine.2", "sine.9")
    old, new = _files(tmp_path, OLD, renamed)
    status, lines = _run("diff", "f.compiled.hlo.txt", old, "1" * 40, "100644", new, "2" * 40, "100644")
    assert lines == [
        "diff --stages a/f.compiled.hlo.txt b/f.compiled.hlo.txt",
        "same program: only names (one to one) or the order of independent operations changed (a re-recorded snapshot)",
    ]
    status, lines = _run("diff", "f.compiled.hlo.txt", old, "1" * 40, "100644", old, "1" * 40, "100644")
    assert (status, lines) == (0, [])


def test_an_added_file_and_a_json_file_are_diffed_too(tmp_path):
    status, lines = _run("diff", "/dev/null", _files(tmp_path, "", "{}\n", "f.cost.json")[1])
    assert status == 0 and lines[-2:] == ["@@ -0,0 +1 @@", "+{}"]
    old, new = _files(tmp_path, '{\n  "flops": 1.0\n}\n', '{\n  "flops": 2.0\n}\n', "f.cost.json")
    status, lines = _run("diff", old, new)
    assert lines[-3:] == ['-  "flops": 1.0', '+  "flops": 2.0', " }"]


def test_bad_input_is_one_paragraph_and_the_usage_status(tmp_path):
    status, lines = _run("diff", "only-one")
    assert status == 2
    assert lines == [
        "pytest-stages diff: expected two files (OLD NEW) or the 7 arguments of git's external diff, got 1. "
        "Run `pytest-stages diff OLD NEW`, or set the driver up as docs/snapshots.md shows."
    ]
    status, lines = _run("diff", str(tmp_path / "missing.jaxpr.txt"), str(tmp_path / "other.jaxpr.txt"))
    assert status == 2 and len(lines) == 1
    assert lines[0].startswith(f"pytest-stages diff: cannot read {tmp_path / 'missing.jaxpr.txt'} (")


def test_artifacts_are_read_from_the_longest_suffix():
    assert artifact_of("x/f.compiled.hlo.txt") == "compiled"
    assert artifact_of("x/f.hlo.txt") == "hlo"
    assert artifact_of("x/f.stablehlo.mlir") == "stablehlo"
    assert artifact_of("x/_stages.json") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_diff_and_git_log_use_the_driver_set_up_as_documented(tmp_path):
    """The setup of docs/snapshots.md in a real repository: .gitattributes and the diff.stages.command."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    git("config", "diff.stages.command", f"{sys.executable} -m pytest_stages diff")
    (tmp_path / ".gitattributes").write_text("snapshots/** diff=stages\n")
    snapshot = tmp_path / "snapshots" / "f.compiled.hlo.txt"
    snapshot.parent.mkdir()
    snapshot.write_text(OLD)
    git("add", "-A")
    git("commit", "-qm", "record")
    snapshot.write_text(NEW)
    expected = [line.replace("/f.", "/snapshots/f.") for line in EXPECTED]
    assert git("diff").splitlines() == expected
    git("commit", "-qam", "tanh")
    assert git("log", "-p", "--ext-diff", "-1", "--format=%s").splitlines() == ["tanh", "", *expected]


def _report(findings: int, rows: int) -> str:
    hunk = [["~", k, f"old {k}", k, f"new {k}", None] for k in range(1, rows + 1)]
    drifts = [
        Finding("text", "jaxpr", "IR drift", detail={"summary": ["ops: +1 tanh"], "hunks": [hunk]})
        for _ in range(findings)
    ]
    record = CallRecord(nodeid="t.py::test_f[cpu1]", config="cpu1", name="f", folder="f", findings=drifts)
    return markdown(RunReport([record], update=False, environment={}))


def test_markdown_diffs_fit_a_pull_request_comment():
    """A long diff is cut to MD_DIFF_LINES lines, and the report stops adding diffs before 65,536 characters."""
    text = _report(1, 500)
    # 1003 lines: "--- snapshot", "+++ staged", "@@ line 1 -> 1", then a -/+ pair per row
    assert text.count("\n  -old ") == (MD_DIFF_LINES - 2) // 2
    assert f"  ... {1003 - MD_DIFF_LINES} more diff lines; `pytest-stages diff OLD NEW`" in text
    many = _report(200, 500)
    assert len(many) < 65_536
    assert len(many) > MD_BUDGET
    left_out = many.count("\n- `t.py") - many.count("<details>")
    assert left_out > 100
    assert f"The diffs of {left_out} finding(s) are left out to fit a pull-request comment; `pytest-stages" in many
    assert many.count("- `t.py::test_f[cpu1]` f / jaxpr: IR drift") == 200
