"""The ``[tool.pytest_stages]`` table into frozen :class:`Settings`: each key a field holding its default and parser."""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast, get_args

from pytest_stages.analyse.artifacts import ANALYSES, CHECK_KINDS, STAGES
from pytest_stages.config.device_configs import DEFAULT_CONFIGS, DeviceConfig, parse_configs
from pytest_stages.config.values import parse_choices, parse_tolerances, reject_unknown
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.paths import MAX_NAME, Use, checked_path, folder_setting, held_inside, inside, shown_path
from pytest_stages.core.units import parse_size

# Staged tests between two drops of JAX's caches under clear_caches = "auto": it bounds the memory
# they hold, which grows with every staged test (how much: docs/performance.md).
AUTO_PERIOD = 32
# What a compare does with snapshots recorded under other JAX versions (docs/configuration.md).
VersionMode = Literal["fail", "warn", "skip", "semantic"]
VERSION_MODES: tuple[VersionMode, ...] = get_args(VersionMode)
# ``clear_caches``: true, false, or "auto" (stage/memory_release.py).
ClearCaches = bool | Literal["auto"]
DEFAULT_STAGES = ("jaxpr", "stablehlo", "compiled", "kernel_ir")
DEFAULT_DIFF_LINES = 60
_T = TypeVar("_T")
_D = TypeVar("_D")


# How a setting's value is read: its key, the value the table gives, and the settings read before
# it (``test_configs`` names configs) in; the setting's value out, or a ConfigError naming the key.
_Parse = Callable[[str, object, Mapping[str, object]], _T]
_PARSE = "parse"  # the key of a Settings field's metadata that holds its parser


def _setting(default: _D, parse: _Parse[_T | _D]) -> _T | _D:
    """A :class:`Settings` field: one key of the table, its default and its parser (``field`` metadata).

    The default is one of the values the parser gives (mypy holds the field's type to both).
    """
    return field(default=default, metadata={_PARSE: parse})


def _table_setting(empty: Callable[[], _D], parse: _Parse[_T | _D]) -> _T | _D:
    """A :class:`Settings` field that is a table of its own (``[tool.pytest_stages.<key>]``), empty by default."""
    return field(default_factory=empty, metadata={_PARSE: parse})


# How a message names the type a setting must have.
_KINDS: dict[type, str] = {str: "a string", bool: "true or false", int: "an integer"}


def _typed(key: str, value: object, kind: type[_T]) -> _T:
    """``value``, which must be a ``kind``."""
    if not isinstance(value, kind):
        raise ConfigError(f"[tool.pytest_stages] {key} must be {_KINDS[kind]}, got {value!r}.")
    return value


def _of_type(kind: type[_T]) -> _Parse[_T]:
    """A setting that is a ``kind`` (a string, a flag), taken as written."""
    return lambda key, raw, _parsed: _typed(key, raw, kind)


def _positive_int(key: str, raw: object, _parsed: Mapping[str, object]) -> int:
    value = _typed(key, raw, int)
    if isinstance(value, bool) or value < 1:
        raise ConfigError(f"[tool.pytest_stages] {key} must be a positive integer, got {value!r}.")
    return value


def _size(key: str, raw: object, _parsed: Mapping[str, object]) -> int:
    """A size in bytes: ``1048576`` or ``"1 MiB"``."""
    return parse_size(f"[tool.pytest_stages] {key}", raw)


def _choices(allowed: tuple[str, ...]) -> _Parse[tuple[str, ...]]:
    """Names drawn from ``allowed`` (:func:`parse_choices`)."""
    return lambda key, raw, _parsed: parse_choices(key, raw, allowed)


def _snapshot_dir(key: str, raw: object, _parsed: Mapping[str, object]) -> str:
    """``snapshot_dir``: a folder inside the rootdir, given relative to it."""
    snapshot_dir = _typed(key, raw, str)
    if not snapshot_dir.strip():
        raise ConfigError("[tool.pytest_stages] snapshot_dir must not be empty.")
    _path_setting("snapshot_dir", snapshot_dir)
    relative = folder_setting(snapshot_dir)
    if not relative:
        why = "is an absolute path" if Path(snapshot_dir).is_absolute() else "leaves the rootdir"
        raise ConfigError(
            f"[tool.pytest_stages] snapshot_dir = {snapshot_dir!r} {why}; snapshots live inside the project, named "
            f"relative to the rootdir by the reports, pending sets and --stages-prune. Give a folder relative to "
            f'the rootdir (snapshot_dir = "snapshots").'
        )
    return relative


def _configs(_key: str, raw: object, _parsed: Mapping[str, object]) -> tuple[DeviceConfig, ...]:
    return parse_configs(raw)


