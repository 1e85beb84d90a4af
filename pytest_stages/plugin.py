"""The pytest hook layer: options, markers, parametrization over configs, fixtures, render."""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_stages import hooks
from pytest_stages.analyse.artifacts import CHECK_KINDS
from pytest_stages.check.budgets import parse_budget
from pytest_stages.config import (
    ConfigError,
    FoundTable,
    Settings,
    check_cache_folder,
    find_table,
    ini_tables,
    parse_choices,
    parse_selection,
    parse_settings,
    respellings,
)
from pytest_stages.core.errors import PREFIX, StagesError
from pytest_stages.core.paths import Use, checked_path, held_inside, shown_path
from pytest_stages.hooks import collection, per_test, reporter
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.observe import Observer
from pytest_stages.hooks.registry import registrations
from pytest_stages.hooks.stash import CHIP, COMPILES, FOLDER, OBSERVER, SESSION, SNAPSHOT
from pytest_stages.report import render
from pytest_stages.run.runner import Options, StageSnapshot, StagesSession
from pytest_stages.run.stage_compiles import StageCompiles
from pytest_stages.stage import chip, disk_cache
from pytest_stages.stage.devices import (
    ActiveConfig,
    arrange_cpu_devices,
    cpu_devices_needed,
)
from pytest_stages.stage.jax_events import CompileLog
from pytest_stages.stage.process_env import ProcessChanges, leave_platforms_to_jax, start_on_cpu
from pytest_stages.stage.staging import StageResult
from pytest_stages.stage.topology import TopologyUnavailable
from pytest_stages.stage.topology_results import CompileOnlyCache
from pytest_stages.store.inventory import checkout_state
from pytest_stages.store.names import COMPILES_FOLDER, REGISTERED_MODULE, safe_path
from pytest_stages.store.storage import SnapshotError, SnapshotFolder, snapshot_root


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stages", f"{PREFIX}compilation-regression snapshots of JAX programs")
    group.addoption(
        "--stages-update",
        action="store_true",
        default=False,
        help="write new and changed stage snapshots of the tests that ran (deletes nothing)",
    )
    group.addoption(
        "--stages-rerecord",
        action="store_true",
        default=False,
        help="with --stages-update: also replace snapshots recorded for another platform, device kind or "
        "CPU architecture (a plain update refuses to)",
    )
    group.addoption(
        "--stages-migrate",
        action="store_true",
        default=False,
        help="with --stages-update: also rewrite snapshot folders of an older pytest-stages format in this "
        "version's (a plain update never rewrites a file for its format alone); lists each file and why",
    )
    group.addoption(
        "--stages-configs",
        metavar="NAMES",
        default=None,
        help="comma-separated device configs to run (default: all configured)",
    )
    group.addoption(
        "--stages-check",
        metavar="KINDS",
        default=None,
        help=f"comma-separated kinds that fail a test, from {','.join(CHECK_KINDS)} (default: all); "
        "the others are reported only",
    )
    group.addoption(
        "--stages-prune",
        action="store_true",
        default=False,
        help="delete the snapshot files this run observed to be unused (refused unless the run collected "
        "and ran everything, with no collection error or selection)",
    )
    group.addoption(
        "--stages-list",
        action="store_true",
        default=False,
        help="list the registered stage functions and configs that would run, with their arguments",
    )
    group.addoption(
        "--stages-baseline",
        metavar="PATH",
        default=None,
        help="a JSON report of an earlier run (--stages-report=PATH.json): the upgrade section lists the calls "
        "whose compile time moved most against it",
    )
    group.addoption(
        "--stages-pending",
        metavar="DIR",
        default=None,
        help="on a compare run, write what --stages-update would write for each differing call into DIR (with a "
        "manifest per call), for `pytest-stages accept DIR` or `review DIR`; snapshot_dir is not changed",
    )
    group.addoption(
        "--stages-measure",
        action="store_true",
        default=False,
        help="time each compiled call on its attached device (not compile-only topologies) and report the "
        "measured step time beside the estimate; the reports only, never a snapshot",
    )
    group.addoption(
        "--stages-report",
        metavar="PATH",
        action="append",
        default=[],
        help="write a report of every staged call: PATH.json, PATH.md or PATH.html (a review page); once a run",
    )


