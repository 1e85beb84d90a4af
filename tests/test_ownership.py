"""Issue #35: the plugin deletes only what it can show it wrote, and every bad input gets a one-paragraph error.

Each test is one case of the adversarial review: a setting, file or report that once lost data,
raised a traceback or hung. Inner sessions run the plugin as users meet it.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest
from conftest import SIMPLE_TEST

from pytest_stages.config.devices import parse_configs
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.records import CallRecord, Finding
from pytest_stages.core.text import clip, shown, visible
from pytest_stages.report.render import RunReport, markdown, table_rows
from pytest_stages.store.schemas import invalid_snapshot

FOLDER = "snapshots/test_model/test_f/cpu1"
USAGE = pytest.ExitCode.USAGE_ERROR


def recorded(project, *args):
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update", *args).assert_outcomes(passed=1)
    return project.snapshots()


# --- data loss ---------------------------------------------------------------------------------


def test_the_project_root_as_snapshot_dir_is_a_usage_error(project):
    project.configure('snapshot_dir = "."')
    project.write("test_model.py", SIMPLE_TEST)
    project.write("data/x/y/results.csv", "keep\n")
    for args in (("--stages-update",), ("--stages-prune",)):
        result = project.run(*args)
        assert result.ret == USAGE
        result.stderr.fnmatch_lines(
            ["*snapshot_dir = '.' is the project root *: pytest-stages writes and prunes only*"]
        )
    assert (project.path / "data/x/y/results.csv").read_text() == "keep\n"
    assert not (project.path / "test_model").exists()


def test_a_snapshot_dir_holding_other_files_is_never_pruned(project):
    project.configure('snapshot_dir = "tests"')
    project.write("tests/data/fixtures/v1/input.csv", "keep\n")
    project.write("tests/test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=1)
    assert (project.path / "tests/data/fixtures/v1/input.csv").read_text() == "keep\n"
    assert (project.path / "tests/test_model.py").exists()
    result.stdout.fnmatch_lines(
        ["pytest-stages: --stages-prune refused: tests/ holds * file(s) pytest-stages did not write (*input.csv*"]
    )


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_an_empty_config_selection_is_a_usage_error_and_deletes_nothing(project, value):
    files = recorded(project)
    result = project.run(f"--stages-configs={value}", "--stages-prune")
    assert result.ret == USAGE
    assert f"--stages-configs={value!r} selects nothing: name one or more of ['cpu1']" in result.stderr.str()
    assert project.snapshots() == files


def test_a_snapshot_folder_linked_out_of_the_project_is_refused(project, tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "x/y/z").mkdir(parents=True)
    (outside / "x/y/z/deep.txt").write_text("keep")
    (project.path / "snapshots").symlink_to(outside, target_is_directory=True)
    project.write("test_model.py", SIMPLE_TEST)
    for args in (("--stages-update",), ("--stages-prune",)):
        result = project.run(*args)
        assert result.ret == USAGE
        result.stderr.fnmatch_lines(["*snapshot_dir = 'snapshots' resolves to *, outside the project *"])
    assert [p.relative_to(outside).as_posix() for p in outside.rglob("*") if p.is_file()] == ["x/y/z/deep.txt"]


def test_files_the_plugin_did_not_write_are_kept_and_the_prune_refused(project):
    """A stray file in a test's own folder, or a folder with no metadata, is not the plugin's."""
    files = recorded(project)
    project.write(f"{FOLDER}/notes.md", "mine\n")
    project.write("snapshots/test_model/test_gone/cpu1/old.cost.json", "{}\n")  # no _stages.json there
    project.write("test_model.py", SIMPLE_TEST.replace("def test_f", "def test_g"))
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: --stages-prune refused: snapshots/ holds 2 file(s) pytest-stages did not write "
            "(snapshots/test_model/test_f/cpu1/notes.md, snapshots/test_model/test_gone/cpu1/old.cost.json), so it "
            "is not a snapshot folder of its own; nothing was deleted.*"
        ]
    )
    assert set(files) <= set(project.snapshots())


def test_a_file_of_the_plugins_naming_that_its_manifest_does_not_list_is_not_the_plugins(project):
    """Ownership is the manifest's, not the name's: an unlisted ``stray.cost.json`` refuses the prune."""
    files = recorded(project)
    project.write(f"{FOLDER}/stray.cost.json", "{}\n")
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: --stages-prune refused: snapshots/ holds 1 file(s) pytest-stages did not write "
            f"({FOLDER}/stray.cost.json), so it is not a snapshot folder of its own; nothing was deleted.*"
        ]
    )
    assert set(project.snapshots()) == {*files, "test_model/test_f/cpu1/stray.cost.json"}, "nothing was deleted"


def test_snapshots_of_hashed_names_are_the_plugins_and_prune(project):
    """A lambda's snapshots (``<lambda>`` is stored as ``_lambda_~<hash>``) are listed unused and pruned like any."""
    lambda_test = SIMPLE_TEST.replace("stage_snapshot(f, x, w)", "stage_snapshot(lambda x, w: f(x, w), x, w)")
    project.write("test_model.py", lambda_test)
    project.run("--stages-update").assert_outcomes(passed=1)
    stored = [name for name in project.snapshots() if "_lambda_~" in name]
    assert len(stored) == 8, stored
    project.run("--stages-prune").stdout.no_fnmatch_line("*refused*")
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(["pytest-stages: pruning 8 file(s):"])
    assert not [name for name in project.snapshots() if "_lambda_~" in name]


