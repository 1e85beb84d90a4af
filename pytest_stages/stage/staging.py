"""The staging pipeline: trace, lower and compile once, then extract every enabled artifact."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_stages import jax_compat
from pytest_stages.analyse import analyses as analyses_
from pytest_stages.analyse.analyses import cost_source, staged_cost
from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.core.lazy import lazy_module
from pytest_stages.ir.normalize import to_json
from pytest_stages.stage import disk_cache, jax_options, scalars, topology_results
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.adapters import Adapter, NamedLeaves, adapt, returned_leaves
from pytest_stages.stage.errors import StagingFailed, Unsupported
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.memory_release import CacheClearing
from pytest_stages.stage.topology import place_unsharded

if TYPE_CHECKING:
    import jax

    from pytest_stages.ir import sources as ir_sources
else:
    ir_sources = lazy_module("pytest_stages.ir.sources")
    jax = lazy_module("jax")


@dataclass
class StageResult:
    """What one ``stage_snapshot`` call staged: the real JAX objects and plain-data artifacts.

    ``texts`` (normalized stage texts) and ``analyses`` are keyed by artifact name; ``skipped`` gives the
    reason for every enabled artifact that could not be built. ``traced`` is None for a framework without a
    trace stage (``equinox.filter_jit``); ``notes`` are added to a failure message.
    """

    name: str
    config: ActiveConfig
    traced: jax.stages.Traced | None
    lowered: jax.stages.Lowered
    compiled: jax.stages.Compiled | topology_results.CachedCompiled | None
    adapter: Adapter | None = None
    jaxpr: jax.extend.core.ClosedJaxpr | None = None
    notes: list[str] = field(default_factory=list)
    # Read from JAX's persistent cache: its stack-frame tables are those of the compile that
    # filled the cache (the key ignores source locations), so they may name old lines.
    from_cache: bool = False
    texts: dict[str, str] = field(default_factory=dict)
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    # Analyses kept in part (the inputs' shardings of a function whose outputs JAX cannot
    # describe): what was left out and why.
    partial: dict[str, str] = field(default_factory=dict)
    # Wall seconds of each step ("trace", "lower", "compile"; a compile read from the persistent
    # cache is the time to read it). Reported, never snapshotted: wall time must not drift a file.
    seconds: dict[str, float] = field(default_factory=dict)
    # JAX's reason for each analysis it could not give (in full or in part): the compile-only cache keeps it.
    unavailable: dict[str, str] = field(default_factory=dict)
    _printed: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    _lowered_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def cost(self) -> dict[str, float]:
        """``cost_analysis()`` as a plain dict: compiled, else lowered (see ``cost_source``); {} if neither."""
        return staged_cost(self.analyses.get("cost", {}))

    @property
    def cost_source(self) -> str | None:
        """Which stage ``cost`` was counted on: "compiled", "lowered" (pre-optimization) or None."""
        return cost_source(self.analyses.get("cost", {}))

    @property
    def memory(self) -> dict[str, Any]:
        """``memory_analysis()`` as a plain dict ({} when the memory analysis is not enabled)."""
        return self.analyses.get("memory", {})

    @property
    def compile_only(self) -> bool:
        """Staged for a compile-only topology (its lowered cost is counted by the CPU client)."""
        return self.config.compile_only

    def named_leaves(self, tree: object) -> NamedLeaves:
        """The leaves of an in/out tree of the staged function, named by the user's argument paths."""
        if self.adapter is None:
            raise ValueError(f"stage_snapshot({self.name}): staged without an adapter, its leaves have no names")
        return self.adapter.named_leaves(tree)

    def named_outputs(self, tree: object) -> NamedLeaves:
        """The leaves of an output tree of JAX's (shardings, formats), named as the function returns them."""
        if self.adapter is None:
            raise ValueError(f"stage_snapshot({self.name}): staged without an adapter, its leaves have no names")
        return self.adapter.named_outputs(tree, self.lowered.args_info, self.lowered.out_info)

    @functools.cached_property
    def output_renames(self) -> dict[str, str]:
        """``{old: new}``: each output leaf whose name differs from the one snapshot format 1 gave it.

        Format 1 named every output leaf by its path in JAX's output tree (``output[0][0].states[0][0]``);
        format 2 names them as the function returns them (``model.l1.kernel``). The old names are
        rebuilt from this call's own output tree, so a snapshot of either format reads the same.
        """
        if self.adapter is None:
            return {}
        tree = self.lowered.out_info
        old = [name for name, _ in returned_leaves(tree)]
        new = [name for name, _ in self.named_outputs(tree)]
        if len(old) != len(new):  # a framework's output tree that does not line up: no name is matched
            return {}
        return {before: after for before, after in zip(old, new, strict=True) if before != after}

    @property
    def host_dependent(self) -> bool:
        """Lowered only in CPU CI, compiled where its platform is attached: its cost is the lowered one on both."""
        return self.config.host_dependent

    @property
    def device_kind(self) -> str | None:
        """The kind of device the program is staged for (``TPU v5 lite``), None where there are no devices."""
        devices = self.config.devices
        return str(devices[0].device_kind) if devices else None

    @property
    def chip_overrides(self) -> dict[str, Any]:
        """The config's ``chip`` table: the chip figures the step-time estimate uses ({}: the device kind's)."""
        return dict(self.config.config.chip)

    @property
    def lowered_text(self) -> str:
        """``Lowered.as_text()``, asked of JAX once (the StableHLO text, the kernels' IR, the cost and the
        compile-only cache's key read it)."""
        if self._lowered_text is None:
            self._lowered_text = str(self.lowered.as_text())
        return self._lowered_text

    @functools.cached_property
    def compiled_text(self) -> str:
        """``Compiled.as_text()``, asked of XLA once (it also feeds the analyses)."""
        if self.compiled is None:
            raise ValueError(f"stage_snapshot({self.name}): lowered only, there is no compiled text")
        return str(self.compiled.as_text())

    @functools.cached_property
    def compiled_ops(self) -> dict[str, Any]:
        """The op structure of the compiled HLO (the ``ops`` artifact; ``sharding`` reads its collectives)."""
        if "ops" in self.analyses:  # built already, or served by the compile-only cache
            return self.analyses["ops"]
        slices = analyses_.slice_indices(self.compiled) if self.config.config.num_slices > 1 else None
        return analyses_.ops(self.compiled_text, slices)

    def source_lines(self, artifact: str) -> ir_sources.Located | None:
        """Where each line of ``texts[artifact]`` came from, read from JAX's debug info.

        Built only when asked (a drift message wants it): the debug texts cost
        another print of each stage. None when the lines cannot be matched, and for
        a compiled executable read from the persistent cache (its locations may be stale).
        """
        locate = BY_NAME[artifact].locate
        if artifact not in self.texts or locate is None:
            return None
        return locate(self)

    def line_places(self, artifact: str, root: Path | None) -> Sequence[str | None]:
        """Where each line of ``texts[artifact]`` came from, relative to ``root``, each described as it is read
        (empty where :meth:`source_lines` cannot say)."""
        return ir_sources.describe_all(self.source_lines(artifact) or (), root)

    def loop_places(self, root: Path | None) -> list[str | None]:
        """Where each while loop of the compiled program was written (relative to ``root``), in ``ops.json`` order.

        Empty without a compiled executable, and for one read from the persistent cache (its
        stack frames may name old lines).
        """
        if self.compiled is None or self.from_cache:
            return []
        return list(ir_sources.describe_all(ir_sources.loop_locations(self.compiled_text), root))

    def function_place(self, root: Path | None) -> str | None:
        """Where the staged function was jitted (``gemma.py:166 in greedy_decode``, relative to ``root``: the
        one ``jit`` call or decorator of it in its file, :func:`~pytest_stages.ir.sources.jit_site`), else where
        it was defined (``lm.py:85 in <lambda>``); None where JAX does not say or it is inside pytest-stages."""
        found = jax_compat.function_source(self.jaxpr)
        if found is None:
            return None
        function, file, line = found
        place = ir_sources.jit_site(file, line, function) or ir_sources.Location(file, line, function)
        return ir_sources.describe_all([place], root)[0]

    @property
    def built(self) -> list[str]:
        """The artifacts built for this call: its stage texts, then its analyses."""
        return [*self.texts, *self.analyses]

    def serialized(self, name: str) -> str:
        """One built artifact as the exact text its snapshot file holds.

        An analysis is printed as JSON only when asked, and once (the indented printing runs in
        pure Python; a passing call compares its analyses as data and never prints them).
        """
        if name in self.texts:
            return self.texts[name]
        if name not in self._printed:
            self._printed[name] = to_json(self.analyses[name])
        return self._printed[name]


