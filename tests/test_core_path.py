"""The spine, as a user meets it: record, compare, drift, update, and what must never fail."""

from __future__ import annotations

import os

import pytest
from conftest import SIMPLE_TEST

FOLDER = "test_model/test_f/cpu1"
EXPECTED_FILES = {
    f"{FOLDER}/_stages.json",
    f"{FOLDER}/f.jaxpr.txt",
    f"{FOLDER}/f.stablehlo.mlir",
    f"{FOLDER}/f.compiled.hlo.txt",
    f"{FOLDER}/f.cost.json",
    f"{FOLDER}/f.memory.json",
    f"{FOLDER}/f.ops.json",
    f"{FOLDER}/f.sharding.json",
    f"{FOLDER}/f.layout.json",
}


def record(project, text=SIMPLE_TEST, passed=1):
    project.write("test_model.py", text)
    result = project.run("--stages-update")
    result.assert_outcomes(passed=passed)
    return project.snapshots()


def test_first_update_writes_every_artifact_and_says_so(project):
    files = record(project)
    assert set(files) == EXPECTED_FILES
    result = project.run()
    result.assert_outcomes(passed=1)
    assert project.snapshots() == files


def test_update_prints_how_much_it_wrote_and_lists_it_under_v(project):
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run("--stages-update")
    result.stdout.fnmatch_lines(["pytest-stages: wrote 9 snapshot file(s) in 1 folder(s) (pytest -v lists them)"])
    assert not [line for line in result.outlines if line.startswith("  snapshots/")], "one line, not one per file"
    again = project.run("--stages-update")
    again.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    (project.path / "snapshots" / FOLDER / "f.jaxpr.txt").unlink()
    listed = project.run("--stages-update", "-v")
    listed.stdout.fnmatch_lines(["pytest-stages: wrote 1 snapshot file(s)", f"  snapshots/{FOLDER}/f.jaxpr.txt"])


def test_snapshot_texts_are_free_of_locations_and_metadata(project):
    files = record(project)
    compiled = files[f"{FOLDER}/f.compiled.hlo.txt"].decode()
    assert "ENTRY" in compiled and "tanh" in compiled
    for noise in ("FileNames", "StackFrames", "metadata=", "test_model.py", str(project.path)):
        assert noise not in compiled
    assert "loc(" not in files[f"{FOLDER}/f.stablehlo.mlir"].decode()
    meta = files[f"{FOLDER}/_stages.json"].decode()
    assert '"jax": "0.10.2"' in meta and '"platform": "cpu"' in meta


def test_missing_snapshot_fails_with_the_hint_and_writes_nothing(project):
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'f' on config cpu1 has no snapshots yet in snapshots/test_model/test_f/cpu1/",
            "  no snapshot yet: jaxpr (f.jaxpr.txt), stablehlo (f.stablehlo.mlir), compiled (f.compiled.hlo.txt), "
            "cost (f.cost.json), layout (f.layout.json), memory (f.memory.json), ops (f.ops.json), "
            "sharding (f.sharding.json)",
            "Run `pytest --stages-update` to accept the changes if they are intended.",
        ]
    )
    assert project.snapshots() == {}


def test_shifted_lines_and_comments_do_not_change_snapshots(project):
    files = record(project)
    project.write("test_model.py", "# a comment\n\n\n\n" + SIMPLE_TEST.replace("    return", "\n    # why\n    return"))
    project.run().assert_outcomes(passed=1)
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots() == files


def test_moving_the_function_to_another_file_does_not_change_snapshots(project):
    files = record(project)
    project.write("helpers/__init__.py", "")
    project.write(
        "helpers/layers.py", "import jax.numpy as jnp\n\n\n\ndef f(x, w):\n    return jnp.tanh(x @ w).sum()\n"
    )
    moved = SIMPLE_TEST.replace("def f(x, w):\n    return jnp.tanh(x @ w).sum()\n", "from helpers.layers import f\n")
    project.write("test_model.py", moved)
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots() == files


