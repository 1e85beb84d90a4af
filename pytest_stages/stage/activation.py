"""Device sets: arrange virtual CPU devices early, and resolve a config to real devices and a mesh."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_module, lazy_pattern
from pytest_stages.stage import chip, jax_options
from pytest_stages.stage import plan as plan_
from pytest_stages.stage.errors import ChipHeld
from pytest_stages.stage.process_env import ProcessChanges
from pytest_stages.stage.topology import gpu_spec, topology_devices

if TYPE_CHECKING:
    import jax
    from jax.experimental import mesh_utils
else:
    jax = lazy_module("jax")
    mesh_utils = lazy_module("jax.experimental.mesh_utils")

CPU_COUNT_VARIABLE = "JAX_NUM_CPU_DEVICES"


def cpu_devices_needed(configs: Iterable[DeviceConfig]) -> int:
    """The largest device count among configs that stage on the CPU (no platform, or ``cpu``)."""
    return max((c.devices for c in configs if c.platform in (None, "cpu")), default=1)


def arrange_cpu_devices(count: int, changes: ProcessChanges) -> None:
    """Ask JAX for ``count`` CPU devices before its backend starts (recorded in ``changes``).

    Before ``import jax`` this is the ``JAX_NUM_CPU_DEVICES`` variable (so an
    unused plugin costs no import); after it, ``jax_num_cpu_devices``. If the
    backend already started, JAX refuses and :func:`activate` explains it.
    """
    if count <= 1:
        return
    if "jax" not in sys.modules:
        current = os.environ.get(CPU_COUNT_VARIABLE, "")
        if not current.isdigit() or int(current) < count:
            changes.set_variable(CPU_COUNT_VARIABLE, str(count))
        return
    if jax_options.option("jax_num_cpu_devices") >= count:
        return
    with contextlib.suppress(RuntimeError):  # the backend is already up: the devices it has stay
        changes.set_option("jax_num_cpu_devices", count)


@dataclass(frozen=True)
class ActiveConfig:
    """The ``stage_config`` fixture: one device configuration, resolved.

    ``attached`` is False for a platform that is not on this machine: such a
    config is lowered for that platform but never compiled, and its ``mesh`` is
    an ``AbstractMesh``. ``compile_only`` marks the devices of a ``topology``:
    compiled for, never run on.
    """

    config: DeviceConfig
    platform: str
    attached: bool
    devices: tuple[jax.Device, ...]
    mesh: Any  # jax.sharding.Mesh, or AbstractMesh for a compile-only topology: callers use either's API
    compile_only: bool = False
    # What one device offers a program (bytes; None where unknown) and where that figure comes from.
    device_memory: DeviceMemory | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def declares_mesh(self) -> bool:
        return bool(self.config.mesh)

    @property
    def plan(self) -> plan_.Plan:
        """Where and how this config stages (:func:`pytest_stages.stage.plan.plan`'s answer)."""
        staging = plan_.COMPILE_ONLY if self.compile_only else plan_.ATTACHED if self.attached else plan_.LOWERED
        return plan_.Plan(self.platform, staging)

    @property
    def host_dependent(self) -> bool:
        """Lowered only in CPU CI, compiled where the platform is attached (:func:`.plan.host_dependent`)."""
        return plan_.host_dependent(self.config)

    @property
    def abstract_mesh(self) -> Any | None:
        """The abstract mesh that staging runs under, which JAX keys traces on (None: no mesh declared)."""
        return self.mesh.abstract_mesh if self.declares_mesh else None


def activate(config: DeviceConfig, rootpath: Path = Path(".")) -> ActiveConfig:
    """Resolve ``config`` against the running JAX: its platform, devices and mesh.

    Which backend it stages on is :func:`pytest_stages.stage.plan.plan`'s decision: a config
    without ``platform`` stages on the CPU devices even where an accelerator is the default
    backend. A ``topology`` config gets compile-only devices (raising
    :class:`~pytest_stages.stage.errors.TopologyUnavailable` without the plugin).
    """
    axis_types = _axis_types(config.axis_types) if config.axis_types else None
    if config.topology is not None:
        return _activate_topology(config, rootpath, axis_types)
    platform = plan_.platform_of(config)
    shape = config.mesh_shape or {"data": config.devices}
    try:
        available = jax.devices(platform)
    except RuntimeError as exc:
        held = chip.held_elsewhere(str(exc))
        if held is not None:  # attached but held by another process: never quietly lowered only
            raise ChipHeld(chip.held_message(held)) from None
        available = []
    except AssertionError:  # JAX asserts a default backend: none of those JAX_PLATFORMS names started
        raise ConfigError(_no_backend(config, platform)) from None
    if plan_.plan(config, {platform} if available else ()).staging == plan_.LOWERED:
        # jax.make_mesh's default is Explicit axes; AbstractMesh's is Auto: state it, so that a
        # platform lowered only traces as it would where attached.
        types = axis_types or (jax.sharding.AxisType.Explicit,) * len(shape)
        abstract = jax.sharding.AbstractMesh(tuple(shape.values()), tuple(shape), axis_types=types)
        return ActiveConfig(config, platform, attached=False, devices=(), mesh=abstract)
    if len(available) < config.devices:
        raise ConfigError(_too_few_devices(config, platform, len(available)))
    devices = tuple(available[: config.devices])
    mesh = jax.make_mesh(tuple(shape.values()), tuple(shape), axis_types=axis_types, devices=devices)
    return ActiveConfig(
        config, platform, attached=True, devices=devices, mesh=mesh, device_memory=device_memory(devices[0])
    )


def _activate_topology(
    config: DeviceConfig, rootpath: Path, axis_types: tuple[jax.sharding.AxisType, ...] | None
) -> ActiveConfig:
    devices = topology_devices(config, rootpath)
    if len(devices) != config.devices and config.mesh:
        raise ConfigError(_mesh_does_not_fit(config, len(devices)))
    try:
        mesh = topology_mesh(config, devices, axis_types)
    except (NotImplementedError, ValueError, AssertionError) as exc:  # JAX's mesh_utils on a shape it cannot lay out
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        sizes = " x ".join(f"{axis}={size}" for axis, size in config.mesh)
        raise ConfigError(
            f"config {config.name!r}: mesh {sizes} cannot be laid over topology {config.topology!r}: {reason} "
            "Choose axis sizes that are each a product of the topology's physical axes (for v5p:8x8x4: 8, 32 or 4, 64)."
        ) from None
    spec = gpu_spec(config, rootpath) if config.platform == "cuda" else None
    memory = device_memory(devices[0], spec, config.chip_config_name)
    config = dataclasses.replace(config, devices=len(devices))
    return ActiveConfig(
        config,
        config.platform or "",
        attached=True,
        devices=devices,
        mesh=mesh,
        compile_only=True,
        device_memory=memory,
    )


def topology_mesh(
    config: DeviceConfig, devices: tuple[object, ...], axis_types: tuple[jax.sharding.AxisType, ...] | None
) -> object:
    """The config's mesh over a topology's devices; a hybrid (ICI x DCN) mesh when it spans slices.

    ``jax.make_mesh`` fails on the devices of several slices (an AssertionError in
    ``_get_physical_tpu_mesh``); ``create_hybrid_device_mesh`` places each axis's within-slice
    part on the chips of a slice and its across-slice part over the slices.
    """
    if config.num_slices == 1:
        shape = config.mesh_shape or {"data": len(devices)}
        return jax.make_mesh(tuple(shape.values()), tuple(shape), axis_types=axis_types, devices=devices)
    within = dict(config.mesh) or {"data": len(devices) // config.num_slices}
    across = dict(config.dcn_mesh) or {"data": config.num_slices}
    grid = mesh_utils.create_hybrid_device_mesh(
        tuple(within.values()), tuple(across.get(axis, 1) for axis in within), devices=list(devices)
    )
    types = axis_types or (jax.sharding.AxisType.Explicit,) * len(within)  # jax.make_mesh's default
    return jax.sharding.Mesh(grid, tuple(within), axis_types=types)


def _mesh_does_not_fit(config: DeviceConfig, count: int) -> str:
    sizes = " x ".join(f"{axis}={size}" for axis, size in config.mesh)
    if config.num_slices == 1:
        return (
            f"config {config.name!r}: mesh {sizes} holds {config.devices} devices but topology "
            f"{config.topology!r} has {count}; make the axis sizes multiply to {count}."
        )
    return (
        f"config {config.name!r}: mesh {sizes} holds {config.devices // config.num_slices} devices per slice but "
        f"topology {config.topology!r} has {count // config.num_slices} per slice ({count} in {config.num_slices} "
        f"slices); make the mesh sizes (within one slice) multiply to {count // config.num_slices}."
    )


@dataclass(frozen=True)
class DeviceMemory:
    """The memory one device offers a program, in bytes, and where the figure comes from."""

    bytes: int
    source: str


# Usable memory per device kind (and libtpu chip config), for compile-only TPU devices, which
# report none. XLA names this limit where it refuses a larger program ("exceeds available HBM
# (15.75G)"); that figure is rounded to 0.01 GiB, and only v5e's was read exactly from a chip.
def _refused_at(gib: float, kind: str) -> DeviceMemory:
    return DeviceMemory(
        round(gib * 2**30), f"XLA's limit for {kind} compiled compile-only: 'exceeds available HBM ({gib}G)'"
    )


TPU_MEMORY = {
    ("TPU v5 lite", None): DeviceMemory(
        16_909_336_064, "memory_stats()['bytes_limit'] of a TPU v5e chip (XLA's limit: 15.75 GiB)"
    ),
    ("TPU v5", None): _refused_at(95.74, "TPU v5p"),
    ("TPU v6 lite", None): _refused_at(31.25, "TPU v6e"),
    ("TPU v4", None): _refused_at(15.25, "TPU v4 (one core)"),
    ("TPU v4", "megacore"): _refused_at(30.75, "TPU v4 megacore"),
}
_SPEC_MEMORY = lazy_pattern(r"\bdevice_memory_size:\s*(\d+)")


def device_memory(device: Any, spec: str | None = None, chip_config: str | None = None) -> DeviceMemory | None:
    """What one device can hold: the attached device's own limit, the GPU spec's, else the table by kind."""
    with contextlib.suppress(Exception):  # compile-only and CPU devices have no memory stats
        stats = device.memory_stats() or {}
        if stats.get("bytes_limit"):
            return DeviceMemory(int(stats["bytes_limit"]), f"memory_stats()['bytes_limit'] of {device.device_kind}")
    if spec is not None:
        found = _SPEC_MEMORY.search(spec)
        return DeviceMemory(int(found[1]), "the GPU spec's device_memory_size") if found else None
    return TPU_MEMORY.get((str(getattr(device, "device_kind", "")), chip_config))


def _axis_types(names: tuple[str, ...]) -> tuple[jax.sharding.AxisType, ...]:
    return tuple(getattr(jax.sharding.AxisType, name.capitalize()) for name in names)


def _no_backend(config: DeviceConfig, platform: str) -> str:
    """Why no config can stage when JAX started no backend at all."""
    named = os.environ.get("JAX_PLATFORMS", "")
    return (
        f"config {config.name!r} stages on {platform}, but JAX started no backend: JAX_PLATFORMS={named!r} names "
        "only platforms that could not start here (JAX's log says why). Unset JAX_PLATFORMS (pytest-stages then "
        f"starts the CPU where no accelerator is attached), or name one this machine has (JAX_PLATFORMS={platform})."
    )


def _too_few_devices(config: DeviceConfig, platform: str, available: int) -> str:
    if platform == "cpu":
        return (
            f"config {config.name!r} needs {config.devices} CPU devices but JAX has {available}: "
            "its backend started before pytest-stages could set the count (something ran "
            "jax.devices() or a JAX operation while conftest.py or a plugin was imported). Move "
            "that call into a test or fixture, or start pytest with "
            f"{CPU_COUNT_VARIABLE}={config.devices}."
        )
    return (
        f"config {config.name!r} needs {config.devices} {platform} devices (its mesh or device "
        f"count) but only {available} are attached; lower its devices/mesh to at most "
        f"{available}, or run it where more are attached."
    )