def _tolerances(_key: str, raw: object, _parsed: Mapping[str, object]) -> dict[str, float]:
    return parse_tolerances(raw, "[tool.pytest_stages.tolerance]")


def _budgets(_key: str, raw: object, _parsed: Mapping[str, object]) -> dict[str, dict[str, object]]:
    """``[tool.pytest_stages.budgets]``: node-id patterns to tables of ceilings (read by check/budgets.py)."""
    if not isinstance(raw, Mapping) or not all(isinstance(v, Mapping) for v in raw.values()):
        raise ConfigError(
            "[tool.pytest_stages.budgets] must map node-id patterns to tables, e.g. "
            '"examples/*::test_mlp*" = { flops = 2.2e9 }.'
        )
    return {str(pattern): dict(values) for pattern, values in raw.items()}


def _version_mode(key: str, raw: object, _parsed: Mapping[str, object]) -> VersionMode:
    value = _typed(key, raw, str)
    if value not in VERSION_MODES:
        raise ConfigError(f"on_version_mismatch = {value!r} is not one of {list(VERSION_MODES)}.")
    return VERSION_MODES[VERSION_MODES.index(value)]


def _clearing(_key: str, raw: object, _parsed: Mapping[str, object]) -> ClearCaches:
    """``clear_caches``: "auto", true or false (:mod:`pytest_stages.stage.memory_release`)."""
    if isinstance(raw, bool):
        return raw
    if raw == "auto":
        return "auto"
    raise ConfigError(
        f'[tool.pytest_stages] clear_caches = {raw!r}: use "auto" (drop JAX\'s caches where a trace '
        f"could be reused, and every {AUTO_PERIOD} staged tests), true (after every staged test) or false (never)."
    )


def _cache_setting(_key: str, raw: object, _parsed: Mapping[str, object]) -> bool | str:
    """``compilation_cache``: true (under pytest's cache folder), false, or a folder path."""
    if isinstance(raw, str) and "://" in raw:
        raise ConfigError(
            f"[tool.pytest_stages] compilation_cache = {raw!r}: name a folder (relative to the rootdir, or absolute: "
            "a shared mount works). For a bucket, set JAX's own JAX_COMPILATION_CACHE_DIR instead; JAX opens it "
            "through etils.epath, and pytest-stages then uses that cache as it is."
        )
    if isinstance(raw, str):
        _path_setting("compilation_cache", raw)
    if isinstance(raw, bool) or (isinstance(raw, str) and raw.strip()):
        return raw
    raise ConfigError(
        f"[tool.pytest_stages] compilation_cache = {raw!r}: use true, false or a folder path (relative to the rootdir)."
    )


def _module_names(_key: str, raw: object, _parsed: Mapping[str, object]) -> tuple[str, ...]:
    """``modules = ["mypkg.models", ...]``: importable dotted names holding registrations."""
    if not isinstance(raw, list) or not all(
        isinstance(m, str) and all(part.isidentifier() for part in m.split(".")) for m in raw
    ):
        raise ConfigError(f"[tool.pytest_stages] modules must be a list of dotted module names, got {raw!r}.")
    return tuple(raw)


def _test_configs(_key: str, raw: object, parsed: Mapping[str, object]) -> dict[str, tuple[str, ...]]:
    """``[tool.pytest_stages.test_configs]``: test-id patterns, each to a non-empty list of config names."""
    configs = cast("tuple[DeviceConfig, ...]", parsed.get("configs", DEFAULT_CONFIGS))  # read before: Settings' order
    known = tuple(c.name for c in configs)
    if not isinstance(raw, dict):
        raise ConfigError(
            "[tool.pytest_stages.test_configs] must map test-id patterns to config names, e.g. "
            '[tool.pytest_stages.test_configs] "tests/gemma/*" = ["fsdp"].'
        )
    chosen = {}
    for pattern, names in raw.items():
        key = f"[tool.pytest_stages.test_configs] {pattern!r}"
        chosen[str(pattern)] = parse_choices(key, names, known)
        if not chosen[str(pattern)]:
            raise ConfigError(f"{key}: name at least one config from {list(known)}.")
    return chosen


