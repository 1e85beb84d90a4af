"""Pure layers without pytest sessions: config parsing, budgets, comparison, names, ops parsing, source names."""

from __future__ import annotations

import gc
import itertools
import sysconfig
from dataclasses import replace
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import pytest_stages
from pytest_stages.analyse.analyses import ops
from pytest_stages.check.budgets import (
    budget_for,
    check_budget,
    parse_budget,
    parse_size,
)
from pytest_stages.check.drift import compare_text
from pytest_stages.check.figures import compare_metrics
from pytest_stages.check.message import details
from pytest_stages.check.placement import compare_placement
from pytest_stages.config.devices import parse_configs
from pytest_stages.config.settings import parse_settings
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.units import format_bytes
from pytest_stages.ir import hlo, hlo_records
from pytest_stages.ir.normalize import normalize_jaxpr, tidy_kept
from pytest_stages.ir.sources import Location, describe_all, preferred
from pytest_stages.stage.memory_release import AUTO_PERIOD, CacheClearing, trace_key
from pytest_stages.store.names import safe_component


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"snapshot_dir": 3}, "[tool.pytest_stages] snapshot_dir must be a string, got 3."),
        ({"snapshot_dir": "../shared/snaps"}, "snapshot_dir = '../shared/snaps' leaves the rootdir; snapshots live"),
        ({"snapshot_dir": "/tmp/snaps"}, 'Give a folder relative to the rootdir (snapshot_dir = "snapshots").'),
        ({"check": ["text", "speed"]}, "check: unknown name 'speed'; choose from"),
        (
            {"on_version_mismatch": "ignore"},
            "on_version_mismatch = 'ignore' is not one of ['fail', 'warn', 'skip', 'semantic'].",
        ),
        ({"tolerance": {"flops": "two percent"}}, "[tool.pytest_stages.tolerance] flops: tolerance 'two percent'"),
        ({"configs": []}, "[[tool.pytest_stages.configs]] must be a non-empty array of tables"),
        ({"configs": [{"name": "a b"}]}, "entry 1: name 'a b' must be 1-64 letters"),
        ({"configs": [{"name": "x", "device": 2}]}, "entry 1: unknown key 'device'"),
        (
            {"configs": [{"name": "x", "devices": 8, "mesh": {"data": 3}}]},
            "config 'x': mesh data=3 holds 3 devices but devices = 8",
        ),
        ({"configs": [{"name": "x"}, {"name": "x"}]}, "config name 'x' is used twice"),
        ({"configs": [{"name": "x", "mesh": {"a": 2}, "axis_types": "sideways"}]}, "config 'x': axis_types"),
        ({"configs": [{"name": "x", "devices": 4, "axis_types": "Auto"}]}, "config 'x': axis_types ['Auto'] must name"),
        (
            {"clear_caches": 1},
            'clear_caches = 1: use "auto" (drop JAX\'s caches where a trace could be reused, and every 32',
        ),
    ],
)
def test_bad_settings_name_the_key(table, message):
    with pytest.raises(ConfigError) as error:
        parse_settings(table)
    assert message in str(error.value)


def test_settings_defaults_and_tolerance_forms():
    settings = parse_settings({"tolerance": {"flops": "2%", "bytes accessed": 0.05}})
    assert settings.stages == ("jaxpr", "stablehlo", "compiled", "kernel_ir")
    assert settings.analyses == ("cost", "memory", "ops", "sharding", "layout", "kernels")
    assert settings.configs[0].name == "default" and settings.configs[0].devices == 1
    assert settings.tolerance == {"flops": 0.02, "bytes accessed": 0.05}


def test_mesh_implies_the_device_count():
    (config,) = parse_configs([{"name": "cpu8", "mesh": {"data": 4, "model": 2}, "axis_types": "auto"}])
    assert config.devices == 8 and config.mesh_shape == {"data": 4, "model": 2}
    assert config.axis_types == ("auto", "auto")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("64 MiB", 64 * 2**20), ("1.5GB", 1_500_000_000), (4096, 4096), ("2 KiB", 2048), ("10 b", 10)],
)
def test_sizes_accept_units(text, expected):
    assert parse_size("budget", text) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"temp_bytes": "64 MiBs"}, "budget temp_bytes: unknown unit 'mibs' in '64 MiBs'; use B, KB"),
        ({"temp_bytes": "lots"}, "budget temp_bytes: 'lots' is not a size"),
        ({"flops": "many"}, "budget flops: 'many' is not a non-negative number"),
        ({"latency": 3}, "budget: unknown budget metric 'latency'"),
        ({"collectives": {"all-gathers": 0}}, "unknown collective 'all-gathers'"),
        ({"ops": 3}, "budget ops must be a table"),
    ],
)
def test_bad_budgets_name_metric_and_unit(raw, message):
    with pytest.raises(ConfigError) as error:
        parse_budget("budget", raw)
    assert message in str(error.value)


