"""When to drop JAX's in-memory caches during a run: the ``clear_caches`` setting.

A kept trace may be stale for a later test, a dropped one costs re-traces: ``"auto"`` (the default) drops
them just before a staging that could reuse a trace and every :data:`AUTO_PERIOD` staged tests; ``True``
after every staged test; ``False`` never (docs/caches.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING

from pytest_stages.config.settings import AUTO_PERIOD, ClearCaches
from pytest_stages.core.lazy import lazy_module

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")


def trace_key(
    fn: Callable[..., object],
    args: tuple[object, ...],
    kwargs: Mapping[str, object],
    context: Hashable = None,
) -> Hashable | None:
    """What JAX's trace cache would at least have to match to reuse a trace of ``fn(*args, **kwargs)``.

    Coarser than JAX's key (the unwrapped function, the leaves' shapes and dtypes, ``context``: the default
    device and abstract mesh), so it can cause an unneeded drop, never a missed one. It holds the function
    itself, not its hash (an ``id`` a later function may take). None when it cannot be built: then every
    staging drops.

    >>> import numpy as np
    >>> trace_key(abs, (np.zeros((2, 3)),), {})[2]
    (((2, 3), 'float64'),)
    """
    try:
        leaves = jax.tree.leaves((args, kwargs))
        key = inspect.unwrap(fn), context, tuple(_abstract(leaf) for leaf in leaves)
        hash(key)
        return key
    # hash and flatten run user code: an unhashable callable, a cycle of __wrapped__, a pytree node that
    # cannot be flattened; without a key the caches are dropped before the call, the safe choice.
    except Exception:  # noqa: BLE001
        return None


def _abstract(leaf: object) -> Hashable:
    shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
    if shape is None or dtype is None:
        return type(leaf).__qualname__
    return tuple(shape), str(dtype)


class CacheClearing:
    """Decides when to call ``clear`` (``jax.clear_caches``) in one process, per ``mode``.

    In "auto" mode the keys since the last drop hold their functions (and so their closures)
    until the next drop, at most :data:`AUTO_PERIOD` staged tests later.
    """

    def __init__(self, mode: ClearCaches, clear: Callable[[], None] | None = None) -> None:
        self.mode = mode
        self._clear = clear
        self._keys: set[Hashable] = set()
        self._tests = 0

    def before_staging(
        self,
        fn: Callable[..., object],
        args: tuple[object, ...],
        kwargs: Mapping[str, object],
        context: Hashable = None,
    ) -> None:
        """In "auto" mode, drop the caches if this staging could reuse a trace kept since the last drop."""
        if self.mode != "auto":
            return
        key = trace_key(fn, args, kwargs, context)
        if key is None or _kept(key, self._keys):
            self._drop()
        self._keys.add(key)  # None too: something was staged since the last drop; kept alive until the next drop

    def after_test(self, staged: bool) -> None:
        """After a test: drop per ``mode`` if it staged anything (every test, or every period)."""
        if not staged or self.mode is False:
            return
        self._tests += 1
        if self.mode is True or self._tests >= AUTO_PERIOD:
            self._drop()

    def _drop(self) -> None:
        if self._keys or self._tests:
            (self._clear or _jax_clear)()
        self._keys.clear()
        self._tests = 0


def _kept(key: Hashable, keys: set[Hashable]) -> bool:
    """Whether ``key`` was staged since the last drop; a function whose ``==`` fails counts as kept (drop: safe)."""
    try:
        return key in keys
    # The set compares functions of equal hash with their own __eq__: user code (an array field's == is ambiguous).
    except Exception:  # noqa: BLE001
        return True


def _jax_clear() -> None:
    jax.clear_caches()