def test_legacy_folders_without_a_manifest_are_pruned_by_naming_and_get_one_on_update(project):
    files = recorded(project)
    meta_path = project.path / FOLDER / "_stages.json"
    meta = json.loads(meta_path.read_text())
    assert meta["files"] == sorted(name.rsplit("/", 1)[1] for name in files if not name.endswith("_stages.json"))
    del meta["files"]  # as an earlier pytest-stages wrote it
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    project.write(f"{FOLDER}/old.cost.json", "{}\n")
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(["pytest-stages: pruning 1 file(s):", f"  {FOLDER}/old.cost.json"])
    assert "files" not in json.loads(meta_path.read_text()), "a folder without a manifest is left as it was"
    project.write("test_model.py", SIMPLE_TEST.replace("tanh", "sin"))
    project.run("--stages-update").assert_outcomes(passed=1)
    assert "f.jaxpr.txt" in json.loads(meta_path.read_text())["files"], "the update added the manifest"


def test_modules_outside_the_rootdir_with_one_file_name_keep_apart(project, tmp_path):
    out_a, out_b = tmp_path / "outA", tmp_path / "outB"
    for folder, op in ((out_a, "tanh"), (out_b, "sin")):
        folder.mkdir()
        (folder / "test_a.py").write_text(SIMPLE_TEST.replace("tanh", op))
    args = (
        "--import-mode=importlib",
        "--rootdir",
        str(project.path),
        str(out_a / "test_a.py"),
        str(out_b / "test_a.py"),
    )
    project.run("--stages-update", *args).assert_outcomes(passed=2)
    project.run(*args).assert_outcomes(passed=2)


def test_no_report_is_written_into_the_snapshot_folder(project, monkeypatch):
    files = recorded(project)
    target = f"{FOLDER}/f.cost.json"
    result = project.run(f"--stages-report={target[:-5]}.json")
    assert result.ret == USAGE
    result.stderr.fnmatch_lines(["*--stages-report=* is inside the snapshot folder *, where only snapshots live*"])
    result = project.run("--stages-report=a.json", "--stages-report=b.md")
    assert result.ret == USAGE
    result.stderr.fnmatch_lines(["*--stages-report is given 2 times (a.json, b.md); a run writes one report*"])
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(project.path / target))
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pytest-stages: not appending to $GITHUB_STEP_SUMMARY *: it is inside the snapshot*"])
    assert project.snapshots() == files


