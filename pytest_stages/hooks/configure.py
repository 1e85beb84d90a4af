"""Start and end of a session: devices arranged before conftests, settings read, the plugin put to work, xdist."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_stages.calls.session import StagesSession
from pytest_stages.check.budgets import parse_budgets
from pytest_stages.config.discovery import FoundTable, ini_tables
from pytest_stages.config.settings import Settings, check_cache_folder, parse_settings
from pytest_stages.config.values import parse_selection, respellings
from pytest_stages.core.errors import PREFIX, ConfigError, SnapshotError, StagesError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.hooks import reporter, snapshot_assembly
from pytest_stages.hooks.observe import Observer
from pytest_stages.hooks.options import found_table, read_options, uses_plugin
from pytest_stages.hooks.stash import CHIP, OBSERVER, SESSION
from pytest_stages.report import render
from pytest_stages.stage import chip, disk_cache
from pytest_stages.stage.activation import arrange_cpu_devices, cpu_devices_needed
from pytest_stages.stage.process_env import ProcessChanges, leave_platforms_to_jax, start_on_cpu
from pytest_stages.stage.topology_results import CompileOnlyCache
from pytest_stages.store.errors import PendingError
from pytest_stages.store.inventory import checkout_state
from pytest_stages.store.names import safe_path
from pytest_stages.store.storage import snapshot_root

if TYPE_CHECKING:
    from pytest_stages.hooks import chip_schedule
    from pytest_stages.report import baseline as report_baseline
    from pytest_stages.store import pending as store_pending
else:
    chip_schedule = lazy_module("pytest_stages.hooks.chip_schedule")
    report_baseline = lazy_module("pytest_stages.report.baseline")
    store_pending = lazy_module("pytest_stages.store.pending")

# What the plugin changed in the process (put back at unconfigure), and whether it was put to work.
CHANGES = pytest.StashKey[ProcessChanges]()
ACTIVE = pytest.StashKey[bool]()
# Whether this run started its pending set afresh (it does so once, when it has tests to run).
_PENDING = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Arrange CPU devices before any conftest.py is imported (one may build arrays at import).

    Errors in the settings are left for ``pytest_configure`` to report.
    """
    try:
        found = found_table(early_config)
        if not uses_plugin(early_config.known_args_namespace, found):
            return
        settings = parse_settings(found.table or {})
        configs = getattr(early_config.known_args_namespace, "stages_configs", None)
        known = tuple(c.name for c in settings.configs)
        names = parse_selection("--stages-configs", configs, known) if configs else None
    except ConfigError:
        return
    _arrange_devices(early_config, settings, names, early=True)


def _arrange_devices(
    config: pytest.Config, settings: Settings, names: tuple[str, ...] | None, *, early: bool = False
) -> None:
    """Keep JAX on the CPU unless this process may open an attached accelerator; ask for the CPU devices needed.

    Only one process can hold a TPU: under pytest-xdist the worker :data:`chip.HOLDER` alone opens
    it, and only when a selected config needs it (:func:`chip.keep_on_cpu`).
    """
    changes = config.stash.setdefault(CHANGES, ProcessChanges())
    selected = [c for c in settings.configs if names is None or c.name in names]
    attached = chip.attached_platforms(os.environ, os.path.exists)
    needed = chip.chip_configs(selected, attached)
    role = _role(config, early)
    on_cpu = chip.keep_on_cpu(role, attached, bool(needed))
    if on_cpu:
        start_on_cpu(changes)
    else:
        leave_platforms_to_jax(changes)
    others = tuple(c.name for c in selected if c.name not in needed)
    config.stash[CHIP] = chip.ChipPlan(role, attached, needed, others, on_cpu)
    arrange_cpu_devices(cpu_devices_needed(selected), changes)


