"""What the HLO reader finds of collectives, loops and aliasing, as frozen dataclasses.

Apart from :mod:`~pytest_stages.ir.hlo` and imported at the first one, so that a compare of programs
without any never builds their classes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Collective:
    """A collective op with the shape it produces and that shape's bytes."""

    op: str
    shape: str
    bytes: int


@dataclass(frozen=True)
class LoopCollective(Collective):
    """A collective run on each iteration of a loop: what it produces, its bytes, and who takes part.

    ``replica_groups`` is the instruction's text for it (``{{0,1},{2,3}}``, ``[4,2]<=[8]``, or
    ``mesh[...]`` with the mesh axes), "" where it has none.
    """

    replica_groups: str


@dataclass(frozen=True)
class Loop:
    """A ``while`` (a ``lax.scan``, ``fori_loop`` or ``while_loop``) and the collectives of its iterations.

    ``collectives`` are those of its body and condition and of every computation they reach, except
    those of a loop nested inside it (listed under that loop). ``trip_count`` is XLA's
    ``known_trip_count``, None where XLA does not know it (a ``while_loop``, lowered HLO).
    """

    name: str
    body: str
    trip_count: int | None
    collectives: tuple[LoopCollective, ...]


@dataclass(frozen=True)
class Alias:
    """One entry of ``input_output_alias={ {1}: (0, {}, may-alias) }``: output ``(1,)`` reuses parameter 0."""

    output: tuple[int, ...]
    parameter: int
    kind: str
