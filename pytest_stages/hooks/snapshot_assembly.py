"""Per-test assembly: a pytest item, its markers and the session's settings in, a :class:`StageSnapshot` out.

Used by the ``stage_snapshot`` fixture (``hooks/items.py``) and by registered-function items
(``collection.py``); it also turns a call's outcome into pytest's fail and skip.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_stages.analyse.artifacts import ANALYSES, STAGES
from pytest_stages.calls.compiles_block import StageCompiles
from pytest_stages.calls.session import StagesSession
from pytest_stages.calls.snapshot_call import StageSnapshot
from pytest_stages.check.budgets import Budget, budget_for, parse_budget
from pytest_stages.config.values import check_mark_names, check_marker, parse_choices, parse_tolerances, respellings
from pytest_stages.core.errors import PREFIX, ConfigError, Outcome, StagesError
from pytest_stages.hooks.stash import CHIP, COMPILES, FOLDER, SNAPSHOT
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.errors import ChipHeld
from pytest_stages.stage.staging import StageResult
from pytest_stages.store.names import COMPILES_FOLDER, module_folder
from pytest_stages.store.storage import SnapshotFolder


def make_snapshot(
    session: StagesSession,
    item: pytest.Item,
    active: ActiveConfig,
    folder: SnapshotFolder,
    budget: dict[str, object] | None = None,
) -> StageSnapshot:
    """The per-test :class:`StageSnapshot`: settings narrowed by the item's markers."""
    try:
        marker = stages_marker(item, item.nodeid)
        tolerance = {
            **session.settings.tolerance,
            **parse_tolerances(marker.get("tolerance") or {}, "@pytest.mark.stages(tolerance=...)"),
        }
        ceilings: Budget = {
            **parse_budget(f"budget= of {item.nodeid}", budget or {}),
            **parse_budget(f"@pytest.mark.stages_budget on {item.nodeid}", marker_kwargs(item, "stages_budget")),
        }
        stages = _narrowed(marker, "stages", session.settings.stages, STAGES)
        analyses = _narrowed(marker, "analyses", session.settings.analyses, ANALYSES)
    except ConfigError as exc:
        raise as_pytest(exc) from None
    for message in [
        *respellings("@pytest.mark.stages(tolerance=...)", marker.get("tolerance") or {}),
        *respellings(f"budget= of {item.nodeid}", budget or {}),
        *respellings(f"@pytest.mark.stages_budget on {item.nodeid}", marker_kwargs(item, "stages_budget")),
    ]:
        warnings.warn(pytest.PytestConfigWarning(PREFIX + message), stacklevel=1)
    snapshot = StageSnapshot(
        session,
        nodeid=item.nodeid,
        folder=folder,
        active=active,
        stages=stages,
        analyses=analyses,
        tolerance=tolerance,
        budget=budget_for(item.nodeid, session.budget_patterns, ceilings),
    )
    item.stash[SNAPSHOT] = snapshot
    session.events.listen()
    return snapshot


def make_compiles(session: StagesSession, item: pytest.Item) -> StageCompiles:
    """The per-test :class:`StageCompiles`: its folder (the config's when the test has one) and ``compiles`` budget."""
    try:
        check_marks(item, item.nodeid)
        ceilings = parse_budget(f"@pytest.mark.stages_budget on {item.nodeid}", marker_kwargs(item, "stages_budget"))
    except ConfigError as exc:
        raise as_pytest(exc) from None
    config = config_param(item)
    checker = StageCompiles(
        session,
        nodeid=item.nodeid,
        folder=folder_for(session, item, config if isinstance(config, str) else COMPILES_FOLDER),
        budget=budget_for(item.nodeid, session.budget_patterns, ceilings),
    )
    item.stash[COMPILES] = checker
    return checker


def config_param(item: pytest.Item) -> object:
    """The item's ``stage_config`` parameter: a config name, the error of a bad marker, or None."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("stage_config") if callspec is not None else None


def as_pytest(exc: StagesError, *, long_tracebacks: bool = False, configuring: bool = False) -> BaseException:
    """The pytest exception that reports a plugin error as its class's :class:`Outcome` says, without a traceback.

    The one place errors become pytest outcomes: raise it ``from None`` (no chained exception).
    While ``configuring`` the session every error is a usage error (exit 4): there is no test to fail.
    """
    text = exc.shown(long_tracebacks)
    if configuring or exc.outcome is Outcome.USAGE:
        return pytest.UsageError(text)
    if exc.outcome is Outcome.SKIP:
        return pytest.skip.Exception(text)
    return pytest.fail.Exception(text, pytrace=False)


@contextlib.contextmanager
def as_pytest_outcome(long_tracebacks: bool = False) -> Iterator[None]:
    """The plugin's errors inside the block as pytest's fail or skip, with the plugin's message and no traceback."""
    try:
        yield
    except StagesError as exc:
        raise as_pytest(exc, long_tracebacks=long_tracebacks) from None