# The options that put the plugin to work in a session whose configuration has no table.
STAGES_OPTIONS = (
    "stages_update",
    "stages_rerecord",
    "stages_migrate",
    "stages_configs",
    "stages_check",
    "stages_prune",
    "stages_list",
    "stages_baseline",
    "stages_report",
    "stages_pending",
)
CHANGES = pytest.StashKey[ProcessChanges]()
ACTIVE = pytest.StashKey[bool]()
# Whether this run started its pending set afresh (it does so once, when it has tests to run).
_PENDING = pytest.StashKey[bool]()


def _found(config: pytest.Config) -> FoundTable:
    """The ``[tool.pytest_stages]`` table of the file pytest chose as its configuration."""
    return find_table(config.inipath, config.rootpath, config.invocation_params.dir)


def _wanted(namespace: Any, found: FoundTable) -> bool:
    """Whether the session uses the plugin from the start: a table was read, or a ``--stages-*`` option given.

    Otherwise it stays inert (no variable, JAX option, folder or plugin object) until a test stages.
    """
    given = [name for name in STAGES_OPTIONS if getattr(namespace, name, None) not in (None, False, [])]
    return found.table is not None or bool(given)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Arrange CPU devices before any conftest.py is imported (one may build arrays at import).

    Errors in the settings are left for ``pytest_configure`` to report.
    """
    try:
        found = _found(early_config)
        if not _wanted(early_config.known_args_namespace, found):
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
        _start_pending_set(node.config)


def _start_pending_set(config: pytest.Config) -> None:
    """A compare run that will run tests replaces the earlier run's pending set (once; not on --collect-only)."""
    options = config.stash[SESSION].options
    if options.pending is None or options.update or config.option.collectonly or config.stash.get(_PENDING, False):
        return
    config.stash[_PENDING] = True
    try:
        hooks.pending.start_set(options.pending)
    except hooks.pending.PendingError as exc:
        pytest.exit(exc.shown(), returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist controller: send the items of configs that need the attached accelerator to the worker that holds it.

    Only for xdist's default ``--dist load``; under another mode such an item fails elsewhere with
    the reason (:meth:`chip.ChipPlan.refusal`).
    """
    plan = config.stash.get(CHIP, None)
    if plan is None or not plan.needed or config.getoption("dist", None) != "load":
        return None

    return hooks.chip_schedule.ChipScheduling(config, log, plan.needed)


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
        found = _found(config)
        settings = parse_settings(found.table or {})
        wanted = _wanted(config.option, found)
        snapshots = config.rootpath / settings.snapshot_dir
        if wanted:  # a session that does not use the plugin is not judged by its settings' folders
            snapshots = snapshot_root(config.rootpath, settings.snapshot_dir)
            check_cache_folder(settings.compilation_cache, config.rootpath, settings.snapshot_dir)
        options = _options(config, settings, snapshots)
        patterns = {
            pattern: parse_budget(f"[tool.pytest_stages.budgets] {pattern!r}", raw)
            for pattern, raw in settings.budgets.items()
        }
        baseline = config.getoption("stages_baseline")
        calls = _baseline(Path(baseline)) if baseline is not None else []
    except StagesError as exc:
        raise per_test.as_pytest(exc, configuring=True) from None
    for path in found.unread:
        config.issue_config_time_warning(pytest.PytestConfigWarning(_unread_table(config, path)), stacklevel=2)
    if wanted:
        for message in _respelled(found.table or {}):
            config.issue_config_time_warning(pytest.PytestConfigWarning(PREFIX + message), stacklevel=2)
    if options.pending is not None and not options.update and not hasattr(config, "workerinput"):
        try:  # checked now; the controller (not an xdist worker) starts it afresh once tests are selected
            hooks.pending.earlier_set(options.pending)
        except hooks.pending.PendingError as exc:
            raise per_test.as_pytest(exc, configuring=True) from None
    for path in ini_tables(config.inipath, config.rootpath):
        config.issue_config_time_warning(pytest.PytestConfigWarning(_ini_table(config, path)), stacklevel=2)
    session = StagesSession(settings, options, config.rootpath, patterns)
    session.store.repair = options.update  # an update records again a snapshot that does not hold what it should
    session.baseline = calls
    config.stash[SESSION] = session
    if wanted:
        _activate(config)
    if config.getoption("stages_list"):
        config.option.collectonly = True


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


def _activate(config: pytest.Config) -> None:
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
        raise per_test.as_pytest(exc) from None
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
    observer = Observer(config, lambda path: safe_path(per_test.module_path(session, path)).as_posix())
    config.stash[OBSERVER] = observer
    config.pluginmanager.register(observer, "stages-observer")
    # What a merge checks a shard ran: taken before any test writes, by the process that writes the JSON report.
    json_report = (session.options.report or "").endswith(".json") and not hasattr(config, "workerinput")
    state = checkout_state(config.rootpath, session.store.root) if json_report else ("", "")
    config.pluginmanager.register(reporter.StagesReporter(session, observer, cache, state), "stages-reporter")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Unregister the session's listener from JAX; put back the environment variables and JAX options it set."""
    session = config.stash.get(SESSION, None)
    if session is not None:
        session.events.close()
    changes = config.stash.get(CHANGES, None)
    if changes is not None:
        changes.restore()


def _baseline(path: Path) -> list[dict[str, Any]]:
    """The calls of ``--stages-baseline``'s report (its reader is imported only when the option is given)."""
    return hooks.report_baseline.read_baseline(path)


def _options(config: pytest.Config, settings: Settings, snapshots: Path) -> Options:
    configs = config.getoption("stages_configs")
    names = None
    if configs is not None:
        known = tuple(c.name for c in settings.configs)
        names = parse_selection("--stages-configs", configs, known)
    reports = config.getoption("stages_report")
    if len(reports) > 1:
        raise ConfigError(
            f"--stages-report is given {len(reports)} times ({', '.join(reports)}); a run writes one report: give "
            "it once (`python -m pytest_stages merge --report A --report B REPORT.json` writes several from it)."
        )
    report = reports[0] if reports else None
    if report is not None:
        render.check_output("--stages-report", Path(report), snapshots)
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
    )


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
    inside = held_inside(base / value, config.rootpath) if option is None else None  # the project's setting
    path = checked_path(base / value, Use(named, fix, folder=True, inside=inside))
    if option is not None and config.getoption("stages_update"):
        raise ConfigError(
            "--stages-pending keeps what an update would write, on a compare run; --stages-update writes it into the "
            "snapshots: give one of them."
        )
    if render.inside(path, snapshots) or render.inside(snapshots, path):
        raise ConfigError(
            f"{name}={path} overlaps the snapshot folder {snapshots}, which a compare run never changes; name a "
            "folder outside it, e.g. --stages-pending=stages-pending."
        )
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise ConfigError(f"{name}={path} is not a folder (a file or a link); name a folder for the pending set.")
    try:  # each call's manifest records the set's name as text
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        shown = str(path).encode("utf-8", "backslashreplace").decode("utf-8")
        raise ConfigError(f"{name}={shown} is not a UTF-8 name; name the pending folder in UTF-8.") from None
    return path


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
        if render.inside(path, pending):
            raise ConfigError(
                f"{named} is inside the pending folder {pending}, which holds the pending set "
                "alone: `pytest-stages accept` and `review` refuse a set holding other files, and the next "
                f"--stages-pending run refuses the folder. Put it beside the pending folder, e.g. {example}."
            )


