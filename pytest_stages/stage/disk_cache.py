"""JAX's persistent compilation cache for staged compiles: on by default, under pytest's cache folder.

A warm run reads each unchanged executable back instead of compiling it again; the
normalized snapshot texts and the analyses of a cached executable are the same as of a
fresh compile (``tests/test_disk_cache.py``). A cache the user configured for JAX
(``JAX_COMPILATION_CACHE_DIR`` or ``jax.config``) is used as it is and never changed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_stages.core.errors import PREFIX
from pytest_stages.stage import jax_options
from pytest_stages.stage.process_env import ProcessChanges

DIR_VARIABLE = "JAX_COMPILATION_CACHE_DIR"
# Set beside JAX's variable so that xdist workers (which inherit the environment) and later
# sessions in one process tell the folder this plugin chose from one the user chose.
OWN_VARIABLE = "PYTEST_STAGES_JAX_CACHE_DIR"
# Cache every executable: the tests' programs are small and quick to compile, which JAX's
# defaults (1 s minimum compile time) would leave out.
THRESHOLDS = {
    "jax_persistent_cache_min_compile_time_secs": 0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
}
# JAX's warning when it reads back an executable of a compile-only topology (it cannot load one).
UNLOADABLE_WARNING = r"Error reading persistent compilation cache entry"


@dataclass(frozen=True)
class CacheChoice:
    """Where staged compiles are cached (``path`` None: not cached), and who chose it."""

    path: Path | None
    owner: str  # "pytest-stages", "jax" (the user's own JAX setting) or "off"


def choose(setting: bool | str, default: Path | None, rootpath: Path, jax_dir: str | None) -> CacheChoice:
    """Resolve ``compilation_cache`` (true, false or a folder) against JAX's own setting.

    ``default`` is the folder under pytest's cache (None with ``-p no:cacheprovider``).

    >>> choose("build/jax-cache", None, Path("/p"), None).path
    PosixPath('/p/build/jax-cache')
    """
    if jax_dir:
        return CacheChoice(Path(jax_dir), "jax")
    if setting is True and default is not None:
        return CacheChoice(default, "pytest-stages")
    if isinstance(setting, str):
        return CacheChoice(rootpath / setting, "pytest-stages")
    return CacheChoice(None, "off")


def users_jax_dir() -> str | None:
    """The cache folder the user set for JAX itself, if any (read without importing JAX)."""
    current = os.environ.get(DIR_VARIABLE)
    if "jax" in sys.modules:
        current = jax_options.option("jax_compilation_cache_dir") or current
    return current if current and current != os.environ.get(OWN_VARIABLE) else None


def enable(path: Path, changes: ProcessChanges) -> None:
    """Point JAX's persistent cache at ``path``: variables before ``import jax``, config after it.

    Every change is recorded in ``changes``, which unconfigure restores. JAX decides once per
    process whether to use the cache, at its first compile; a process that compiled before
    this call keeps compiling without it.
    """
    path.mkdir(parents=True, exist_ok=True)
    changes.set_variable(OWN_VARIABLE, str(path))
    if "jax" not in sys.modules:
        changes.set_variable(DIR_VARIABLE, str(path))
        for name, value in THRESHOLDS.items():
            changes.set_variable(name.upper(), str(value))
        return
    changes.set_option("jax_compilation_cache_dir", str(path))
    for name, value in THRESHOLDS.items():
        changes.set_option(name, value)


DEFAULT_FOLDER = "pytest-stages-jax"
# The compile-only cache's subfolder (stage/topology_results.py): JAX's cache reads only its own files.
COMPILE_ONLY_FOLDER = "compile-only"


def staged_folder(setting: bool | str, default: Path | None, rootpath: Path) -> Path | None:
    """Where the compile-only cache lives: ``compile-only`` in the folder ``compilation_cache`` names; None when off.

    The setting's folder even where JAX's cache is the user's, so one folder holds both caches.

    >>> staged_folder("build/jax", None, Path("/p"))
    PosixPath('/p/build/jax/compile-only')
    """
    if setting is True and default is not None:
        return default / COMPILE_ONLY_FOLDER
    if isinstance(setting, str):
        return rootpath / setting / COMPILE_ONLY_FOLDER
    return None


PROPERTY = "pytest_stages_cache"


@contextlib.contextmanager
def compile_only() -> Iterator[None]:
    """Around the compile of a compile-only topology (TPU/GPU without the hardware): keep it out of the cache.

    JAX cannot load such an executable back, so nothing is written and the warning of an entry written
    before is silenced; not counted as a cache request.
    """
    with (
        jax_options.option_set("jax_persistent_cache_min_compile_time_secs", float("inf")),
        warnings.catch_warnings(),
    ):
        warnings.filterwarnings("ignore", message=UNLOADABLE_WARNING)
        yield


def summary(choice: CacheChoice, requests: int, hits: int, rootpath: Path) -> str | None:
    """The summary line: ``JAX compilation cache (.pytest_cache/d/pytest-stages-jax): 5 of 6 compiles were hits``."""
    if choice.path is None:
        return None
    try:
        where = choice.path.relative_to(rootpath).as_posix()
    except ValueError:
        where = str(choice.path)
    owner = "" if choice.owner == "pytest-stages" else ", JAX's own setting"
    return f"{PREFIX}JAX compilation cache ({where}{owner}): {hits} of {requests} compile(s) were hits"
