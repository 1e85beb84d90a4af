"""Stage texts as text: HLO parsing, normalizers, source locations, renumbering-proof diffs."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): the records of collectives,
# loops and aliasing that the HLO reader returns, which a module without any never needs.
if TYPE_CHECKING:
    from pytest_stages.ir import hlo_records as hlo_records_
else:
    hlo_records_ = lazy_module("pytest_stages.ir.hlo_records")

__all__ = ["hlo_records_"]
