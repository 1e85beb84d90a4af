"""Parse and validate ``[tool.pytest_stages]`` into frozen settings.

Everything a user can write in ``pyproject.toml`` is checked here, before any
test runs, so that a typo is a usage error naming the key rather than a
silently ignored setting.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pytest_stages.analyse.analyses import FIGURE_KEYS, FIGURE_NAMES, figure_key, figure_name
from pytest_stages.analyse.artifacts import ANALYSES, CHECK_KINDS, STAGES
from pytest_stages.analyse.step_time import SECONDS, parse_chip
from pytest_stages.core.errors import ConfigError as ConfigError  # noqa: PLC0414  (re-exported: callers catch it from here)
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.core.paths import MAX_NAME, Use, checked_path, held_inside, shown_path
from pytest_stages.core.text import close_match, listing
from pytest_stages.core.units import parse_size

# Staged tests between two drops of JAX's caches under clear_caches = "auto": it bounds the memory
# they hold, which grows with every staged test (how much: docs/performance.md).
AUTO_PERIOD = 32
VERSION_MODES = ("fail", "warn", "skip", "semantic")
AXIS_TYPES = ("auto", "explicit", "manual")
PLATFORMS = ("cpu", "tpu", "cuda", "rocm")
PARTITIONERS = ("shardy", "gspmd")
TOPOLOGY_PLATFORMS = ("tpu", "cuda")
DEFAULT_STAGES = ("jaxpr", "stablehlo", "compiled", "kernel_ir")
DEFAULT_DIFF_LINES = 60
# Metrics a tolerance can name: the judged cost figures, every memory figure, or "default".
TOLERANCE_METRICS = ("default", *FIGURE_KEYS, SECONDS)
# The per-operand part of a cost figure: ``bytes accessed0{}``, ``bytes accessedout{1}`` -> ``bytes accessed``.
OPERAND_PART = lazy_pattern(r"(?:\d+|out)\{[^{}]*\}$")
_T = TypeVar("_T")
_D = TypeVar("_D")
# pytest's INI configuration files, and a pytest-stages section in one (which is never read).
INI_FILES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg")
_INI_SECTION = re.compile(r"^[ \t]*\[[ \t]*(?:tool[.:])?pytest[_-]stages\b", re.MULTILINE)
# The most chips along one axis of a TPU slice that libtpu compiles for, by chip: it aborts the
# process beyond them (where found: docs/performance.md). Chips not listed are bounded by MAX_DEVICES alone.
TPU_AXIS_BOUNDS = {"v5e": 16}
# A config name, safe as a folder and in a test id: ``cpu8``, ``v5e-2x2``, ``h100.fp8``.
CONFIG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


@dataclass(frozen=True)
class DeviceConfig:
    """One configured device set: where and on how many devices to stage."""

    name: str
    platform: str | None = None
    devices: int = 1
    mesh: tuple[tuple[str, int], ...] = ()
    axis_types: tuple[str, ...] = ()
    topology: str | None = None
    gpu: str | None = None
    partitioner: str | None = None
    # TPU topologies as production uses them (``get_topology_desc``'s own arguments).
    chips_per_host_bounds: tuple[int, int, int] | None = None
    num_slices: int = 1
    chip_config_name: str | None = None
    # Each axis's size across slices (a hybrid mesh); ``mesh`` then gives the sizes within a slice.
    dcn_mesh: tuple[tuple[str, int], ...] = ()
    # The chip figures of the step-time estimate: a chip of the table and figures overriding its own.
    chip: tuple[tuple[str, Any], ...] = ()

    @property
    def mesh_shape(self) -> dict[str, int]:
        """Each mesh axis's whole size: its size within a slice times its size across slices."""
        across = dict(self.dcn_mesh)
        return {axis: size * across.get(axis, 1) for axis, size in self.mesh}


@dataclass(frozen=True)
class _Slices:
    """The keys of a TPU topology that production uses: a single-chip host, megacore, slices joined by DCN."""

    chips_per_host_bounds: tuple[int, int, int] | None = None
    num_slices: int = 1
    chip_config_name: str | None = None
    dcn_mesh: tuple[tuple[str, int], ...] = ()