def test_other_cwd_and_hash_seed_produce_identical_bytes(project, monkeypatch):
    files = record(project)
    (project.path / "elsewhere").mkdir()
    monkeypatch.chdir(project.path / "elsewhere")
    monkeypatch.setenv("PYTHONHASHSEED", "4242")
    result = project.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--stages-update", str(project.path / "test_model.py")
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert project.snapshots() == files


def test_a_planted_op_change_fails_with_the_diff_and_keeps_the_snapshot(project):
    files = record(project)
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh", "jnp.sin"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'f' on config cpu1 differs from its snapshots in snapshots/test_model/test_f/cpu1/",
            "- jaxpr (f.jaxpr.txt): IR drift",
            "    ops: +1 sin, -1 tanh",
            "*-    d:f32?8,4? = tanh c",
            "*+    d:f32?8,4? = sin c",
            "- compiled (f.compiled.hlo.txt): IR drift",
            "    ops: +1 sine, -1 tanh",
            "Run `pytest --stages-update` to accept the changes if they are intended.",
        ]
    )
    assert project.snapshots() == files
    project.run("--stages-update").assert_outcomes(passed=1)
    assert "sine" in project.snapshots()[f"{FOLDER}/f.compiled.hlo.txt"].decode()
    project.run().assert_outcomes(passed=1)


def test_diff_length_is_bounded(project):
    project.configure("diff_lines = 5")
    record(project)
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh(x @ w)", "(jnp.sin(jnp.cos(x) @ w) * 3)"))
    result = project.run()
    result.stdout.fnmatch_lines(["    ... * more diff lines*"])
    # The message itself (under CI=true pytest repeats it untruncated in the short summary).
    message = result.outlines[: next(i for i, out in enumerate(result.outlines) if "short test summary" in out)]
    assert sum(line[4:5] in "+-" for line in message if line.startswith("    ")) <= 5


TWO_TESTS = (
    SIMPLE_TEST
    + """

def test_g(stage_snapshot):
    x = jax.ShapeDtypeStruct((4,), jnp.float32)
    stage_snapshot(lambda x: x * 2, x, name="double")
"""
)


def test_k_update_touches_only_the_selected_test(project):
    files = record(project, TWO_TESTS, passed=2)
    changed = TWO_TESTS.replace("jnp.tanh", "jnp.sin").replace("x * 2", "x * 3")
    project.write("test_model.py", changed)
    project.run("--stages-update", "-k", "test_g and not test_f").assert_outcomes(passed=1, deselected=1)
    now = project.snapshots()
    assert {k for k in files if files[k] != now[k]} == {
        "test_model/test_g/cpu1/double.jaxpr.txt",
        "test_model/test_g/cpu1/double.stablehlo.mlir",
        "test_model/test_g/cpu1/double.compiled.hlo.txt",
    }
    project.run("test_model.py::test_f", "--stages-update").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=2)


def test_a_test_failing_after_staging_writes_nothing_even_when_updating(project):
    files = record(project)
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh", "jnp.sin") + "    assert False, 'later check'\n")
    project.run("--stages-update").assert_outcomes(failed=1)
    assert project.snapshots() == files


def test_several_calls_are_told_apart_by_name(project):
    project.write(
        "test_model.py",
        """
        import jax, jax.numpy as jnp

        def double(x):
            return x * 2

        def test_many(stage_snapshot):
            x = jax.ShapeDtypeStruct((4,), jnp.float32)
            stage_snapshot(double, x)
            stage_snapshot(double, jax.ShapeDtypeStruct((8,), jnp.float32))
            stage_snapshot(jax.jit(double), x, name="jitted")
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    names = {k.rsplit("/", 1)[1].split(".")[0] for k in project.snapshots()}
    assert names == {"double", "double-2", "jitted", "_stages"}


def test_the_result_exposes_real_stage_objects_and_plain_analyses(project):
    project.write(
        "test_model.py",
        """
        import jax, jax.numpy as jnp
        import jax.stages

        def test_result(stage_snapshot):
            x = jax.ShapeDtypeStruct((8, 8), jnp.float32)
            result = stage_snapshot(lambda x: jnp.exp(x @ x), x, name="expmm")
            assert isinstance(result.traced, jax.stages.Traced)
            assert isinstance(result.lowered, jax.stages.Lowered)
            assert isinstance(result.compiled, jax.stages.Compiled)
            assert result.cost["flops"] == 1024.0
            assert result.cost["transcendentals"] == 64.0
            assert result.memory["output_size_in_bytes"] == 256
            assert "exponential" in result.texts["compiled"]
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)