def pytest_report_header(config: pytest.Config) -> str | None:
    session = config.stash.get(SESSION, None)
    if session is None or not config.stash.get(ACTIVE, False):
        return None
    return render.header(session)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "stage_config" not in metafunc.fixturenames:
        return
    session = metafunc.config.stash[SESSION]
    names = list(session.settings.configs_for(metafunc.definition.nodeid))
    bad = "bad-marker"
    try:
        marker = per_test.stages_marker(metafunc.definition, metafunc.definition.nodeid)
        if marker.get("configs") is not None:
            bad = "bad-configs"
            names = list(_marker_configs(metafunc.definition.nodeid, marker["configs"], session.settings))
    except ConfigError as exc:
        # Fails this test alone (in its stage_config fixture); the module's other tests run.
        metafunc.parametrize("stage_config", [pytest.param(exc, id=bad)], indirect=True)
        return
    if session.options.configs is not None:
        names = [n for n in names if n in session.options.configs]
    if not names:
        skip = pytest.mark.skip(reason=f"{PREFIX}none of this test's configs is selected by --stages-configs")
        metafunc.parametrize("stage_config", [pytest.param(None, marks=skip, id="no-config")], indirect=True)
        return
    metafunc.parametrize("stage_config", names, ids=names, indirect=True)


