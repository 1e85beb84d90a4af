"""Dropping JAX's caches (``clear_caches``): each mode's rule, and between configs only where JAX could
answer a staging from a kept trace.

A function that reads a global shows which trace a staging got: its jaxpr holds the value the
global had when JAX traced it. ``stage()`` drops the caches (``clear_caches = "auto"``) before a
staging whose function, shapes, default device and abstract mesh match one kept since the last
drop; these tests hold both halves: no needless drop between configs JAX keeps apart (each
such drop costs the next tests their re-traces), and no missing one where JAX would reuse.
"""

from __future__ import annotations

import gc

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.stage.activation import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.memory_release import AUTO_PERIOD, CacheClearing, trace_key
from pytest_stages.stage.staging import stage

MESH = (("data", 2), ("model", 2))
V5E = DeviceConfig(name="v5e", platform="tpu", topology="v5e:2x2", devices=4, mesh=MESH)
# The same slice made again with one of get_topology_desc's keywords: other devices, the same abstract mesh.
V5E_AGAIN = DeviceConfig(
    name="v5e_again", platform="tpu", topology="v5e:2x2", devices=4, mesh=MESH, chips_per_host_bounds=(2, 2, 1)
)
V5E_NO_MESH = DeviceConfig(name="v5e_plain", platform="tpu", topology="v5e:2x2", devices=4)
SCALE = 2.0


def scaled(x):
    return x * SCALE


def jaxpr_of(config: DeviceConfig, caches: CacheClearing, sharded: bool) -> str:
    """The jaxpr ``stage()`` gives ``scaled`` on ``config``, its argument sharded over the mesh or not."""
    active = activate(config)
    sharding = jax.sharding.NamedSharding(active.mesh, jax.P("data")) if sharded else None
    x = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=sharding)
    result = stage(
        scaled, (x,), {}, name="f", active=active, stages=("jaxpr",), analyses=(), events=CompileEvents(), caches=caches
    )
    return result.texts["jaxpr"]


def stage_twice(first: DeviceConfig, second: DeviceConfig, sharded: bool, clear=None) -> tuple[list[int], str]:
    """Stage ``scaled`` on ``first`` with SCALE 2.0, then on ``second`` with 3.0: the drops, and the second jaxpr."""
    global SCALE
    drops: list[int] = []

    def counted() -> None:
        drops.append(1)
        jax.clear_caches()

    caches = CacheClearing("auto", clear=clear or counted)
    jax.clear_caches()
    SCALE = 2.0
    assert "2.0" in jaxpr_of(first, caches, sharded)
    SCALE = 3.0
    try:
        return drops, jaxpr_of(second, caches, sharded)
    finally:
        SCALE = 2.0


@pytest.mark.extras("tpu")
def test_unsharded_calls_on_two_device_sets_keep_the_caches_and_trace_anew():
    """Unsharded, each staging runs under its devices' first as the default device, which JAX's
    trace context holds: the second traces anew without a drop, though the meshes match."""
    drops, second = stage_twice(V5E, V5E_AGAIN, sharded=False)
    assert drops == []
    assert "3.0" in second, second


@pytest.mark.extras("tpu")
def test_a_config_without_a_mesh_on_the_same_devices_drops_first():
    """The same topology without a mesh: an unsharded call runs under the same default device
    and no mesh on both, so JAX would reuse the trace and the caches are dropped first."""
    drops, second = stage_twice(V5E, V5E_NO_MESH, sharded=False)
    assert drops == [1]
    assert "3.0" in second, second
    _, kept = stage_twice(V5E, V5E_NO_MESH, sharded=False, clear=lambda: None)
    assert "2.0" in kept, "JAX traced anew: the drop is not needed here any more"


@pytest.mark.extras("tpu")
def test_sharded_calls_under_meshes_of_one_shape_drop_first():
    """Sharded, each staging runs under its config's mesh; JAX's trace context holds the abstract
    mesh (axis names, sizes and device kind), not the devices, so the second would reuse the
    first's trace."""
    drops, second = stage_twice(V5E, V5E_AGAIN, sharded=True)
    assert drops == [1]
    assert "3.0" in second, second
    _, kept = stage_twice(V5E, V5E_AGAIN, sharded=True, clear=lambda: None)
    assert "2.0" in kept, "JAX traced anew: the drop is not needed here any more"


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
