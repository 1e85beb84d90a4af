"""Inputs an adversarial trial found to lose data, raise, abort or hang (issue 46, item 7): each now an error.

Every test here failed before its fix (see the commit that added it): a prune that deleted a
test's snapshots, a traceback, a read that never ended.
"""

from __future__ import annotations

import pytest

SIN_TEST = """
import jax, jax.numpy as jnp, pytest

def test_sin(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")
"""


@pytest.mark.parametrize(("configs", "shown"), [("[]", "[]"), ('""', "''"), ('","', "','"), ("()", "()")])
def test_a_stages_marker_naming_no_config_fails_and_the_prune_keeps_its_files(project, configs, shown):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write(
        "tests/test_m.py", SIN_TEST.replace("def test_sin", f"@pytest.mark.stages(configs={configs})\ndef test_sin")
    )
    result = project.run("--stages-prune")
    output = project.output(result)
    assert project.snapshots() == before, output
    result.assert_outcomes(errors=1)
    assert f"@pytest.mark.stages(configs={shown}) on tests/test_m.py::test_sin names no config" in output, output
    assert "--stages-prune refused: 1 collection error(s) (tests/test_m.py::test_sin[bad-configs])" in output, output


# --- one JSON reader: depth, numbers, text ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 200000, "nested deeper than 100 levels"),
        ("[" * 101 + "]" * 101, "nested deeper than 100 levels"),
        ('{"flops": NaN}', "NaN is not a number JSON holds"),
        ('{"flops": -Infinity}', "-Infinity is not a number JSON holds"),
        ('{"flops": 1e400}', "the number 1e400 is beyond a float's range"),
        ('{"flops": 1' + "0" * 400 + "}", "the number 1000000000000000000000000000000000000000... is beyond"),
        ('{"a": "\\ud800"}', "the string '\\ud800' holds a lone surrogate, which is no text"),
        ('{"\\udfff": 1}', "the string '\\udfff' holds a lone surrogate, which is no text"),
        ('{"format": ', "Expecting value, line 1"),
    ],
)
def test_the_json_reader_refuses_what_pytest_stages_never_writes(text, problem):
    from pytest_stages.core.errors import InputError
    from pytest_stages.core.inputs import parse_json

    with pytest.raises(InputError) as raised:
        parse_json(text)
    assert str(raised.value).startswith(problem)


def test_the_json_reader_reads_what_pytest_stages_writes():
    from pytest_stages.core.inputs import parse_json

    text = '{"a": [1, 2.5, -3e10, null, true, "\\u00e9\\ud83d\\ude00"], "b": ' + "[" * 99 + "]" * 99
    text += ', "c": "' + "[{" * 200 + '\\"]"}'
    nested = eval("[" * 99 + "]" * 99)
    assert parse_json(text) == {"a": [1, 2.5, -3e10, None, True, "é😀"], "b": nested, "c": "[{" * 200 + '"]'}


def test_the_file_reader_refuses_a_fifo_and_a_device_without_blocking(tmp_path):
    import os

    from pytest_stages.core.errors import InputError
    from pytest_stages.core.inputs import read_bytes

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        with pytest.raises(InputError, match=r"not a regular file \(a folder, FIFO, socket or device\)"):
            read_bytes(path)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="larger than 100 bytes"):
        read_bytes(big, limit=100)
    assert read_bytes(big, limit=101) == b"x" * 101


def test_a_cost_snapshot_holding_nan_is_corrupt_not_a_nan_change(project):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    cost = project.path / "snapshots/tests/test_m/test_sin/cpu1/sin.cost.json"
    cost.write_text(cost.read_text().replace('"transcendentals": 4.0', '"transcendentals": NaN'))
    result = project.run()
    output = project.output(result)
    result.assert_outcomes(failed=1)
    assert f"pytest-stages: snapshot {cost} is not valid JSON (NaN is not a number JSON holds)" in output, output
    assert "nan%" not in output
    cost.write_text(cost.read_text().replace("NaN", "1e400"))
    output = project.output(project.run())
    assert "is not valid JSON (the number 1e400 is beyond a float's range)" in output, output
    assert "OverflowError" not in output