def test_a_prune_removes_folders_an_interrupted_prune_left_empty(project):
    files = recorded(project)
    (project.path / "snapshots/test_model/test_gone/cpu1").mkdir(parents=True)
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(["pytest-stages: removed 2 emptied folder(s)"])
    assert not (project.path / "snapshots/test_model/test_gone").exists()
    assert project.snapshots() == files


# --- bad snapshots and settings: one paragraph, and the documented fix works ---------------------


@pytest.mark.parametrize(
    ("artifact", "text", "problem"),
    [
        ("cost", "[]", "the file is a list, not an object"),
        ("ops", '{"opcodes": null, "collectives": 7}', "the file['opcodes'] is null, not an object"),
        ("sharding", '{"inputs": 5}', "the file['inputs'] is the number 5, not an object"),
    ],
)
def test_a_json_snapshot_of_the_wrong_shape_names_the_file_and_the_update_repairs_it(project, artifact, text, problem):
    recorded(project)
    project.write(f"{FOLDER}/f.{artifact}.json", text)
    result = project.run()
    result.assert_outcomes(failed=1)
    output = project.output(result)
    assert f"f.{artifact}.json does not hold what pytest-stages writes there ({problem})" in output, output
    assert "Traceback" not in output and "Error" not in output.split("pytest-stages: snapshot")[0].split("___")[-1]
    project.run("--stages-update").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=1)


def test_metadata_with_a_string_format_is_repaired_by_the_update(project):
    recorded(project)
    project.write(f"{FOLDER}/_stages.json", '{"format": "1"}')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*has no integer "format" field; restore it from version control or run*'])
    project.run("--stages-update").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=1)


def test_a_fifo_in_place_of_a_snapshot_is_refused_without_blocking(project):
    recorded(project)
    os.remove(project.path / FOLDER / "f.cost.json")
    os.mkfifo(project.path / FOLDER / "f.cost.json")
    for args in ((), ("--stages-update",)):
        result = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=120)
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*f.cost.json is not a regular file (a FIFO, socket or device)*"])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file: permissions cannot be denied to it")
def test_an_unreadable_snapshot_names_the_file(project):
    recorded(project)
    (project.path / FOLDER / "f.cost.json").chmod(0)
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cannot read snapshot *f.cost.json (Permission denied)*"])


def test_a_snapshot_the_system_will_not_read_names_the_file_also_for_root(project):
    """The same refusal where no permission is involved (root reads every file): a file in place of
    the config's folder makes reading each snapshot in it fail with ``Not a directory``."""
    recorded(project)
    shutil.rmtree(project.path / FOLDER)
    (project.path / FOLDER).write_text("not a folder\n", encoding="utf-8")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*pytest-stages: cannot read snapshot *cpu1/_stages.json (Not a directory); give *"])
    assert "Traceback" not in project.output(result)
    assert (project.path / FOLDER).read_text(encoding="utf-8") == "not a folder\n"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('compilation_cache = "pyproject.toml"', "*compilation_cache = 'pyproject.toml' is a file, not a folder*"),
        ('compilation_cache = "a\\u0000b"', "*compilation_cache = 'a\\x00b' holds a control character*"),
        ('snapshot_dir = "snaps\\u0000"', "*snapshot_dir = 'snaps\\x00' holds a control character*"),
        ('snapshot_dir = "pyproject.toml"', "*snapshot_dir = 'pyproject.toml' is a file, not a folder*"),
    ],
)
def test_path_settings_that_cannot_be_used_are_usage_errors(project, settings, message):
    project.configure(settings)
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run()
    assert result.ret == USAGE, project.output(result)
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in "\n".join(result.errlines)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "big", "devices": 100000}, "devices = 100000 is more than the 4096 CPU devices"),
        ({"name": "big", "devices": 8, "mesh": {"a": 4096, "b": 4096}}, "a mesh of 16777216 devices is more than"),
        ({"name": "big", "mesh": {"a": 4096, "b": 4096}}, "devices = 16777216 is more than the 4096 CPU"),
        ({"name": "pod", "platform": "tpu", "topology": "v5e:512x512"}, "holds 262144 devices, more than the 16384"),
    ],
)
def test_configs_too_big_to_stage_are_refused_at_once(entry, message):
    start = time.monotonic()
    with pytest.raises(ConfigError, match=message):
        parse_configs([entry])
    assert time.monotonic() - start < 1


