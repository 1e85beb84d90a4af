"""What pytest-stages changes in the process for its own work, recorded so that unconfigure puts it back.

Environment variables before ``import jax``, ``jax.config`` options after; :meth:`ProcessChanges.restore`
puts them back so that sessions run one after another in one process do not inherit them. What cannot be
undone: docs/architecture.md, "How staging stays repeatable".
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from pytest_stages.core.lazy import lazy_module
from pytest_stages.stage import jax_options

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")


class ProcessChanges:
    """The environment variables and JAX options this session set, with the values they replaced."""

    def __init__(self) -> None:
        self._variables: dict[str, str | None] = {}
        self._options: dict[str, Any] = {}

    def set_variable(self, name: str, value: str) -> None:
        """``os.environ[name] = value``, remembering the first value it replaced (None: unset)."""
        self._variables.setdefault(name, os.environ.get(name))
        os.environ[name] = value

    def unset_variable(self, name: str) -> None:
        """``del os.environ[name]``, remembering the value it had."""
        self._variables.setdefault(name, os.environ.get(name))
        os.environ.pop(name, None)

    def set_option(self, name: str, value: object) -> None:
        """``jax.config.update(name, value)``, remembering the first value it replaced.

        Raises JAX's ``RuntimeError`` where the option can no longer change (a started backend).
        """
        before = jax_options.option(name)
        jax.config.update(name, value)
        self._options.setdefault(name, before)

    def restore(self) -> None:
        """Put back every variable and option this session set (an option JAX refuses now stays)."""
        for name, value in self._variables.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self._options:
            for name, value in self._options.items():
                with contextlib.suppress(RuntimeError):  # jax_num_cpu_devices of a started backend
                    jax.config.update(name, value)
        self._variables.clear()
        self._options.clear()


# Set beside ``JAX_PLATFORMS=cpu`` when pytest-stages set it (not the user): a child process (an
# xdist worker inherits the controller's environment) that may open the accelerator drops both.
SET_BY_PLUGIN = "PYTEST_STAGES_SET_JAX_PLATFORMS"


def start_on_cpu(changes: ProcessChanges) -> None:
    """Start JAX on the CPU alone (``JAX_PLATFORMS=cpu``) unless ``JAX_PLATFORMS`` is set already.

    Where no accelerator is attached, an installed libtpu or CUDA plugin would otherwise probe for
    hardware when the backend starts and print warnings and a cuInit traceback; where one is, a
    process that must not open it (:func:`pytest_stages.stage.chip.keep_on_cpu`) stays off it.
    """
    if os.environ.get("JAX_PLATFORMS"):
        return
    if "jax" not in sys.modules:
        changes.set_variable("JAX_PLATFORMS", "cpu")
        changes.set_variable(SET_BY_PLUGIN, "cpu")
        return
    if not jax_options.option("jax_platforms"):
        with contextlib.suppress(RuntimeError):
            changes.set_option("jax_platforms", "cpu")


def leave_platforms_to_jax(changes: ProcessChanges) -> None:
    """Undo a ``JAX_PLATFORMS=cpu`` this process inherited from pytest-stages in its parent (never the user's).

    The xdist worker that may open the accelerator inherits the controller's environment, where
    the controller kept itself on the CPU; JAX must pick the platforms natively here.
    """
    if os.environ.get(SET_BY_PLUGIN) != "cpu" or os.environ.get("JAX_PLATFORMS") != "cpu":
        return
    changes.unset_variable("JAX_PLATFORMS")
    changes.unset_variable(SET_BY_PLUGIN)
    if "jax" in sys.modules and jax_options.option("jax_platforms") == "cpu":
        with contextlib.suppress(RuntimeError):  # a backend that started stays as it is
            changes.set_option("jax_platforms", None)