def test_a_deeply_nested_stages_json_fails_its_test_and_keeps_the_summary(project):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    meta = project.path / "snapshots/tests/test_m/test_sin/cpu1/_stages.json"
    meta.write_text("[" * 200000)
    result = project.run()
    output = project.output(result)
    result.assert_outcomes(failed=1)
    assert "RecursionError" not in output and "INTERNALERROR" not in output, output
    assert f"snapshot metadata {meta} is not valid JSON (nested deeper than 100 levels)" in output, output
    assert "1 failed" in output.splitlines()[-1]
    project.run("--stages-update").assert_outcomes(passed=1)
    assert '"format"' in meta.read_text()


def test_a_lone_surrogate_in_stages_json_is_repaired_by_an_update(project):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    meta = project.path / "snapshots/tests/test_m/test_sin/cpu1/_stages.json"
    meta.write_text(meta.read_text().replace('"format"', '"x": "\\ud800", "format"'))
    result = project.run("--stages-update")
    output = project.output(result)
    result.assert_outcomes(passed=1)
    assert "UnicodeEncodeError" not in output, output
    assert "ud800" not in meta.read_text()
    project.run().assert_outcomes(passed=1)


def test_deeply_nested_json_as_a_merge_input_or_a_baseline_is_a_usage_error(project, tmp_path):
    import io

    from pytest_stages.report import cli

    nested = tmp_path / "nested.json"
    nested.write_text("[" * 200000)
    stream = io.StringIO()
    assert cli.main(["merge", str(nested)], stream=stream) == cli.USAGE
    assert stream.getvalue().startswith(
        f"pytest-stages merge: cannot read {nested} (not valid JSON: nested deeper than 100 levels). Pass the JSON "
    ), stream.getvalue()
    project.write("tests/test_m.py", SIN_TEST)
    result = project.run(f"--stages-baseline={nested}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: pytest-stages: --stages-baseline={nested}: cannot read it as JSON (not valid JSON: nested deeper "
        "than 100 levels); name a report an earlier run wrote with --stages-report=PATH.json."
    ) in result.errlines, result.errlines


# --- no hang on a FIFO or a device -----------------------------------------------------------


def _command(*args, env=None, timeout=120):
    """``python -m pytest_stages ARGS`` in a fresh process (a hang fails by its timeout)."""
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "pytest_stages", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_the_diff_command_refuses_a_fifo_and_dev_zero(tmp_path):
    import os

    fifo = tmp_path / "f.jaxpr.txt"
    os.mkfifo(fifo)
    other = tmp_path / "g.jaxpr.txt"
    other.write_text("x\n")
    for name in (str(fifo), "/dev/zero"):
        done = _command("diff", name, str(other), timeout=60)
        assert done.returncode == 2, done
        assert done.stdout == (
            f"pytest-stages diff: cannot read {name} (not a regular file (a folder, FIFO, socket or device)). "
            "Pass two readable text files.\n"
        )


def test_a_step_summary_pointing_at_a_fifo_neither_blocks_pytest_nor_the_merge(project, tmp_path, monkeypatch):
    import os

    fifo = tmp_path / "summary"
    os.mkfifo(fifo)
    project.write("tests/test_m.py", SIN_TEST)
    report = tmp_path / "r.json"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    result = project.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--stages-update", f"--stages-report={report}", timeout=300
    )
    result.assert_outcomes(passed=1)
    message = (
        f"pytest-stages: could not append to $GITHUB_STEP_SUMMARY {fifo} (not a regular file (a FIFO, socket or "
        "device); point it at a file)."
    )
    assert message in result.outlines, result.outlines
    done = _command("merge", str(report), env={"GITHUB_STEP_SUMMARY": str(fifo)}, timeout=120)
    assert f"pytest-stages merge: cannot write {fifo} (not a regular file" in done.stdout, done


# --- settings and folders that would corrupt or crash ----------------------------------------


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"diff_lines": "x"}, "[tool.pytest_stages] diff_lines must be an integer, got 'x'."),
        ({"static_scalars": 1}, "[tool.pytest_stages] static_scalars must be true or false, got 1."),
        (
            {"snapshot_dir": "a/" + "x" * 256},
            f"[tool.pytest_stages] snapshot_dir = 'a/{'x' * 38}...{'x' * 40}' "
            "has a folder name of 256 bytes; file systems take at most 255 a name. Name a folder with shorter names.",
        ),
        ({"compilation_cache": "é" * 128}, "[tool.pytest_stages] compilation_cache = 'ééé"),
    ],
)
def test_settings_a_file_system_cannot_hold_or_of_the_wrong_type_are_named_in_words(table, message):
    from pytest_stages.config.settings import parse_settings
    from pytest_stages.core.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        parse_settings(table)
    assert str(raised.value).startswith(message), str(raised.value)


