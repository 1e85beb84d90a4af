"""Registered stage functions as pytest items: ``stages::<name>[<config>]``."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_stages.analyse.analyses import format_spec
from pytest_stages.core.errors import StagesError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.text import close_match, listing
from pytest_stages.hooks import snapshot_assembly
from pytest_stages.hooks.errors import RegisteredFunctionError, RegistrationError
from pytest_stages.hooks.registry import Registration, registrations
from pytest_stages.hooks.stash import SESSION
from pytest_stages.stage.adapters import argument_names
from pytest_stages.stage.errors import TopologyUnavailable
from pytest_stages.store.names import REGISTERED_MODULE
from pytest_stages.store.storage import SnapshotFolder

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

COLLECTOR_NAME = "stages"


class RegisteredItem(pytest.Item):
    """One registered function on one device config."""

    def __init__(
        self,
        *,
        registration: Registration,
        config_name: str,
        args: tuple[object, ...],
        problem: StagesError | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.registration = registration
        self.config_name = config_name
        self.args = args
        # Why this item cannot be staged (bad register() options, an args function that raised): it fails alone.
        self.problem = problem
        session = self.config.stash[SESSION]
        self.folder = SnapshotFolder(session.store.root, REGISTERED_MODULE, registration.name, config_name)

    def runtest(self) -> None:
        try:
            if self.problem is not None:
                raise self.problem
            snapshot_assembly.check_chip(self.config, self.config_name)
            fn = self.registration.staged_fn()
        except StagesError as exc:
            raise snapshot_assembly.as_pytest(exc) from None
        session = self.config.stash[SESSION]
        active = session.active(self.config_name)
        snapshot = snapshot_assembly.make_snapshot(session, self, active, self.folder, self.registration.budget)
        try:
            snapshot_assembly.run_call(snapshot, fn, self.args, {}, name=self.registration.name)
        finally:
            snapshot_assembly.finish(session, snapshot)

    def reportinfo(self) -> tuple[Any, int, str]:
        """The user's ``register()`` call: every callable (jitted, partial, object) has one, not all have code."""
        registration = self.registration
        return (registration.origin or self.path), max(registration.line - 1, 0), self.nodeid

    def describe_args(self) -> str:
        """Shapes, dtypes and shardings of the staged arguments, for ``--stages-list``."""
        parts = []
        names = argument_names(self.registration.fn, len(self.args))
        for name, arg in zip(names, self.args, strict=True):
            for path, leaf in jax.tree_util.tree_flatten_with_path(arg)[0]:
                shape = getattr(leaf, "shape", None)
                text = f"{getattr(leaf, 'dtype', '')}{list(shape)}" if shape is not None else repr(leaf)
                spec = getattr(getattr(leaf, "sharding", None), "spec", None)
                if spec is not None:
                    text += f" {format_spec(spec)}"
                parts.append(f"{name}{jax.tree_util.keystr(path)}: {text}")
        return ", ".join(parts)


class RegisteredFunctions(pytest.Collector):
    """Collects every registration (from conftest.py files and ``modules``) into items."""

    def __init__(self, *, modules: Iterable[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.modules = tuple(modules)
        self.complete = True  # False when a path argument left a registration out

    def collect(self) -> list[pytest.Item]:
        for module in self.modules:
            try:
                importlib.import_module(module)
            except Exception as exc:  # noqa: BLE001  (a user's module may raise anything on import; it is reported)
                raise RegistrationError(
                    f"cannot import {module!r} listed in [tool.pytest_stages] modules: {type(exc).__name__}: {exc}"
                ) from None
        session = self.config.stash[SESSION]
        found = registrations(self.config.rootpath, self.modules, self.config.pluginmanager.get_plugins())
        included = [r for r in found if self._included(r)]
        duplicates = sorted(name for name, count in Counter(r.name for r in included).items() if count > 1)
        if duplicates:
            raise RegistrationError(f"{duplicates[0]!r} is registered twice; give each registration its own name=.")
        return [
            self._item(session, registration, config_name)
            for registration in included
            for config_name in self._configs(session, registration)
        ]

    def _included(self, registration: Registration) -> bool:
        """All of the session's registrations on a whole-suite run, else those under a path argument."""
        if self.config.args_source != pytest.Config.ArgsSource.ARGS:
            return True
        origin = Path(registration.origin).resolve()
        included = any(origin.is_relative_to(Path(arg).resolve()) for arg in self.config.args if "::" not in arg)
        self.complete = self.complete and included
        return included

    def _configs(self, session: Any, registration: Registration) -> list[str]:
        """The selected configs of ``registration``; an unknown name stays, its item fails saying so."""
        known = [c.name for c in session.settings.configs]
        wanted = list(registration.configs) if registration.configs is not None else known
        selected = session.options.configs
        return [n for n in wanted if selected is None or n in selected or n not in known]

    def _item(self, session: Any, registration: Registration, config_name: str) -> RegisteredItem:
        skip = None
        args: tuple[object, ...] = ()
        problem: StagesError | None = None
        known = [c.name for c in session.settings.configs]
        if registration.problem:
            problem = RegisteredFunctionError(registration.problem)
        elif config_name not in known:
            problem = RegisteredFunctionError(
                f"register({registration.name!r}, configs=...) at {registration.where} names unknown config "
                f"{config_name!r}{close_match(config_name, known)}; choose from {listing(known)}."
            )
        else:
            try:
                args = registration.arguments(session.active(config_name))
            except TopologyUnavailable as exc:
                skip = pytest.mark.skip(reason=exc.shown())
            except StagesError as exc:
                problem = exc
        item = RegisteredItem.from_parent(
            self,
            name=f"{registration.name}[{config_name}]",
            registration=registration,
            config_name=config_name,
            args=args,
            problem=problem,
        )
        if skip is not None:
            item.add_marker(skip)
        return item

    # pytest.Collector drops Node's ``style`` parameter itself, with the same type: ignore.
    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, RegistrationError):
            return excinfo.value.shown()
        return str(super().repr_failure(excinfo))
