"""The ``[[tool.pytest_stages.configs]]`` array into :class:`DeviceConfig`: platforms, meshes, topologies, limits."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict, get_args

from pytest_stages.analyse.step_time import parse_chip
from pytest_stages.config.values import reject_unknown
from pytest_stages.core.errors import ConfigError

AxisType = Literal["auto", "explicit", "manual"]
Platform = Literal["cpu", "tpu", "cuda", "rocm"]
Partitioner = Literal["shardy", "gspmd"]
AXIS_TYPES: tuple[AxisType, ...] = get_args(AxisType)
PLATFORMS: tuple[Platform, ...] = get_args(Platform)
PARTITIONERS: tuple[Partitioner, ...] = get_args(Partitioner)
TOPOLOGY_PLATFORMS: tuple[Platform, ...] = ("tpu", "cuda")
# The most chips along one axis of a TPU slice that libtpu compiles for, by chip: it aborts the
# process beyond them (where found: docs/performance.md). Chips not listed are bounded by MAX_DEVICES alone.
TPU_AXIS_BOUNDS = {"v5e": 16}
# A config name, safe as a folder and in a test id: ``cpu8``, ``v5e-2x2``, ``h100.fp8``.
CONFIG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


@dataclass(frozen=True)
class DeviceConfig:
    """One configured device set: where and on how many devices to stage."""

    name: str
    platform: Platform | None = None
    devices: int = 1
    mesh: tuple[tuple[str, int], ...] = ()
    axis_types: tuple[AxisType, ...] = ()
    topology: str | None = None
    gpu: str | None = None
    partitioner: Partitioner | None = None
    # TPU topologies as production uses them (``get_topology_desc``'s own arguments).
    chips_per_host_bounds: tuple[int, int, int] | None = None
    num_slices: int = 1
    chip_config_name: str | None = None
    # Each axis's size across slices (a hybrid mesh); ``mesh`` then gives the sizes within a slice.
    dcn_mesh: tuple[tuple[str, int], ...] = ()
    # The chip figures of the step-time estimate: a chip of the table and figures overriding its own.
    chip: tuple[tuple[str, object], ...] = ()

    @property
    def mesh_shape(self) -> dict[str, int]:
        """Each mesh axis's whole size: its size within a slice times its size across slices."""
        across = dict(self.dcn_mesh)
        return {axis: size * across.get(axis, 1) for axis, size in self.mesh}


class _Slices(TypedDict, total=False):
    """The keys of a TPU topology that production uses: a single-chip host, megacore, slices joined by DCN
    (none given: :class:`DeviceConfig`'s defaults)."""

    chips_per_host_bounds: tuple[int, int, int] | None
    num_slices: int
    chip_config_name: str | None
    dcn_mesh: tuple[tuple[str, int], ...]


SLICE_KEYS = tuple(_Slices.__annotations__)


# The config of a table that names none: one CPU device.
DEFAULT_CONFIGS = (DeviceConfig(name="default"),)


def parse_configs(raw: object) -> tuple[DeviceConfig, ...]:
    """Validate the ``[[tool.pytest_stages.configs]]`` array."""
    if not isinstance(raw, list) or not raw:
        raise ConfigError(
            "[[tool.pytest_stages.configs]] must be a non-empty array of tables (each with at least a name)."
        )
    configs = tuple(_parse_config(index, entry) for index, entry in enumerate(raw))
    names = [c.name for c in configs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"config name {duplicates[0]!r} is used twice; names must be unique.")
    return configs