@dataclass(frozen=True)
class Settings:
    """The validated ``[tool.pytest_stages]`` table: one field per key, with its default and its parser.

    :func:`parse_settings` reads the keys the table gives in field order, so a parser may use the
    settings read before it (``test_configs`` the ``configs``); a key left out keeps its default.
    """

    snapshot_dir: str = _setting("snapshots", _snapshot_dir)
    configs: tuple[DeviceConfig, ...] = _setting(DEFAULT_CONFIGS, _configs)
    stages: tuple[str, ...] = _setting(DEFAULT_STAGES, _choices(STAGES))
    analyses: tuple[str, ...] = _setting(ANALYSES, _choices(ANALYSES))
    tolerance: Mapping[str, float] = _table_setting(dict, _tolerances)
    budgets: Mapping[str, Mapping[str, object]] = _table_setting(dict, _budgets)
    check: tuple[str, ...] = _setting(CHECK_KINDS, _choices(CHECK_KINDS))
    on_version_mismatch: VersionMode = _setting("semantic", _version_mode)
    diff_lines: int = _setting(DEFAULT_DIFF_LINES, _positive_int)
    clear_caches: ClearCaches = _setting("auto", _clearing)
    compilation_cache: bool | str = _setting(True, _cache_setting)
    # The compile-only cache's bound (stage/topology_results.py), beside JAX's cache; 0 turns it off.
    compile_only_cache_size: int = _setting(1 << 30, _size)
    modules: tuple[str, ...] = _setting((), _module_names)
    static_scalars: bool = _setting(False, _of_type(bool))
    constants_warn_bytes: int = _setting(1 << 20, _size)
    # ``[tool.pytest_stages.test_configs]``: test-id pattern -> the configs its tests run under.
    test_configs: Mapping[str, tuple[str, ...]] = _table_setting(dict, _test_configs)
    # Where a compare run leaves its pending snapshots (relative to the rootdir); "" for none.
    pending_dir: str = _setting("", _of_type(str))

    def config_named(self, name: str) -> DeviceConfig:
        for config in self.configs:
            if config.name == name:
                return config
        raise KeyError(name)

    def configs_for(self, nodeid: str) -> tuple[str, ...]:
        """The configs a test runs under: the last ``test_configs`` pattern its id matches, else all.

        ``"tests/gemma/*"`` gives a folder its configs, ``"tests/test_bert.py::*"`` a module and
        ``"*::test_sampler*"`` the tests of a name; a later pattern overrides an earlier one.
        """
        names = tuple(c.name for c in self.configs)
        for pattern, chosen in self.test_configs.items():
            if fnmatch.fnmatchcase(nodeid, pattern):
                names = chosen
        return names


def parse_settings(table: Mapping[str, object]) -> Settings:
    """Validate a raw ``[tool.pytest_stages]`` table into :class:`Settings`, key by key in field order."""
    settings = dataclasses.fields(Settings)
    reject_unknown("[tool.pytest_stages]", table, {setting.name for setting in settings})
    parsed: dict[str, Any] = {}
    for setting in settings:
        if setting.name in table:
            parsed[setting.name] = setting.metadata[_PARSE](setting.name, table[setting.name], parsed)
    return Settings(**parsed)


def _path_setting(key: str, path: str) -> None:
    """A path setting holds no NUL or other control character, and no name longer than file systems take.

    No file system accepts a NUL; ext4, APFS and NTFS take at most 255 bytes a name.
    """
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise ConfigError(
            f"[tool.pytest_stages] {key} = {path!r} holds a control character; name a folder with printable "
            "characters only."
        )
    size = max((len(part.encode("utf-8")) for part in Path(path).parts), default=0)
    if size > MAX_NAME:
        raise ConfigError(
            f"[tool.pytest_stages] {key} = {shown_path(path)!r} has a folder name of {size} bytes; file systems "
            f"take at most {MAX_NAME} a name. Name a folder with shorter names."
        )


def check_cache_folder(setting: bool | str, rootpath: Path, snapshot_dir: str) -> None:
    """``compilation_cache = "path"`` must name a folder (or nothing yet), apart from the snapshot folder.

    JAX writes one file per compiled program there: inside the snapshot folder those files are
    not pytest-stages' own and every prune would be refused; a snapshot folder inside the cache
    would be mixed with JAX's entries.
    """
    if not isinstance(setting, str):
        return
    cache = rootpath / setting
    fix = 'Name a folder of its own (compilation_cache = ".jax_cache"), or true for pytest\'s cache.'
    named = f"[tool.pytest_stages] compilation_cache = {shown_path(setting)!r}"
    checked_path(cache, Use(named, fix, folder=True, inside=held_inside(cache, rootpath)))
    snapshots, resolved = (rootpath / snapshot_dir).resolve(), cache.resolve()
    if inside(resolved, snapshots) or inside(snapshots, resolved):
        where = (
            "is the snapshot folder"
            if resolved == snapshots
            else ("is inside the snapshot folder" if snapshots in resolved.parents else "holds the snapshot folder")
        )
        raise ConfigError(
            f"[tool.pytest_stages] compilation_cache = {setting!r} {where} (snapshot_dir = {snapshot_dir!r}): JAX's "
            "cache files would mix with the snapshots, and --stages-prune refuses a folder holding files it did not "
            'write. Give the cache a folder of its own (compilation_cache = ".jax_cache"), or true for pytest\'s '
            "cache."
        )