def _marker_configs(nodeid: str, value: Any, settings: Settings) -> tuple[str, ...]:
    """The configs ``@pytest.mark.stages(configs=...)`` names; naming none is an error of the marker.

    An empty list would skip the test: its folders would then belong to no item, and a prune
    would find every one of its snapshots unused.
    """
    known = tuple(c.name for c in settings.configs)
    names = parse_choices(f"@pytest.mark.stages(configs=...) on {nodeid}", value, known)
    if not names:
        raise ConfigError(
            f"@pytest.mark.stages(configs={value!r}) on {nodeid} names no config: name one or more of {list(known)} "
            "(configs=['cpu1']), or remove configs= to run the test under every config."
        )
    return names


@pytest.fixture
def stage_config(request: pytest.FixtureRequest) -> ActiveConfig:
    """The active device configuration: name, platform, devices and mesh."""
    session = request.config.stash[SESSION]
    _activate(request.config)
    if isinstance(request.param, ConfigError):
        raise per_test.as_pytest(request.param) from None
    try:
        per_test.check_chip(request.config, request.param)
        return session.active(request.param)
    except (TopologyUnavailable, ConfigError, chip.ChipHeld) as exc:
        raise per_test.as_pytest(exc) from None


@pytest.fixture
def stage_snapshot(request: pytest.FixtureRequest, stage_config: ActiveConfig) -> Iterator[StageSnapshotFixture]:
    """Stage a function on the active config and compare every artifact with its snapshot.

    ``stage_snapshot(fn, *args, name=None, static_scalars=None, **kwargs)`` returns a
    :class:`pytest_stages.StageResult` (the value's type: :class:`pytest_stages.StageSnapshotFixture`).
    """
    session = request.config.stash[SESSION]
    item = request.node
    snapshot = per_test.make_snapshot(session, item, stage_config, per_test.folder_of(session, item, stage_config.name))

    def call(
        fn: Any, *args: Any, name: str | None = None, static_scalars: bool | None = None, **kwargs: Any
    ) -> StageResult:
        return per_test.run_call(snapshot, fn, args, kwargs, name=name, static_scalars=static_scalars)

    call.__doc__ = StageSnapshot.__call__.__doc__
    yield call
    per_test.finish(session, snapshot)


@pytest.fixture
def stage_compiles(request: pytest.FixtureRequest) -> StageCompilesFixture:
    """Count what a block of user code makes JAX trace, lower and compile, per function; fail on a rise.

    ``with stage_compiles(*functions, name="compiles") as log:`` snapshots the counts and the
    distinct argument signatures as ``<name>.compiles.json``; a rise fails with JAX's explanation
    of each extra compile. ``@pytest.mark.stages_budget(compiles=N)`` caps the compiles per function.
    """
    _activate(request.config)
    checker = per_test.make_compiles(request.config.stash[SESSION], request.node)

    @contextlib.contextmanager
    def block(*functions: Any, name: str = "compiles") -> Iterator[CompileLog]:
        with per_test.as_pytest_outcome(), checker(*functions, name=name) as log:
            yield log

    return block


def item_folder(session: StagesSession, item: pytest.Item) -> SnapshotFolder | None:
    """The snapshot folder of a staged item (None for items that stage nothing)."""
    if isinstance(item, collection.RegisteredItem):
        return item.folder
    config_name = per_test.config_param(item)
    if not isinstance(config_name, str) and "stage_compiles" in getattr(item, "fixturenames", ()):
        config_name = COMPILES_FOLDER
    return per_test.folder_for(session, item, config_name) if isinstance(config_name, str) else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    test_report = yield
    session = item.config.stash[SESSION]
    writers = [w for w in (item.stash.get(SNAPSHOT, None), item.stash.get(COMPILES, None)) if w is not None]
    if writers and test_report.when == "call":
        for writer in writers:
            _write_call(session, writer, test_report)
            # What was not written (a compare run's passing changes, a test failing after its call) is dropped:
            # the item's stash keeps its writer until the session ends.
            writer.pending.clear()
        requests, hits = session.events.take()
        if requests:
            test_report.user_properties.append((disk_cache.PROPERTY, [requests, hits]))
        for record in (record for writer in writers for record in writer.records):
            test_report.user_properties.append((reporter.RECORD_PROPERTY, json.dumps(record.to_dict())))
    return test_report


