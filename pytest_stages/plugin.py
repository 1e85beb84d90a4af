"""The pytest hook layer: options, markers, parametrization over configs, fixtures, reporting."""

from __future__ import annotations

import contextlib
import fnmatch
import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_stages.analyse.artifacts import CHECK_KINDS
from pytest_stages.check.budgets import parse_budget
from pytest_stages.config import (
    ConfigError,
    FoundTable,
    Settings,
    check_cache_folder,
    find_table,
    parse_choices,
    parse_selection,
    parse_settings,
)
from pytest_stages.core.errors import PREFIX, StagesError
from pytest_stages.hooks import assembly, collection, reporter
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.observe import Observer
from pytest_stages.hooks.registry import registrations
from pytest_stages.hooks.stash import COMPILES, OBSERVER, SESSION, SNAPSHOT
from pytest_stages.report import reporting
from pytest_stages.run.runner import Options, StageSnapshot, StagesSession
from pytest_stages.stage import compile_cache
from pytest_stages.stage.compiles import CompileLog
from pytest_stages.stage.devices import (
    ActiveConfig,
    arrange_cpu_devices,
    cpu_devices_needed,
)
from pytest_stages.stage.process_env import ProcessChanges, default_to_cpu
from pytest_stages.stage.staged_cache import StagedCache
from pytest_stages.stage.staging import StageResult
from pytest_stages.stage.topology import TopologyUnavailable
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
    "stages_configs",
    "stages_check",
    "stages_prune",
    "stages_list",
    "stages_baseline",
    "stages_report",
)
CHANGES = pytest.StashKey[ProcessChanges]()
ACTIVE = pytest.StashKey[bool]()


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
    _arrange_devices(early_config, settings, names)


def _arrange_devices(config: pytest.Config, settings: Settings, names: tuple[str, ...] | None) -> None:
    """Keep JAX on the CPU unless an accelerator is attached; ask for the CPU devices the selected configs need."""
    changes = config.stash.setdefault(CHANGES, ProcessChanges())
    default_to_cpu(changes)
    count = cpu_devices_needed([c for c in settings.configs if names is None or c.name in names])
    arrange_cpu_devices(count, changes)


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
            check_cache_folder(settings.compilation_cache, config.rootpath)
        options = _options(config, settings, snapshots)
        patterns = {
            pattern: parse_budget(f"[tool.pytest_stages.budgets] {pattern!r}", raw)
            for pattern, raw in settings.budgets.items()
        }
        baseline = config.getoption("stages_baseline")
        calls = _baseline(Path(baseline)) if baseline is not None else []
    except StagesError as exc:
        raise assembly.as_pytest(exc, configuring=True) from None
    for path in found.unread:
        config.issue_config_time_warning(pytest.PytestConfigWarning(_unread_table(config, path)), stacklevel=2)
    session = StagesSession(settings, options, config.rootpath, patterns)
    session.store.repair = options.update  # an update records again a snapshot that does not hold what it should
    session.baseline = calls
    config.stash[SESSION] = session
    if wanted:
        _activate(config)
    if config.getoption("stages_list"):
        config.option.collectonly = True


