"""Stage from the start of a roomy frame-stack chunk, so that JAX's deep recursion does not thrash it.

:func:`call` runs a function from a frame too large to share a chunk, so the cost of JAX's deep tracing no
longer depends on the caller's depth (docs/architecture.md, "How staging stays repeatable"). It relies on
CPython's frame layout, not an API; on another interpreter it is an ordinary call.
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