def run_call(
    snapshot: StageSnapshot,
    fn: object,
    args: tuple[object, ...],
    kwargs: Mapping[str, object],
    *,
    name: str | None,
    static_scalars: bool | None = None,
) -> StageResult:
    """One staged call, its outcome turned into pytest's fail/skip with the plugin's message."""
    if not callable(fn):
        raise as_pytest(
            ConfigError(
                f"stage_snapshot({fn!r}, ...): the first argument must be the function to stage (a "
                f"callable, or a jax.jit-ed function), got a {type(fn).__name__}."
            )
        ) from None
    with as_pytest_outcome(snapshot.session.options.long_tracebacks):
        return snapshot(fn, *args, name=name, static_scalars=static_scalars, **kwargs)


def finish(session: StagesSession, snapshot: StageSnapshot) -> None:
    """After a test: drop JAX's caches as ``clear_caches`` says, so executables do not pile up."""
    session.caches.after_test(bool(snapshot.records))


def _narrowed(
    marker: Mapping[str, object], key: str, default: tuple[str, ...], allowed: tuple[str, ...]
) -> tuple[str, ...]:
    if marker.get(key) is None:
        return default
    return parse_choices(f"@pytest.mark.stages({key}=...)", marker[key], allowed)


def stages_marker(node: Any, nodeid: str) -> dict[str, Any]:
    """The ``stages`` markers' keywords on ``node`` (closest last), each marker checked: a typo is an error.

    A mark named almost like one of the plugin's (``stage_budget``), and registered by no one, is an error too.
    """
    check_marks(node, nodeid)
    for mark in node.iter_markers("stages"):
        check_marker(f"@pytest.mark.stages on {nodeid}", mark.args, mark.kwargs)
    return marker_kwargs(node, "stages")


def check_marks(node: Any, nodeid: str) -> None:
    """Refuse the unregistered marks on ``node`` that are near misses of the plugin's (``stage_budget``)."""
    registered = {line.split(":")[0].split("(")[0].strip() for line in node.config.getini("markers")}
    check_mark_names(f"test {nodeid}", [mark.name for mark in node.iter_markers() if mark.name not in registered])


def marker_kwargs(node: Any, name: str) -> dict[str, object]:
    """Keyword arguments of every ``name`` marker on ``node``, closest last."""
    merged: dict[str, object] = {}
    for mark in reversed(list(node.iter_markers(name))):
        merged.update(mark.kwargs)
    return merged


def module_path(session: StagesSession, path: Path) -> str:
    """A test module's snapshot path: relative to the rootdir, without ``.py`` (``tests/test_a``).

    A module outside the rootdir goes under ``_outside_rootdir/``, by its path from the rootdir
    with ``_up`` for each ``..`` (``../x/outA/test_a.py`` -> ``_outside_rootdir/_up/x/outA/test_a``:
    two such modules of one file name keep apart); no run judges it deleted (it cannot tell
    whether such a module still exists). A name pytest-stages gives its own folders is escaped
    (:func:`~pytest_stages.store.names.module_folder`).
    """
    return module_folder(Path(os.path.relpath(path.with_suffix(""), session.rootpath)).parts)


def folder_for(session: StagesSession, item: pytest.Item, config_name: str) -> SnapshotFolder:
    """``<snapshot_dir>/<module path>/<test>[<its own parameters>]/<config>`` for this item."""
    module = module_path(session, Path(item.path))
    parts = item.nodeid.split("::")[1:]
    test = ".".join([*parts[:-1], getattr(item, "originalname", parts[-1].split("[")[0])])
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        # The test's own parameters: its id without the config's (``cpu8-3`` -> ``[3]``).
        ident = callspec.id
        if config_param(item) == config_name:
            ident = ident.removeprefix(config_name).removeprefix("-")
        if ident:
            test += f"[{ident}]"
    return SnapshotFolder(session.store.root, module, test, config_name)


def folder_of(session: StagesSession, item: pytest.Item, config_name: str) -> SnapshotFolder:
    """:func:`folder_for`, read back where collection already worked it out for this config (same fields)."""
    found = item.stash.get(FOLDER, None)
    return found if found is not None and found.config == config_name else folder_for(session, item, config_name)


def check_chip(config: pytest.Config, config_name: str) -> None:
    """Raise :class:`ChipHeld` where ``config_name`` needs the attached accelerator this worker was kept off."""
    plan = config.stash.get(CHIP, None)
    reason = plan.refusal(config_name) if plan is not None else None
    if reason is not None:
        raise ChipHeld(reason)