SLICE_KEYS = tuple(key.name for key in dataclasses.fields(_Slices))


# The config of a table that names none: one CPU device.
DEFAULT_CONFIGS = (DeviceConfig(name="default"),)


# How a setting's value is read: its key, the value the table gives, and the settings read before
# it (``test_configs`` names configs) in; the setting's value out, or a ConfigError naming the key.
_Parse = Callable[[str, Any, Mapping[str, Any]], _T]
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


def _typed(key: str, value: Any, kind: type[_T]) -> _T:
    """``value``, which must be a ``kind``."""
    if not isinstance(value, kind):
        raise ConfigError(f"[tool.pytest_stages] {key} must be {_KINDS[kind]}, got {value!r}.")
    return value


def _string(key: str, raw: Any, _parsed: Mapping[str, Any]) -> str:
    return _typed(key, raw, str)


def _flag(key: str, raw: Any, _parsed: Mapping[str, Any]) -> bool:
    return _typed(key, raw, bool)


def _positive_int(key: str, raw: Any, _parsed: Mapping[str, Any]) -> int:
    value = _typed(key, raw, int)
    if isinstance(value, bool) or value < 1:
        raise ConfigError(f"[tool.pytest_stages] {key} must be a positive integer, got {value!r}.")
    return value


def _size(key: str, raw: Any, _parsed: Mapping[str, Any]) -> int:
    """A size in bytes: ``1048576`` or ``"1 MiB"``."""
    return parse_size(f"[tool.pytest_stages] {key}", raw)


def _choices(allowed: tuple[str, ...]) -> _Parse[tuple[str, ...]]:
    """Names drawn from ``allowed`` (:func:`parse_choices`)."""
    return lambda key, raw, _parsed: parse_choices(key, raw, allowed)


def _snapshot_dir(key: str, raw: Any, _parsed: Mapping[str, Any]) -> str:
    """``snapshot_dir``: a folder inside the rootdir, given relative to it."""
    snapshot_dir = _typed(key, raw, str)
    if not snapshot_dir.strip():
        raise ConfigError("[tool.pytest_stages] snapshot_dir must not be empty.")
    _path_setting("snapshot_dir", snapshot_dir)
    if Path(snapshot_dir).is_absolute() or ".." in Path(snapshot_dir).parts:
        raise ConfigError(
            f"[tool.pytest_stages] snapshot_dir = {snapshot_dir!r} leaves the rootdir; snapshots live inside the "
            f"project, where the reports and --stages-prune name them. Give a folder relative to the rootdir "
            f'(snapshot_dir = "snapshots").'
        )
    return snapshot_dir