def test_a_snapshot_dir_over_255_bytes_is_a_usage_error_not_an_internal_error(project):
    project.configure(f'snapshot_dir = "{"s" * 300}"')
    project.write("tests/test_m.py", SIN_TEST)
    result = project.run("--stages-update")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, project.output(result)
    assert "INTERNALERROR" not in project.output(result)
    assert any("has a folder name of 300 bytes; file systems take at most 255" in line for line in result.errlines)


@pytest.mark.parametrize("where", ["snapshot_dir", "--rootdir"])
def test_snapshots_are_never_written_inside_git(project, where):
    import subprocess

    subprocess.run(["git", "init", "-q", str(project.path)], check=True)
    refs = project.path / ".git/refs"
    before = sorted(p.relative_to(refs) for p in refs.rglob("*"))
    project.write("tests/test_m.py", SIN_TEST)
    if where == "snapshot_dir":
        project.configure('snapshot_dir = ".git/refs"')
        result = project.run("--stages-update")
        shown = ".git/refs"
    else:
        project.configure('snapshot_dir = "snapshots"')
        result = project.run("--stages-update", f"--rootdir={refs}", "-c", str(project.path / "pyproject.toml"))
        shown = "snapshots"
    assert sorted(p.relative_to(refs) for p in refs.rglob("*")) == before
    assert result.ret == pytest.ExitCode.USAGE_ERROR, project.output(result)
    lines = [line for line in result.errlines if line.startswith("ERROR: pytest-stages: ")]
    assert lines and lines[0].startswith(f"ERROR: pytest-stages: snapshot_dir = {shown!r} resolves to "), lines
    assert ", inside .git, version control's own folder: files written there corrupt the repository." in lines[0]


def test_a_compilation_cache_in_the_snapshot_folder_is_a_usage_error(project):
    project.write("tests/test_m.py", SIN_TEST)
    for cache, where in [("snapshots", "is the snapshot folder"), ("snapshots/cache", "is inside the snapshot folder")]:
        project.configure(f'compilation_cache = "{cache}"')
        result = project.run()
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert (
            f"ERROR: pytest-stages: [tool.pytest_stages] compilation_cache = {cache!r} {where} (snapshot_dir = "
            "'snapshots'): JAX's cache files would mix with the snapshots"
        ) in "\n".join(result.errlines), result.errlines
    assert not (project.path / "snapshots").exists()


def test_a_pyproject_above_that_is_not_utf8_is_no_traceback(pytester):
    (pytester.path / "pyproject.toml").write_bytes(b'[tool.other]\nname = "\xff\xfe"\n')
    inner = pytester.mkdir("inner")
    (inner / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    (inner / "pytest.ini").write_text("[pytest]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", str(inner), f"--rootdir={inner}")
    result.assert_outcomes(passed=1)
    assert "UnicodeDecodeError" not in "\n".join(result.outlines + result.errlines)


def test_the_own_pyproject_not_utf8_is_a_usage_error_naming_it():
    import tempfile
    from pathlib import Path

    from pytest_stages.config.discovery import load_pyproject
    from pytest_stages.core.errors import ConfigError

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "pyproject.toml").write_bytes(b"[tool.pytest_stages]\nsnapshot_dir = '\xff'\n")
        with pytest.raises(ConfigError, match=r"pyproject.toml is not UTF-8 text \(byte 37\), as TOML must be; save"):
            load_pyproject(Path(folder))


@pytest.mark.parametrize("name", ["pytest.ini", "setup.cfg", "tox.ini"])
def test_a_pytest_stages_section_in_an_ini_file_is_warned_about(pytester, name):
    section = "[pytest]" if name != "setup.cfg" else "[tool:pytest]"
    pytester.makefile(
        name[name.index(".") :], **{name.split(".")[0]: f'{section}\n\n[tool.pytest_stages]\nsnapshot_dir = "s"\n'}
    )
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, warnings=1)
    assert (
        f"pytest-stages: {pytester.path / name} has a [tool.pytest_stages] section, but pytest-stages reads its "
        "settings from pyproject.toml only, so that section is ignored and the defaults apply. Move it into "
        f"{pytester.path / 'pyproject.toml'} as a [tool.pytest_stages] table"
    ) in "\n".join(result.outlines), result.outlines


