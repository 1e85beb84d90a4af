"""A cache of staged results for compile-only topologies, which JAX's persistent cache cannot serve.

JAX cannot load back an executable compiled for a topology without its hardware, so this keeps the compiled
text and the analyses as validated JSON, keyed on every part that shapes them (:func:`key_parts`), bounded
in size; a corrupt or foreign entry is ignored with a :class:`CompileOnlyCacheWarning` (docs/caches.md).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_stages import jax_compat
from pytest_stages.analyse.artifacts import ARTIFACTS
from pytest_stages.core.errors import PREFIX, InputError
from pytest_stages.core.inputs import read_bytes
from pytest_stages.core.lazy import lazy_module, lazy_pattern
from pytest_stages.core.paths import write_atomically
from pytest_stages.stage import plan
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.disk_cache import compile_only
from pytest_stages.stage.topology import gpu_spec

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

FORMAT = 2  # 2: the normalized compiled text (``texts``) beside XLA's
# The artifacts read from the executable: what an entry holds. The others come from the trace and lowering.
CACHED = tuple(a.name for a in ARTIFACTS if a.stage == "compiled")
KEY_PARTS = ("module", "names", "compile_options", "xla_flags", "topology", "versions")
# The only files this cache writes (and so the only ones its eviction deletes): ``<sha256>.json``.
ENTRY = lazy_pattern(r"^[0-9a-f]{64}\.json$")


class CompileOnlyCacheWarning(UserWarning):
    """A compile-only cache entry was ignored (unreadable, corrupted or not this key's), or the cache is off."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@functools.cache
def plugin_digest() -> str:
    """sha256 of pytest-stages' own source: an entry holds what its code built, so a change of it misses."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def versions(active: ActiveConfig, lowered: jax.stages.Lowered) -> dict[str, str | None]:
    """The versions a compile-only result depends on: jax, jaxlib, the platform's plugin, its backend, pytest-stages."""
    names = ("jax", "jaxlib", *plan.PLUGIN_DISTRIBUTIONS.get(active.platform, ()))
    found: dict[str, str | None] = {name: plan.installed_version(name) for name in names}
    found["backend"] = jax_compat.backend_version(lowered)
    found["pytest_stages"] = plugin_digest()
    return found


def topology(active: ActiveConfig, rootpath: Path) -> dict[str, object]:
    """The config's hardware (topology, chips per host, slices, chip config, GPU spec, chip figures), its devices."""
    config = active.config
    spec = gpu_spec(config, rootpath) if config.platform == "cuda" else None
    return {
        "platform": active.platform,
        "topology": config.topology,
        "chips_per_host_bounds": list(config.chips_per_host_bounds or ()),
        "num_slices": config.num_slices,
        "chip_config_name": config.chip_config_name,
        "gpu_spec": None if spec is None else _sha(spec),
        "device_kinds": sorted({str(d.device_kind) for d in active.devices}),
        "devices": len(active.devices),
        "accelerator": jax_compat.accelerator_digest(active.devices),
        "chip": dict(config.chip),  # the figures of the step-time estimate, which the cost entry holds
    }


def key_parts(
    module_text: str,
    names: list[str],
    lowered: jax.stages.Lowered,
    active: ActiveConfig,
    rootpath: Path,
) -> dict[str, str]:
    """The key of a compile-only compile, part by part (each a digest), in :data:`KEY_PARTS` order.

    ``module_text`` is ``lowered.as_text()`` (StableHLO without locations, as JAX's own key
    strips them); ``names`` the leaf names the sharding and layout analyses print.
    """
    return {
        "module": _sha(module_text),
        "names": _sha(json.dumps(names)),
        "compile_options": jax_compat.compile_options_digest(lowered),
        "xla_flags": jax_compat.xla_flags_digest(),
        "topology": _sha(json.dumps(topology(active, rootpath), sort_keys=True)),
        "versions": _sha(json.dumps(versions(active, lowered), sort_keys=True)),
    }


def entry_name(parts: dict[str, str]) -> str:
    """The file of a key: ``<sha256 of its parts>.json``."""
    return _sha(json.dumps(parts, sort_keys=True)) + ".json"


def validate(data: object, parts: dict[str, str]) -> str | None:
    """Why ``data`` is not an entry of the key ``parts`` (None: it is one). Nothing of an entry is trusted unchecked."""
    if not isinstance(data, dict) or set(data) != {
        "format",
        "key",
        "compiled_text",
        "texts",
        "analyses",
        "unavailable",
    }:
        return "not a compile-only cache entry"
    checks = (
        (data["format"] == FORMAT, f"written in format {data['format']!r}, this version reads {FORMAT}"),
        (data["key"] == parts, "written for another key (a foreign or moved file)"),
        (isinstance(data["compiled_text"], str), "its compiled text is not text"),
        (_texts(data["texts"]), "its normalized texts are malformed"),
        (_analyses(data["analyses"]), "its analyses are malformed"),
        (_unavailable(data["unavailable"]), "its unavailable analyses are malformed"),
    )
    return next((why for fine, why in checks if not fine), None)


def _texts(value: object) -> bool:
    return isinstance(value, dict) and all(k in CACHED and isinstance(v, str) for k, v in value.items())


def _analyses(value: object) -> bool:
    return isinstance(value, dict) and all(k in CACHED and isinstance(v, dict) for k, v in value.items())


def _unavailable(value: object) -> bool:
    return isinstance(value, dict) and all(
        k in CACHED
        and isinstance(v, dict)
        and set(v) == {"reason", "partial"}
        and isinstance(v["reason"], str)
        and (v["partial"] is None or isinstance(v["partial"], dict))
        for k, v in value.items()
    )


class CompileOnlyCache:
    """The compile-only cache of one session: a folder of entries, at most ``max_bytes`` together."""

    def __init__(self, folder: Path, max_bytes: int, rootpath: Path) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.rootpath = rootpath
        self._broken: str | None = None  # why keys cannot be made here (JAX changed): the cache is off

    def key(
        self, module_text: str, names: list[str], lowered: jax.stages.Lowered, active: ActiveConfig
    ) -> dict[str, str] | None:
        """The key of this compile, or None (with one warning a process) where JAX's internals changed under it."""
        if self._broken is not None:
            return None
        try:
            return key_parts(module_text, names, lowered, active, self.rootpath)
        # Private JAX interfaces (jax_compat, section 5): any change of them turns the cache off, never fails a test.
        except Exception as exc:  # noqa: BLE001
            self._broken = f"{type(exc).__name__}: {exc}"
            warnings.warn(
                CompileOnlyCacheWarning(
                    f"{PREFIX}the compile-only cache is off: its key cannot be made with this JAX "
                    f"({self._broken}). Compile-only calls compile every run; report this with your jax version."
                ),
                stacklevel=2,
            )
            return None

    def read(self, parts: dict[str, str], wanted: tuple[str, ...]) -> dict[str, object] | None:
        """The entry of ``parts`` if it holds every artifact ``wanted``; None on a miss.

        A hit marks the file used (its mtime, which eviction reads). An unreadable, corrupted or
        foreign file is a miss with a warning; the compile that follows replaces it.
        """
        path = self.folder / entry_name(parts)
        try:  # a link, FIFO or device is refused unopened: never followed, never blocking, never read without end
            raw = read_bytes(path, follow_links=False)
        except FileNotFoundError:
            return None
        except (InputError, OSError) as exc:
            self._ignore(path, _unreadable(exc))
            return None
        try:
            data: dict[str, Any] = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._ignore(path, f"not JSON ({exc})")
            return None
        problem = validate(data, parts)
        if problem is not None:
            self._ignore(path, problem)
            return None
        held = {*data["analyses"], *data["unavailable"], "compiled"}
        if not set(wanted) <= held:
            return None  # built with fewer analyses enabled: compiled again, and rewritten with these
        with contextlib.suppress(OSError):
            os.utime(path)
        return data

    def write(self, parts: dict[str, str], entry: Mapping[str, object]) -> None:
        """Store ``entry`` (compiled texts, analyses, unavailable ones) under ``parts``, atomically; then evict.

        A folder that cannot be written is a warning: the run goes on without the cache's help.
        """
        data = {"format": FORMAT, "key": parts, **entry}
        try:
            text = json.dumps(data, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError):  # a figure JSON cannot hold: not cached (never stored inexactly)
            return
        try:
            write_atomically(self.folder / entry_name(parts), text, sync=False)  # a lost entry is a miss
            self.evict()
        except OSError as exc:
            warnings.warn(
                CompileOnlyCacheWarning(
                    f"{PREFIX}could not write the compile-only cache in {self.folder} ({exc.strerror or exc}); "
                    "this call compiles again next run. Free disk space or fix the folder's permissions."
                ),
                stacklevel=2,
            )

    def evict(self) -> None:
        """Delete the least recently used entries (oldest mtime first) until the rest fit in ``max_bytes``."""
        entries = []
        for found in _entries(self.folder):
            with contextlib.suppress(FileNotFoundError):  # another worker evicted it first
                stat = found.stat()
                entries.append((stat.st_mtime_ns, stat.st_size, found))
        total = sum(size for _, size, _ in entries)
        for _, size, found in sorted(entries, key=lambda e: (e[0], e[2].name)):
            if total <= self.max_bytes:
                break
            found.unlink(missing_ok=True)
            total -= size

    def _ignore(self, path: Path, why: str) -> None:
        warnings.warn(
            CompileOnlyCacheWarning(
                f"{PREFIX}ignored the compile-only cache entry {path}: {why}. Nothing of it was used: the call "
                "was compiled afresh and the entry rewritten."
            ),
            stacklevel=3,
        )


def _unreadable(exc: InputError | OSError) -> str:
    """Why an entry could not be read: a link, FIFO or device (never written by this cache), or the OS's reason."""
    if isinstance(exc, InputError) or exc.errno == errno.ELOOP:
        return "not a plain file (a symlink, FIFO, socket or device), which this cache never writes"
    return f"unreadable ({exc.strerror or exc})"


def _entries(folder: Path) -> Iterator[Path]:
    """The files of ``folder`` this cache wrote (named ``<sha256>.json``); nothing else is ever deleted."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return
    for name in names:
        if ENTRY.match(name):
            yield folder / name


class CachedCompiled:
    """``result.compiled`` of a call served by the compile-only cache: not JAX's executable, which cannot be restored.

    ``as_text()`` answers from the cache. Anything else (``input_shardings``, ``cost_analysis()``,
    ...) compiles the program then, once (as long as a miss takes), and answers from that real
    ``jax.stages.Compiled``, also given as :attr:`executable`. The staged artifacts never need it.
    """

    def __init__(self, lowered: jax.stages.Lowered, text: str) -> None:
        self._lowered = lowered
        self._text = text

    def as_text(self) -> str:
        return self._text

    @functools.cached_property
    def executable(self) -> jax.stages.Compiled:
        """The real ``jax.stages.Compiled``, compiled on first use (kept out of JAX's persistent cache)."""
        with compile_only():
            return self._lowered.compile()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.executable, name)

    def __repr__(self) -> str:
        return "CachedCompiled(from the compile-only cache; any attribute but as_text() compiles it)"