def _unread_table(config: pytest.Config, path: Path) -> str:
    """The warning for a ``[tool.pytest_stages]`` table in a file this session does not read."""
    chosen = f"its configuration {config.inipath}" if config.inipath else "no configuration file"
    return (
        f"{PREFIX}{path} has a [tool.pytest_stages] table, but pytest chose {chosen} (rootdir "
        f"{config.rootpath}), so the table is not read and the defaults apply. Move the table into "
        f"{config.rootpath / 'pyproject.toml'}, or pytest's own settings into [tool.pytest.ini_options] of {path}."
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
        raise assembly.as_pytest(exc) from None
    _arrange_devices(config, session.settings, session.options.configs)
    settings = session.settings
    default = (
        Path(config.cache.mkdir(compile_cache.DEFAULT_FOLDER))
        if settings.compilation_cache is True and getattr(config, "cache", None)
        else None
    )
    cache = compile_cache.choose(settings.compilation_cache, default, config.rootpath, compile_cache.users_jax_dir())
    if cache.owner == "pytest-stages" and cache.path is not None:
        compile_cache.enable(cache.path, config.stash[CHANGES])
    staged = compile_cache.staged_folder(settings.compilation_cache, default, config.rootpath)
    if staged is not None and settings.compile_only_cache_size > 0:
        session.staged_cache = StagedCache(staged, settings.compile_only_cache_size, config.rootpath)
    observer = Observer(config, lambda path: safe_path(assembly.module_path(session, path)).as_posix())
    config.stash[OBSERVER] = observer
    config.pluginmanager.register(observer, "stages-observer")
    config.pluginmanager.register(reporter.StagesReporter(session, observer, cache), "stages-reporter")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Unregister the session's listener from JAX; put back the environment variables and JAX options it set."""
    session = config.stash.get(SESSION, None)
    if session is not None:
        session.events.close()
    changes = config.stash.get(CHANGES, None)
    if changes is not None:
        changes.restore()


def _baseline(path: Path) -> list[dict[str, Any]]:
    """The calls of ``--stages-baseline``'s report (its reader is loaded only when the option is given)."""
    from pytest_stages.report.baseline import read_baseline

    return read_baseline(path)


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
        reporting.check_output("--stages-report", Path(report), snapshots)
    check = config.getoption("stages_check")
    rerecord = config.getoption("stages_rerecord")
    if rerecord and not config.getoption("stages_update"):
        raise ConfigError("--stages-rerecord re-records snapshots: use it together with --stages-update.")
    return Options(
        update=config.getoption("stages_update"),
        rerecord=rerecord,
        configs=names,
        check=parse_choices("--stages-check", check, CHECK_KINDS) if check is not None else (),
        report=report,
        prune=config.getoption("stages_prune"),
        verbosity=config.getoption("verbose", 0),
        long_tracebacks=config.getoption("tbstyle", "auto") == "long",
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    session = config.stash.get(SESSION, None)
    if session is None or not config.stash.get(ACTIVE, False):
        return None
    return reporting.header(session)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "stage_config" not in metafunc.fixturenames:
        return
    session = metafunc.config.stash[SESSION]
    names = list(session.settings.configs_for(metafunc.definition.nodeid))
    marker = assembly.marker_kwargs(metafunc.definition, "stages")
    if marker.get("configs") is not None:
        try:
            names = list(
                parse_choices(
                    f"@pytest.mark.stages(configs=...) on {metafunc.definition.nodeid}",
                    marker["configs"],
                    tuple(c.name for c in session.settings.configs),
                )
            )
        except ConfigError as exc:
            # Fails this test alone (in its stage_config fixture); the module's other tests run.
            metafunc.parametrize("stage_config", [pytest.param(exc, id="bad-configs")], indirect=True)
            return
    if session.options.configs is not None:
        names = [n for n in names if n in session.options.configs]
    if not names:
        skip = pytest.mark.skip(reason=f"{PREFIX}none of this test's configs is selected by --stages-configs")
        metafunc.parametrize("stage_config", [pytest.param(None, marks=skip, id="no-config")], indirect=True)
        return
    metafunc.parametrize("stage_config", names, ids=names, indirect=True)


@pytest.fixture
def stage_config(request: pytest.FixtureRequest) -> ActiveConfig:
    """The active device configuration: name, platform, devices and mesh."""
    session = request.config.stash[SESSION]
    _activate(request.config)
    if isinstance(request.param, ConfigError):
        raise assembly.as_pytest(request.param) from None
    try:
        return session.active(request.param)
    except (TopologyUnavailable, ConfigError) as exc:
        raise assembly.as_pytest(exc) from None


@pytest.fixture
def stage_snapshot(request: pytest.FixtureRequest, stage_config: ActiveConfig) -> Iterator[StageSnapshotFixture]:
    """Stage a function on the active config and compare every artifact with its snapshot.

    ``stage_snapshot(fn, *args, name=None, static_scalars=None, **kwargs)`` returns a
    :class:`pytest_stages.StageResult` (the value's type: :class:`pytest_stages.StageSnapshotFixture`).
    """
    session = request.config.stash[SESSION]
    item = request.node
    snapshot = assembly.make_snapshot(
        session, item, stage_config, assembly.folder_for(session, item, stage_config.name)
    )

    def call(
        fn: Any, *args: Any, name: str | None = None, static_scalars: bool | None = None, **kwargs: Any
    ) -> StageResult:
        return assembly.run_call(snapshot, fn, args, kwargs, name=name, static_scalars=static_scalars)

    call.__doc__ = StageSnapshot.__call__.__doc__
    yield call
    assembly.finish(session, snapshot)


@pytest.fixture
def stage_compiles(request: pytest.FixtureRequest) -> StageCompilesFixture:
    """Count what a block of user code makes JAX trace, lower and compile, per function; fail on a rise.

    ``with stage_compiles(*functions, name="compiles") as log:`` snapshots the counts and the
    distinct argument signatures as ``<name>.compiles.json``; a rise fails with JAX's explanation
    of each extra compile. ``@pytest.mark.stages_budget(compiles=N)`` caps the compiles per function.
    """
    _activate(request.config)
    checker = assembly.make_compiles(request.config.stash[SESSION], request.node)

    @contextlib.contextmanager
    def block(*functions: Any, name: str = "compiles") -> Iterator[CompileLog]:
        with assembly.as_pytest_outcome(), checker(*functions, name=name) as log:
            yield log

    return block


def item_folder(session: StagesSession, item: pytest.Item) -> SnapshotFolder | None:
    """The snapshot folder of a staged item (None for items that stage nothing)."""
    if isinstance(item, collection.RegisteredItem):
        return item.folder
    config_name = assembly.config_param(item)
    if not isinstance(config_name, str) and "stage_compiles" in getattr(item, "fixturenames", ()):
        config_name = COMPILES_FOLDER
    return assembly.folder_for(session, item, config_name) if isinstance(config_name, str) else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    test_report = yield
    session = item.config.stash[SESSION]
    writers = [w for w in (item.stash.get(SNAPSHOT, None), item.stash.get(COMPILES, None)) if w is not None]
    if writers and test_report.when == "call":
        for writer in writers:
            if session.options.update and test_report.passed:
                try:
                    writer.flush()
                except SnapshotError as exc:
                    test_report.outcome = "failed"
                    test_report.longrepr = exc.shown()
            # What was not written (a compare run's passing changes, a test failing after its call) is dropped:
            # the item's stash keeps its writer until the session ends.
            writer.pending.clear()
        requests, hits = session.events.take()
        if requests:
            test_report.user_properties.append((compile_cache.PROPERTY, [requests, hits]))
        for record in (record for writer in writers for record in writer.records):
            test_report.user_properties.append((reporter.RECORD_PROPERTY, json.dumps(record.to_dict())))
    return test_report


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

    def folder_of(item: pytest.Item) -> str | None:
        folder = item_folder(stages, item)
        return folder.relative.as_posix() if folder is not None else None

    observer = session.config.stash.get(OBSERVER, None)
    if observer is None:  # inert: nothing collected stages
        return
    observer.record_items(session.items, folder_of)
    # A test whose stages marker is wrong fails without knowing its configs, so it owns no folder:
    # its folders could look abandoned. Count it as a collection error: nothing is pruned.
    bad = [item.nodeid for item in session.items if isinstance(assembly.config_param(item), BaseException)]
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
