"""One schema for writer and reader: every snapshot the writer can produce reads back, and compares clean.

A property test stages generated functions with real JAX (pytrees with unused inputs, None
leaves, empty trees, custom pytree nodes, donated and aliased leaves, functions returning None)
and round-trips every artifact through :class:`SnapshotStore`'s write and read; an inner session
records, then compares, a function with an input jit drops as unused.
"""

from __future__ import annotations

import dataclasses
import json
import warnings

import jax
import jax.numpy as jnp
import pytest
from conftest import ONE_CONFIG
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_stages.analyse.artifacts import ANALYSES, STAGES
from pytest_stages.check.compare import Context, compare_call
from pytest_stages.check.snapshot_format import Snapshot
from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.core.errors import SnapshotError
from pytest_stages.stage.activation import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.staging import stage
from pytest_stages.store.schemas import invalid_snapshot
from pytest_stages.store.storage import SnapshotFolder, SnapshotStore


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Node:
    """A custom pytree node of the user's own."""

    left: object
    right: object


SHAPES = st.sampled_from([(), (3,), (2, 3)])
DTYPES = st.sampled_from([jnp.float32, jnp.int32])
LEAVES = st.builds(jax.ShapeDtypeStruct, SHAPES, DTYPES)
TREES = st.recursive(
    st.one_of(LEAVES, st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "w"]), children, max_size=3),
        st.builds(Node, children, children),
    ),
    max_leaves=6,
)
# What the function returns: None, its used leaves doubled (a donated one can be aliased), the
# arguments' tree with every leaf replaced (unused ones by zeros: custom nodes in the output), a sum.
RETURNS = ("none", "used", "tree", "sum")


def _function(used: list[bool], returns: str):
    def fn(*args):
        leaves = jax.tree.leaves(args)
        kept = [leaf for leaf, use in zip(leaves, used, strict=True) if use]
        if returns == "none":
            return None
        if returns == "used":
            return [leaf * 2 for leaf in kept]
        if returns == "tree":
            flags = iter(used)
            return jax.tree.map(lambda leaf: leaf * 2 if next(flags) else jnp.zeros_like(leaf), args)
        return sum((leaf.sum().astype(jnp.float32) for leaf in kept), jnp.float32(0))

    return fn


@st.composite
def calls(draw):
    args = tuple(draw(st.lists(TREES, max_size=3)))
    count = len(jax.tree.leaves(args))
    used = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    donated = tuple(i for i in range(len(args)) if draw(st.booleans()))
    return args, used, draw(st.sampled_from(RETURNS)), donated


def _staged(args, used, returns, donated):
    fn = jax.jit(_function(used, returns), donate_argnums=donated)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Some donated buffers were not usable": an unused donated input
        return stage(
            fn,
            args,
            {},
            name="f",
            active=activate(DeviceConfig(name="cpu1")),
            stages=STAGES,
            analyses=ANALYSES,
            events=CompileEvents(),
        )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(calls())
def test_every_artifact_the_writer_produces_reads_back_and_compares_clean(tmp_path_factory, call):
    result = _staged(*call)
    root = tmp_path_factory.mktemp("snapshots")
    store = SnapshotStore(root)
    folder = SnapshotFolder(root, "test_m", "test_f", "cpu1")
    files = {name: (folder.artifact("f", name), result.serialized(name)) for name in result.built}
    store.write_all(list(files.values()))
    snapshots = {}
    for name, (path, text) in files.items():
        read = store.read(path)
        assert read == text, name
        snapshots[name] = Snapshot(path, read)
    compared = compare_call(result, snapshots, Context("test_m.py::test_f", root))
    assert not [f for f in compared.findings if f.kind != "skipped"]
    assert set(compared.status.values()) <= {"ok", "skipped", "-"}