def test_budget_checks_ceilings():
    analyses = {
        "cost": {"compiled": {"flops": 3e9}},
        "memory": {"temp_size_in_bytes": 100 * 2**20},
        "ops": {"collectives": [{"op": "all-gather", "shape": "f32[8]", "bytes": 32}], "opcodes": {"fusion": 3}},
    }
    budget = parse_budget(
        "b", {"flops": 2.2e9, "temp_bytes": "64 MiB", "collectives": {"all-gather": 0}, "ops": {"fusion": 3}}
    )
    messages = [f.message for f in check_budget(budget, analyses)]
    assert messages == [
        "flops 3e9 exceeds the ceiling 2.2e9",
        "temp_bytes 100.0 MiB exceeds the ceiling 64.0 MiB",
        "collectives[all-gather] 1 exceeds the ceiling 0",
    ]
    assert check_budget(parse_budget("b", {"flops": 4e9}), analyses) == []


def test_budget_patterns_merge_under_the_marker():
    patterns = {"tests/*::test_a*": {"flops": 1.0, "temp_bytes": 5}, "*::test_b": {"flops": 9.0}}
    assert budget_for("tests/x.py::test_a[cpu1]", patterns, {"flops": 2.0}) == {"flops": 2.0, "temp_bytes": 5}


def test_metric_regression_improvement_and_tolerance():
    before = {"compiled": {"flops": 1.98e9, "transcendentals": 100.0}, "lowered": {"flops": 1.0}}
    after = {"compiled": {"flops": 2.31e9, "transcendentals": 90.0}, "lowered": {"flops": 9.0}}
    findings = compare_metrics("cost", before, after, {"flops": 0.02})
    assert [(f.message, f.failing) for f in findings] == [
        ("flops 1.98e9 -> 2.31e9 (+16.7%, tolerance 2%)", True),
        ("transcendentals 100 -> 90 (-10.0%): improved; run `pytest --stages-update` to accept it", False),
    ]
    assert (
        compare_metrics("cost", before, {"compiled": {"flops": 2.0e9, "transcendentals": 100.0}}, {"flops": 0.02}) == []
    )


def test_integer_memory_figures_are_exact_by_default():
    (finding,) = compare_metrics("memory", {"temp_size_in_bytes": 1000}, {"temp_size_in_bytes": 1001}, {})
    assert finding.message == "temp_bytes 1000 -> 1001 (+0.10%, tolerance exact)"


def test_placement_changes_name_the_leaf():
    def sharding(spec):
        return {"kind": "NamedSharding", "mesh": {"data": 4, "model": 2}, "spec": spec, "memory_kind": "device"}

    before = {
        "inputs": {"x": {"sharding": sharding("P('data', None)"), "donated": True, "aliased_to": "output"}},
        "outputs": {"output": {"sharding": sharding("P('data')")}},
        "collectives": [],
    }
    after = {
        "inputs": {"x": {"sharding": sharding("P(None, 'model')"), "donated": False, "aliased_to": None}},
        "outputs": {"output": {"sharding": sharding("P('data')")}},
        "collectives": [{"op": "all-gather", "shape": "f32[64,512]", "bytes": 131072}],
    }
    messages = sorted(f.message for f in compare_placement("sharding", before, after))
    assert messages == [
        "collectives: +1 all-gather f32[64,512] (128.0 KiB)",
        "input x no longer donated (XLA had reused its buffer)",
        "input x: P('data', None) over mesh(data=4,model=2) -> P(None, 'model') over mesh(data=4,model=2)",
    ]
    layout_before = {"inputs": {}, "outputs": {"output": {"major_to_minor": [1, 0], "tiling": []}}}
    layout_after = {"inputs": {}, "outputs": {"output": {"major_to_minor": [0, 1], "tiling": []}}}
    (finding,) = compare_placement("layout", layout_before, layout_after)
    assert finding.message == "output output layout (1,0) -> (0,1)"