# --- names pytest-stages gives its own folders never meet a module's -------------------------

MODULES = [
    ("stages",),
    ("stages_",),
    ("stages__",),
    ("stages", "test_a"),
    ("_outside_rootdir", "test_a"),
    ("_outside_rootdir_", "test_a"),
    ("_outside_rootdir", "_up", "test_a"),
    ("tests", "_up", "test_a"),
    ("tests", "test_a"),
    ("..", "test_a"),
    ("..", "..", "test_a"),
    ("..", "_up", "test_a"),
    ("..", "_up_", "test_a"),
    ("..", "..", "_up", "test_a"),
]


def test_module_folders_are_distinct_and_apart_from_the_plugins_own():
    from pytest_stages.store.names import OUTSIDE_ROOTDIR, REGISTERED_MODULE, module_folder, module_source

    folders = [module_folder(steps) for steps in MODULES]
    assert len(set(folders)) == len(folders), folders
    for steps, folder in zip(MODULES, folders, strict=True):
        outside = steps[0] == ".."
        assert folder.startswith(f"{OUTSIDE_ROOTDIR}/") == outside, folder
        assert folder != REGISTERED_MODULE
        assert module_source(folder) == (None if outside else "/".join(steps) + ".py"), folder
    # Paths recorded before: unchanged where nothing collides.
    assert module_folder(("tests", "test_a")) == "tests/test_a"
    assert module_folder(("stages", "test_a")) == "stages/test_a"
    assert module_folder(("..", "x", "test_a")) == "_outside_rootdir/_up/x/test_a"


STAGES_MODULE = """
import jax, jax.numpy as jnp

def test_x(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")
"""

REGISTERS_TEST_X = """
import jax, jax.numpy as jnp
from pytest_stages import register

register(lambda x: jnp.tanh(x), args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="test_x")
"""


def test_a_module_named_stages_keeps_apart_from_the_registered_functions(project):
    project.configure("\n[tool.pytest.ini_options]\npython_files = ['test_*.py', 'stages.py']\n")
    project.write("conftest.py", REGISTERS_TEST_X)
    project.write("stages.py", STAGES_MODULE)
    project.run("--stages-update").assert_outcomes(passed=2)
    recorded = project.snapshots()
    assert {path.rsplit("/", 1)[0] for path in recorded} == {"stages/test_x/cpu1", "stages_/test_x/cpu1"}
    result = project.run("stages.py", "--stages-prune")
    result.assert_outcomes(passed=1)
    assert project.snapshots() == recorded, project.output(result)


# --- a merge prunes only the checkout its shards ran ------------------------------------------

NAMED_BY_HELPER = """
import jax, jax.numpy as jnp
from helper import NAME

def test_sin(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name=NAME)
"""


def _git(project, *args):
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(project.path), *args],
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize("vcs", ["git", "none"])
def test_a_merge_prune_refuses_a_report_of_another_commit_or_snapshot_tree(project, tmp_path, vcs):
    import io

    from pytest_stages.report import cli

    project.write("tests/helper.py", 'NAME = "old"\n')
    project.write("tests/test_m.py", NAMED_BY_HELPER)
    if vcs == "git":
        _git(project, "init", "-q")
    project.run("--stages-update").assert_outcomes(passed=1)
    if vcs == "git":
        _git(project, "add", "-A")
        _git(project, "commit", "-qm", "one")
    old_report = tmp_path / "old.json"
    project.run(f"--stages-report={old_report}").assert_outcomes(passed=1)
    # The next commit: the helper renames the call; the test module's bytes stay the same.
    project.write("tests/helper.py", 'NAME = "new"\n')
    project.run("--stages-update").assert_outcomes(passed=1)
    if vcs == "git":
        _git(project, "add", "-A")
        _git(project, "commit", "-qm", "two")
    current = project.snapshots()
    assert any(path.endswith("new.cost.json") for path in current)
    stream = io.StringIO()
    status = cli.main(["merge", "--prune", "--rootdir", str(project.path), str(old_report)], stream=stream)
    lines = stream.getvalue().splitlines()
    assert project.snapshots() == current, lines
    assert status == cli.INCOMPLETE, lines
    refusal = lines[-1]
    assert refusal.startswith(f"pytest-stages: merge --prune refused: {old_report} "), lines
    if vcs == "git":
        assert "ran commit " in refusal and f", the checkout in {project.path} is at commit " in refusal, refusal
    else:
        assert (
            f"saw another snapshot tree than the one in {project.path} (its files or _stages.json manifests" in refusal
        )
    assert refusal.endswith(
        "; nothing was deleted. Merge the reports of shards that ran this checkout, as it is now, from its root "
        "(--rootdir)."
    )
    # A report of this very checkout prunes: the old call's files are unused now.
    new_report = tmp_path / "new.json"
    project.run(f"--stages-report={new_report}").assert_outcomes(passed=1)
    status = cli.main(["merge", "--prune", "--rootdir", str(project.path), str(new_report)], stream=io.StringIO())
    assert {path for path in current if path not in project.snapshots()} == {
        f"tests/test_m/test_sin/cpu1/old{suffix}"
        for suffix in (
            ".jaxpr.txt",
            ".stablehlo.mlir",
            ".compiled.hlo.txt",
            ".cost.json",
            ".memory.json",
            ".ops.json",
            ".sharding.json",
            ".layout.json",
        )
    }