def _parse_config(index: int, entry: object) -> DeviceConfig:
    """One ``[[tool.pytest_stages.configs]]`` table (``index`` counts from 0)."""
    where = f"[[tool.pytest_stages.configs]] entry {index + 1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table, got {entry!r}.")
    reject_unknown(where, entry, {key.name for key in dataclasses.fields(DeviceConfig)})
    name = entry.get("name")
    if not isinstance(name, str) or not CONFIG_NAME.match(name):
        raise ConfigError(
            f"{where}: name {name!r} must be 1-64 letters, digits, '_', '.', '+' or '-' "
            "(it becomes part of test ids and snapshot paths)."
        )
    where = f"config {name!r}"
    platform = _parse_platform(where, entry.get("platform"))
    topology, gpu = _parse_topology(where, platform, entry)
    partitioner = entry.get("partitioner")
    if partitioner is not None and partitioner not in PARTITIONERS:
        raise ConfigError(
            f"{where}: partitioner {partitioner!r} is not one of {list(PARTITIONERS)} (leave it out for JAX's default)."
        )
    partitioner = None if partitioner is None else PARTITIONERS[PARTITIONERS.index(partitioner)]
    mesh = _parse_mesh(where, entry.get("mesh", {}))
    slices = _parse_slices(where, platform, topology, entry, mesh)
    across = dict(slices.get("dcn_mesh", ()))
    whole = tuple((axis, size * across.get(axis, 1)) for axis, size in mesh)
    return DeviceConfig(
        name=name,
        platform=platform,
        devices=_parse_devices(where, entry, whole, cpu=topology is None and platform in (None, "cpu")),
        mesh=mesh,
        axis_types=_parse_axis_types(where, entry.get("axis_types", ()), len(mesh) or 1),  # default mesh: 1 axis
        topology=topology,
        gpu=gpu,
        partitioner=partitioner,
        chip=parse_chip(where, entry["chip"]) if "chip" in entry else (),
        **slices,
    )


def _parse_slices(
    where: str,
    platform: str | None,
    topology: str | None,
    entry: Mapping[str, object],
    mesh: tuple[tuple[str, int], ...],
) -> _Slices:
    """``chips_per_host_bounds``, ``num_slices``, ``chip_config_name`` and ``dcn_mesh``: TPU topologies only."""
    given = [key for key in SLICE_KEYS if key in entry]
    if not given:
        return _Slices()
    if platform != "tpu" or topology is None:
        raise ConfigError(
            f'{where}: {given[0]} applies to a TPU topology only; add platform = "tpu" and a topology '
            f'(e.g. topology = "v5p:4x4x4"), or leave {given[0]} out.'
        )
    bounds = _parse_host_bounds(where, entry.get("chips_per_host_bounds"))
    slices = _parse_num_slices(where, entry.get("num_slices", 1), topology)
    chip_config = _parse_chip_config(where, entry.get("chip_config_name"))
    dcn_mesh = _parse_dcn_mesh(where, entry, slices, mesh)
    return _Slices(chips_per_host_bounds=bounds, num_slices=slices, chip_config_name=chip_config, dcn_mesh=dcn_mesh)


def _parse_host_bounds(where: str, bounds: object) -> tuple[int, int, int] | None:
    """``chips_per_host_bounds``: three positive integers (chips per host along x, y, z), or absent."""
    if bounds is None:
        return None
    if (
        not isinstance(bounds, list)
        or len(bounds) != 3
        or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in bounds)
    ):
        raise ConfigError(
            f"{where}: chips_per_host_bounds = {bounds!r} must be three positive integers (chips per host along "
            "x, y, z), e.g. chips_per_host_bounds = [1, 1, 1] for a single-chip host."
        )
    return (bounds[0], bounds[1], bounds[2])


def _parse_num_slices(where: str, slices: object, topology: str) -> int:
    """``num_slices``: a positive integer whose slices of ``topology`` stay within ``MAX_DEVICES``."""
    if not isinstance(slices, int) or isinstance(slices, bool) or slices < 1:
        raise ConfigError(f"{where}: num_slices must be a positive integer (slices joined by DCN), got {slices!r}.")
    chips = _topology_chips(topology)
    if chips * slices > MAX_DEVICES:  # libtpu aborts the process for 2**40 slices
        raise ConfigError(
            f"{where}: num_slices = {slices} slices of topology {topology!r} hold {chips * slices} devices, more "
            f"than the {MAX_DEVICES} pytest-stages stages; name at most {max(1, MAX_DEVICES // chips)} slices."
        )
    return slices


def _parse_chip_config(where: str, chip_config: object) -> str | None:
    """``chip_config_name``: an identifier libtpu knows, or absent."""
    if chip_config is not None and (not isinstance(chip_config, str) or not chip_config.isidentifier()):
        raise ConfigError(
            f"{where}: chip_config_name = {chip_config!r} must be a name libtpu knows, "
            'e.g. "megacore" (v4) or "default".'
        )
    return chip_config


def _topology_chips(topology: str) -> int:
    """The devices a topology string names: the product of its sizes (``"v5e:2x2"`` -> 4)."""
    return math.prod(int(n) for n in re.findall(r"\d+", topology.rsplit(":", maxsplit=1)[-1]))