def test_a_json_snapshot_given_unparsed_is_parsed_and_judged_by_its_data(tmp_path):
    """compare_call parses a JSON snapshot itself where its reader did not: one whose text differs from the fresh
    analysis (a changed figure) is judged by its data, not taken for unreadable or compared as a sentinel."""
    result = _staged((jax.ShapeDtypeStruct((3,), jnp.float32),) * 2, [True, True], "used", ())
    path = SnapshotFolder(tmp_path, "test_m", "test_f", "cpu1").artifact("f", "cost")
    recorded = json.loads(result.serialized("cost"))
    recorded["compiled"]["flops"] = recorded["compiled"]["flops"] * 2 + 1000
    compared = compare_call(
        result, {"cost": Snapshot(path, json.dumps(recorded))}, Context("test_m.py::test_f", tmp_path)
    )
    assert compared.status["cost"] == "improved"
    assert [f.subject for f in compared.findings if f.artifact == "cost"] == ["flops"]


def test_what_an_update_writes_of_a_changed_jaxpr_is_made_only_where_the_run_writes(tmp_path):
    """A jaxpr recorded for other input shapes: the compare reports the drift and the inputs that changed, run
    writing or not; what an update writes of it (the snapshot's names kept), and of an artifact never recorded,
    is made only where the run writes."""
    result = _staged((jax.ShapeDtypeStruct((3,), jnp.float32),) * 2, [True, True], "used", ())
    folder = SnapshotFolder(tmp_path, "test_m", "test_f", "cpu1")
    recorded = {
        "jaxpr": Snapshot(folder.artifact("f", "jaxpr"), result.texts["jaxpr"].replace("f32[3]", "f32[4]")),
        "sharding": Snapshot(folder.artifact("f", "sharding"), None),
    }
    for writes in (False, True):
        context = Context("test_m.py::test_f", tmp_path, writes=writes)
        compared = compare_call(result, recorded, context)
        assert compared.status["jaxpr"] == "changed"
        assert compared.status["sharding"] == "new"
        assert compared.signature == "args[0] f32[4] -> f32[3]; args[1] f32[4] -> f32[3]"
        written = {"jaxpr": result.texts["jaxpr"], "sharding": result.serialized("sharding")}
        assert compared.changed == (written if writes else {})


def test_an_input_jit_drops_has_a_null_sharding_the_reader_accepts():
    """A snapshot of an input jit drops records ``"sharding": null``, which the reader accepts."""
    result = _staged((jax.ShapeDtypeStruct((3,), jnp.float32),) * 2, [True, False], "used", ())
    inputs = result.analyses["sharding"]["inputs"]
    assert inputs["args[1]"]["sharding"] is None
    assert invalid_snapshot("f.sharding.json", result.serialized("sharding")) is None


def test_the_writer_refuses_what_the_reader_would_refuse(tmp_path):
    store = SnapshotStore(tmp_path)
    path = SnapshotFolder(tmp_path, "test_m", "test_f", "cpu1").artifact("f", "ops")
    with pytest.raises(SnapshotError, match=r"would be refused when read back \(the file\['opcodes'\] is null"):
        store.write(path, json.dumps({"opcodes": None}))
    assert not path.parent.exists(), "nothing written, not even the manifest"


UNUSED_INPUT = """
import functools
import jax, jax.numpy as jnp

def f(x, y):
    return x * 2

def nothing(x):
    jnp.sin(x)

@functools.partial(jax.jit, donate_argnums=1)
def forward(params, unused, x):
    return x @ params["w"]

def test_f(stage_snapshot):
    x = jax.ShapeDtypeStruct((4,), jnp.float32)
    stage_snapshot(f, x, x)
    stage_snapshot(nothing, x)
    stage_snapshot(forward, {"w": jax.ShapeDtypeStruct((4, 2), jnp.float32), "b": x}, x, x)
"""


def test_a_function_with_an_unused_input_records_then_passes(pytester):
    """The null sharding of an unused input reads back as recorded, never as ``['sharding'] is null, not an object``."""
    pytester.makepyprojecttoml(ONE_CONFIG)
    pytester.makepyfile(test_unused=UNUSED_INPUT)
    pytester.runpytest("--stages-update", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    written = json.loads((pytester.path / "snapshots/test_unused/test_f/cpu1/f.sharding.json").read_text())
    assert written["inputs"]["y"]["sharding"] is None
    compared = pytester.runpytest("-p", "no:cacheprovider")
    compared.assert_outcomes(passed=1)
    assert "edited or corrupted" not in compared.stdout.str()


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
