"""Where and how a config stages on this host, and the environment its snapshot folder records.

:func:`plan` is the one, pure decision of which backend a config stages on (a config without ``platform`` is
CPU everywhere); :func:`environment` is what a folder's ``_stages.json`` records of the compile.
"""

from __future__ import annotations

import functools
import platform as platform_
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from pytest_stages.config.device_configs import DeviceConfig

# How a config is staged: compiled on attached devices, for a compile-only topology, or lowered only.
ATTACHED = "attached"
COMPILE_ONLY = "compile-only"
LOWERED = "lowered"

# The accelerator plugins whose version shapes a compiled program, by platform (distribution names).
PLUGIN_DISTRIBUTIONS = {"tpu": ("libtpu",), "cuda": ("jax-cuda12-plugin", "jax-cuda12-pjrt")}
# The ``_stages.json`` keys :func:`environment` owns; those of the compile are kept from a compiling host.
COMPILE_KEYS = ("staging", "device_kind", "machine", *(n for names in PLUGIN_DISTRIBUTIONS.values() for n in names))
ENVIRONMENT_KEYS = ("jax", "jaxlib", "platform", "pytest_stages", *COMPILE_KEYS)
# ``platform.machine()`` spellings of one architecture: ``AMD64`` (Windows) is ``x86_64``, ``arm64`` (macOS)
# ``aarch64``.
MACHINE_ALIASES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}


@dataclass(frozen=True)
class Plan:
    """The platform a config stages for and how (:data:`ATTACHED`, :data:`COMPILE_ONLY` or :data:`LOWERED`)."""

    platform: str
    staging: str

    @property
    def compiles(self) -> bool:
        return self.staging != LOWERED


def platform_of(config: DeviceConfig) -> str:
    """The platform ``config`` stages for: its ``platform``, else ``cpu`` (never the default backend)."""
    return config.platform or "cpu"


def plan(config: DeviceConfig, attached: Collection[str]) -> Plan:
    """How ``config`` stages on a host where the platforms ``attached`` have devices.

    A topology is compile-only wherever it runs; otherwise the config's platform is compiled
    where it is attached and lowered only where it is not.
    """
    platform = platform_of(config)
    if config.topology is not None:
        return Plan(platform, COMPILE_ONLY)
    return Plan(platform, ATTACHED if platform in attached else LOWERED)


def host_dependent(config: DeviceConfig) -> bool:
    """Whether how ``config`` stages depends on the host: an accelerator platform with no topology.

    Such a config is lowered only in CPU CI and compiled where its platform is attached, so its
    snapshots keep what both can check (the lowered stages and the lowered cost) apart from
    what only the attached host can (the compiled ones).
    """
    return platform_of(config) != "cpu" and config.topology is None


def machine() -> str:
    """The host's CPU architecture, one spelling per architecture (``x86_64``, ``aarch64``)."""
    name = platform_.machine().lower()
    return MACHINE_ALIASES.get(name, name)


def environment(staged: Plan, devices: tuple[Any, ...], plugin_version: str | None = None) -> dict[str, object]:
    """What a snapshot folder records of where its programs were staged (``_stages.json`` keys).

    The platform, how it was staged, the device kind (None where lowered only), the host's
    CPU architecture for CPU compiles, the jax/jaxlib versions, the accelerator plugins'
    versions where they compiled the program, and pytest-stages' own version.
    """
    out: dict[str, object] = {
        "jax": installed_version("jax"),
        "jaxlib": installed_version("jaxlib"),
        "platform": staged.platform,
        "staging": staged.staging,
        "device_kind": str(devices[0].device_kind) if devices and staged.compiles else None,
        "pytest_stages": plugin_version or installed_version("pytest-stages"),
    }
    if staged.platform == "cpu" and staged.compiles:
        out["machine"] = machine()
    if staged.compiles:
        out.update({name: installed_version(name) for name in PLUGIN_DISTRIBUTIONS.get(staged.platform, ())})
    return out


def versions(recorded: Mapping[str, object]) -> dict[str, str]:
    """The versions of an :func:`environment` that make a version change (jax, jaxlib, accelerator plugins)."""
    names = ("jax", "jaxlib", *(n for names in PLUGIN_DISTRIBUTIONS.values() for n in names))
    return {name: str(recorded[name]) for name in names if recorded.get(name) is not None}


@functools.cache
def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, read once a process.

    Each lookup searches every ``sys.path`` entry for the distribution's metadata (a few
    hundred file-system calls); the installed versions do not change during a session.
    """
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