def stage(
    fn: Callable[..., object],
    args: tuple[object, ...],
    kwargs: dict[str, object],
    *,
    name: str,
    active: ActiveConfig,
    stages: tuple[str, ...],
    analyses: tuple[str, ...],
    events: CompileEvents,
    static_scalars: bool = False,
    constants_warn_bytes: int = scalars.CONSTANTS_WARN_BYTES,
    cache: topology_results.CompileOnlyCache | None = None,
    caches: CacheClearing | None = None,
) -> StageResult:
    """Trace, lower and (where the platform is attached) compile ``fn`` once; extract artifacts.

    On a compile-only topology arguments are placed as ``jax.jit`` places them there, and ``cache`` serves
    an unchanged program without compiling it; ``caches`` drops JAX's in-memory caches first where needed.
    """
    use_mesh = True
    if active.compile_only:
        (args, kwargs), use_mesh = place_unsharded((args, kwargs))
    context = trace_context(active, use_mesh)
    if caches is not None:
        caches.before_staging(fn, args, kwargs, context)
    adapter = adapt(fn, args, kwargs, static_scalars=static_scalars)
    seconds: dict[str, float] = {}
    jaxpr = None
    with _placement(active, context):
        with _step(name, "tracing", seconds, "trace", kwargs):
            traced = adapter.trace()
        with _step(name, "lowering", seconds, "lower"):
            lowered = adapter.lower(traced, None if active.attached else (active.platform,))
        wanted = tuple(n for n in (*stages, *analyses) if n in topology_results.CACHED)
        compiled, lookup, from_cache = _compile(
            name, lowered, active=active, events=events, seconds=seconds, cache=cache, adapter=adapter, wanted=wanted
        )
        if "jaxpr" in stages or "kernels" in analyses:
            with _step(name, "tracing"):
                jaxpr = adapter.jaxpr(traced)
    result = StageResult(
        name=name,
        config=active,
        traced=traced,
        lowered=lowered,
        compiled=compiled,
        adapter=adapter,
        jaxpr=jaxpr,
        notes=scalars.weak_scalar_notes(adapter.named_leaves(lowered.in_avals), _leaves((args, kwargs))),
        from_cache=from_cache,
        seconds=seconds,
        _lowered_text=lookup.module_text,
    )
    served: dict[str, str] = {}
    if lookup.entry is not None:
        served = _fill(result, lookup.entry)
    _build(result, (*stages, *analyses), served)
    if lookup.parts is not None and lookup.entry is None and cache is not None:
        cache.write(lookup.parts, _entry(result, wanted))
    scalars.warn_constants(name, result.texts.get("stablehlo") or result.lowered_text, constants_warn_bytes)
    return result


