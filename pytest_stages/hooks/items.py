"""Each test item: its configs (parametrized), fixtures and writes once passed; registered functions collected."""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from pytest_stages.calls.compiles_block import StageCompiles
from pytest_stages.calls.session import StagesSession
from pytest_stages.calls.snapshot_call import StageSnapshot
from pytest_stages.config.settings import Settings
from pytest_stages.config.values import parse_choices
from pytest_stages.core.errors import PREFIX, ConfigError, SnapshotError
from pytest_stages.hooks import collection, reporter, snapshot_assembly
from pytest_stages.hooks.configure import activate, start_pending_set
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.registry import registrations
from pytest_stages.hooks.stash import COMPILES, FOLDER, OBSERVER, SESSION, SNAPSHOT
from pytest_stages.stage import disk_cache
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.errors import ChipHeld, TopologyUnavailable
from pytest_stages.stage.jax_events import CompileLog
from pytest_stages.stage.staging import StageResult
from pytest_stages.store.names import COMPILES_FOLDER, REGISTERED_MODULE
from pytest_stages.store.storage import SnapshotFolder


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "stage_config" not in metafunc.fixturenames:
        return
    session = metafunc.config.stash[SESSION]
    names = list(session.settings.configs_for(metafunc.definition.nodeid))
    bad = "bad-marker"
    try:
        marker = snapshot_assembly.stages_marker(metafunc.definition, metafunc.definition.nodeid)
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


def _marker_configs(nodeid: str, value: object, settings: Settings) -> tuple[str, ...]:
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
    activate(request.config)
    if isinstance(request.param, ConfigError):
        raise snapshot_assembly.as_pytest(request.param) from None
    try:
        snapshot_assembly.check_chip(request.config, request.param)
        return session.active(request.param)
    except (TopologyUnavailable, ConfigError, ChipHeld) as exc:
        raise snapshot_assembly.as_pytest(exc) from None


@pytest.fixture
def stage_snapshot(request: pytest.FixtureRequest, stage_config: ActiveConfig) -> Iterator[StageSnapshotFixture]:
    """Stage a function on the active config and compare every artifact with its snapshot.

    ``stage_snapshot(fn, *args, name=None, static_scalars=None, **kwargs)`` returns a
    :class:`pytest_stages.StageResult` (the value's type: :class:`pytest_stages.StageSnapshotFixture`).
    """
    session = request.config.stash[SESSION]
    item = request.node
    snapshot = snapshot_assembly.make_snapshot(
        session, item, stage_config, snapshot_assembly.folder_of(session, item, stage_config.name)
    )

    def call(
        fn: object, *args: object, name: str | None = None, static_scalars: bool | None = None, **kwargs: object
    ) -> StageResult:
        return snapshot_assembly.run_call(snapshot, fn, args, kwargs, name=name, static_scalars=static_scalars)

    call.__doc__ = StageSnapshot.__call__.__doc__
    yield call
    snapshot_assembly.finish(session, snapshot)


@pytest.fixture
def stage_compiles(request: pytest.FixtureRequest) -> StageCompilesFixture:
    """Count what a block of user code makes JAX trace, lower and compile, per function; fail on a rise.

    ``with stage_compiles(*functions, name="compiles") as log:`` snapshots the counts and the
    distinct argument signatures as ``<name>.compiles.json``; a rise fails with JAX's explanation
    of each extra compile. ``@pytest.mark.stages_budget(compiles=N)`` caps the compiles per function.
    """
    activate(request.config)
    checker = snapshot_assembly.make_compiles(request.config.stash[SESSION], request.node)

    @contextlib.contextmanager
    def block(*functions: object, name: str = "compiles") -> Iterator[CompileLog]:
        with snapshot_assembly.as_pytest_outcome(), checker(*functions, name=name) as log:
            yield log

    return block


def item_folder(session: StagesSession, item: pytest.Item) -> SnapshotFolder | None:
    """The snapshot folder of a staged item (None for items that stage nothing)."""
    if isinstance(item, collection.RegisteredItem):
        return item.folder
    config_name = snapshot_assembly.config_param(item)
    if not isinstance(config_name, str) and "stage_compiles" in getattr(item, "fixturenames", ()):
        config_name = COMPILES_FOLDER
    return snapshot_assembly.folder_for(session, item, config_name) if isinstance(config_name, str) else None


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
            test_report.user_properties.append(reporter.record_property(item.config, record))
    return test_report


def _write_call(session: StagesSession, writer: StageSnapshot | StageCompiles, test_report: pytest.TestReport) -> None:
    """A call's writes: its snapshots on a passing update run, its pending set on a compare run.

    A write that fails fails the test with the write's message.
    """
    writes = [writer.flush] if session.options.update and test_report.passed else []
    if isinstance(writer, StageSnapshot) and session.options.pending is not None:
        writes.append(writer.write_pending_set)  # a compare run's differing calls: what their update would write
    for write in writes:
        try:
            write()
        except SnapshotError as exc:
            test_report.outcome = "failed"
            test_report.longrepr = exc.shown()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the registered stage functions (before -k/-m deselect, so both apply to them)."""
    stages = config.stash[SESSION]
    if not stages.settings.modules and not registrations(config.rootpath, plugins=config.pluginmanager.get_plugins()):
        return
    activate(config)
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
        start_pending_set(session.config)

    def folder_of(item: pytest.Item) -> str | None:
        folder = item_folder(stages, item)
        if folder is None:
            return None
        item.stash[FOLDER] = folder  # the stage_snapshot fixture reads it back (snapshot_assembly.folder_of)
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
        if isinstance(snapshot_assembly.config_param(item), BaseException)
        or (isinstance(item, collection.RegisteredItem) and item.registration.problem)
    ]
    observer.view.errors += bad
    if session.config.getoption("stages_list"):
        _list_registered(session)


def _list_registered(session: pytest.Session) -> None:
    """``--stages-list``: the registered stage functions and their arguments, in the terminal."""
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if terminal is None:  # -p no:terminal: there is nowhere to list them
        return
    registered = [item for item in session.items if isinstance(item, collection.RegisteredItem)]
    terminal.section(f"{PREFIX}registered functions")
    for item in registered:
        terminal.write_line(f"{item.nodeid}  ({item.describe_args()})")
    if not registered:
        terminal.write_line("no registered stage functions")
