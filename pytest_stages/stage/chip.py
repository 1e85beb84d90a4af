"""Which process of a session may open an attached accelerator, and which configs and items need it.

Only one process can hold a TPU chip, so under xdist one worker (the holder) opens it and runs the items
that need it, every other process stays on the CPU (docs/sharded-ci.md). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.stage.plan import host_dependent, platform_of

# Device nodes of an attached accelerator, and the platform each means.
ACCELERATOR_NODES = {
    "/dev/nvidiactl": "cuda",
    "/dev/nvidia0": "cuda",
    "/dev/accel0": "tpu",
    "/dev/vfio": "tpu",
    "/dev/kfd": "rocm",
}
# Overrides the detection: the platforms attached here, comma-separated ("" for none).
ATTACHED_VARIABLE = "PYTEST_STAGES_ATTACHED"
# The xdist worker that holds the chip at first; set by xdist in each worker's environment.
HOLDER = "gw0"
WORKER_VARIABLE = "PYTEST_XDIST_WORKER"
# "1" in the holder's environment, "0" in the other workers': the controller writes it into each
# worker's execnet spec, which xdist reuses for the worker it starts in place of a crashed one,
# so that the replacement of the holder holds the chip after it. Where it is absent (the session
# does not need the chip, a controller that set nothing), the holder is HOLDER.
HOLDER_VARIABLE = "PYTEST_STAGES_CHIP_HOLDER"


def holder_flag(first: bool) -> str:
    """A worker's :data:`HOLDER_VARIABLE`, as its controller writes it: the ``first`` of its workers holds the chip."""
    return "1" if first else "0"


def holds_chip(worker: str | None, flag: str | None) -> bool:
    """Whether the xdist worker ``worker`` (its id; None: no worker) holds the chip, by its :data:`HOLDER_VARIABLE`."""
    if worker is None:
        return False
    return flag == holder_flag(True) if flag is not None else worker == HOLDER


def attached_platforms(environ: Mapping[str, str], exists: Callable[[str], bool]) -> frozenset[str]:
    """The accelerator platforms attached to this host: ``$PYTEST_STAGES_ATTACHED``, else the device nodes."""
    given = environ.get(ATTACHED_VARIABLE)
    if given is not None:
        return frozenset(name.strip() for name in given.split(",") if name.strip())
    return frozenset(platform for node, platform in ACCELERATOR_NODES.items() if exists(node))


def needs_chip(config: DeviceConfig, attached: Collection[str]) -> bool:
    """Whether staging ``config`` opens the attached accelerator: its platform is attached and it has no topology.

    A config without ``platform`` is CPU everywhere; a topology is compile-only and opens no device.
    """
    return host_dependent(config) and platform_of(config) in attached


def chip_configs(configs: Iterable[DeviceConfig], attached: Collection[str]) -> tuple[str, ...]:
    """The names of the configs among ``configs`` that need the attached accelerator."""
    return tuple(config.name for config in configs if needs_chip(config, attached))


@dataclass(frozen=True)
class Role:
    """This process in its session: ``worker`` is xdist's id (None outside a worker); ``distributed``, a controller;
    ``holder``, a worker that holds the chip (:func:`holds_chip`)."""

    worker: str | None
    distributed: bool
    holder: bool = False

    @property
    def may_hold_chip(self) -> bool:
        """A serial run or the holder worker may open the accelerator; a controller and other workers may not."""
        return self.holder if self.worker is not None else not self.distributed


def keep_on_cpu(role: Role, attached: Collection[str], chip_needed: bool) -> bool:
    """Whether this process starts JAX on the CPU alone (``JAX_PLATFORMS=cpu``).

    Where nothing is attached, always (an installed plugin would only probe for hardware). Where
    an accelerator is attached, a serial run leaves JAX to pick it up; under xdist only the holder
    does, and only when a selected config needs it.
    """
    if not attached:
        return True
    if role.worker is None and not role.distributed:
        return False
    return not (role.may_hold_chip and chip_needed)


def item_needs_chip(nodeid: str, names: Collection[str]) -> bool:
    """Whether the item ``nodeid`` stages on one of the configs ``names``, read from its id.

    A staged test's id carries its config as a parameter id (``test_f[tpu]``, ``test_f[tpu-2]``),
    a registered function's as ``stages::f[tpu]``. Read conservatively: any ``-``-separated run
    of the parameter id that equals a name counts, so an item is never wrongly kept off the holder.
    """
    last = nodeid.rsplit("::", 1)[-1]
    if "[" not in last:
        return False
    parameters = "-" + last.split("[", 1)[1].rsplit("]", 1)[0] + "-"
    return any(f"-{name}-" in parameters for name in names)


_BUSY = lazy_pattern(r"Unable to initialize backend '(\w+)'.*(busy|in use)", re.IGNORECASE | re.DOTALL)


def held_elsewhere(text: str) -> str | None:
    """The platform whose device another process holds, from JAX's error text; None for any other error."""
    found = _BUSY.search(text)
    return found.group(1) if found else None


def held_message(platform: str, cpu_configs: Iterable[str] = ()) -> str:
    """The paragraph for an accelerator another process holds: why, and how to run instead."""
    names = ",".join(cpu_configs)
    select = f"`--stages-configs={names}`" if names else "`--stages-configs` (the configs without `platform`)"
    chip = platform.upper()
    return (
        f"JAX cannot open the attached {chip}: another process holds it, and only one process can hold a {chip} "
        f"at a time. Under pytest-xdist, pytest-stages lets one worker alone open it ({HOLDER}, or the "
        "worker that replaced it after a crash) and sends it the configs that need it (with the default "
        "--dist load); stop the other process that holds it (a notebook, another pytest), or run serially "
        f"with `-n 0`, or only the CPU configs with {select}."
    )


@dataclass(frozen=True)
class ChipPlan:
    """What this process decided about the attached accelerator, for the scheduler and the items."""

    role: Role
    attached: frozenset[str]
    needed: tuple[str, ...]  # the selected configs that need the chip
    others: tuple[str, ...]  # the selected configs that do not
    on_cpu: bool  # this process started JAX on the CPU alone

    def refusal(self, config_name: str) -> str | None:
        """Why an item of ``config_name`` cannot stage in this worker (None: it can).

        Only under a ``--dist`` mode that does not let pytest-stages choose the worker: with the
        default ``load`` such items are sent to the holder.
        """
        if config_name not in self.needed or not self.on_cpu or self.role.worker is None:
            return None
        select = f"`--stages-configs={','.join(self.others)}`" if self.others else "`--stages-configs`"
        chip = next(iter(sorted(self.attached)), "accelerator").upper()
        return (
            f"config {config_name!r} needs the attached {chip}, and only one process can hold a {chip} at a time: "
            f"pytest-stages keeps pytest-xdist worker {self.role.worker} on the CPU and lets one worker alone open "
            f"it ({HOLDER}, or the worker that replaced it after a crash), sending it such configs under xdist's "
            "default --dist load; this run's --dist mode sent it here. Run with `--dist load` (the default of -n), "
            f"serially with `-n 0`, or only the CPU configs with {select}."
        )
