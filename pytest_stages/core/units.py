"""Numbers and sizes as people write and read them: parsing budgets, formatting figures for messages."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_pattern

_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
# Seconds per time unit: a bare number is seconds.
_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
# A number and its unit, with or without a space between: ``64 MiB``, ``64MiB``, ``0.3ms``, ``150 µs``.
_QUANTITY = lazy_pattern(
    r"^\s*(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(?P<unit>[a-zµ]*)\s*$", re.IGNORECASE
)


def relative_change(old: float, new: float) -> float:
    """``(new - old) / |old|``: 0 when equal, +-inf from a zero ``old``."""
    if old == new:
        return 0.0
    if old == 0:
        return float("inf") if new > 0 else float("-inf")
    return (new - old) / abs(old)


def format_number(value: float) -> str:
    """Compact figures for messages: ``1055``, ``2.31e9``."""
    text = f"{value:.3g}" if abs(value) >= 1e6 else f"{value:g}"
    return text.replace("e+0", "e").replace("e+", "e")


def format_seconds(seconds: float) -> str:
    """``1.2e-4`` -> ``120 µs``, ``0.0031`` -> ``3.1 ms``, ``2.5`` -> ``2.5 s``: three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-6:.3g} µs"


def format_tolerance(tolerance: float) -> str:
    """``0.02`` -> ``2%``; ``0`` -> ``exact``."""
    return "exact" if tolerance == 0 else f"{tolerance * 100:g}%"


def format_bytes(count: float) -> str:
    """``131072`` -> ``128.0 KiB``."""
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def parse_size(where: str, value: object) -> int:
    """``"64 MiB"`` or ``"64MiB"`` -> 67108864; plain numbers are bytes. Units: B, KB/KiB, MB/MiB, GB/GiB, TB/TiB."""
    number = _quantity(
        where,
        value,
        _UNITS,
        what="size",
        example="64 MiB, 1.5 GB or 4096",
        names="B, KB, MB, GB, TB, KiB, MiB, GiB or TiB",
    )
    return int(number)


def parse_seconds(where: str, value: object) -> float:
    """``"0.3 ms"`` or ``"0.3ms"`` -> 0.0003; plain numbers are seconds. Units: s, ms, us (or µs), ns.

    The one reader of times, as :func:`parse_size` is of sizes: the same forms, the same messages.
    """
    seconds = _quantity(
        where, value, _SECONDS, what="time", example='0.002 (seconds), "2 ms", "150us"', names="s, ms, us, µs or ns"
    )
    if seconds <= 0:
        raise ConfigError(f'{where}: {value!r} must be a time above zero; write e.g. "2 ms".')
    return seconds


def _quantity(where: str, value: object, units: Mapping[str, float], *, what: str, example: str, names: str) -> float:
    """A number with an optional unit from ``units`` (case-folded; none: the unit worth 1), in that unit's base."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number, unit = float(value) if abs(value) < 1e308 else math.inf, ""  # an int too large for a float
    else:
        match = _QUANTITY.match(str(value)) if isinstance(value, str) else None
        if match is None:
            raise ConfigError(f"{where}: {value!r} is not a {what}; write e.g. {example}.")
        number, unit = float(match.group("number")), match.group("unit").lower()
    scale = units.get(unit) if unit else 1.0
    if scale is None:
        raise ConfigError(f"{where}: unknown unit {unit!r} in {value!r}; use {names}.")
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f"{where}: {value!r} must be a non-negative {what}.")
    return number * scale


def parse_count(where: str, value: Any) -> float:
    """A plain or scientific number (``2.2e9``, ``"2.2e9"``, ``20``)."""
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f"{where}: {value!r} is not a non-negative number; write e.g. 2.2e9.")
    return number
