"""Where ``[tool.pytest_stages]`` is read from: pytest's chosen configuration, and the tables it leaves out."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_pattern

# pytest's INI configuration files, and a pytest-stages section in one (which is never read).
INI_FILES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg")


# How close a table's name must be to ``pytest_stages`` (difflib's ratio, after folding case, ``-`` and
# ``.`` to ``_``) to be taken for a misspelling of it: ``pytest-stages`` and ``pytest_stage`` are, ``pytest-split``
# (0.72) and ``pytest_jax`` (0.7) are not.
NEAR_MISS = 0.85
TABLE = "pytest_stages"

_INI_SECTION = lazy_pattern(r"^[ \t]*\[[ \t]*(?:tool[.:])?pytest[_-]stages\b", re.MULTILINE)


def load_pyproject(rootpath: Path) -> dict[str, object]:
    """Return the ``[tool.pytest_stages]`` table of ``rootpath/pyproject.toml`` ({} if absent)."""
    return _read_table(rootpath / "pyproject.toml") or {}


@dataclass(frozen=True)
class FoundTable:
    """The ``[tool.pytest_stages]`` table this session reads, and the tables it does not.

    ``table`` is None when the files read hold none (the plugin then stays inert until a test
    stages something); ``unread`` then lists the ``pyproject.toml`` files in or above the rootdir
    and the invocation folder that do hold one, which pytest's choice of configuration left out.
    """

    table: dict[str, object] | None
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
    resolved = [folder.resolve() for folder in folders]
    above = dict.fromkeys(parent / "pyproject.toml" for folder in resolved for parent in (folder, *folder.parents))
    return tuple(path for path in above if path.is_file() and _has_table(path))


def _has_table(path: Path) -> bool:
    """Whether ``path`` holds a ``[tool.pytest_stages]`` table (a file that is no valid TOML holds none)."""
    try:
        return _read_table(path) is not None
    except ConfigError:
        return False


def _read_table(path: Path) -> dict[str, object] | None:
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
    tool = document.get("tool", {})
    _refuse_near_misses(path, document, tool if isinstance(tool, dict) else {})
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"[tool.pytest_stages] in {path} must be a table.")
    return table


def _refuse_near_misses(path: Path, document: Mapping[str, object], tool: Mapping[str, object]) -> None:
    """A table named almost ``[tool.pytest_stages]`` (``[tool.pytest-stages]``, ``[tool.pytest_stage]``,
    ``[pytest_stages]``) is a usage error: left unread, every test would run under the default configs
    without a word, and the hint to record snapshots would record a wrong set."""
    found = [f"tool.{name}" for name in tool if name != TABLE and _near(name)]
    found += [name for name in document if name != "tool" and (_near(name) or name == TABLE)]
    if found:
        raise ConfigError(
            f"{path} has a [{found[0]}] table, which pytest-stages does not read: its settings live in "
            f"[{'tool.' + TABLE}] (with an underscore, as Python names the package). Rename [{found[0]}] to "
            f"[tool.{TABLE}] (and each [{found[0]}.<name>] to [tool.{TABLE}.<name>])."
        )


def _near(name: str) -> bool:
    """Whether a TOML table name is a near miss of ``pytest_stages``."""
    folded = name.lower().replace("-", "_").replace(".", "_")
    return folded == "stages" or difflib.SequenceMatcher(None, folded, TABLE).ratio() >= NEAR_MISS