def _parse_dcn_mesh(
    where: str, entry: Mapping[str, object], slices: int, mesh: tuple[tuple[str, int], ...]
) -> tuple[tuple[str, int], ...]:
    """``dcn_mesh``: each axis's size across slices; with ``num_slices`` > 1 and a ``mesh`` it is required."""
    if "dcn_mesh" not in entry:
        if slices > 1 and mesh:
            axes = ", ".join(axis for axis, _ in mesh)
            raise ConfigError(
                f"{where}: num_slices = {slices} with a mesh needs dcn_mesh, each axis's size across slices "
                f"(their product {slices}), e.g. dcn_mesh = {{ {mesh[0][0]} = {slices} }}; mesh ({axes}) then gives "
                "the sizes within one slice."
            )
        return ()
    dcn = _parse_mesh(where, entry["dcn_mesh"], key="dcn_mesh")
    if slices == 1:
        raise ConfigError(
            f"{where}: dcn_mesh spreads mesh axes across slices, but num_slices is {slices}; "
            f"add num_slices = {math.prod(s for _, s in dcn)} (the product of dcn_mesh), or leave dcn_mesh out."
        )
    if not mesh:
        raise ConfigError(
            f"{where}: dcn_mesh needs a mesh giving each axis's size within a slice; add mesh with every "
            f"dcn_mesh axis in it (size 1 allowed), e.g. mesh = {{ {dcn[0][0]} = 1, ... }}."
        )
    missing = [axis for axis, _ in dcn if axis not in dict(mesh)]
    if missing:
        raise ConfigError(
            f"{where}: dcn_mesh axis {missing[0]!r} is not in mesh; every dcn_mesh axis must also be in mesh "
            f"(size 1 there is allowed: {missing[0]} = 1)."
        )
    if math.prod(s for _, s in dcn) != slices:
        shape = " x ".join(f"{axis}={s}" for axis, s in dcn)
        raise ConfigError(
            f"{where}: dcn_mesh {shape} spans {math.prod(s for _, s in dcn)} slices but num_slices = {slices}; "
            f"make the dcn_mesh sizes multiply to {slices}."
        )
    return dcn


# The most devices a config may ask for: host CPU devices, which JAX makes at start-up in time and
# memory growing with their count (docs/performance.md), and devices on any platform (the largest
# TPU pods hold under 9000 chips).
MAX_CPU_DEVICES = 4096


MAX_DEVICES = 16384


def _parse_devices(where: str, entry: Mapping[str, object], mesh: tuple[tuple[str, int], ...], *, cpu: bool) -> int:
    """``devices``: a positive count, the mesh's size by default, and equal to it when both are given.

    A count past what can be staged is refused here, before JAX spends minutes making the
    devices: :data:`MAX_CPU_DEVICES` host CPU devices, :data:`MAX_DEVICES` on any platform.
    """
    size = math.prod(s for _, s in mesh)
    devices = entry.get("devices", size if mesh else 1)
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise ConfigError(f"{where}: devices must be a positive integer, got {devices!r}.")
    limit, what = (MAX_CPU_DEVICES, "CPU devices") if cpu else (MAX_DEVICES, "devices")
    for count, named in ((devices, f"devices = {devices}"), (size, f"a mesh of {size} devices")):
        if count > limit:
            raise ConfigError(
                f"{where}: {named} is more than the {limit} {what} pytest-stages stages (making them would take "
                "minutes and gigabytes); stage the program on a smaller mesh, or on a TPU/GPU topology."
            )
    if mesh and size != devices:
        shape = " x ".join(f"{axis}={s}" for axis, s in mesh)
        raise ConfigError(
            f"{where}: mesh {shape} holds {size} devices "
            f"but devices = {devices}; make the axis sizes multiply to the device count."
        )
    return devices


def _parse_axis_types(where: str, raw: object, axes: int) -> tuple[AxisType, ...]:
    """``axis_types``: one name per mesh axis, or a single name for all of them."""
    if isinstance(raw, str):
        raw = [raw] * axes
    if not isinstance(raw, (list, tuple)) or any(t not in AXIS_TYPES for t in raw):
        raise ConfigError(
            f"{where}: axis_types {raw!r} must name one of {list(AXIS_TYPES)} per mesh axis, or one for all axes."
        )
    if raw and len(raw) != axes:
        raise ConfigError(
            f"{where}: axis_types needs one entry per mesh axis ({axes}), or a single name for all of them."
        )
    return tuple(AXIS_TYPES[AXIS_TYPES.index(t)] for t in raw)