def test_a_merge_prune_refuses_a_report_that_recorded_no_state():
    from pytest_stages.store.prune import Evidence, refusal
    from pytest_stages.store.refusals import Facet, OtherState

    evidence = Evidence(prune=True, states=[("a.json", "", "")], here=("", "d1"))
    assert refusal(evidence) == OtherState("a.json", Facet.SNAPSHOTS, "", "d1")
    evidence = Evidence(prune=True, states=[("a.json", "c1", "d1"), ("b.json", "c2", "d1")], here=("c1", "d1"))
    assert refusal(evidence) == OtherState("b.json", Facet.COMMIT, "c2", "c1")
    assert refusal(Evidence(prune=True, states=[("a.json", "c1", "d0")], here=("c1", "d1"), wrote=True)) is None
    assert refusal(Evidence(prune=True, states=[("a.json", "c1", "d1")], here=("c1", "d1"))) is None


# --- a prune that cannot delete ------------------------------------------------------------------


def test_a_prune_that_cannot_delete_a_file_says_so_and_keeps_the_rest(tmp_path):
    """A file replaced by a folder after the listing (root ignores a read-only folder's mode; this fails for all)."""
    from pytest_stages.core.errors import SnapshotError
    from pytest_stages.store.storage import SnapshotStore

    root = tmp_path / "snapshots"
    (root / "m/t/c/f.cost.json").mkdir(parents=True)
    (root / "m/t/c/g.cost.json").write_text("{}\n")
    store = SnapshotStore(root)
    with pytest.raises(SnapshotError) as raised:
        store.prune([root / "m/t/c/f.cost.json", root / "m/t/c/g.cost.json"])
    assert str(raised.value).startswith(f"could not delete {root / 'm/t/c/f.cost.json'} (")
    assert str(raised.value).endswith(
        "0 of 2 file(s) were deleted, the others are kept. Give the user running pytest write access to the "
        "snapshot folder, then prune again."
    )
    assert (root / "m/t/c/g.cost.json").exists()