def _role(config: pytest.Config, early: bool) -> chip.Role:
    """This process in an xdist session: a worker (its id), a controller (``-n``/``--tx``), or a serial run.

    A worker parses the controller's arguments (``-n 2`` too) and, before configure (``early``),
    knows its id only from xdist's variable; from configure on, from its ``workerinput``. A
    controller started inside another session's worker inherits that variable: it has no
    ``workerinput`` at configure. Whether a worker holds the chip, it reads from the variable
    its controller set (:func:`pytest_xdist_setupnodes`).
    """
    namespace = config.known_args_namespace
    distributed = bool(getattr(namespace, "numprocesses", None)) or bool(getattr(namespace, "tx", None))
    workerinput = getattr(config, "workerinput", None)
    if isinstance(workerinput, dict):
        worker = workerinput.get("workerid")
    else:
        worker = os.environ.get(chip.WORKER_VARIABLE) if early else None
    worker = str(worker) if worker is not None else None
    holder = chip.holds_chip(worker, os.environ.get(chip.HOLDER_VARIABLE))
    return chip.Role(worker=worker, distributed=distributed, holder=holder)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """xdist controller: name the first worker the chip's holder in each worker's environment (execnet's ``env:``).

    xdist starts the replacement of a crashed worker from the same spec, so the holder's
    replacement holds the chip after it. Only where a selected config needs the chip.
    """
    plan = config.stash.get(CHIP, None)
    if plan is None or not plan.needed:
        return
    for index, spec in enumerate(specs):
        spec.env[chip.HOLDER_VARIABLE] = chip.holder_flag(index == 0)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """On the xdist controller, which collects nothing itself: the workers' selection, before any test runs."""
    if ids:
        start_pending_set(node.config)


def start_pending_set(config: pytest.Config) -> None:
    """A compare run that will run tests replaces the earlier run's pending set (once; not on --collect-only)."""
    options = config.stash[SESSION].options
    if options.pending is None or options.update or config.option.collectonly or config.stash.get(_PENDING, False):
        return
    config.stash[_PENDING] = True
    try:
        store_pending.start_set(options.pending)
    except PendingError as exc:
        pytest.exit(exc.shown(), returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """xdist controller: send the items of configs that need the attached accelerator to the worker that holds it.

    Only for xdist's default ``--dist load``; under another mode such an item fails elsewhere with
    the reason (:meth:`chip.ChipPlan.refusal`).
    """
    plan = config.stash.get(CHIP, None)
    if plan is None or not plan.needed or config.getoption("dist", None) != "load":
        return None

    return chip_schedule.ChipScheduling(config, log, plan.needed)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "stages(configs=None, stages=None, analyses=None, tolerance=None): narrow what "
        "stage_snapshot stages and compares for this test",
    )
    config.addinivalue_line(
        "markers",
        "stages_budget(**ceilings): absolute ceilings on compiled figures, e.g. "
        "flops=2.2e9, temp_bytes='64 MiB', collectives={'all-gather': 0}",
    )
    try:
        found = found_table(config)
        settings = parse_settings(found.table or {})
        wanted = uses_plugin(config.option, found)
        snapshots = config.rootpath / settings.snapshot_dir
        if wanted:  # a session that does not use the plugin is not judged by its settings' folders
            snapshots = snapshot_root(config.rootpath, settings.snapshot_dir)
            check_cache_folder(settings.compilation_cache, config.rootpath, settings.snapshot_dir)
        options = read_options(config, settings, snapshots)
        patterns = parse_budgets(settings.budgets)
        baseline = config.getoption("stages_baseline")
        calls = report_baseline.read_baseline(Path(baseline)) if baseline is not None else []
    except StagesError as exc:
        raise snapshot_assembly.as_pytest(exc, configuring=True) from None
    _warn_of_table(config, found, wanted)
    if options.pending is not None and not options.update and not hasattr(config, "workerinput"):
        try:  # checked now; the controller (not an xdist worker) starts it afresh once tests are selected
            store_pending.earlier_set(options.pending)
        except PendingError as exc:
            raise snapshot_assembly.as_pytest(exc, configuring=True) from None
    for path in ini_tables(config.inipath, config.rootpath):
        config.issue_config_time_warning(pytest.PytestConfigWarning(_ini_table(config, path)), stacklevel=2)
    session = StagesSession(settings, options, config.rootpath, patterns)
    session.store.repair = options.update  # an update records again a snapshot that does not hold what it should
    session.baseline = calls
    config.stash[SESSION] = session
    if wanted:
        activate(config)
    if config.getoption("stages_list"):
        config.option.collectonly = True