@dataclass(frozen=True)
class _Lookup:
    """A compile-only cache lookup: the key's parts (None: no key could be made), the entry found, the module text."""

    parts: Any = None
    entry: dict[str, Any] | None = None
    module_text: str | None = None


def _compile(
    name: str,
    lowered: jax.stages.Lowered,
    *,
    active: ActiveConfig,
    events: CompileEvents,
    seconds: dict[str, float],
    cache: topology_results.CompileOnlyCache | None,
    adapter: Adapter,
    wanted: tuple[str, ...],
) -> tuple[jax.stages.Compiled | topology_results.CachedCompiled | None, _Lookup, bool]:
    """The executable (None where nothing is compiled), the compile-only cache's lookup, and whether a cache served it.

    A compile-only config asks the compile-only cache first (a hit stands in for the compile); an
    attached platform compiles through JAX's persistent cache; any other platform is lowered only.
    """
    hits, lookup = events.total_hits, _Lookup()
    compiled: jax.stages.Compiled | topology_results.CachedCompiled | None = None
    if active.compile_only and cache is not None:
        with _step(name, "compiling", seconds, "compile"):
            lookup = _look_up(cache, adapter, lowered, active=active, wanted=wanted, events=events)
    if lookup.entry is not None:
        compiled = topology_results.CachedCompiled(lowered, lookup.entry["compiled_text"])
    with disk_cache.compile_only() if active.compile_only else events.staged():
        if active.attached and compiled is None:
            with _step(name, "compiling", seconds, "compile"):
                compiled = lowered.compile()
    return compiled, lookup, events.total_hits > hits or lookup.entry is not None


