"""Counting what user code makes JAX trace, lower and compile, per function, from JAX's own reports.

Nothing of JAX is patched: the counts come from ``jax.monitoring`` events and JAX's loggers (the argument
types of each lowering, the explanation of each cache miss), kept from the user's log output. One
:class:`CompileEvents` per session listens and feeds the :func:`watch` blocks open at the time.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_stages import jax_compat
from pytest_stages.core.lazy import lazy_module, lazy_pattern

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

STEPS = {jax_compat.TRACE_EVENT: "traces", jax_compat.LOWER_EVENT: "lowerings", jax_compat.COMPILE_EVENT: "compiles"}
# "jit(step)" -> step; "pjit(step)" -> step; "step" stays
_WRAPPED = lazy_pattern(r"^\w+\((?P<name>.*)\)$")
# "  for step defined at /x/test_a.py:11" or "    step id=1403 defined at /x/test_a.py:11" -> step
_EXPLAINED = lazy_pattern(r"^\s+(?:for )?(?P<name>\S+)(?: id=\d+)? defined at ")


def function_name(fun_name: str) -> str:
    """The function a JAX event names: ``jit(step)`` -> ``step``."""
    match = _WRAPPED.match(fun_name)
    return match["name"] if match else fun_name


@dataclass
class FunctionCompiles:
    """What one function cost while watched: counts, the signature of each lowering, JAX's explanations, seconds."""

    traces: int = 0
    lowerings: int = 0
    compiles: int = 0
    cache_hits: int = 0
    signatures: list[str] = field(default_factory=list)
    explanations: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    user_code: bool = False


class CompileLog:
    """The compiles seen inside one :func:`watch` block, per function (by the name JAX reports)."""

    def __init__(self, only: tuple[str, ...] = ()) -> None:
        self.only = only
        self.functions: dict[str, FunctionCompiles] = {}
        self._hits = 0

    def _of(self, name: str) -> FunctionCompiles:
        return self.functions.setdefault(name, FunctionCompiles())

    def event(self, event: str, seconds: float, fun_name: str) -> None:
        step = STEPS.get(event)
        if step is None:
            return
        counts = self._of(function_name(fun_name))
        setattr(counts, step, getattr(counts, step) + 1)
        counts.seconds[step] = counts.seconds.get(step, 0.0) + seconds
        if step == "compiles":
            counts.cache_hits += self._hits
            self._hits = 0

    def hit(self) -> None:
        """A persistent-cache hit: JAX reports it before the compile event it belongs to."""
        self._hits += 1

    def lowering(self, module: str, avals: object) -> None:
        """A lowering's argument types (``module`` is ``jit(step)``; the duration event follows)."""
        self._of(function_name(module)).signatures.append(signature(avals))

    def explanation(self, text: str) -> None:
        """JAX's explanation of a tracing cache miss; JAX gives one for functions of user code only."""
        for line in text.splitlines()[1:3]:
            match = _EXPLAINED.match(line)
            if match:
                counts = self._of(match["name"])
                counts.user_code = True
                counts.explanations.append(text)
                return

    def watched(self) -> dict[str, FunctionCompiles]:
        """The functions the block watched: those named in ``only``, else every function of user code.

        JAX's own eager operations (``jnp.ones`` runs a jitted ``broadcast_in_dim``) are left out:
        JAX explains tracing cache misses of user code only.
        """
        if self.only:
            return {name: self.functions[name] for name in self.only if name in self.functions}
        return {name: counts for name, counts in sorted(self.functions.items()) if counts.user_code}

    def data(self) -> dict[str, object]:
        """The block's snapshot (``<name>.compiles.json``): per watched function, counts and distinct signatures.

        No cache hits and no seconds: those depend on the cache and the machine, not on the code.
        """
        return {
            "functions": {
                name: {
                    "traces": counts.traces,
                    "lowerings": counts.lowerings,
                    "compiles": counts.compiles,
                    "signatures": list(dict.fromkeys(counts.signatures)),
                }
                for name, counts in self.watched().items()
            }
        }


def signature(avals: Any) -> str:
    """Argument types as JAX prints them short: ``f32[3,4], f32[4,4]``."""
    try:
        return ", ".join(aval.str_short(short_dtypes=True) for aval in avals)
    except (AttributeError, TypeError):
        return str(avals)