def test_jit_options_of_a_jitted_function_are_kept(project):
    project.write(
        "test_model.py",
        """
        from functools import partial
        import jax, jax.numpy as jnp

        @partial(jax.jit, static_argnums=1, donate_argnums=0)
        def scale(x, factor):
            return x * factor

        def test_static(stage_snapshot):
            result = stage_snapshot(scale, jax.ShapeDtypeStruct((4,), jnp.float32), 3)
            assert "3.0" in result.texts["jaxpr"]
            assert result.analyses["sharding"]["inputs"]["x"]["donated"] is True
            assert result.analyses["sharding"]["inputs"]["x"]["aliased_to"] == "output"
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)


def test_inputs_are_named_past_a_leading_static_argument(project):
    project.write(
        "test_model.py",
        """
        import jax, jax.numpy as jnp

        def scale(n, x):
            return x * n

        def test_static(stage_snapshot):
            jitted = jax.jit(scale, static_argnums=0, donate_argnums=1)
            result = stage_snapshot(jitted, 3, jax.ShapeDtypeStruct((4,), jnp.float32))
            assert list(result.analyses["sharding"]["inputs"]) == ["x"]
            assert result.analyses["sharding"]["inputs"]["x"]["donated"] is True
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)


def test_a_function_that_fails_to_trace_names_the_stage(project):
    files = record(project)
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh(x @ w)", "jnp.tanh(x @ w.T)"))
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: stage_snapshot(f): tracing failed with TypeError at test_model.py:5 in f:",
            "    dot_general requires contracting dimensions to have the same shape*",
            "Fix the function or its arguments; its snapshots were left untouched.",
        ]
    )
    assert "Traceback" not in project.output(result)
    assert project.snapshots() == files


def test_bad_config_key_is_a_usage_error(project):
    project.configure("snapshot_folder = 'x'")
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run()
    assert result.ret == 4
    assert (
        "ERROR: pytest-stages: [tool.pytest_stages]: unknown key 'snapshot_folder' (did you mean 'snapshot_dir'?); "
        "the known keys are analyses, budgets, check, clear_caches, compilation_cache, compile_only_cache_size, "
        "configs, constants_warn_bytes, diff_lines, modules, on_version_mismatch, pending_dir, snapshot_dir, "
        "stages, static_scalars, test_configs, tolerance."
    ) in result.stderr.str()


def test_bad_config_type_is_a_usage_error(project):
    project.configure('stages = ["jaxpr", "optimized"]')
    result = project.run()
    assert result.ret == 4
    assert (
        "ERROR: pytest-stages: stages: unknown name 'optimized'; "
        "choose from jaxpr, stablehlo, kernel_ir, hlo, compiled."
    ) in result.stderr.str()


def test_stages_and_analyses_settings_choose_the_files(project):
    project.configure('stages = ["hlo"]\nanalyses = ["cost"]')
    files = record(project)
    assert set(files) == {f"{FOLDER}/_stages.json", f"{FOLDER}/f.hlo.txt", f"{FOLDER}/f.cost.json"}