def test_text_drift_summarizes_ops_and_bounds_the_diff():
    before = "".join(f"  %a.{i} = f32[4]{{0}} add(%p, %q)\n" for i in range(50))
    after = before.replace("add(", "multiply(")
    finding = compare_text("compiled", before, after, diff_lines=10)
    lines = details(finding)
    assert lines[0] == "IR drift"
    assert lines[1] == "    ops: -50 add, +50 multiply"
    assert lines[-1].startswith("    ... ") and lines[-1].endswith(" more diff lines")
    fused = before + "  %f = f32[4]{0} fusion(%p), kind=kLoop, calls=%c\n"
    gathered = fused + "  %g = f32[64,512]{1,0} all-gather(%p), dimensions={0}\n"
    structure = details(compare_text("compiled", before, gathered, diff_lines=10))
    assert structure[1:4] == [
        "    ops: +1 all-gather, +1 fusion",
        "    fusions: 0 -> 1",
        "    collectives: +1 all-gather f32[64,512] (128.0 KiB)",
    ]
    assert len(lines) == 2 + 10 + 1
    assert compare_text("compiled", before, before, diff_lines=10) is None


def test_ops_parses_real_shapes_and_collectives():
    text = (
        "HloModule m, input_output_alias={ {0}: (1, {}, may-alias) }, entry_computation_layout={()->f32[]}\n\n"
        "ENTRY %main (p: f32[16,512]) -> (f32[64,512], f32[]) {\n"
        "  %p = f32[16,512]{1,0} parameter(0)\n"
        "  %ag = f32[64,512]{1,0} all-gather(%p), channel_id=1, dimensions={0}\n"
        '  %cc = (f32[2]{0}, s32[]) custom-call(%p), custom_call_target="foo"\n'
        "  %f = f32[] fusion(%ag), kind=kLoop, calls=%c\n"
        "  ROOT %t = (f32[64,512]{1,0}, f32[]) tuple(%ag, %f)\n"
        "}\n"
    )
    result = ops(text)
    assert result["collectives"] == [{"op": "all-gather", "shape": "f32[64,512]", "bytes": 131072}]
    assert result["custom_calls"] == {"foo": 1}
    assert result["fusions"] == {"kLoop": 1} and result["fusion_count"] == 1
    assert result["entry"] == {"parameters": ["f32[16,512]"], "output": "(f32[64,512], f32[])"}
    assert hlo.parse_instruction("  %cc = (f32[2]{0}, s32[]) custom-call(%p)").shape == "(f32[2], s32[])"
    assert hlo.aliases(text) == (hlo_records.Alias((0,), 1, "may-alias"),)
    assert hlo.shape_bytes("(bf16[8,8], pred[3])") == 131 and format_bytes(2048) == "2.0 KiB"


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "a/b", "nul\x00byte", "é" * 200, "..", "", "x" * 500, "CON", "tëst[ü]"]
)
def test_safe_component_is_safe_unique_and_stable(name):
    safe = safe_component(name)
    assert "/" not in safe and "\x00" not in safe and safe not in (".", "..", "")
    assert len(safe) <= 96 and safe == safe_component(name)
    assert safe.isascii()


def test_safe_component_keeps_plain_names_and_separates_lookalikes():
    assert safe_component("test_mlp[cpu8-bf16]") == "test_mlp[cpu8-bf16]"
    assert safe_component("a/b") != safe_component("a_b") == "a_b"


def test_tidy_keeps_what_a_line_by_line_fold_of_blank_lines_keeps():
    """Every arrangement of up to ten blank and non-blank lines, against the plain loop: the indexes and the text."""

    def folded(lines: list[str]) -> list[int]:
        kept, previous_blank = [], True
        for k, line in enumerate(lines):
            if line or not previous_blank:
                kept.append(k)
            previous_blank = not line
        while kept and not lines[kept[-1]]:
            kept.pop()
        return kept

    for size in range(11):
        for lines in itertools.product(("", "x"), repeat=size):
            kept = folded(list(lines))
            assert tidy_kept(list(lines)) == kept, lines
            assert normalize_jaxpr("".join(f"{line} \n" for line in lines)) == "".join(f"{lines[k]}\n" for k in kept), (
                lines
            )


