"""The stage layer's errors: a function that failed to stage, cannot be staged here, or lacks its chip or plugin."""

from __future__ import annotations

import os
import re
import sysconfig
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_stages.core.errors import Outcome, StagesError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.stage.chip import held_elsewhere, held_message

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

MAX_ERROR_LINES = 12
# JAX's error for shardings that do not type-check on a mesh with explicit axes (jax._src.core, named by its
# class's name: it is not public); a config's mesh has explicit axes unless axis_types says otherwise.
SHARDING_TYPE_ERROR = "ShardingTypeError"
AUTO_AXES_FIX = (
    "A config's mesh has explicit axes by default (as jax.make_mesh's does), on which JAX checks shardings as "
    "types; code written for automatic sharding (GSPMD: with_sharding_constraint, sharded inputs and a compiler that "
    'places the rest) stages with axis_types = "auto" in the config\'s [[tool.pytest_stages.configs]] entry. Or '
    "give the operation its out_sharding, as the error asks."
)


class StagingFailed(StagesError):
    """A function that failed to trace, lower or compile; names the stage, the user's frame and the JAX error.

    ``where`` is the innermost frame of user code in the error's traceback (``model.py:12 in
    apply_rope``), "" when there is none; ``traceback`` the whole traceback, for ``--tb=long``.
    """

    def __init__(self, name: str, stage: str, cause: BaseException, kwargs: Mapping[str, object] | None = None) -> None:
        lines = [line for line in str(cause).strip().splitlines() if line.strip()]
        if len(lines) > MAX_ERROR_LINES:
            lines = [*lines[:MAX_ERROR_LINES], "..."]
        detail = "\n    ".join(lines) or "(no message)"
        self.where = user_frame(cause.__traceback__)
        at = f" at {self.where}" if self.where else ""
        held = held_elsewhere(str(cause))
        static = traced_keywords(cause, kwargs or {})
        if held is not None:
            fix = f"{held_message(held)} Its snapshots were left untouched."
        elif static:
            fix = f"{static_keywords_fix(name, static)} Its snapshots were left untouched."
        elif type(cause).__name__ == SHARDING_TYPE_ERROR:
            fix = f"{AUTO_AXES_FIX} Its snapshots were left untouched."
        else:
            fix = "Fix the function or its arguments; its snapshots were left untouched."
        super().__init__(
            f"stage_snapshot({name}): {stage} failed with {type(cause).__name__}{at}:\n    {detail}\n{fix}"
        )
        self.stage = stage
        self.traceback = "".join(traceback.format_exception(cause)).rstrip()


def traced_keywords(cause: BaseException, kwargs: Mapping[str, object]) -> dict[str, object]:
    """The keyword arguments with Python values that tracing made abstract where the function needs them concrete.

    JAX traces keyword arguments as it does positional ones: ``stage_snapshot(jnp.sum, x, axis=0)``
    hands ``sum`` a traced ``axis`` (a ConcretizationTypeError, or a TracerIntegerConversionError for
    ``axis=(0, 1)``), and a string is no JAX type at all (a TypeError). Only keywords JAX's message
    names count: a traced positional argument is not theirs.
    """
    errors = jax.errors
    traced = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError, errors.TracerArrayConversionError)
    no_jax_type = isinstance(cause, TypeError) and (
        "not marked as static" in str(cause) or "valid JAX type" in str(cause)
    )
    if not isinstance(cause, traced) and not no_jax_type:
        return {}
    python = {key: value for key, value in kwargs.items() if _python_values(value)}
    return {key: value for key, value in python.items() if re.search(rf"\b{re.escape(key)}\b", str(cause))}


def _python_values(value: object) -> bool:
    """A Python scalar or string, or a tuple or list of them (``axis=(0, 1)``)."""
    items = value if isinstance(value, tuple | list) else (value,)
    return bool(items) and all(type(item) in (bool, int, float, complex, str) for item in items)


def static_keywords_fix(name: str, static: Mapping[str, object]) -> str:
    """How to keep keyword arguments static: ``functools.partial``, ``jax.jit(static_argnames=...)``, static_scalars."""
    shown = ", ".join(f"{key}={value!r}" for key, value in static.items())
    keys = tuple(static)
    argnames = repr(keys[0]) if len(keys) == 1 else repr(keys)
    return (
        f"stage_snapshot traces keyword arguments as jax.jit does, so {shown} reached {name} as a traced value "
        f"where it needs a Python value. Keep it static: stage_snapshot(functools.partial({name}, {shown}), ...), "
        f"or stage jax.jit({name}, static_argnames={argnames}) with the same keywords"
        + (
            " (Python scalars also stay static with static_scalars=True)."
            if all(type(v) in (bool, int, float, complex) for v in static.values())
            else "."
        )
    )


def _library_folders() -> tuple[str, ...]:
    """Folders whose frames are not user code: the standard library, installed packages, this plugin."""
    paths = sysconfig.get_paths()
    folders = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    folders.add(str(Path(__file__).resolve().parent.parent))
    return tuple(str(Path(folder).resolve()) + os.sep for folder in folders)


def user_frame(tb: TracebackType | None) -> str:
    """``model.py:12 in apply_rope``: the innermost traceback frame outside the libraries, "" if none.

    The path is relative to the working directory where it lies under it.
    """
    libraries = _library_folders()
    found = ""
    for frame in traceback.extract_tb(tb):
        path = Path(frame.filename).resolve()
        if frame.filename.startswith("<") or str(path).startswith(libraries):
            continue
        try:
            shown = path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            shown = path.as_posix()
        found = f"{shown}:{frame.lineno} in {frame.name}"
    return found


class Unsupported(StagesError):
    """A function this configuration cannot stage (the message says why); the call is skipped."""

    outcome = Outcome.SKIP


class TopologyUnavailable(StagesError):
    """The accelerator plugin a topology config needs is not installed (the config is skipped)."""

    outcome = Outcome.SKIP


class ChipHeld(StagesError):
    """An attached accelerator this process cannot open: another process holds it, or xdist sent its config here."""