def _parse_platform(where: str, platform: object) -> Platform | None:
    if platform is None:
        return None
    if isinstance(platform, str) and platform in PLATFORMS:
        return PLATFORMS[PLATFORMS.index(platform)]
    if platform == "gpu":
        raise ConfigError(
            f"{where}: platform 'gpu' is ambiguous (JAX reads it as whichever of cuda or rocm is "
            'installed); write platform = "cuda" for NVIDIA or "rocm" for AMD.'
        )
    raise ConfigError(f"{where}: platform {platform!r} is not one of {list(PLATFORMS)}.")


def _parse_topology(
    where: str, platform: Platform | None, entry: Mapping[str, object]
) -> tuple[str | None, str | None]:
    """``topology`` (with ``gpu`` for cuda): a compile-only device set; it decides the device count."""
    topology, gpu = entry.get("topology"), entry.get("gpu")
    if topology is None:
        if gpu is not None:
            raise ConfigError(f'{where}: gpu = {gpu!r} needs platform = "cuda" and a topology.')
        return None, None
    if platform not in TOPOLOGY_PLATFORMS:
        raise ConfigError(f'{where}: topology needs platform = "tpu" or "cuda", got {platform!r}.')
    if not isinstance(topology, str) or not re.fullmatch(r"([a-z0-9]+:)?\d+(x\d+)*", topology):
        raise ConfigError(
            f'{where}: topology {topology!r} must look like "v5e:2x2" (tpu) or "1x1x4" '
            "(cuda: slices x hosts x devices)."
        )
    chips = _topology_chips(topology)
    if chips > MAX_DEVICES:
        raise ConfigError(
            f"{where}: topology {topology!r} holds {chips} devices, more than the {MAX_DEVICES} pytest-stages "
            "stages; name a smaller slice."
        )
    if "devices" in entry:
        raise ConfigError(f"{where}: leave devices out of a topology config: the topology decides them.")
    if platform == "tpu":
        return _tpu_topology(where, topology, gpu)
    return _cuda_topology(where, topology, gpu)


def _tpu_topology(where: str, topology: str, gpu: object) -> tuple[str, None]:
    """A tpu ``topology``: it names its chip, takes no ``gpu``, and stays within :data:`TPU_AXIS_BOUNDS`, refused
    here before JAX is asked: libtpu aborts the whole process (a failed check, no exception) beyond them."""
    if gpu is not None:
        raise ConfigError(f'{where}: gpu applies to platform = "cuda" only.')
    if ":" not in topology:
        raise ConfigError(f'{where}: a tpu topology names its chip, e.g. "v5e:2x2".')
    chip, _, shape = topology.partition(":")
    largest = TPU_AXIS_BOUNDS.get(chip)
    if largest is not None and max(int(n) for n in shape.split("x")) > largest:
        raise ConfigError(
            f"{where}: topology {topology!r} is larger than a {chip} slice can be: at most {largest} chips along "
            f"each axis ({chip}:{largest}x{largest}); libtpu would abort the process compiling for it. Name a "
            f'smaller slice, or join slices with num_slices (e.g. topology = "{chip}:{largest}x{largest}", '
            "num_slices = 2)."
        )
    return topology, None


def _cuda_topology(where: str, topology: str, gpu: object) -> tuple[str, str]:
    """A cuda ``topology``: slices x hosts x devices, with ``gpu`` naming the target."""
    if ":" in topology or topology.count("x") != 2:
        raise ConfigError(f'{where}: a cuda topology is slices x hosts x devices, e.g. "1x1x4", got {topology!r}.')
    if not isinstance(gpu, str) or not gpu:
        raise ConfigError(
            f'{where}: a cuda topology needs gpu = a shipped spec name (e.g. "h100") '
            "or the path of a GpuTargetConfig text file."
        )
    return topology, gpu


def _parse_mesh(where: str, raw: object, key: str = "mesh") -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: {key} must be a table of axis name = size, got {raw!r}.")
    for axis, size in raw.items():
        if not axis.isidentifier():
            raise ConfigError(f"{where}: {key} axis name {axis!r} must be an identifier.")
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ConfigError(f"{where}: {key} axis {axis!r} size must be a positive integer, got {size!r}.")
    return tuple(raw.items())
