"""Compile behaviour as checked figures: compile counts (stage_compiles), compile time, collectives per loop body."""

from __future__ import annotations

import json

import pytest
from jax._src import monitoring

DECODE = """
import jax, jax.numpy as jnp

@jax.jit
def step(x, w):
    return jnp.tanh(x @ w).sum()

BATCHES = {batches}

def test_decode(stage_compiles):
    w = jnp.ones((4, 4))
    with stage_compiles():
        for batch in BATCHES:
            step(jnp.ones((batch, 4)), w)
"""
COMPILES = "test_loop/test_decode/_compiles/compiles.compiles.json"


def decode(batches):
    return DECODE.format(batches=batches)


def test_three_batch_sizes_record_three_compiles_with_their_signatures(project):
    project.write("test_loop.py", decode("(1, 2, 3, 2, 1)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    data = json.loads(project.snapshots()[COMPILES])
    assert data == {
        "functions": {
            "step": {
                "traces": 3,
                "lowerings": 3,
                "compiles": 3,
                "signatures": ["f32[1,4], f32[4,4]", "f32[2,4], f32[4,4]", "f32[3,4], f32[4,4]"],
            }
        }
    }
    project.run().assert_outcomes(passed=1)


def test_a_fourth_compile_fails_naming_the_new_signature_and_jaxs_explanation(project):
    project.write("test_loop.py", decode("(1, 2, 3)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write("test_loop.py", decode("(1, 2, 3, 4)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "pytest-stages: 'compiles' on config _compiles differs from its snapshots" in out
    assert (
        "compiles: step: 4 traces, was 3; 4 lowerings, was 3; 4 compiles, was 3; new signature (f32[4,4], f32[4,4])"
        in out
    )
    assert "JAX: TRACING CACHE MISS at" in out
    assert "* at x, now f32[4,4] and before f32[" in out
    assert project.snapshots() == before
    # xdist: the same verdict from a worker, and the record reaches the controller's report.
    report = project.path / "report.json"
    result = project.run("-p", "xdist", "-n", "2", f"--stages-report={report}")
    result.assert_outcomes(failed=1)
    assert "new signature (f32[4,4], f32[4,4])" in project.output(result)
    (call,) = json.loads(report.read_text())["calls"]
    assert call["status"]["compiles"] == "changed" and call["compile_seconds"]["compile"] > 0


def test_the_compiles_budget_caps_compiles_per_function_even_in_update_mode(project):
    project.write(
        "test_loop.py",
        "import pytest\n"
        + decode("(1, 2, 3)").replace("def test_decode", "@pytest.mark.stages_budget(compiles=2)\ndef test_decode"),
    )
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "budget: step: 3 compiles exceed the ceiling 2; new signature (f32[3,4], f32[4,4])" in out
    assert project.snapshots() == {}


def test_fewer_compiles_pass_as_an_improvement(project):
    project.write("test_loop.py", decode("(1, 2, 3)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_loop.py", decode("(1, 2)"))
    result = project.run()
    result.assert_outcomes(passed=1)


def test_a_corrupt_compiles_snapshot_fails_naming_it_and_the_fix_and_is_left_as_it_is(project):
    project.write("test_loop.py", decode("(1, 2)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    snapshot = project.path / "snapshots" / COMPILES
    snapshot.write_text('{"functions": ')
    result = project.run()
    output = project.output(result)
    result.assert_outcomes(failed=1)
    assert (
        f"pytest-stages: snapshot {snapshot} is not valid JSON (Expecting value, line 1): it was corrupted or edited "
        "by hand. Restore it from version control, or run `pytest --stages-update test_loop.py::test_decode` to "
        "record it again."
    ) in output, output
    assert "Traceback" not in output
    assert snapshot.read_text() == '{"functions": '


def test_a_compiles_snapshot_of_a_failing_test_is_never_pruned(project):
    project.write("test_loop.py", decode("(1, 2)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write("test_loop.py", decode("(1, 2)") + "\n    raise RuntimeError('user code failed')\n")
    project.run("--stages-prune").assert_outcomes(failed=1)
    assert project.snapshots() == before


PARAMETRIZED = """
import jax, jax.numpy as jnp, pytest

@jax.jit
def step(x):
    return jnp.tanh(x).sum()

@pytest.mark.parametrize("batches", [(1,), (2, 3)])
def test_decode(stage_compiles, batches):
    with stage_compiles(name="step 1/b"):
        for batch in batches:
            step(jnp.ones((batch, 4)))
"""


def test_parametrized_blocks_keep_their_own_files_under_sanitized_names_that_a_prune_keeps(project):
    project.write("test_loop.py", PARAMETRIZED)
    project.run("--stages-update").assert_outcomes(passed=2)
    snapshots = project.snapshots()
    counts = {
        path: json.loads(text)["functions"]["step"]["compiles"]
        for path, text in snapshots.items()
        if not path.endswith("_stages.json")  # each folder's metadata: its manifest
    }
    assert counts == {
        "test_loop/test_decode[batches0]/_compiles/step_1_b~c26e6bf1ff.compiles.json": 1,
        "test_loop/test_decode[batches1]/_compiles/step_1_b~c26e6bf1ff.compiles.json": 2,
    }
    project.run("--stages-prune").assert_outcomes(passed=2)
    assert project.snapshots() == snapshots


GATHER = """
import jax, jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P


def layers(ws, x):
    {outside}
    def layer(h, w):
        {inside}
        return jnp.tanh(h @ w), None

    return jax.lax.scan(layer, x, ws)[0]


@pytest.mark.stages(configs=["cpu8"])
def test_layers(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    ws = jax.ShapeDtypeStruct((12, 64, 64), jnp.float32, sharding=NamedSharding(mesh, P(None, None, "model")))
    x = jax.ShapeDtypeStruct((32, 64), jnp.float32, sharding=NamedSharding(mesh, P("data")))
    stage_snapshot(layers, ws, x)
"""
RESHARD = "w = jax.sharding.reshard(w, P())"
RESHARD_ALL = "ws = jax.sharding.reshard(ws, P())"


def test_an_all_gather_moved_into_a_scan_body_is_the_headline(project):
    from conftest import TWO_CONFIGS

    project.configure(configs=TWO_CONFIGS)
    project.write("test_scan.py", GATHER.format(outside=RESHARD_ALL, inside="pass"))
    project.run("--stages-update").assert_outcomes(passed=1)
    ops = json.loads(project.snapshots()["test_scan/test_layers/cpu8/layers.ops.json"])
    assert ops["loops"] == [{"collectives": [], "trip_count": 12}]
    project.write("test_scan.py", GATHER.format(outside="pass", inside=RESHARD))
    result = project.run("-p", "xdist", "-n", "2", "--stages-check=text")
    result.assert_outcomes(failed=1)
    headline = next(line for line in result.outlines if line.startswith("  op structure: "))
    assert headline.startswith(
        "  op structure: all-gather moved into the while body of test_scan.py:13 in layers (x 12 iterations): "
        "f32[64,64] (16.0 KiB)"
    ), headline
    # The compiled HLO drift summary says it too (without the source line, which ops.json has).
    assert "    loops: all-gather moved into the while body of loop 1 (x 12 iterations): f32[64,64] (16.0 KiB)" in (
        result.outlines
    )


def test_with_the_persistent_cache_on_a_hit_is_still_a_compile(project):
    """Fresh processes, the cache warm on the second run: the snapshot counts compile requests, so
    it does not change; the report says which compiles the cache answered."""
    project.configure('compilation_cache = "jaxcache"')
    project.write("test_loop.py", decode("(1, 2, 3)"))
    report = project.path / "report.json"
    cold = project.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--stages-update", f"--stages-report={report}"
    )
    cold.assert_outcomes(passed=1)
    recorded = project.snapshots()
    assert json.loads(report.read_text())["calls"][0]["cached"] is False
    warm = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--stages-report={report}")
    warm.assert_outcomes(passed=1)
    assert project.snapshots() == recorded
    assert json.loads(recorded[COMPILES])["functions"]["step"]["compiles"] == 3
    assert json.loads(report.read_text())["calls"][0]["cached"] is True


def test_compile_time_is_in_every_report_and_fails_only_where_a_budget_asks(project):
    from conftest import SIMPLE_TEST

    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    files = project.snapshots()
    for suffix in ("json", "md", "html"):
        project.run(f"--stages-report={project.path / ('report.' + suffix)}").assert_outcomes(passed=1)
    (call,) = json.loads((project.path / "report.json").read_text())["calls"]
    assert set(call["compile_seconds"]) == {"trace", "lower", "compile"}
    assert all(seconds > 0 for seconds in call["compile_seconds"].values())
    assert "seconds (trace/lower/compile)" in (project.path / "report.md").read_text()
    assert "seconds (trace/lower/compile)" in (project.path / "report.html").read_text()
    assert project.snapshots() == files  # wall time never reaches a snapshot
    project.write(
        "test_model.py",
        "import pytest\n"
        + SIMPLE_TEST.replace("def test_f", "@pytest.mark.stages_budget(compile_seconds=1e-6)\ndef test_f"),
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "exceeds the ceiling 1 µs (+50% noise margin: 1.5 µs)" in project.output(result)


def test_the_upgrade_section_lists_the_calls_whose_compile_time_moved_most():
    from pytest_stages.check.upgrade import upgrade_section
    from pytest_stages.core.records import CallRecord, DriftCause

    def call(name, seconds, cached=False):
        return CallRecord(
            nodeid="t.py::test",
            config="cpu1",
            name=name,
            folder="f",
            versions="snapshots were taken with jax 1; this run uses jax 2",
            version_change=["jax 1", "jax 2"],
            drift_cause=DriftCause.NONE,
            compile_seconds={"trace": 0.1, "compile": seconds},
            cached=cached,
        )

    now = [call("a", 0.9), call("b", 2.9), call("c", 5.0, cached=True)]
    before = [call("a", 0.9), call("b", 0.9), call("c", 0.1)]
    lines = upgrade_section(now, before)
    assert lines[-3:] == [
        "compile time moved most (2 call(s) timed on both sides; wall time, noisy):",
        "  t.py::test b: 1 s -> 3 s (+200%)",
        "  t.py::test a: 1 s -> 1 s (+0%)",
    ]
    assert not any("compile time" in line for line in upgrade_section(now))


def test_a_baseline_with_nothing_timed_is_not_ranked():
    from pytest_stages.check.upgrade import compile_time_moves
    from pytest_stages.core.records import CallRecord

    def call(seconds):
        return CallRecord("t.py::test", "cpu1", "a", "f", compile_seconds={"compile": seconds})

    assert compile_time_moves([call(0.05)], [call(0.0)]) == []


def test_a_bad_baseline_is_a_usage_error_naming_it(project, tmp_path):
    from conftest import SIMPLE_TEST

    project.write("test_model.py", SIMPLE_TEST)
    baseline = tmp_path / "old.json"
    fix = "name a report an earlier run wrote with --stages-report=PATH.json."
    for text, message in [
        ("not json", "cannot read it as JSON (not valid JSON: Expecting value, line 1); "),
        ('{"schema": "other"}', " is not a pytest-stages JSON report (schema pytest-stages-report/1); "),
        (
            '{"schema": "pytest-stages-report/1", "calls": [{"nodeid": "t::a", "compile_seconds": [1, 2]}]}',
            " is not a report as pytest-stages writes it (the report['calls'][0]['compile_seconds'] is a list, not "
            "an object): it was edited, cut off, or written by another pytest-stages version; ",
        ),
        (
            '{"schema": "pytest-stages-report/1", "calls": [{"nodeid": "t::a", "compile_seconds": {"trace": "1"}}]}',
            " is not a report as pytest-stages writes it (the report['calls'][0]['compile_seconds']['trace'] is a "
            "string, not a number): it was edited, cut off, or written by another pytest-stages version; ",
        ),
        (
            '{"schema": "pytest-stages-report/1", "calls": [7]}',
            " is not a report as pytest-stages writes it (the report['calls'][0] is the number 7, not an object): it "
            "was edited, cut off, or written by another pytest-stages version; ",
        ),
    ]:
        baseline.write_text(text)
        result = project.run(f"--stages-baseline={baseline}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        separator = ": " if message.startswith("cannot") else ""
        assert f"ERROR: pytest-stages: --stages-baseline={baseline}{separator}{message}{fix}" in result.errlines


ORDER = """
import jax, jax.numpy as jnp

jstep = jax.jit(lambda x: x * 2)

def test_a():
    jstep(jnp.ones(3))

def test_b(stage_compiles):
    with stage_compiles():
        jstep(jnp.ones(3))
        jstep(jnp.ones(4))
"""


def test_a_blocks_counts_do_not_depend_on_the_tests_before_it(project):
    project.write("test_order.py", ORDER)
    project.run("--stages-update").assert_outcomes(passed=2)
    data = json.loads(project.snapshots()["test_order/test_b/_compiles/compiles.compiles.json"])
    assert data["functions"]["<lambda>"]["compiles"] == 2
    project.run("-k", "test_b").assert_outcomes(passed=1)


WATCHED = """
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return jnp.tanh(x).sum()

def sample(x):
    return {call}

def test_sample(stage_compiles):
    with stage_compiles(step):
        for batch in (1, 2):
            sample(jnp.ones((batch, 4)))
"""


def test_a_watched_function_that_no_longer_runs_fails_instead_of_improving(project):
    project.write("test_sampler.py", WATCHED.format(call="step(x)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    # The sampler now re-jits a lambda on every call: `step` never runs, the block compiles more.
    project.write("test_sampler.py", WATCHED.format(call="jax.jit(lambda x: jnp.tanh(x).sum())(x)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "compiles: step: never ran; it compiled 2 times in the snapshot" in out
    assert "improved" not in out


def test_the_same_signatures_in_another_order_are_unchanged_and_not_rewritten(project):
    project.write("test_loop.py", decode("(1, 2, 3)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write("test_loop.py", decode("(3, 1, 2)"))
    report = project.path / "report.json"
    result = project.run(f"--stages-report={report}")
    result.assert_outcomes(passed=1)
    (call,) = json.loads(report.read_text())["calls"]
    assert call["status"]["compiles"] == "ok" and call["findings"] == []
    result = project.run("--stages-update")
    result.assert_outcomes(passed=1)
    assert project.snapshots() == before
    assert "compiles.compiles.json" not in project.output(result)


def test_a_session_listens_to_jax_while_it_runs_and_unregisters_at_its_end(project):
    """One listener per session (an event and a duration callback), gone when the session ends:
    a later session in the process counts nothing into it. JAX's listener lists are private."""

    def listeners():
        return len(monitoring.get_event_listeners()), len(monitoring.get_event_duration_listeners())

    before = listeners()
    project.write("test_loop.py", decode("(1, 2)"))
    project.write(
        "test_model.py",
        "import jax, jax.numpy as jnp\nfrom jax._src import monitoring\n\n"
        "def test_f(stage_snapshot):\n"
        "    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32))\n"
        f"    assert (len(monitoring.get_event_listeners()), len(monitoring.get_event_duration_listeners())) == "
        f"({before[0] + 1}, {before[1] + 1})\n",
    )
    project.run("--stages-update").assert_outcomes(passed=2)
    assert listeners() == before
    project.run().assert_outcomes(passed=2)
    assert listeners() == before
