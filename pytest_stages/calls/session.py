"""What the calls of one run share: the command line's options, the settings, the store, the records, JAX's listener."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_stages.check.budgets import Budget
from pytest_stages.check.decide import Policy
from pytest_stages.config.settings import Settings
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CallRecord
from pytest_stages.stage import plan
from pytest_stages.stage.activation import ActiveConfig, activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.memory_release import CacheClearing
from pytest_stages.stage.topology_results import CompileOnlyCache
from pytest_stages.store import inventory
from pytest_stages.store.storage import SnapshotStore

if TYPE_CHECKING:
    from pytest_stages.store import pending as store_pending
else:
    store_pending = lazy_module("pytest_stages.store.pending")


@dataclass(frozen=True)
class Options:
    """Command-line choices for this run."""

    update: bool = False
    rerecord: bool = False
    configs: tuple[str, ...] | None = None
    check: tuple[str, ...] = ()
    report: str | None = None
    prune: bool = False
    verbosity: int = 0
    # ``--tb=long``: a stage error shows JAX's whole traceback under its paragraph.
    long_tracebacks: bool = False
    # ``--stages-pending DIR`` (or ``pending_dir``), resolved: where a compare run leaves what an update would write.
    pending: Path | None = None
    # ``--stages-measure``: time each compiled call on its attached device, beside its estimated step time.
    measure: bool = False
    # ``--stages-migrate`` (with ``--stages-update``): rewrite folders of an older snapshot format in this one.
    migrate: bool = False
    # ``--stages-strict``: a run that left a staged call, an artifact or a budget unchecked fails (a CI gate).
    strict: bool = False


class StagesSession:
    """Settings, storage and resolved device configs shared by every test of a run."""

    def __init__(
        self,
        settings: Settings,
        options: Options,
        rootpath: Path,
        budget_patterns: Mapping[str, Budget],
    ) -> None:
        self.settings = settings
        self.options = options
        self.rootpath = rootpath
        self.budget_patterns = budget_patterns
        self.store = SnapshotStore(rootpath / settings.snapshot_dir)
        self.records: list[CallRecord] = []
        # The calls of a previous JSON report (``--stages-baseline``): the "before" compile times.
        self.baseline: list[CallRecord] = []
        self.caches = CacheClearing(settings.clear_caches)
        # The one listener to JAX's compile events: registered at first use, closed when the run ends.
        self.events = CompileEvents()
        # The compile-only cache (stage/topology_results.py), set when the plugin starts work; None: off.
        self.compile_only_cache: CompileOnlyCache | None = None
        self._active: dict[str, ActiveConfig] = {}
        # What was said of snapshot formats this version cannot compare (each said once a session).
        self.formats_said: set[str] = set()

    @functools.cached_property
    def pending_identity(self) -> dict[str, object]:
        """Who writes this run's pending sets: the project, its snapshot folder, the plugin, the commit (read once)."""
        try:
            pyproject = tomllib.loads((self.rootpath / "pyproject.toml").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pyproject = {}
        return {
            "project": store_pending.project_name(pyproject),
            "snapshot_dir": self.settings.snapshot_dir,
            "plugin": plan.installed_version("pytest-stages"),
            "commit": inventory.git_commit(self.rootpath) or None,
        }

    @functools.cached_property
    def environment(self) -> dict[str, str]:
        """The versions a snapshot folder records (read from package metadata, once: no JAX import)."""
        return {name: str(plan.installed_version(name)) for name in ("jax", "jaxlib")}

    def active(self, name: str) -> ActiveConfig:
        """The resolved config ``name`` (resolved once per run)."""
        if name not in self._active:
            self._active[name] = activate(self.settings.config_named(name), self.rootpath)
        return self._active[name]

    @property
    def policy(self) -> Policy:
        return Policy(
            update=self.options.update,
            on_version_mismatch=self.settings.on_version_mismatch,
            enforced=self.options.check or self.settings.check,
        )