def _warn_of_table(config: pytest.Config, found: FoundTable, wanted: bool) -> None:
    """Warn of tables this session does not read and, where it uses the plugin, of figures in JAX's spelling."""
    for path in found.unread:
        config.issue_config_time_warning(pytest.PytestConfigWarning(_unread_table(config, path)), stacklevel=3)
    if wanted:
        for message in _respelled(found.table or {}):
            config.issue_config_time_warning(pytest.PytestConfigWarning(PREFIX + message), stacklevel=3)


def _respelled(table: dict[str, Any]) -> list[str]:
    """The warnings for figures the tolerance and budget tables write in JAX's spelling (parsed already)."""
    found = respellings("[tool.pytest_stages.tolerance]", table.get("tolerance", {}))
    for pattern, budget in table.get("budgets", {}).items():
        found += respellings(f"[tool.pytest_stages.budgets] {pattern!r}", budget)
    return found


def _unread_table(config: pytest.Config, path: Path) -> str:
    """The warning for a ``[tool.pytest_stages]`` table in a file this session does not read."""
    chosen = f"its configuration {config.inipath}" if config.inipath else "no configuration file"
    return (
        f"{PREFIX}{path} has a [tool.pytest_stages] table, but pytest chose {chosen} (rootdir "
        f"{config.rootpath}), so the table is not read and the defaults apply. Move the table into "
        f"{config.rootpath / 'pyproject.toml'}, or pytest's own settings into [tool.pytest.ini_options] of {path}."
    )


def _ini_table(config: pytest.Config, path: Path) -> str:
    """The warning for a pytest-stages section in an INI file, which pytest-stages never reads."""
    return (
        f"{PREFIX}{path} has a [tool.pytest_stages] section, but pytest-stages reads its settings from "
        f"pyproject.toml only, so that section is ignored and the defaults apply. Move it into "
        f"{config.rootpath / 'pyproject.toml'} as a [tool.pytest_stages] table (TOML syntax: quoted strings, "
        "[[tool.pytest_stages.configs]] for each config)."
    )


def activate(config: pytest.Config) -> None:
    """Put the plugin to work (once): CPU devices, JAX's compilation cache, the observer and the reporter.

    Called at configure when the session uses the plugin, else when its first test stages.
    """
    if config.stash.get(ACTIVE, False):
        return
    config.stash[ACTIVE] = True
    session = config.stash[SESSION]
    try:  # checked at configure where the session used the plugin from the start; here for one started late
        snapshot_root(config.rootpath, session.settings.snapshot_dir)
    except SnapshotError as exc:
        raise snapshot_assembly.as_pytest(exc) from None
    _arrange_devices(config, session.settings, session.options.configs)
    settings = session.settings
    default = (
        Path(config.cache.mkdir(disk_cache.DEFAULT_FOLDER))
        if settings.compilation_cache is True and getattr(config, "cache", None)
        else None
    )
    cache = disk_cache.choose(settings.compilation_cache, default, config.rootpath, disk_cache.users_jax_dir())
    if cache.owner == "pytest-stages" and cache.path is not None:
        disk_cache.enable(cache.path, config.stash[CHANGES])
    staged = disk_cache.staged_folder(settings.compilation_cache, default, config.rootpath)
    if staged is not None and settings.compile_only_cache_size > 0:
        session.compile_only_cache = CompileOnlyCache(staged, settings.compile_only_cache_size, config.rootpath)
    observer = Observer(config, lambda path: safe_path(snapshot_assembly.module_path(session, path)).as_posix())
    config.stash[OBSERVER] = observer
    config.pluginmanager.register(observer, "stages-observer")
    # What a merge checks a shard ran: taken before any test writes, by the process that writes the JSON report.
    json_report = (session.options.report or "").endswith(".json") and not hasattr(config, "workerinput")
    state = checkout_state(config.rootpath, session.store.root) if json_report else ("", "")
    config.pluginmanager.register(reporter.StagesReporter(session, observer, cache, state), reporter.PLUGIN_NAME)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Unregister the session's listener from JAX; put back the environment variables and JAX options it set."""
    session = config.stash.get(SESSION, None)
    if session is not None:
        session.events.close()
    changes = config.stash.get(CHANGES, None)
    if changes is not None:
        changes.restore()


def pytest_report_header(config: pytest.Config) -> str | None:
    session = config.stash.get(SESSION, None)
    if session is None or not config.stash.get(ACTIVE, False):
        return None
    return render.header(session)
