"""The environment a snapshot folder was recorded in against this run's: what changed, what still compares.

Pure: both environments as plain dicts in, plain data and lines out. A key a folder does not record is
unknown, never a change. Another platform, device kind or staging each has its rule (docs/snapshots.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.stage.plan import ATTACHED, COMPILE_KEYS, COMPILE_ONLY, ENVIRONMENT_KEYS, LOWERED

RERECORD_OPTION = "--stages-rerecord"


@dataclass(frozen=True)
class Change:
    """One recorded value and this run's (``before`` -> ``after``)."""

    before: str
    after: str


@dataclass(frozen=True)
class EnvironmentChange:
    """What differs between a folder's recorded environment and this run's (None: the same, or unknown)."""

    recorded: Mapping[str, object]
    current: Mapping[str, object]
    platform: Change | None = None
    target: Change | None = None
    staging: Change | None = None
    plugin: Change | None = None

    @property
    def foreign(self) -> bool:
        """Recorded for another platform or device kind: a plain ``--stages-update`` must not replace it."""
        return self.platform is not None or self.target is not None

    @property
    def shown(self) -> bool:
        """Whether a failure's headline names the environment (the plugin's version alone is a note)."""
        return self.foreign or self.staging is not None

    def headline(self) -> str:
        """``recorded compile-only for TPU v5 lite, now on the attached TPU v5 lite``."""
        return f"recorded {describe(self.recorded)}, now {describe(self.current)}"


def compare_environments(recorded: Mapping[str, object] | None, current: Mapping[str, object]) -> EnvironmentChange:
    """The differences of platform, device kind (CPU architecture), staging and plugin version."""
    recorded = recorded or {}

    def change(*keys: str) -> Change | None:
        for key in keys:
            before, after = recorded.get(key), current.get(key)
            if before is not None and after is not None and before != after:
                return Change(str(before), str(after))
        return None

    platform = change("platform")
    return EnvironmentChange(
        recorded,
        current,
        platform=platform,
        target=None if platform else change("device_kind", "machine"),
        staging=None if platform else change("staging"),
        plugin=change("pytest_stages"),
    )


def describe(environment: Mapping[str, Any]) -> str:
    """How a folder was staged, in words: ``lowered only for tpu``, ``compile-only for TPU v5 lite``,
    ``on the attached TPU v5 lite``, ``on cpu (x86_64)``."""
    platform = environment.get("platform") or "an unknown platform"
    kind = environment.get("device_kind")
    target = kind if kind and platform != "cpu" else platform
    if environment.get("machine"):
        target += f" ({environment['machine']})"
    staging = environment.get("staging")
    if staging == LOWERED:
        return f"lowered only for {platform}"
    if staging == COMPILE_ONLY:
        return f"compile-only for {target}"
    if staging == ATTACHED and platform != "cpu":
        return f"on the attached {target}"
    return f"on {target}"


def not_checked(
    change: EnvironmentChange,
    artifacts: Iterable[str],
    *,
    host_dependent: bool,
    missing: Iterable[str] = (),
) -> dict[str, str]:
    """The artifacts this run cannot check against the folder, each with why.

    ``missing``: the artifacts with no snapshot file yet; a compiled one missing from a folder recorded
    where the platform was not attached is not checked here, on a config whose staging depends on the host.
    """
    out = {}
    missing = set(missing)
    for name in artifacts:
        compiled = _from_compile(name, host_dependent)
        if compiled and change.target is not None:
            out[name] = (
                f"recorded for {change.target.before}, this run compiles for {change.target.after} "
                f"(see `{RERECORD_OPTION}` to re-record it)"
            )
        elif compiled and host_dependent and name in missing and _recorded_lowered(change.recorded):
            platform = change.current.get("platform")
            out[name] = (
                f"no compile for {platform} was recorded (the snapshots were taken where {platform} "
                "was not attached); `pytest --stages-update` here records it"
            )
    return out


def _recorded_lowered(recorded: Mapping[str, object]) -> bool:
    """A folder recorded where its platform was not attached (said so, or older than the ``staging`` key)."""
    return bool(recorded) and recorded.get("staging") in (None, LOWERED)


def _from_compile(name: str, host_dependent: bool) -> bool:
    """Whether an artifact is read from the compiled program (a host-dependent config's cost is the lowered one)."""
    artifact = BY_NAME[name]
    return artifact.needs_compile or (artifact.stage == "compiled" and not host_dependent)


def after_update(recorded: Mapping[str, object] | None, current: Mapping[str, object]) -> dict[str, object]:
    """A folder's ``_stages.json`` after an update: its other keys kept, this run's environment recorded.

    A run that only lowers (CPU CI) writes no compiled file, so over a folder a compiling host
    recorded on the same platform it keeps what that host recorded of the compile.
    """
    out = {k: v for k, v in (recorded or {}).items() if k not in ENVIRONMENT_KEYS}
    out.update(current)
    if (
        recorded
        and current.get("staging") == LOWERED
        and recorded.get("staging") not in (None, LOWERED)
        and recorded.get("platform") == current.get("platform")
    ):
        out.update({k: recorded[k] for k in COMPILE_KEYS if k in recorded})
    return out


def refusal(change: EnvironmentChange, folder: str, nodeid: str, *, update: bool) -> str:
    """Why a call recorded on another platform is not compared, or (``update``) why ``--stages-update`` leaves a
    folder of another platform or device kind alone; and how to re-record it on purpose."""
    why = (
        ". `--stages-update` does not replace snapshots of another platform or device kind."
        if update
        else ": they do not compare."
    )
    return (
        f"the snapshots in {folder} were recorded {describe(change.recorded)}; this run stages "
        f"{describe(change.current)}{why} To re-record them here on purpose, run `pytest --stages-update "
        f"{RERECORD_OPTION} {nodeid}` (or delete {folder} and run `pytest --stages-update {nodeid}`)."
    )


def plugin_note(change: EnvironmentChange) -> list[str]:
    """A note when pytest-stages' own version changed (its normalization may differ), else nothing."""
    if change.plugin is None:
        return []
    before, after = change.plugin.before, change.plugin.after
    return [f"note: the snapshots were recorded with pytest-stages {before}, this run uses {after}"]