@pytest.mark.skipif(__import__("os").geteuid() == 0, reason="root deletes in a read-only folder")
def test_a_prune_in_a_read_only_folder_is_a_message_not_a_traceback(project):
    project.write("tests/test_m.py", SIN_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    folder = project.path / "snapshots/tests/test_m/test_sin/cpu1"
    (folder / "stale.cost.json").write_text("{}\n")
    project.plant({"tests/test_m/test_sin/cpu1/stale.cost.json": "{}\n"}, "")
    folder.chmod(0o555)
    try:
        result = project.run("--stages-prune")
    finally:
        folder.chmod(0o755)
    output = project.output(result)
    assert "PermissionError" not in output and "INTERNALERROR" not in output, output
    assert f"pytest-stages: could not delete {folder / 'stale.cost.json'} (Permission denied); 0 of 1 file(s)" in output


@pytest.mark.extras("cuda")
def test_jax_platforms_naming_a_platform_that_cannot_start_is_a_message(project, monkeypatch):
    """With the CUDA plugin installed but no GPU, ``JAX_PLATFORMS=cuda`` starts no backend."""
    import jax

    if jax.default_backend() == "gpu":
        pytest.skip("a GPU is attached: cuda starts")
    project.write("tests/test_m.py", SIN_TEST)
    monkeypatch.setenv("JAX_PLATFORMS", "cuda")
    result = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(errors=1)
    output = "\n".join(result.outlines)
    assert "AssertionError" not in output, output
    assert (
        "pytest-stages: config 'cpu1' stages on cpu, but JAX started no backend: JAX_PLATFORMS='cuda' names only "
        "platforms that could not start here (JAX's log says why). Unset JAX_PLATFORMS"
    ) in output, output


@pytest.mark.parametrize(
    ("arguments", "named", "what"),
    [
        ("print, 5, None", "print", "a Python builtin, which JAX never traces"),
        ("5", "5", "neither a function nor a name"),
        ("jnp.sin, None", "None", "neither a function nor a name"),
        ("''", "''", "neither a function nor a name"),
    ],
)
def test_stage_compiles_of_what_jax_never_traces_is_an_error(project, arguments, named, what):
    project.write(
        "tests/test_c.py",
        f"""
        import jax, jax.numpy as jnp

        def test_c(stage_compiles):
            with stage_compiles({arguments}):
                jax.jit(jnp.sin)(jnp.ones(3))
        """,
    )
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    output = project.output(result)
    assert (
        f"in tests/test_c.py::test_c: {named} is {what}. Pass the functions whose compiles the block counts" in output
    ), output
    assert "Traceback" not in output


# --- TPU topologies libtpu would abort the process on -------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"topology": "v5e:32x32"},
            "config 'big': topology 'v5e:32x32' is larger than a v5e slice can be: at most 16 chips along each axis "
            "(v5e:16x16); libtpu would abort the process compiling for it. Name a smaller slice, or join slices with "
            'num_slices (e.g. topology = "v5e:16x16", num_slices = 2).',
        ),
        ({"topology": "v5e:16x32"}, "config 'big': topology 'v5e:16x32' is larger than a v5e slice can be"),
        (
            {"topology": "v5e:2x2", "num_slices": 2**40},
            "config 'big': num_slices = 1099511627776 slices of topology 'v5e:2x2' hold 4398046511104 devices, more "
            "than the 16384 pytest-stages stages; name at most 4096 slices.",
        ),
    ],
)
def test_a_tpu_topology_libtpu_aborts_on_is_a_usage_error(entry, message):
    from pytest_stages.config.devices import parse_configs
    from pytest_stages.core.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        parse_configs([{"name": "big", "platform": "tpu", **entry}])
    assert str(raised.value).startswith(message), str(raised.value)


def test_the_largest_tpu_topologies_it_accepts_parse():
    from pytest_stages.config.devices import parse_configs

    for entry in ({"topology": "v5e:16x16"}, {"topology": "v5e:2x2", "num_slices": 4096}, {"topology": "v6e:32x16"}):
        parse_configs([{"name": "ok", "platform": "tpu", **entry}])


@pytest.mark.extras("tpu")
@pytest.mark.parametrize("topology", ["v5e:16x32", "v5e:2x2|4096"])
def test_what_libtpu_accepts_is_what_the_config_accepts(topology):
    """The measured bound: libtpu aborts a process compiling for v5e:16x32, and compiles 4096 slices of v5e:2x2."""
    import subprocess
    import sys

    name, _, slices = topology.partition("|")
    code = (
        "import os, numpy as np, jax, jax.numpy as jnp\n"
        "os.environ.setdefault('ALLOW_MULTIPLE_LIBTPU_LOAD', '1')\n"
        "from jax.experimental import topologies\n"
        "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
        f"d = topologies.get_topology_desc(platform='tpu', topology_name={name!r}, num_slices={int(slices or 1)})\n"
        "s = NamedSharding(Mesh(np.array(d.devices), ('d',)), P())\n"
        "jax.jit(jnp.sin, in_shardings=s, out_shardings=s).lower(jax.ShapeDtypeStruct((4,), jnp.float32)).compile()\n"
        "print('compiled', len(d.devices))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"},
        check=False,
    )
    if slices:
        assert done.returncode == 0 and done.stdout.strip() == "compiled 16384", done.stderr[-2000:]
    else:
        assert done.returncode < 0 and "chip_bounds().y <= 16" in done.stderr, (done.returncode, done.stderr[-2000:])
