"""Device sets: arrange virtual CPU devices early, and resolve a config to real devices and a mesh."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_stages.config import ConfigError, DeviceConfig
from pytest_stages.stage import jax_options
from pytest_stages.stage import plan as plan_
from pytest_stages.stage.topology import topology_devices

CPU_COUNT_VARIABLE = "JAX_NUM_CPU_DEVICES"


def cpu_devices_needed(configs: Iterable[DeviceConfig]) -> int:
    """The largest device count among configs that stage on the CPU (no platform, or ``cpu``)."""
    return max((c.devices for c in configs if c.platform in (None, "cpu")), default=1)


def arrange_cpu_devices(count: int) -> None:
    """Ask JAX for ``count`` CPU devices before its backend starts.

    Before ``import jax`` this is the ``JAX_NUM_CPU_DEVICES`` variable (so an
    unused plugin costs no import); after it, ``jax_num_cpu_devices``. If the
    backend already started, JAX refuses and :func:`activate` explains it.
    """
    if count <= 1:
        return
    if "jax" not in sys.modules:
        current = os.environ.get(CPU_COUNT_VARIABLE, "")
        if not current.isdigit() or int(current) < count:
            os.environ[CPU_COUNT_VARIABLE] = str(count)
        return
    import jax

    if jax_options.option("jax_num_cpu_devices") >= count:
        return
    with contextlib.suppress(RuntimeError):  # the backend is already up: the devices it has stay
        jax.config.update("jax_num_cpu_devices", count)


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
    devices: tuple[Any, ...]
    mesh: Any
    compile_only: bool = False

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
    :class:`~pytest_stages.stage.topology.TopologyUnavailable` without the plugin).
    """
    import jax

    axis_types = _axis_types(config.axis_types) if config.axis_types else None
    if config.topology is not None:
        return _activate_topology(config, rootpath, axis_types)
    platform = plan_.platform_of(config)
    shape = config.mesh_shape or {"data": config.devices}
    try:
        available = jax.devices(platform)
    except RuntimeError:
        available = []
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
    return ActiveConfig(config, platform, attached=True, devices=devices, mesh=mesh)


def _activate_topology(config: DeviceConfig, rootpath: Path, axis_types: Any) -> ActiveConfig:
    import jax

    devices = topology_devices(config, rootpath)
    shape = config.mesh_shape or {"data": len(devices)}
    if len(devices) != config.devices and config.mesh:
        sizes = " x ".join(f"{axis}={size}" for axis, size in config.mesh)
        raise ConfigError(
            f"config {config.name!r}: mesh {sizes} holds {config.devices} devices but topology "
            f"{config.topology!r} has {len(devices)}; make the axis sizes multiply to {len(devices)}."
        )
    mesh = jax.make_mesh(tuple(shape.values()), tuple(shape), axis_types=axis_types, devices=devices)
    config = dataclasses.replace(config, devices=len(devices))
    return ActiveConfig(config, config.platform or "", attached=True, devices=devices, mesh=mesh, compile_only=True)


def _axis_types(names: tuple[str, ...]) -> tuple[Any, ...]:
    from jax.sharding import AxisType

    return tuple(getattr(AxisType, name.capitalize()) for name in names)


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