def _write_call(session: StagesSession, writer: StageSnapshot | StageCompiles, test_report: pytest.TestReport) -> None:
    """A call's writes: its snapshots on a passing update run, its pending set on a compare run.

    A write that fails fails the test with the write's message.
    """
    if session.options.update and test_report.passed:
        try:
            writer.flush()
        except SnapshotError as exc:
            test_report.outcome = "failed"
            test_report.longrepr = exc.shown()
    if isinstance(writer, StageSnapshot) and session.options.pending is not None:
        try:  # a compare run's differing calls: what their update would write, into the pending set
            writer.write_pending_set()
        except SnapshotError as exc:
            test_report.outcome = "failed"
            test_report.longrepr = exc.shown()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the registered stage functions (before -k/-m deselect, so both apply to them)."""
    stages = config.stash[SESSION]
    if not stages.settings.modules and not registrations(config.rootpath, plugins=config.pluginmanager.get_plugins()):
        return
    _activate(config)
    collector = collection.RegisteredFunctions.from_parent(
        session,
        name=collection.COLLECTOR_NAME,
        nodeid=collection.COLLECTOR_NAME,
        modules=stages.settings.modules,
    )
    report = collector.ihook.pytest_make_collect_report(collector=collector)
    # As pytest's own collect_one_node does: the report must not keep its CallInfo, which xdist
    # cannot send from a worker to the controller (an INTERNALERROR, then every worker lost).
    report.__dict__.pop("call", None)
    session.ihook.pytest_collectreport(report=report)
    observer = config.stash[OBSERVER]
    if report.passed:
        items.extend(report.result)
        observer.note_collected(report.result)
    if report.passed and collector.complete and not _user_ignored(config, observer.view.ignored):
        observer.view.modules.add(REGISTERED_MODULE)


def _user_ignored(config: pytest.Config, paths: list[str]) -> list[str]:
    """Paths collection skipped that may hold a conftest.py (its registrations were then never seen).

    pytest's own skips, ``__pycache__``, folders matching ``norecursedirs`` (``.git``,
    ``build``, ...) and virtual environments, do not count; ``--ignore``, ``--ignore-glob`` and
    ``collect_ignore`` do.
    """
    patterns = ["__pycache__", *config.getini("norecursedirs")]
    return [
        path
        for path in paths
        if not any(fnmatch.fnmatch(Path(path).name, pattern) for pattern in patterns)
        and not (Path(path) / "pyvenv.cfg").exists()
    ]


def pytest_collection_finish(session: pytest.Session) -> None:
    stages = session.config.stash[SESSION]
    # pytest runs no test after a collection error (unless --continue-on-collection-errors)
    stopped = session.testsfailed and not session.config.option.continue_on_collection_errors
    if session.items and not stopped and not hasattr(session.config, "workerinput"):
        _start_pending_set(session.config)

    def folder_of(item: pytest.Item) -> str | None:
        folder = item_folder(stages, item)
        if folder is None:
            return None
        item.stash[FOLDER] = folder  # the stage_snapshot fixture reads it back (per_test.folder_of)
        return folder.relative.as_posix()

    observer = session.config.stash.get(OBSERVER, None)
    if observer is None:  # inert: nothing collected stages
        return
    observer.record_items(session.items, folder_of)
    # A test whose stages marker is wrong fails without knowing its configs, so it owns no folder:
    # its folders could look abandoned. Count it as a collection error: nothing is pruned.
    # So does a registration with bad options: the folder it meant (name=5) is not known. (One whose args
    # failed owns its folder like any failing test.)
    bad = [
        item.nodeid
        for item in session.items
        if isinstance(per_test.config_param(item), BaseException)
        or (isinstance(item, collection.RegisteredItem) and item.registration.problem)
    ]
    observer.view.errors += bad
    if not session.config.getoption("stages_list"):
        return
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if terminal is None:  # -p no:terminal: there is nowhere to list them
        return
    registered = [item for item in session.items if isinstance(item, collection.RegisteredItem)]
    terminal.section(f"{PREFIX}registered functions")
    for item in registered:
        terminal.write_line(f"{item.nodeid}  ({item.describe_args()})")
    if not registered:
        terminal.write_line("no registered stage functions")
