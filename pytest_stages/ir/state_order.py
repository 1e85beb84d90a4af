"""A loop's or a call's state in a canonical order: positions that hold values passed in, sorted by those values.

Model code that reads two weights in another order makes JAX capture them in another order (a loop's
constants, a custom-derivative call's operands, XLA's loop tuple and fusion operands). :func:`plan` finds
the lists of positions whose order can change with every reader rewritten alike, and orders them by the
hashes of the values passed in (docs/architecture.md, "Loop and call state in a canonical order").
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_stages.ir.hlo_state import hlo_plan
from pytest_stages.ir.jaxpr_state import jaxpr_plan
from pytest_stages.ir.mlir_state import mlir_plan
from pytest_stages.ir.state_rewrite import Plan

_PLANNERS: dict[str, Callable[[str], Plan | None]] = {"hlo": hlo_plan, "mlir": mlir_plan, "jaxpr": jaxpr_plan}


def plan(dialect: str, text: str) -> Plan | None:
    """The rewrite of ``text``'s loop and call state; None where the text has none to rewrite."""
    finder = _PLANNERS.get(dialect)
    return finder(text) if finder is not None else None