def _look_up(
    cache: topology_results.CompileOnlyCache,
    adapter: Adapter,
    lowered: jax.stages.Lowered,
    *,
    active: ActiveConfig,
    wanted: tuple[str, ...],
    events: CompileEvents,
) -> _Lookup:
    """Look a compile-only compile up in ``cache`` (counted as served: a hit or a miss)."""
    module_text = lowered.as_text()
    parts = cache.key(module_text, _leaf_names(adapter, lowered), lowered, active)
    entry = None if parts is None else cache.read(parts, wanted)
    if parts is not None:
        events.served(hit=entry is not None)
    return _Lookup(parts, entry, module_text)


def _leaf_names(adapter: Adapter, lowered: jax.stages.Lowered) -> list[str]:
    """The names the sharding and layout analyses give the inputs and outputs (a part of the compile-only key)."""
    inputs = [name for name, _ in adapter.named_leaves(lowered.args_info)]
    try:
        outputs = [name for name, _ in adapter.named_outputs(lowered.out_info, lowered.args_info, lowered.out_info)]
    except Exception:  # noqa: BLE001 - JAX cannot name the outputs of some functions (jax.Ref arguments)
        outputs = ["(unnamed)"]
    return [*inputs, "->", *outputs]


def _fill(result: StageResult, entry: dict[str, Any]) -> dict[str, str]:
    """A compile-only cache hit: the entry's analyses, the unavailable ones degraded again; its normalized texts."""
    result.analyses.update(entry["analyses"])
    for name, missing in entry["unavailable"].items():
        _degrade(result, name, analyses_.Unavailable(missing["reason"], missing["partial"]))
    return dict(entry["texts"])


def _entry(result: StageResult, wanted: tuple[str, ...]) -> dict[str, Any]:
    """What the compile-only cache keeps of a compile: the compiled text (as XLA printed it and normalized) and
    every wanted analysis of the executable."""
    unavailable = {
        name: {"reason": result.unavailable[name], "partial": result.analyses.get(name)}
        for name in wanted
        if name in result.unavailable
    }
    return {
        "compiled_text": result.compiled_text,
        "texts": {name: result.texts[name] for name in wanted if name in result.texts},
        "analyses": {n: result.analyses[n] for n in wanted if n in result.analyses and n not in unavailable},
        "unavailable": unavailable,
    }


def _leaves(tree: object) -> list[object]:
    return list(jax.tree_util.tree_leaves(tree))