def _configs(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> tuple[DeviceConfig, ...]:
    return parse_configs(raw)


def _tolerances(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> dict[str, float]:
    return parse_tolerances(raw, "[tool.pytest_stages.tolerance]")


def _budgets(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``[tool.pytest_stages.budgets]``: node-id patterns to tables of ceilings (read by check/budgets.py)."""
    if not isinstance(raw, Mapping) or not all(isinstance(v, Mapping) for v in raw.values()):
        raise ConfigError(
            "[tool.pytest_stages.budgets] must map node-id patterns to tables, e.g. "
            '"examples/*::test_mlp*" = { flops = 2.2e9 }.'
        )
    return {str(pattern): dict(values) for pattern, values in raw.items()}


def _version_mode(key: str, raw: Any, _parsed: Mapping[str, Any]) -> str:
    return parse_version_mode(_typed(key, raw, str))


def _clearing(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> bool | str:
    """``clear_caches``: "auto", true or false (:mod:`pytest_stages.stage.memory_release`)."""
    if isinstance(raw, bool):
        return raw
    if raw == "auto":
        return "auto"
    raise ConfigError(
        f'[tool.pytest_stages] clear_caches = {raw!r}: use "auto" (drop JAX\'s caches where a trace '
        f"could be reused, and every {AUTO_PERIOD} staged tests), true (after every staged test) or false (never)."
    )


def _cache_setting(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> bool | str:
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


def _module_names(_key: str, raw: Any, _parsed: Mapping[str, Any]) -> tuple[str, ...]:
    """``modules = ["mypkg.models", ...]``: importable dotted names holding registrations."""
    if not isinstance(raw, list) or not all(
        isinstance(m, str) and all(part.isidentifier() for part in m.split(".")) for m in raw
    ):
        raise ConfigError(f"[tool.pytest_stages] modules must be a list of dotted module names, got {raw!r}.")
    return tuple(raw)


def _test_configs(_key: str, raw: Any, parsed: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``[tool.pytest_stages.test_configs]``: test-id patterns, each to a non-empty list of config names."""
    known = tuple(c.name for c in parsed.get("configs", DEFAULT_CONFIGS))
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
    budgets: Mapping[str, Mapping[str, Any]] = _table_setting(dict, _budgets)
    check: tuple[str, ...] = _setting(CHECK_KINDS, _choices(CHECK_KINDS))
    on_version_mismatch: str = _setting("semantic", _version_mode)
    diff_lines: int = _setting(DEFAULT_DIFF_LINES, _positive_int)
    clear_caches: bool | str = _setting("auto", _clearing)
    compilation_cache: bool | str = _setting(True, _cache_setting)
    # The compile-only cache's bound (stage/topology_results.py), beside JAX's cache; 0 turns it off.
    compile_only_cache_size: int = _setting(1 << 30, _size)
    modules: tuple[str, ...] = _setting((), _module_names)
    static_scalars: bool = _setting(False, _flag)
    constants_warn_bytes: int = _setting(1 << 20, _size)
    # ``[tool.pytest_stages.test_configs]``: test-id pattern -> the configs its tests run under.
    test_configs: Mapping[str, tuple[str, ...]] = _table_setting(dict, _test_configs)
    # Where a compare run leaves its pending snapshots (relative to the rootdir); "" for none.
    pending_dir: str = _setting("", _string)

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


def parse_settings(table: Mapping[str, Any]) -> Settings:
    """Validate a raw ``[tool.pytest_stages]`` table into :class:`Settings`, key by key in field order."""
    settings = dataclasses.fields(Settings)
    _reject_unknown("[tool.pytest_stages]", table, {setting.name for setting in settings})
    parsed: dict[str, Any] = {}
    for setting in settings:
        if setting.name in table:
            parsed[setting.name] = setting.metadata[_PARSE](setting.name, table[setting.name], parsed)
    return Settings(**parsed)


def load_pyproject(rootpath: Path) -> dict[str, Any]:
    """Return the ``[tool.pytest_stages]`` table of ``rootpath/pyproject.toml`` ({} if absent)."""
    return _read_table(rootpath / "pyproject.toml") or {}


@dataclass(frozen=True)
class FoundTable:
    """The ``[tool.pytest_stages]`` table this session reads, and the tables it does not.

    ``table`` is None when the files read hold none (the plugin then stays inert until a test
    stages something); ``unread`` then lists the ``pyproject.toml`` files in or above the rootdir
    and the invocation folder that do hold one, which pytest's choice of configuration left out.
    """

    table: dict[str, Any] | None
    path: Path | None
    unread: tuple[Path, ...] = ()


def find_table(inipath: Path | None, rootpath: Path, invocation_dir: Path) -> FoundTable:
    """Read ``[tool.pytest_stages]`` from where pytest found its own configuration.

    That is ``inipath`` when pytest chose a ``pyproject.toml``, else the ``pyproject.toml``
    beside the ``pytest.ini``/``tox.ini``/``setup.cfg`` it chose, else the rootdir's
    (``tests/pytest.ini`` -> ``tests/pyproject.toml``, then ``<rootdir>/pyproject.toml``).
    """
    candidates = [inipath if inipath is not None and inipath.name == "pyproject.toml" else None]
    candidates += [inipath.parent / "pyproject.toml" if inipath is not None else None, rootpath / "pyproject.toml"]
    for path in candidates:
        table = _read_table(path) if path is not None else None
        if table is not None:
            return FoundTable(table, path)
    return FoundTable(None, None, _tables_above(rootpath, invocation_dir))


def ini_tables(inipath: Path | None, rootpath: Path) -> tuple[Path, ...]:
    """The INI files of the project (pytest's chosen one, and those in the rootdir) with a pytest-stages section.

    pytest-stages reads its settings from ``pyproject.toml`` only: a ``[tool.pytest_stages]`` (or
    ``[tool:pytest_stages]``, ``[pytest_stages]``) section in ``pytest.ini``, ``tox.ini`` or
    ``setup.cfg`` is never read, and the session warns about it instead of ignoring it silently.
    """
    paths = [inipath] if inipath is not None and inipath.name != "pyproject.toml" else []
    paths += [rootpath / name for name in INI_FILES]
    found = []
    for path in dict.fromkeys(paths):
        try:
            text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
        except OSError:
            continue
        if _INI_SECTION.search(text):
            found.append(path)
    return tuple(found)


def _tables_above(*folders: Path) -> tuple[Path, ...]:
    """The ``pyproject.toml`` files holding a ``[tool.pytest_stages]`` table in ``folders`` or above them."""
    above = dict.fromkeys(parent / "pyproject.toml" for folder in folders for parent in _upwards(folder))
    return tuple(path for path in above if path.is_file() and _has_table(path))


def _upwards(folder: Path) -> list[Path]:
    """``folder`` and its parents, nearest first."""
    resolved = folder.resolve()
    return [resolved, *resolved.parents]


def _has_table(path: Path) -> bool:
    """Whether ``path`` holds a ``[tool.pytest_stages]`` table (a file that is no valid TOML holds none)."""
    try:
        return _read_table(path) is not None
    except ConfigError:
        return False


def _read_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.pytest_stages]`` table of the TOML file ``path`` (None: no such table or file)."""
    if not path.is_file():
        return None
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file.") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start}), as TOML must be; save it as UTF-8.") from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read {path} ({exc.strerror or exc}); give the user running pytest read access."
        ) from None
    table = document.get("tool", {}).get("pytest_stages")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"[tool.pytest_stages] in {path} must be a table.")
    return table


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
    if resolved == snapshots or snapshots in resolved.parents or resolved in snapshots.parents:
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


def parse_choices(key: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A list of names drawn from ``allowed`` (a comma-separated string is accepted too)."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of names from {listing(allowed)}, got {value!r}.")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise ConfigError(
            f"{key}: unknown name {unknown[0]!r}{close_match(unknown[0], allowed)}; choose from {listing(allowed)}."
        )
    # The allowed members themselves (an enum's, where ``allowed`` holds one), not the strings as written.
    return tuple(dict.fromkeys(allowed[allowed.index(v)] for v in value))


# The keywords of ``@pytest.mark.stages(...)``: a typo (``config=``) must not widen the test to every config.
STAGES_MARKER_KEYS = ("configs", "stages", "analyses", "tolerance")


def check_marker(where: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """Refuse a ``stages`` marker with positional arguments or a keyword it does not take."""
    if args:
        raise ConfigError(
            f"{where}: the stages marker takes keywords only ({listing(STAGES_MARKER_KEYS)}), got {args[0]!r}; "
            "write e.g. @pytest.mark.stages(configs=['cpu1'])."
        )
    unknown = [key for key in kwargs if key not in STAGES_MARKER_KEYS]
    if unknown:
        raise ConfigError(
            f"{where}: unknown keyword {unknown[0]!r}{close_match(unknown[0], STAGES_MARKER_KEYS)}; the stages "
            f"marker takes {listing(STAGES_MARKER_KEYS)}."
        )


def parse_selection(key: str, value: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A command-line selection of names (``--stages-configs=cpu1,cpu8``); an empty one is a usage error.

    ``--stages-configs=`` (an unset CI variable) or ``,`` would select no config at all: every
    staged test skips, and nothing of the suite is checked.
    """
    names = parse_choices(key, value, allowed)
    if not names:
        raise ConfigError(
            f"{key}={value!r} selects nothing: name one or more of {list(allowed)} (comma-separated), or leave "
            f"{key} out to run them all."
        )
    return names


def parse_version_mode(value: str) -> str:
    if value not in VERSION_MODES:
        raise ConfigError(f"on_version_mismatch = {value!r} is not one of {list(VERSION_MODES)}.")
    return value


def parse_configs(raw: Any) -> tuple[DeviceConfig, ...]:
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


def _parse_config(index: int, entry: Any) -> DeviceConfig:
    """One ``[[tool.pytest_stages.configs]]`` table (``index`` counts from 0)."""
    where = f"[[tool.pytest_stages.configs]] entry {index + 1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table, got {entry!r}.")
    _reject_unknown(where, entry, {key.name for key in dataclasses.fields(DeviceConfig)})
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
    mesh = _parse_mesh(where, entry.get("mesh", {}))
    slices = _parse_slices(where, platform, topology, entry, mesh)
    whole = tuple((axis, size * dict(slices.dcn_mesh).get(axis, 1)) for axis, size in mesh)
    return DeviceConfig(
        name=name,
        platform=platform,
        devices=_parse_devices(where, entry, whole, cpu=topology is None and platform in (None, "cpu")),
        mesh=mesh,
        axis_types=_parse_axis_types(where, entry.get("axis_types", ()), len(mesh) or 1),  # default mesh: 1 axis
        topology=topology,
        gpu=gpu,
        partitioner=partitioner,
        chips_per_host_bounds=slices.chips_per_host_bounds,
        num_slices=slices.num_slices,
        chip_config_name=slices.chip_config_name,
        dcn_mesh=slices.dcn_mesh,
        chip=parse_chip(where, entry["chip"]) if "chip" in entry else (),
    )


def _parse_slices(
    where: str, platform: str | None, topology: str | None, entry: Mapping[str, Any], mesh: tuple[tuple[str, int], ...]
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
    return _Slices(bounds, slices, chip_config, dcn_mesh)


def _parse_host_bounds(where: str, bounds: Any) -> tuple[int, int, int] | None:
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


def _parse_num_slices(where: str, slices: Any, topology: str) -> int:
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


def _parse_chip_config(where: str, chip_config: Any) -> str | None:
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
    where: str, entry: Mapping[str, Any], slices: int, mesh: tuple[tuple[str, int], ...]
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


def _parse_devices(where: str, entry: Mapping[str, Any], mesh: tuple[tuple[str, int], ...], *, cpu: bool) -> int:
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


def _parse_axis_types(where: str, raw: Any, axes: int) -> tuple[str, ...]:
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
    return tuple(raw)


def _parse_platform(where: str, platform: Any) -> str | None:
    if platform is None:
        return None
    if isinstance(platform, str) and platform in PLATFORMS:
        return platform
    if platform == "gpu":
        raise ConfigError(
            f"{where}: platform 'gpu' is ambiguous (JAX reads it as whichever of cuda or rocm is "
            'installed); write platform = "cuda" for NVIDIA or "rocm" for AMD.'
        )
    raise ConfigError(f"{where}: platform {platform!r} is not one of {list(PLATFORMS)}.")


def _parse_topology(where: str, platform: str | None, entry: Mapping[str, Any]) -> tuple[str | None, str | None]:
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


def _tpu_topology(where: str, topology: str, gpu: Any) -> tuple[str, None]:
    """A tpu ``topology``: it names its chip, stays within libtpu's bounds, and takes no ``gpu``."""
    if gpu is not None:
        raise ConfigError(f'{where}: gpu applies to platform = "cuda" only.')
    if ":" not in topology:
        raise ConfigError(f'{where}: a tpu topology names its chip, e.g. "v5e:2x2".')
    _check_tpu_bounds(where, topology)
    return topology, None


def _cuda_topology(where: str, topology: str, gpu: Any) -> tuple[str, str]:
    """A cuda ``topology``: slices x hosts x devices, with ``gpu`` naming the target."""
    if ":" in topology or topology.count("x") != 2:
        raise ConfigError(f'{where}: a cuda topology is slices x hosts x devices, e.g. "1x1x4", got {topology!r}.')
    if not isinstance(gpu, str) or not gpu:
        raise ConfigError(
            f'{where}: a cuda topology needs gpu = a shipped spec name (e.g. "h100") '
            "or the path of a GpuTargetConfig text file."
        )
    return topology, gpu


def _check_tpu_bounds(where: str, topology: str) -> None:
    """A TPU slice libtpu compiles for: it aborts the whole process (a failed check, no exception) beyond its bounds.

    The bounds are :data:`TPU_AXIS_BOUNDS`; the topology is refused here, before JAX is asked.
    """
    chip, _, shape = topology.partition(":")
    largest = TPU_AXIS_BOUNDS.get(chip)
    sizes = [int(n) for n in shape.split("x")]
    if largest is not None and max(sizes) > largest:
        raise ConfigError(
            f"{where}: topology {topology!r} is larger than a {chip} slice can be: at most {largest} chips along "
            f"each axis ({chip}:{largest}x{largest}); libtpu would abort the process compiling for it. Name a "
            f'smaller slice, or join slices with num_slices (e.g. topology = "{chip}:{largest}x{largest}", '
            "num_slices = 2)."
        )


def _parse_mesh(where: str, raw: Any, key: str = "mesh") -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: {key} must be a table of axis name = size, got {raw!r}.")
    for axis, size in raw.items():
        if not axis.isidentifier():
            raise ConfigError(f"{where}: {key} axis name {axis!r} must be an identifier.")
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ConfigError(f"{where}: {key} axis {axis!r} size must be a positive integer, got {size!r}.")
    return tuple(raw.items())


def _per_operand(key: str) -> bool:
    """A per-operand cost figure's file key (``bytes accessed0{}``), which a tolerance may name."""
    return OPERAND_PART.search(key) is not None and OPERAND_PART.sub("", key) == FIGURE_KEYS["bytes_accessed"]


def parse_tolerances(raw: Any, where: str) -> dict[str, float]:
    """Relative tolerances by figure key (``temp_size_in_bytes``): ``0.02`` or ``"2%"``; the figure must be judged.

    Figures are written by their one name (``temp_bytes``); JAX's spelling is read too
    (:func:`respellings` says which to write).
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table of metric = relative tolerance.")
    for metric in raw:
        key = figure_key(str(metric))
        if metric not in TOLERANCE_METRICS and key not in FIGURE_NAMES and not _per_operand(key):
            raise ConfigError(
                f"{where}: unknown metric {metric!r}{close_match(str(metric), TOLERANCE_METRICS)}; choose from "
                f"{listing(TOLERANCE_METRICS)} or a per-operand cost figure such as 'bytes accessed0{{}}' or "
                "'bytes accessedout{}'."
            )
    return {figure_key(str(metric)): parse_fraction(f"{where} {metric}", value) for metric, value in raw.items()}


def respellings(where: str, written: Iterable[object]) -> list[str]:
    """A warning for each figure ``written`` in JAX's spelling (``temp_size_in_bytes``), naming the one to write."""
    return [
        f"{where}: {key!r} is JAX's spelling of {figure_name(key)!r}; write {figure_name(key)}, the name pytest-stages "
        "uses for this figure in budgets, tolerances and messages (the old spelling is still read)."
        for key in map(str, written)
        if figure_name(key) != key
    ]


def parse_fraction(where: str, value: Any) -> float:
    """``0.02`` or ``"2%"`` -> 0.02; anything negative or unparsable is an error."""
    text = value
    if isinstance(value, str):
        text = value.strip()
        scale = 100.0 if text.endswith("%") else 1.0
        try:
            number = float(text.rstrip("%")) / scale
        except ValueError:
            number = math.nan
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f'{where}: tolerance {text!r} is not a non-negative fraction; write 0.02 or "2%".')
    return number


def _reject_unknown(where: str, table: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r}{close_match(unknown[0], sorted(known))}; the known keys are "
            f"{listing(sorted(known))}."
        )
