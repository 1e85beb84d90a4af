"""Compile-only devices for a TPU slice or a set of GPUs on a machine without them.

``jax.experimental.topologies`` (libtpu; the CUDA plugin with a GPU spec)
gives devices that XLA compiles for but that never run anything. This module
makes them once per session, keeps the accelerator plugins' start-up noise
off the terminal, and places arguments that carry no sharding on them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.stage.errors import TopologyUnavailable

if TYPE_CHECKING:
    import jax
    from jax.experimental import topologies
else:
    jax = lazy_module("jax")
    topologies = lazy_module("jax.experimental.topologies")

SPEC_DIR = Path(__file__).parent / "gpu_specs"
# platform -> the module its compile-only plugin provides, and the extra of JAX that installs it
# (what pytest-stages' own `tpu`/`cuda` extras bring).
PLUGINS = {"tpu": ("libtpu", "tpu"), "cuda": ("jax_plugins.xla_cuda12", "cuda12")}


def gpu_names() -> list[str]:
    """The GPU specs that ship with the plugin, by name."""
    return sorted(path.stem for path in SPEC_DIR.glob("*.txtpb"))


def gpu_spec(config: DeviceConfig, rootpath: Path) -> str:
    """The GpuTargetConfig text of ``config.gpu``: a shipped name, or a path (relative to the rootdir)."""
    gpu = config.gpu or ""
    if gpu in gpu_names():
        return (SPEC_DIR / f"{gpu}.txtpb").read_text(encoding="utf-8")
    path = Path(gpu) if Path(gpu).is_absolute() else rootpath / gpu
    if not path.is_file():
        raise ConfigError(
            f"config {config.name!r}: gpu = {gpu!r} is neither a shipped spec ({', '.join(gpu_names())}) "
            "nor a GpuTargetConfig text file."
        )
    return path.read_text(encoding="utf-8")


def install_message(config: DeviceConfig, module: str, extra: str, version: str) -> str:
    """The skip message of a topology config whose plugin is missing: the command that installs it, and the one
    that works when pip finds no plugin for this JAX.

    ``jax[tpu]==V`` pins libtpu to the one release built with JAX V, and JAX is at times published before it
    (``No matching distribution found for libtpu==0.0.53.*``); ``jax[tpu]<=V`` lets pip step back to the newest
    JAX whose libtpu is published (checked with pip against PyPI: docs/configs.md).
    """
    plugin = module.rsplit(".", maxsplit=1)[-1]
    return (
        f"config {config.name!r} compiles for a {config.platform} topology, which needs {plugin}; install it with "
        f'`pip install "jax[{extra}]=={version}"`. If pip finds no matching {plugin} (a JAX release can come before '
        f'its {plugin}), `pip install "jax[{extra}]<={version}"` installs the newest JAX whose {plugin} is published'
    )


def topology_devices(config: DeviceConfig, rootpath: Path) -> tuple[object, ...]:
    """The compile-only devices of ``config.topology`` (made once per session and spec)."""
    module, extra = PLUGINS[config.platform or ""]
    if importlib.util.find_spec(module.split(".")[0]) is None or (
        "." in module and importlib.util.find_spec(module) is None
    ):
        raise TopologyUnavailable(install_message(config, module, extra, jax.__version__))
    spec = gpu_spec(config, rootpath) if config.platform == "cuda" else None
    try:
        return _make_devices(config.platform or "", config.topology or "", config.gpu, spec, _tpu_options(config))
    except Exception as exc:  # noqa: BLE001 - XLA raises plain RuntimeErrors/XlaRuntimeErrors
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        hint = ""
        if "chips_per_host_bounds" in reason and config.chips_per_host_bounds is None:
            hint = " (a single chip, v5e:1x1, needs chips_per_host_bounds = [1, 1, 1])"
        raise ConfigError(
            f"config {config.name!r}: topology {config.topology!r} cannot be made for {config.platform}: {reason}{hint}"
        ) from None


def _tpu_options(config: DeviceConfig) -> tuple[tuple[str, object], ...]:
    """The ``get_topology_desc`` keywords a TPU config sets beyond its name (hashable, for the cache)."""
    options: dict[str, object] = {}
    if config.chips_per_host_bounds is not None:
        options["chips_per_host_bounds"] = config.chips_per_host_bounds
    if config.num_slices > 1:
        options["num_slices"] = config.num_slices
    if config.chip_config_name is not None:
        options["chip_config_name"] = config.chip_config_name
    return tuple(options.items())


@functools.cache
def _make_devices(
    platform: str, topology: str, gpu: str | None, spec: str | None, tpu_options: tuple[tuple[str, object], ...] = ()
) -> tuple[object, ...]:
    """Once per session and topology: libtpu's topology of 256 chips takes a noticeable part of a second."""
    # libtpu takes a machine-wide lock (/tmp/libtpu_lockfile) unless told otherwise; compile-only
    # use needs no exclusive chip, and xdist workers or a second pytest each load libtpu.
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    with quiet_stderr():
        if platform == "cuda":
            desc = topologies.get_topology_desc(
                platform="cuda", topology_name=gpu or "gpu", topology=topology, target_config=spec
            )
        else:
            desc = topologies.get_topology_desc(platform=platform, topology_name=topology, **dict(tpu_options))
    return tuple(desc.devices)


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Send file descriptor 2 to a scratch file: libtpu logs from C++ at start-up."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as scratch:
        os.dup2(scratch.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def place_unsharded(tree: object) -> tuple[Any, bool]:
    """The arrays of ``tree`` as ``jax.jit`` takes them on the topology's hardware; and whether any is sharded.

    An array committed to a local device would pin the program to the CPU: it becomes a ``ShapeDtypeStruct``
    without a sharding (weak type kept); other leaves stay as written, so frameworks still see arrays. With no
    sharded leaf the caller stages under a topology device, else under the config's mesh.
    """

    def place(leaf: object) -> object:
        if isinstance(leaf, jax.Array) and getattr(leaf, "_committed", False):
            # A weakly typed array (jnp.asarray(2.0)) must stay weak, or it promotes what it touches.
            return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, weak_type=bool(getattr(leaf, "weak_type", False)))
        return leaf

    placed = jax.tree.map(place, tree)
    sharded = any(
        isinstance(leaf, jax.ShapeDtypeStruct) and leaf.sharding is not None for leaf in jax.tree.leaves(placed)
    )
    return placed, sharded
