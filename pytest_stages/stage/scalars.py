"""Values a snapshot cannot see: weakly typed Python scalars, and constants baked into a module."""

from __future__ import annotations

import re
import warnings
from typing import Any

from pytest_stages.core.units import format_bytes
from pytest_stages.ir.hlo import shape_bytes
from pytest_stages.stage.adapters import is_python_scalar

CONSTANTS_WARN_BYTES = 1 << 20
# A StableHLO constant's type: ``%c = stablehlo.constant dense<...> : tensor<1024xf32>`` -> ``1024xf32``.
_CONSTANT = re.compile(r"stablehlo\.constant .*: tensor<(?P<type>[^>]*)>\s*$")
_MLIR_DTYPES = {
    "i1": "pred",
    "f32": "f32",
    "f64": "f64",
    "f16": "f16",
    "bf16": "bf16",
    "i8": "s8",
    "i16": "s16",
    "i32": "s32",
    "i64": "s64",
    "ui8": "u8",
    "ui16": "u16",
    "ui32": "u32",
    "ui64": "u64",
    "complex<f32>": "c64",
    "complex<f64>": "c128",
}


class CapturedConstantsWarning(UserWarning):
    """A lowered module that carries large constants (arrays closed over instead of passed in)."""


def weak_scalar_notes(inputs: list[tuple[str, Any]], values: list[object]) -> list[str]:
    """A note per input that was a Python ``int``/``float`` argument, which JAX traced as a weakly typed scalar.

    ``inputs`` are the named input avals, ``values`` the leaves of the arguments as the user passed
    them: a weakly typed array (``jnp.array(0)``, also in a ``jax.Ref``) is no Python scalar and
    gets no note. Where the two do not line up (static arguments), every weakly typed scalar
    input is noted, provided some argument leaf is a Python scalar.
    """
    python = [is_python_scalar(value) for value in values]
    if not any(python):
        return []
    if len(python) == len(inputs):
        inputs = [named for named, scalar in zip(inputs, python, strict=True) if scalar]
    return [
        f"note: argument {name} was a Python {_python_type(aval)}, traced as a weakly typed "
        f"{aval.str_short(short_dtypes=True)}: its value is not part of the program, "
        "so changing it changes no snapshot; "
        "pass static_scalars=True to stage_snapshot (or set static_scalars = true) to bake it in"
        for name, aval in inputs
        if getattr(aval, "weak_type", False) and getattr(aval, "shape", None) == ()
    ]


def _python_type(aval: Any) -> str:
    kind = getattr(aval.dtype, "kind", "")
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}.get(kind, "scalar")


def constant_bytes(stablehlo: str) -> int:
    """Total bytes of the non-scalar ``stablehlo.constant`` values of a module."""
    total = 0
    # The literal first: most lines hold no constant, and a substring test costs far less than a search.
    for line in [line for line in stablehlo.splitlines() if "stablehlo.constant " in line]:
        match = _CONSTANT.search(line)
        if match is None or "x" not in match.group("type"):
            continue
        *dims, dtype = match.group("type").split("x")
        total += shape_bytes(f"{_MLIR_DTYPES.get(dtype, dtype)}[{','.join(dims)}]")
    return total


def warn_constants(name: str, stablehlo: str, threshold: int) -> None:
    """Warn when the module carries more than ``threshold`` bytes of captured constants."""
    size = constant_bytes(stablehlo)
    if size > threshold:
        warnings.warn(
            CapturedConstantsWarning(
                f"stage_snapshot({name}): the lowered module carries {format_bytes(size)} of constants "
                f"(over the {format_bytes(threshold)} threshold): arrays closed over by the function are baked "
                "into the program and its snapshots; pass them as arguments (or raise "
                "constants_warn_bytes in [tool.pytest_stages])"
            ),
            stacklevel=2,
        )
