"""Values a user writes in several places (the table, a marker, the command line): name lists, tolerances, fractions."""

from __future__ import annotations

import contextlib
import difflib
import math
from collections.abc import Iterable, Mapping

from pytest_stages.analyse.analyses import FIGURE_KEYS, FIGURE_NAMES, figure_key, figure_name
from pytest_stages.analyse.step_time import SECONDS
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.core.text import close_match, listing

# Metrics a tolerance can name: the judged cost figures, every memory figure, or "default".
TOLERANCE_METRICS = ("default", *FIGURE_KEYS, SECONDS)


# The per-operand part of a cost figure: ``bytes accessed0{}``, ``bytes accessedout{1}`` -> ``bytes accessed``.
OPERAND_PART = lazy_pattern(r"(?:\d+|out)\{[^{}]*\}$")


def parse_choices(key: str, value: object, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A list of names drawn from ``allowed`` (a comma-separated string is accepted too)."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of names from {listing(allowed)}, got {value!r}.")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise ConfigError(
            f"{key}: unknown name {unknown[0]!r}{close_match(unknown[0], allowed)}; choose from {listing(allowed)}."
        )
    # The allowed members themselves (an enum's, where ``allowed`` holds one), not the strings as written.
    return tuple(dict.fromkeys(allowed[allowed.index(v)] for v in value))


# The keywords of ``@pytest.mark.stages(...)``: a typo (``config=``) must not widen the test to every config.
STAGES_MARKER_KEYS = ("configs", "stages", "analyses", "tolerance")


# The plugin's marks; a mark named almost like one (``stage_budget``) would apply nothing without a word.
PLUGIN_MARKS = ("stages", "stages_budget")
# How close a mark's name must be to one of :data:`PLUGIN_MARKS` to be taken for a misspelling (difflib's
# ratio): ``stage_budget`` (0.96), ``stage`` (0.91) and ``stages_budgets`` are; ``slow`` and ``staging`` are not.
MARK_NEAR_MISS = 0.8


def check_mark_names(where: str, names: Iterable[str]) -> None:
    """Refuse a mark whose name is a near miss of one of the plugin's (``names``: those no one registered)."""
    for name in names:
        found = difflib.get_close_matches(name, PLUGIN_MARKS, n=1, cutoff=MARK_NEAR_MISS)
        if found and name not in PLUGIN_MARKS:
            raise ConfigError(
                f"{where}: @pytest.mark.{name} is no mark of pytest-stages, so it would apply nothing; did you mean "
                f"@pytest.mark.{found[0]}? Rename it (the plugin's marks: {listing(PLUGIN_MARKS)})."
            )


def check_marker(where: str, args: tuple[object, ...], kwargs: Mapping[str, object]) -> None:
    """Refuse a ``stages`` marker with positional arguments or a keyword it does not take."""
    if args:
        raise ConfigError(
            f"{where}: the stages marker takes keywords only ({listing(STAGES_MARKER_KEYS)}), got {args[0]!r}; "
            "write e.g. @pytest.mark.stages(configs=['cpu1'])."
        )
    unknown = [key for key in kwargs if key not in STAGES_MARKER_KEYS]
    if unknown:
        raise ConfigError(
            f"{where}: unknown keyword {unknown[0]!r}{close_match(unknown[0], STAGES_MARKER_KEYS)}; the stages "
            f"marker takes {listing(STAGES_MARKER_KEYS)}."
        )


def parse_selection(key: str, value: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A command-line selection of names (``--stages-configs=cpu1,cpu8``); an empty one is a usage error.

    ``--stages-configs=`` (an unset CI variable) or ``,`` would select no config at all: every
    staged test skips, and nothing of the suite is checked.
    """
    names = parse_choices(key, value, allowed)
    if not names:
        raise ConfigError(
            f"{key}={value!r} selects nothing: name one or more of {list(allowed)} (comma-separated), or leave "
            f"{key} out to run them all."
        )
    return names


def _per_operand(key: str) -> bool:
    """A per-operand cost figure's file key (``bytes accessed0{}``), which a tolerance may name."""
    return OPERAND_PART.search(key) is not None and OPERAND_PART.sub("", key) == FIGURE_KEYS["bytes_accessed"]


def parse_tolerances(raw: object, where: str) -> dict[str, float]:
    """Relative tolerances by figure key (``temp_size_in_bytes``): ``0.02`` or ``"2%"``; the figure must be judged.

    Figures are written by their one name (``temp_bytes``); JAX's spelling is read too
    (:func:`respellings` says which to write).
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table of metric = relative tolerance.")
    for metric in raw:
        key = figure_key(str(metric))
        if metric not in TOLERANCE_METRICS and key not in FIGURE_NAMES and not _per_operand(key):
            raise ConfigError(
                f"{where}: unknown metric {metric!r}{close_match(str(metric), TOLERANCE_METRICS)}; choose from "
                f"{listing(TOLERANCE_METRICS)} or a per-operand cost figure such as 'bytes accessed0{{}}' or "
                "'bytes accessedout{}'."
            )
    return {figure_key(str(metric)): parse_fraction(f"{where} {metric}", value) for metric, value in raw.items()}


def respellings(where: str, written: Iterable[object]) -> list[str]:
    """A warning for each figure ``written`` in JAX's spelling (``temp_size_in_bytes``), naming the one to write."""
    return [
        f"{where}: {key!r} is JAX's spelling of {figure_name(key)!r}; write {figure_name(key)}, the name pytest-stages "
        "uses for this figure in budgets, tolerances and messages (the old spelling is still read)."
        for key in map(str, written)
        if figure_name(key) != key
    ]


def parse_fraction(where: str, value: object) -> float:
    """``0.02`` or ``"2%"`` -> 0.02; anything negative or unparsable is an error."""
    text, number = value, math.nan
    if isinstance(value, str):
        text = value.strip()
        with contextlib.suppress(ValueError):
            number = float(text.rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f'{where}: tolerance {text!r} is not a non-negative fraction; write 0.02 or "2%".')
    return number


def reject_unknown(where: str, table: Mapping[str, object], known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r}{close_match(unknown[0], sorted(known))}; the known keys are "
            f"{listing(sorted(known))}."
        )
