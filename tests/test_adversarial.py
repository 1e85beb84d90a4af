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
    from pytest_stages.core.inputs import InputError, parse_json

    with pytest.raises(InputError) as raised:
        parse_json(text)
    assert str(raised.value).startswith(problem)


def test_the_json_reader_reads_what_pytest_stages_writes():
    from pytest_stages.core.inputs import parse_json

    text = '{"a": [1, 2.5, -3e10, null, true, "\\u00e9\\ud83d\\ude00"], "b": ' + "[" * 99 + "]" * 99 + "}"
    assert parse_json(text) == {"a": [1, 2.5, -3e10, None, True, "é😀"], "b": eval("[" * 99 + "]" * 99)}


def test_the_file_reader_refuses_a_fifo_and_a_device_without_blocking(tmp_path):
    import os

    from pytest_stages.core.inputs import InputError, read_bytes

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
