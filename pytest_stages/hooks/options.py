"""The command line: the ``--stages-*`` options, and the checks of what they name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_stages.analyse.artifacts import CHECK_KINDS
from pytest_stages.calls.session import Options
from pytest_stages.config.discovery import FoundTable, find_table
from pytest_stages.config.settings import Settings
from pytest_stages.config.values import parse_choices, parse_selection
from pytest_stages.core.errors import PREFIX, ConfigError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import Use, checked_path, held_inside, inside, shown_path
from pytest_stages.stage.plan import host_dependent

if TYPE_CHECKING:
    from pytest_stages.report import outputs as report_outputs
else:
    report_outputs = lazy_module("pytest_stages.report.outputs")


def _switch(text: str) -> dict[str, object]:
    """An option that is off unless given."""
    return {"action": "store_true", "default": False, "help": text}


def _value(metavar: str, text: str) -> dict[str, object]:
    """An option that takes a value, none unless given."""
    return {"metavar": metavar, "default": None, "help": text}


# Every ``--stages-*`` option, declared once: pytest_addoption adds them, and any of them given puts the plugin
# to work in a session whose configuration has no table (:func:`uses_plugin`).
OPTIONS: dict[str, dict[str, object]] = {
    "--stages-update": _switch("write new and changed stage snapshots of the tests that ran (deletes nothing)"),
    "--stages-rerecord": _switch(
        "with --stages-update: also replace snapshots recorded for another platform, device kind or "
        "CPU architecture (a plain update refuses to)"
    ),
    "--stages-migrate": _switch(
        "with --stages-update: also rewrite snapshot folders of an older pytest-stages format in this "
        "version's (a plain update never rewrites a file for its format alone); lists each file and why"
    ),
    "--stages-configs": _value(
        "NAMES",
        "comma-separated device configs to run (default: all configured); @attached: those staged on an "
        "attached accelerator (a platform, no topology), @anywhere: the others (CPU and compile-only topologies)",
    ),
    "--stages-check": _value(
        "KINDS",
        f"comma-separated kinds that fail a test, from {','.join(CHECK_KINDS)} (default: all); "
        "the others are reported only",
    ),
    "--stages-prune": _switch(
        "delete the snapshot files this run observed to be unused (refused unless the run collected "
        "and ran everything, with no collection error or selection)"
    ),
    "--stages-strict": _switch(
        "fail the run when a staged call, an artifact or a budget was not checked (a config skipped for "
        "want of its accelerator or plugin, a budget with no figure on this backend): for CI gates"
    ),
    "--stages-list": _switch("list the registered stage functions and configs that would run, with their arguments"),
    "--stages-baseline": _value(
        "PATH",
        "a JSON report of an earlier run (--stages-report=PATH.json): the upgrade section lists the calls "
        "whose compile time moved most against it",
    ),
    "--stages-pending": _value(
        "DIR",
        "on a compare run, write what --stages-update would write for each differing call into DIR (with a "
        "manifest per call), for `pytest-stages accept DIR` or `review DIR`; snapshot_dir is not changed",
    ),
    "--stages-measure": _switch(
        "time each compiled call on its attached device (not compile-only topologies) and report the "
        "measured step time beside the estimate; the reports only, never a snapshot"
    ),
    "--stages-report": {
        **_value(
            "PATH",
            "write a report of every staged call: PATH.json, PATH.md or PATH.html (a review page); once a run",
        ),
        "action": "append",
        "default": [],
    },
}
STAGES_OPTIONS = tuple(flag.removeprefix("--").replace("-", "_") for flag in OPTIONS)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stages", f"{PREFIX}compilation-regression snapshots of JAX programs")
    for flag, settings in OPTIONS.items():
        group.addoption(flag, **settings)


def found_table(config: pytest.Config) -> FoundTable:
    """The ``[tool.pytest_stages]`` table of the file pytest chose as its configuration."""
    return find_table(config.inipath, config.rootpath, config.invocation_params.dir)


def uses_plugin(namespace: object, found: FoundTable) -> bool:
    """Whether the session uses the plugin from the start: a table was read, or a ``--stages-*`` option given.

    Otherwise it stays inert (no variable, JAX option, folder or plugin object) until a test stages.
    """
    given = [name for name in STAGES_OPTIONS if getattr(namespace, name, None) not in (None, False, [])]
    return found.table is not None or bool(given)


def read_options(config: pytest.Config, settings: Settings, snapshots: Path) -> Options:
    configs = config.getoption("stages_configs")
    names = None
    if configs is not None:
        names = _selected_configs(configs, settings)
    reports = config.getoption("stages_report")
    if len(reports) > 1:
        raise ConfigError(
            f"--stages-report is given {len(reports)} times ({', '.join(reports)}); a run writes one report: give "
            "it once (`python -m pytest_stages merge --report A --report B REPORT.json` writes several from it)."
        )
    report = reports[0] if reports else None
    if report is not None:
        report_outputs.check_output("--stages-report", Path(report), snapshots)
    pending = _pending_dir(config, settings, snapshots)
    if pending is not None:
        _apart_from_pending(pending, report, settings.compilation_cache, config.rootpath)
    check = config.getoption("stages_check")
    rerecord = config.getoption("stages_rerecord")
    if rerecord and not config.getoption("stages_update"):
        raise ConfigError("--stages-rerecord re-records snapshots: use it together with --stages-update.")
    migrate = config.getoption("stages_migrate")
    if migrate and not config.getoption("stages_update"):
        raise ConfigError(
            "--stages-migrate rewrites snapshots in this version's format: use it together with --stages-update."
        )
    return Options(
        pending=pending,
        update=config.getoption("stages_update"),
        rerecord=rerecord,
        migrate=migrate,
        configs=names,
        check=parse_choices("--stages-check", check, CHECK_KINDS) if check is not None else (),
        report=report,
        prune=config.getoption("stages_prune"),
        verbosity=config.getoption("verbose", 0),
        long_tracebacks=config.getoption("tbstyle", "auto") == "long",
        measure=config.getoption("stages_measure"),
        strict=config.getoption("stages_strict"),
    )


# ``--stages-configs`` selectors that name no config: a CI workflow selects by where a config stages, so that it
# works in any project, whatever its configs are called (docs/sharded-ci.md).
SELECTORS = ("@attached", "@anywhere")


def _selected_configs(value: str, settings: Settings) -> tuple[str, ...]:
    """``--stages-configs``: config names, or one of :data:`SELECTORS`, which must select at least one config."""
    known = tuple(c.name for c in settings.configs)
    if value.strip() not in SELECTORS:
        return parse_selection("--stages-configs", value, known)
    attached = value.strip() == "@attached"
    names = tuple(c.name for c in settings.configs if host_dependent(c) == attached)
    if not names:
        where = "on an attached accelerator (a platform and no topology)" if attached else "without an attached chip"
        raise ConfigError(
            f"--stages-configs={value.strip()} selects no config: none of {list(known)} stages {where}. Leave this "
            "run out (a CI job for such configs has nothing to do in this project), or name configs."
        )
    return names


def _pending_dir(config: pytest.Config, settings: Settings, snapshots: Path) -> Path | None:
    """``--stages-pending DIR`` (from the invocation folder) or ``pending_dir`` (from the rootdir), checked."""
    option = config.getoption("stages_pending")
    if option is None and not settings.pending_dir:
        return None
    name = "--stages-pending" if option is not None else "[tool.pytest_stages] pending_dir"
    base = config.invocation_params.dir if option is not None else config.rootpath
    value = option if option is not None else settings.pending_dir
    if not str(value).strip():
        raise ConfigError(f"{name} is empty: name the folder a compare run leaves its pending snapshots in.")
    named = f"--stages-pending={shown_path(value)}" if option is not None else f"{name} = {shown_path(value)!r}"
    fix = "Name a folder of its own for the pending set, e.g. --stages-pending=stages-pending."
    held = held_inside(base / value, config.rootpath) if option is None else None  # the project's setting
    path = checked_path(base / value, Use(named, fix, folder=True, inside=held))
    if option is not None and config.getoption("stages_update"):
        raise ConfigError(
            "--stages-pending keeps what an update would write, on a compare run; --stages-update writes it into the "
            "snapshots: give one of them."
        )
    if inside(path, snapshots) or inside(snapshots, path):
        raise ConfigError(
            f"{name}={path} overlaps the snapshot folder {snapshots}, which a compare run never changes; name a "
            "folder outside it, e.g. --stages-pending=stages-pending."
        )
    _check_folder(name, path)
    return path


def _check_folder(name: str, path: Path) -> None:
    """The pending set's folder is a folder (or none yet), with a UTF-8 name: each manifest records it as text."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise ConfigError(f"{name}={path} is not a folder (a file or a link); name a folder for the pending set.")
    try:
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        shown = str(path).encode("utf-8", "backslashreplace").decode("utf-8")
        raise ConfigError(f"{name}={shown} is not a UTF-8 name; name the pending folder in UTF-8.") from None


def _apart_from_pending(pending: Path, report: str | None, cache: bool | str, rootpath: Path) -> None:
    """The report and JAX's cache stay out of the pending folder, which holds the pending set alone.

    A file there that no manifest names makes ``accept`` and ``review`` refuse the set, and the
    next ``--stages-pending`` run refuse the folder.
    """
    others: list[tuple[str, Path, str]] = []
    if report is not None:
        others.append((f"--stages-report={shown_path(report)}", Path(report), "--stages-report=stages-report.json"))
    if isinstance(cache, str):
        shown = f"[tool.pytest_stages] compilation_cache = {shown_path(cache)!r}"
        others.append((shown, rootpath / cache, 'compilation_cache = ".jax_cache"'))
    for named, path, example in others:
        if inside(path, pending):
            raise ConfigError(
                f"{named} is inside the pending folder {pending}, which holds the pending set "
                "alone: `pytest-stages accept` and `review` refuse a set holding other files, and the next "
                f"--stages-pending run refuses the folder. Put it beside the pending folder, e.g. {example}."
            )