class CompileEvents:
    """A session's one listener to JAX's compile events (``jax.monitoring``).

    It feeds the open :func:`watch` blocks (``logs``) and counts, around a staged call's compile
    (:meth:`staged`), the persistent-cache requests and hits (taken per test by :meth:`take`).
    """

    def __init__(self) -> None:
        self.logs: list[CompileLog] = []
        self.requests = 0
        self.hits = 0
        self.total_hits = 0
        self._counting = False  # only a staged call's compile counts, not the test's own JAX calls
        self._listening = False

    def listen(self) -> None:
        """Register with JAX (once; JAX is imported by then, as a test is about to stage or watch)."""
        if not self._listening:
            jax_compat.register_listeners(self._event, self._duration)
            self._listening = True

    def close(self) -> None:
        """Unregister from JAX (at the session's end); nothing to do if it never listened."""
        if self._listening:
            jax_compat.unregister_listeners(self._event, self._duration)
            self._listening = False

    def _duration(self, event: str, duration_secs: float, **kwargs: str | int) -> None:
        for log in self.logs:
            log.event(event, duration_secs, str(kwargs.get("fun_name", "")))

    def _event(self, event: str, **_: object) -> None:
        if event == jax_compat.CACHE_HIT_EVENT:
            for log in self.logs:
                log.hit()
        if not self._counting:
            return
        if event == jax_compat.CACHE_REQUEST_EVENT:
            self.requests += 1
        elif event == jax_compat.CACHE_HIT_EVENT:
            self.hits += 1
            self.total_hits += 1

    @contextlib.contextmanager
    def staged(self) -> Iterator[None]:
        """Around a staged call's compile on an attached platform: count its cache request and hit.

        Nothing else is counted: not the test's own JAX calls, nor a compile-only topology's
        compile (staged under :func:`pytest_stages.stage.disk_cache.compile_only` instead), nor
        anything before :meth:`listen`.
        """
        self._counting = True
        try:
            yield
        finally:
            self._counting = False

    def served(self, *, hit: bool) -> None:
        """A compile-only call looked up in the compile-only cache (:mod:`.compile_only_cache`), counted as JAX's."""
        self.requests += 1
        self.hits += hit

    def take(self) -> tuple[int, int]:
        """``(requests, hits)`` since the last call."""
        counts = (self.requests, self.hits)
        self.requests = self.hits = 0
        return counts


class _Records(logging.Filter):
    """On JAX's loggers while watching: hand the records that count to the open logs, drop what watching added.

    A record below the level the logger had before (the lowering debug records) or logged only
    because explanations are on is kept from the user's handlers.
    """

    def __init__(self, logs: list[CompileLog], levels: dict[str, int], explained_before: bool) -> None:
        super().__init__()
        self.logs = logs
        self.levels = levels
        self.explained_before = explained_before

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        lowering = record.name == jax_compat.LOWER_LOGGER and message.startswith(jax_compat.LOWER_PREFIX)
        if lowering and len(record.args or ()) >= 2:
            module, avals = record.args[0], record.args[1]  # type: ignore[index]
            for log in self.logs:
                log.lowering(str(module), avals)
        elif record.name == jax_compat.EXPLAIN_LOGGER and message.startswith(jax_compat.EXPLAIN_PREFIX):
            for log in self.logs:
                log.explanation(record.getMessage())
        if record.levelno < self.levels.get(record.name, logging.WARNING):
            return False
        return self.explained_before or not message.startswith(jax_compat.EXPLAIN_ONLY)


@contextlib.contextmanager
def watch(events: CompileEvents, only: tuple[str, ...] = ()) -> Iterator[CompileLog]:
    """Count traces, lowerings and compiles per function inside the block (``only``: just these names).

    Starts from JAX's cold in-memory caches (``jax.clear_caches()``), turns
    ``jax_explain_cache_misses`` on for the block (restored after it) and lowers the level of
    JAX's lowering logger so that each lowering's argument types are seen; what that adds to JAX's
    logs is filtered out again.
    """
    events.listen()
    log = CompileLog(only)
    names = (jax_compat.EXPLAIN_LOGGER, jax_compat.LOWER_LOGGER, *jax_compat.CACHE_LOGGERS)
    loggers = [logging.getLogger(name) for name in names]
    levels = {logger.name: logger.getEffectiveLevel() for logger in loggers}
    before = {logger.name: logger.level for logger in loggers}
    config: Any = jax.config  # JAX's config object is untyped
    explained = bool(config.jax_explain_cache_misses)
    records = _Records(events.logs, levels, explained)
    for logger in loggers:
        logger.addFilter(records)
    logging.getLogger(jax_compat.LOWER_LOGGER).setLevel(logging.DEBUG)
    config.update("jax_explain_cache_misses", True)
    # From JAX's cold in-memory caches: what the block counts must not depend on which tests ran
    # before it (a function an earlier test compiled would otherwise count no compile here).
    jax.clear_caches()
    events.logs.append(log)
    try:
        yield log
    finally:
        events.logs.remove(log)
        config.update("jax_explain_cache_misses", explained)
        for logger in loggers:
            logger.removeFilter(records)
            logger.setLevel(before[logger.name])