def test_unused_plugin_does_not_import_jax(pytester):
    pytester.makepyfile(test_plain="import sys\n\ndef test_plain():\n    assert 'jax' not in sys.modules\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert os.environ.get("JAX_PLATFORMS") in (None, "", "cpu")


def test_each_call_traces_lowers_and_compiles_exactly_once(project):
    project.write(
        "test_once.py",
        """
        from collections import Counter
        import jax, jax.numpy as jnp
        import jax.monitoring

        EVENTS = Counter()
        jax.monitoring.register_event_duration_secs_listener(lambda event, _secs, **_: EVENTS.update([event]))
        TRACES = []

        def f(x):
            TRACES.append(1)
            return jnp.sin(x) @ x.T

        def test_once(stage_snapshot):
            EVENTS.clear()
            stage_snapshot(f, jax.ShapeDtypeStruct((16, 16), jnp.float32))
            assert len(TRACES) == 1
            assert EVENTS["/jax/core/compile/jaxpr_trace_duration"] == 1
            assert EVENTS["/jax/core/compile/jaxpr_to_mlir_module_duration"] == 1
            assert EVENTS["/jax/core/compile/backend_compile_duration"] == 1
    """,
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=1)


GLOBAL_READER = """
    import jax, jax.numpy as jnp
    SCALE = 2.0

    def scaled(x):
        return x * SCALE

    def test_two(stage_snapshot):
        stage_snapshot(scaled, jax.ShapeDtypeStruct((4,), jnp.float32))

    def test_three(stage_snapshot):
        global SCALE
        SCALE = 3.0
        stage_snapshot(scaled, jax.ShapeDtypeStruct((4,), jnp.float32))
"""


SHARED_HELPER = """
    import gc
    import jax, jax.numpy as jnp
    SCALE = 2.0

    @jax.jit
    def helper(x):
        return x * SCALE

    def test_two(stage_snapshot):
        stage_snapshot(lambda x: helper(x) + 1.0, jax.ShapeDtypeStruct((4,), jnp.float32), name="step")

    def test_three(stage_snapshot):
        global SCALE
        SCALE = 3.0
        gc.collect()  # test_two's lambda is freed here unless kept: this one could then take its id (its hash)
        stage_snapshot(lambda x: helper(x) - 1.0, jax.ShapeDtypeStruct((4,), jnp.float32), name="step")
"""


@pytest.mark.parametrize(
    "clear_caches, module, second",
    [
        ('"auto"', GLOBAL_READER, "mul a 3.0"),
        ('"auto"', GLOBAL_READER.replace("stage_snapshot(scaled", "stage_snapshot(jax.jit(scaled)"), "mul a 3.0"),
        ("true", GLOBAL_READER, "mul a 3.0"),
        ("false", GLOBAL_READER, "mul a 2.0"),
        # A jitted helper keeps its trace under "auto" (the staged functions differ); true drops it.
        ('"auto"', SHARED_HELPER, "mul a 2.0"),
        ("true", SHARED_HELPER, "mul a 3.0"),
    ],
)
def test_dropped_caches_keep_a_later_test_from_reusing_a_trace(project, clear_caches, module, second):
    """JAX keys its trace cache on the function and the argument shapes: kept across tests, the
    second test's snapshot is the first test's trace (``SCALE`` was 2.0 then)."""
    project.configure(f"clear_caches = {clear_caches}")
    project.write("test_globals.py", module)
    project.run("--stages-update").assert_outcomes(passed=2)
    jaxprs = {
        path.split("/")[1]: text.decode() for path, text in project.snapshots().items() if path.endswith(".jaxpr.txt")
    }
    assert "2.0" in jaxprs["test_two"] and second in jaxprs["test_three"], jaxprs["test_three"]


def test_the_same_name_twice_in_a_test_is_an_error(project):
    project.write(
        "test_model.py",
        """
        import jax, jax.numpy as jnp

        def test_twice(stage_snapshot):
            x = jax.ShapeDtypeStruct((4,), jnp.float32)
            stage_snapshot(jnp.sin, x, name="step")
            stage_snapshot(jnp.cos, x, name="step")
    """,
    )
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: stage_snapshot(name='step') is used twice in test_model.py::test_twice?cpu1?; "
            "give each call its own name=."
        ]
    )
    assert project.snapshots() == {}
