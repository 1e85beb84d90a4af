"""Stage from the start of a roomy frame-stack chunk, so that JAX's deep recursion does not thrash it.

CPython (3.11 and later) keeps Python frames in chunks of at least 16 KiB and frees a chunk as
soon as the frame at its start returns. A recursion that keeps crossing a chunk boundary maps,
touches and unmaps a chunk at every crossing. JAX's tracing recurses deeply for every equation,
and where the boundaries fall under it depends on every frame below (pytest's, the plugin's,
the user's), so the same trace costs more or less with the caller's depth alone
(``benchmarks/frame_depth.py`` measures it; the figures are in benchmarks/README.md).

:func:`call` runs a function from a frame too large for any chunk it could share, so CPython
opens a chunk for it; the frame leaves about 72 KiB of that chunk free for whatever it calls.
Staging then starts at the same place on every call: its cost no longer depends on the depth
of the caller. This relies on CPython's frame layout (a frame's size follows its code's
``co_stacksize``), not on any API; on another interpreter it is an ordinary call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# Unused stack slots (8 bytes each) added to :func:`call`'s frame: 7,200 slots ask for more than
# a 64 KiB chunk holds with CPython's reserve of 1,000 slots, so the chunk opened is 128 KiB.
SPARE_SLOTS = 7200


def call(function: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``function(*args, **kwargs)``, called from a frame at the start of a frame-stack chunk of its own."""
    return function(*args, **kwargs)


call.__code__ = call.__code__.replace(co_stacksize=call.__code__.co_stacksize + SPARE_SLOTS)