def trace_context(active: ActiveConfig, use_mesh: bool = True) -> tuple[object, object]:
    """``(default device, abstract mesh)``: what a staging on ``active`` runs under (None: not set).

    :func:`_placement` enters them; both are in JAX's trace-cache key, so stagings that differ in
    either never share a trace.
    """
    device = active.devices[0] if active.attached and not (active.compile_only and use_mesh) else None
    return device, (active.abstract_mesh if use_mesh else None)


@contextlib.contextmanager
def _placement(active: ActiveConfig, context: tuple[object, object]) -> Iterator[None]:
    """Stage under ``context`` (:func:`trace_context`): its default device, its config's mesh where it has one."""
    device, abstract_mesh = context
    with contextlib.ExitStack() as stack:
        if active.config.partitioner is not None:
            shardy = active.config.partitioner == "shardy"
            stack.enter_context(jax_options.option_set("jax_use_shardy_partitioner", shardy))
        if device is not None:
            stack.enter_context(jax.default_device(device))
        if abstract_mesh is not None:
            use = jax.set_mesh if active.attached else jax.sharding.use_abstract_mesh
            stack.enter_context(use(active.mesh))
        yield


@contextlib.contextmanager
def _step(
    name: str,
    doing: str,
    seconds: dict[str, float] | None = None,
    step: str = "",
    kwargs: Mapping[str, object] | None = None,
) -> Iterator[None]:
    """Run a staging step in the caller's frame: its wall time kept as ``seconds[step]``, its error as a StagingFailed.

    A context manager rather than a wrapper taking a callable: JAX traces, lowers and compiles
    from :func:`stage`'s own frame (which :mod:`~pytest_stages.stage.deep_recursion` places).
    """
    start = time.perf_counter()
    try:
        yield
    except Unsupported:
        raise
    except Exception as exc:
        raise StagingFailed(name, doing, exc, kwargs) from exc
    if seconds is not None:
        seconds[step] = time.perf_counter() - start


def _build(result: StageResult, wanted: tuple[str, ...], served: Mapping[str, str]) -> None:
    """Build every wanted artifact; without a compiled executable those that need one are skipped.

    ``served`` holds the normalized texts a compile-only cache hit gave: kept as they are, in their place.
    """
    reason = (
        f"platform {result.config.platform!r} is not attached: lowered for it, never compiled "
        "(compiling would silently build code for the local backend)"
    )
    for name in wanted:
        artifact = BY_NAME[name]
        if name in result.analyses or name in result.skipped:  # served by the compile-only cache
            continue
        if artifact.needs_compile and result.compiled is None:
            result.skipped[name] = reason
        elif name in served:  # normalized when it was cached
            result.texts[name] = served[name]
        elif artifact.is_text:
            text = artifact.build(result)
            if text is not None or not artifact.optional:
                result.texts[name] = artifact.normalize(text)
        else:
            try:
                built = artifact.build(result)
            except analyses_.Unavailable as exc:
                _degrade(result, name, exc)
                continue
            if built is not None or not artifact.optional:
                result.analyses[name] = built
    unknown = analyses_.unknown_note(result.analyses.get("cost", {}))
    if unknown:
        # Kept in part: the kernels' own figures are not in it (the reports list it, the message notes it).
        result.partial["cost"] = unknown
        result.notes.append(f"note: cost {unknown}")


def _degrade(result: StageResult, name: str, unavailable: analyses_.Unavailable) -> None:
    """An analysis JAX cannot give for this call: skipped (or kept in part), with JAX's reason.

    The reason goes to the reports (a skipped finding) and to the failure message (a note).
    """
    result.unavailable[name] = unavailable.reason
    if unavailable.partial is None:
        result.skipped[name] = unavailable.reason
        result.notes.append(f"note: {name} skipped: {unavailable.reason}")
    else:
        result.analyses[name] = unavailable.partial
        result.partial[name] = f"outputs not recorded: {unavailable.reason}"
        result.notes.append(f"note: {name} of the outputs not recorded: {unavailable.reason}")