def test_describe_all_names_each_location_as_describe_does(tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (tmp_path / "link").symlink_to(project)
    model = str(tmp_path / "link" / "pkg" / "model.py")
    library = str(tmp_path / "venv" / "lib" / "site-packages" / "optax" / "alias.py")
    stdlib = str(Path(sysconfig.get_paths()["stdlib"]) / "functools.py")
    ours = str(Path(pytest_stages.__file__).parent / "stage" / "staging.py")
    first, second = Location(model, 3, "attention"), Location(model, 7)
    locations = [
        first,
        second,
        first,
        None,
        Location(library, 5, "adam"),
        Location(stdlib, 10, "wraps"),
        Location(ours, 40, "stage"),
        Location("/elsewhere/x.py", 2),
        second,
    ]
    expected = [
        "pkg/model.py:3 in attention",
        "pkg/model.py:7",
        "pkg/model.py:3 in attention",
        None,
        "optax/alias.py:5 in adam",
        "functools.py:10 in wraps",
        None,
        "/elsewhere/x.py:2",
        "pkg/model.py:7",
    ]
    assert list(describe_all(locations, project)) == expected
    assert list(describe_all(locations, tmp_path / "link")) == expected
    assert [where and where.describe(project) for where in locations if where is None or where.file != ours] == [
        text for text, where in zip(expected, locations, strict=True) if where is None or where.file != ours
    ]
    assert describe_all(locations, None)[:2] == [f"{model}:3 in attention", f"{model}:7"]
    assert describe_all(locations, None)[6] is None


def test_describe_all_names_the_innermost_project_frame_that_is_not_a_test_file(tmp_path):
    """A library installed from a checkout (outside the project, not site-packages) and a test
    file's callback are inner to the model module's line: the model's line is named."""
    project = tmp_path / "project"
    model, test = str(project / "model.py"), str(project / "test_model.py")
    checkout = "/src/flax/flax/linen/linear.py"
    chain = [Location(checkout, 422, "__call__"), Location(test, 9, "loss"), Location(model, 30, "forward")]
    assert preferred(chain) == replace(chain[0], callers=tuple(chain[1:]))
    assert list(describe_all([preferred(chain)], project)) == ["model.py:30 in forward"]
    assert list(describe_all([preferred(chain[:2])], project)) == ["test_model.py:9 in loss"]
    assert list(describe_all([preferred(chain)], None)) == [f"{checkout}:422 in __call__"]
    assert list(describe_all([preferred(chain[:1])], project)) == [f"{checkout}:422 in __call__"]


def test_the_report_schema_names_every_check_kind_and_status_of_the_artifact_table():
    """The shipped JSON schema reads its enums from the same table as the code: a new check kind
    or status that the schema does not list fails here, not in a user's report validation."""
    import json
    from pathlib import Path

    from pytest_stages.analyse.artifacts import CHECK_KINDS
    from pytest_stages.core.records import SKIPPED
    from pytest_stages.report.render import STATUS_RANK

    schema = json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text())
    record = schema["properties"]["calls"]["items"]["properties"]
    assert record["findings"]["items"]["properties"]["kind"]["enum"] == [*CHECK_KINDS, SKIPPED]
    assert sorted(record["status"]["additionalProperties"]["enum"]) == sorted(STATUS_RANK)


def test_gathering_registrations_never_loads_a_lazy_module(tmp_path, monkeypatch):
    """A module imported through ``importlib.util.LazyLoader`` runs on first attribute access:
    looking for registrations in ``sys.modules`` must not be that access."""
    import importlib.util
    import sys

    from pytest_stages.hooks.registry import registrations

    (tmp_path / "lazy_side_effect.py").write_text("raise RuntimeError('a lazy module was loaded')\n")
    spec = importlib.util.spec_from_file_location("lazy_side_effect", tmp_path / "lazy_side_effect.py")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, "lazy_side_effect", module)
    assert registrations(tmp_path) == []


