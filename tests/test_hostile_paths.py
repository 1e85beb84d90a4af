"""Paths a careless or hostile user gives: a report named over a file of theirs, a setting led out by a link.

A report replaces only a report pytest-stages wrote (``--stages-report README.md`` would replace the
README); a folder the project's pyproject.toml names inside the project must not lead out of it
through a symlink in the checkout. Each refusal is one paragraph, and nothing is written.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from pytest_stages.config.settings import check_cache_folder
from pytest_stages.report import cli

SIN_TEST = """
import jax, jax.numpy as jnp

def test_sin(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")
"""


def _not_a_report(option: str, name: str, kind: str) -> str:
    return (
        f"{option}={name} is a file that is not a {kind} report pytest-stages wrote, and writing the report would "
        f"replace it: pytest-stages replaces only a report it wrote. Name a new file, e.g. "
        f"{option}=stages-report{Path(name).suffix}, or move that file away."
    )


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("README.md", "# My project\n\nHand-written.\n", "Markdown"),
        ("data.json", '{"calls": [], "mine": true}\n', "JSON"),
        ("index.html", "<!DOCTYPE html>\n<html><body>site</body></html>\n", "HTML"),
        ("notes.md", "## pytest-stage\n", "Markdown"),
    ],
)
def test_a_report_never_replaces_a_file_pytest_stages_did_not_write(project, name, text, kind):
    project.write("tests/test_m.py", SIN_TEST)
    project.write(name, text)
    message = project.usage_error(project.run("--stages-update", f"--stages-report={name}"))
    assert message == _not_a_report("--stages-report", name, kind)
    assert (project.path / name).read_text() == text
    assert not (project.path / "snapshots").exists()


def test_a_report_replaces_its_own_earlier_report_and_an_empty_file(project):
    project.write("tests/test_m.py", SIN_TEST)
    project.write("empty.json", "")
    project.run("--stages-update", "--stages-report=empty.json").assert_outcomes(passed=1)
    for name in ("r.json", "r.md", "r.html"):
        project.run(f"--stages-report={name}").assert_outcomes(passed=1)
        first = (project.path / name).read_bytes()
        project.run(f"--stages-report={name}").assert_outcomes(passed=1)  # its own report: replaced
        assert (project.path / name).read_bytes().startswith(first[:15])
    merged = project.path / "merged.md"
    stream = io.StringIO()
    status = cli.main(["merge", "--rootdir", str(project.path), "--report", str(merged), "r.json"], stream=stream)
    assert status == 0, stream.getvalue()
    assert merged.read_text().startswith("## pytest-stages\n")
    assert (project.path / "empty.json").read_text().startswith('{"calls":[')


def test_merge_never_replaces_a_file_pytest_stages_did_not_write(project, monkeypatch):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update", "--stages-report=r.json").assert_outcomes(passed=1)
    readme = project.write("README.md", "# keep\n")
    monkeypatch.chdir(project.path)
    stream = io.StringIO()
    status = cli.main(["merge", "--report", "README.md", "r.json"], stream=stream)
    assert status == cli.USAGE
    assert stream.getvalue() == f"pytest-stages merge: {_not_a_report('--report', 'README.md', 'Markdown')}\n"
    assert readme.read_text() == "# keep\n"


@pytest.mark.parametrize(
    ("setting", "value", "fix"),
    [
        (
            "compilation_cache",
            "cache",
            'Name a folder of its own (compilation_cache = ".jax_cache"), or true for pytest\'s cache.',
        ),
        (
            "pending_dir",
            "cache/pending",
            "Name a folder of its own for the pending set, e.g. --stages-pending=stages-pending.",
        ),
    ],
)
def test_a_setting_led_out_of_the_project_by_a_symlink_is_refused(project, tmp_path_factory, setting, value, fix):
    outside = tmp_path_factory.mktemp("outside")
    (project.path / "cache").symlink_to(outside, target_is_directory=True)
    project.write("tests/test_m.py", SIN_TEST)
    project.configure(f'{setting} = "{value}"')
    message = project.usage_error(project.run())
    resolved = outside / value.removeprefix("cache").lstrip("/")
    assert message == (
        f"[tool.pytest_stages] {setting} = {value!r} resolves to {resolved}, outside the project "
        f"{project.path.resolve()} (through a symlink): remove the link. {fix}"
    )
    assert list(outside.iterdir()) == []
    assert not (project.path / "snapshots").exists()


def test_a_cache_named_by_its_own_path_outside_the_project_is_taken_as_named(tmp_path):
    project, shared = tmp_path / "project", tmp_path / "shared-cache"
    project.mkdir()
    shared.mkdir()
    check_cache_folder(str(shared), project, "snapshots")
    check_cache_folder("../shared-cache", project, "snapshots")


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("fifo.json", "is a FIFO, socket or device, not a file: pytest-stages writes only plain files and folders"),
        (
            ".git/m.json",
            "resolves to {root}/.git/m.json, inside .git, version control's own folder: files written "
            "there corrupt the repository",
        ),
    ],
)
def test_merge_refuses_a_report_path_the_resolver_refuses_in_one_paragraph(project, monkeypatch, output, problem):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update", "--stages-report=r.json").assert_outcomes(passed=1)
    os.mkfifo(project.path / "fifo.json")
    (project.path / ".git").mkdir()
    monkeypatch.chdir(project.path)
    stream = io.StringIO()
    status = cli.main(["merge", "--report", output, "r.json"], stream=stream)
    assert status == cli.USAGE
    assert stream.getvalue() == (
        f"pytest-stages merge: --report={output} {problem.format(root=project.path)}. Write it elsewhere, e.g. "
        "--report=stages-report.json.\n"
    )
    assert list((project.path / ".git").iterdir()) == []
