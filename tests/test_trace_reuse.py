"""Dropping JAX's caches between configs: only where JAX could answer a staging from a kept trace.

A function that reads a global shows which trace a staging got: its jaxpr holds the value the
global had when JAX traced it. ``stage()`` drops the caches (``clear_caches = "auto"``) before a
staging whose function, shapes, default device and abstract mesh match one kept since the last
drop; these tests hold both halves: no needless drop between configs JAX keeps apart (each
such drop costs the next tests their re-traces), and no missing one where JAX would reuse.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.config.devices import DeviceConfig
from pytest_stages.stage.devices import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.memory_release import CacheClearing
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