def test_auto_clearing_drops_before_a_reusable_trace_and_every_period():
    """ "auto": a staging that JAX could answer from a trace kept since the last drop drops
    first (same function, same shapes); other stagings keep the caches until the period."""
    x, y = jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((5,), jnp.float32)
    drops: list[int] = []
    clearing = CacheClearing("auto", clear=lambda: drops.append(1))
    clearing.before_staging(jnp.sin, (x,), {})
    clearing.before_staging(jnp.sin, (y,), {})
    clearing.before_staging(jnp.cos, (x,), {})
    clearing.after_test(staged=True)
    assert drops == []
    clearing.before_staging(jnp.sin, (jax.ShapeDtypeStruct((4,), jnp.float32),), {})
    assert drops == [1]
    clearing.before_staging(jnp.sin, (y,), {})  # kept before the drop, not since
    assert drops == [1]
    clearing.before_staging(Model(), (x,), {})  # no key: drops whenever anything was staged since
    clearing.before_staging(Model(), (x,), {})
    assert drops == [1, 1, 1]
    clearing.after_test(staged=True)
    for _ in range(AUTO_PERIOD - 2):  # the period counts staged tests since the last drop
        clearing.after_test(staged=True)
        clearing.after_test(staged=False)
    assert drops == [1, 1, 1]
    clearing.after_test(staged=True)
    assert drops == [1, 1, 1, 1]


def test_auto_does_not_take_a_new_function_for_a_dead_one_of_the_same_id():
    """A function's hash is its id, which a function made after one died may take: the kept
    key holds the staged function alive, so a new one never matches it and drops nothing."""
    x = jax.ShapeDtypeStruct((4,), jnp.float32)
    drops: list[int] = []
    clearing = CacheClearing("auto", clear=lambda: drops.append(1))
    for _ in range(20):
        fn = _doubler()  # a new function each time, dropped before the next is made
        clearing.before_staging(fn, (x,), {})
        del fn
        gc.collect()
    assert drops == []


def _doubler():
    return lambda v: v * 2.0


@pytest.mark.parametrize(("mode", "expected"), [(True, 3), (False, 0)])
def test_true_drops_after_every_staged_test_and_false_never(mode, expected):
    drops: list[int] = []
    clearing = CacheClearing(mode, clear=lambda: drops.append(1))
    for staged in (True, False, True, True):
        clearing.before_staging(jnp.sin, (jax.ShapeDtypeStruct((4,), jnp.float32),), {})
        clearing.after_test(staged)
    assert len(drops) == expected


def test_a_trace_key_is_never_finer_than_jaxs():
    """Stagings JAX could answer from one trace share a key (same function, shapes and dtypes
    in order, abstract mesh); an unhashable function has none, so every staging of it drops
    the caches."""
    f32 = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert trace_key(jnp.sin, (f32,), {}) == trace_key(jnp.sin, (jnp.zeros((2, 3)),), {})
    assert trace_key(jnp.sin, ({"a": f32},), {}) == trace_key(jnp.sin, ({"b": f32},), {})  # coarser than JAX
    assert trace_key(jnp.sin, (f32,), {}) != trace_key(jnp.cos, (f32,), {})
    assert trace_key(jax.jit(jnp.sin), (f32,), {}) == trace_key(jax.jit(jnp.sin), (f32,), {})
    mesh = jax.sharding.AbstractMesh((4, 2), ("data", "model"))
    assert trace_key(jnp.sin, (f32,), {}, mesh) == trace_key(
        jnp.sin, (f32,), {}, jax.sharding.AbstractMesh((4, 2), ("data", "model"))
    )
    assert trace_key(jnp.sin, (f32,), {}, mesh) != trace_key(
        jnp.sin, (f32,), {}, jax.sharding.AbstractMesh((2, 4), ("data", "model"))
    )
    assert trace_key(jnp.sin, (f32,), {}, mesh) != trace_key(jnp.sin, (f32,), {})
    assert trace_key(jnp.sin, (f32,), {}) != trace_key(jnp.sin, (jax.ShapeDtypeStruct((2, 3), jnp.int32),), {})
    model = Model()
    assert trace_key(model.apply, (f32,), {}) == trace_key(model.apply, (f32,), {})  # equal bound methods
    assert trace_key(Model(), (f32,), {}) is None


class Model:
    """A callable that cannot be hashed (as a dataclass with ``eq`` and no ``frozen``)."""

    __hash__ = None

    def __call__(self, x):
        return x

    def apply(self, x):
        return x