def test_bad_call_arguments_fail_the_test_with_one_paragraph(project):
    project.write(
        "test_model.py",
        "import jax, jax.numpy as jnp\n\ndef test_f(stage_snapshot):\n"
        "    stage_snapshot(None, jax.ShapeDtypeStruct((4,), jnp.float32))\n",
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*pytest-stages: stage_snapshot(None, ...): the first argument must be the function to stage*NoneType."]
    )
    assert "Traceback" not in project.output(result)
    project.write(
        "conftest.py",
        "import jax, jax.numpy as jnp\nfrom pytest_stages import register\n\n"
        "register(jnp.sin, args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name=5)\n",
    )
    result = project.run()
    result.assert_outcomes(failed=2)
    assert "INTERNALERROR" not in project.output(result) + "\n".join(result.errlines)
    assert "register('sin') at conftest.py:4: name=5 must be a non-empty string" in project.output(result)


def test_a_one_line_snapshot_of_megabytes_gives_a_message_bounded_in_width(project):
    recorded(project)
    project.write(f"{FOLDER}/f.compiled.hlo.txt", "x" * 2_000_000 + "\n")
    result = project.run("-vv")
    result.assert_outcomes(failed=1)
    output = project.output(result)
    assert max(len(line) for line in output.splitlines()) < 1200
    assert "more characters]" in output


# --- reports, pure ------------------------------------------------------------------------------


def test_snapshot_shapes_are_checked_only_for_json_artifacts_that_parse():
    assert invalid_snapshot("f.cost.json", '{"compiled": {"flops": 1.0}}') is None
    assert invalid_snapshot("f.cost.json", "not json") is None, "the comparison names a parse error itself"
    assert invalid_snapshot("f.jaxpr.txt", "[]") is None
    assert invalid_snapshot("f.memory.json", '{"temp_size_in_bytes": [1]}') == (
        "the file['temp_size_in_bytes'] is a list"
    )
    assert invalid_snapshot("f.ops.json", '{"loops": [{"collectives": [{"op": 3}]}]}') == (
        "the file['loops'][0]['collectives'][0]['op'] is the number 3"
    )


def test_control_characters_are_escaped_and_lines_bounded():
    assert visible("a\x1b[2Jb\x1b]0;pwned\x07\tc") == "a\\x1b[2Jb\\x1b]0;pwned\\x07\tc"
    assert clip("x" * 12, 10) == "xxxxxxxxxx… [2 more characters]"
    assert shown("ok\n\x9bline") == "ok\n\\x9bline"


def _record(name, *diff_lines):
    added = [["+", None, None, k + 1, line, None] for k, line in enumerate(diff_lines)]
    detail = {"summary": ["1 line changed"], "hunks": [[["-", 1, "old", None, None, None], *added]]}
    return CallRecord(
        nodeid="test_m.py::test_f\x1b[31m",
        config="cpu1",
        name=name,
        folder="test_m/test_f/cpu1",
        status={"jaxpr": "changed"},
        findings=[Finding("text", "jaxpr", "jaxpr changed", detail=detail)],
    )


def test_markdown_fences_outlast_backticks_and_names_show_escapes():
    record = _record("f\x1b]0;title\x07", "```", "## injected", "<details>")
    text = markdown(RunReport([record], False, {"jax": "x"}))
    lines = text.splitlines()
    opening = next(line for line in lines if line.strip().endswith("diff") and line.strip().startswith("`"))
    fence = opening.strip()[: -len("diff")]
    assert len(fence) >= 4, "longer than the ``` inside the diff"
    assert f"  {fence}" in lines[lines.index(opening) + 1 :]
    assert "\x1b" not in text and "\\x1b]0;title\\x07" in text
    assert "\x1b" not in "".join(cell for row in table_rows([_record("f", "x")]) for cell in row)
