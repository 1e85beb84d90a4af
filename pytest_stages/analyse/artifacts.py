"""The artifact table: every snapshot file kind, described once.

Every layer iterates over :data:`ARTIFACTS`; adding an artifact is one entry here (docs/architecture.md,
"The artifact table").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pytest_stages.analyse import analyses, kernel_specs, step_time
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CostAnalysis, Kind, StepTime
from pytest_stages.ir.kernel_payloads import kernel_sections
from pytest_stages.ir.normalize import NORMALIZERS

if TYPE_CHECKING:
    import jax

    from pytest_stages.ir import sources as ir_sources
else:
    ir_sources = lazy_module("pytest_stages.ir.sources")
    jax = lazy_module("jax")


class Staged(Protocol):
    """What the builders read of one staged call (``stage.staging.Staged`` provides it).

    Declared here, below the stage layer, so that the table needs nothing above it.
    """

    # Any: the jaxpr is there whenever a builder reading it runs; the executable is jax.stages.Compiled or the
    # stage layer's stand-in for one the compile-only cache served (a class this layer cannot name).
    jaxpr: Any
    lowered: jax.stages.Lowered
    compiled: Any | None
    texts: dict[str, str]
    from_cache: bool

    @property
    def compile_only(self) -> bool: ...

    @property
    def device_kind(self) -> str | None: ...

    @property
    def lowered_text(self) -> str: ...

    @property
    def host_dependent(self) -> bool: ...

    @property
    def compiled_text(self) -> str: ...

    @property
    def chip_overrides(self) -> dict[str, object]: ...

    @property
    def compiled_ops(self) -> dict[str, Any]: ...

    def named_leaves(self, avals: object) -> list[tuple[str, object]]: ...

    def named_outputs(self, tree: object) -> list[tuple[str, object]]: ...


BUDGET = Kind.BUDGET
# The JAX object an artifact reads; ``context`` for the record of the ``stage_compiles`` fixture.
Stage = Literal["jaxpr", "lowered", "compiled", "context"]
# The comparison family that judges an artifact (check/compare.py; ``compiles`` is judged by check/recompiles.py).
Family = Literal["ir", "ops", "figures", "placement", "structure", "kernels", "compiles"]
# Failure-message headlines, in the order a message lists them (budget first, IR last).
HEADLINES = ("budget", "compiles", "kernels", "sharding", "layout", "memory", "cost", "op structure", "IR")
# The ``stage`` of an artifact that no staged call builds: ``stage_compiles`` records it around user code.
CONTEXT: Stage = "context"


@dataclass(frozen=True)
class Artifact:
    """One snapshot file kind of a staged call (a stage text, judged as IR drift, unless it says otherwise).

    ``stage``: the JAX object it reads (``context`` for ``stage_compiles``); ``build``: a stage's raw text
    (family ``ir``) or JSON-ready data; ``locate``: each line's source, or None; ``optional``: only some
    programs have it (``build`` gives None for the others). ``added``: top-level keys a later version added
    (a snapshot without one is still current). The other fields: docs/architecture.md, "The artifact table".
    """

    name: str
    kind: Kind
    suffix: str
    stage: Stage
    needs_compile: bool
    build: Callable[[Staged], Any]
    family: Family = "ir"
    headline: str = "IR"
    dialect: str | None = None
    title: str = "IR drift"
    locate: Callable[[Staged], ir_sources.Located | None] | None = None
    signature: bool = False
    lowered_stand_in: bool = False
    absent_is_zero: bool = False
    optional: bool = False
    added: tuple[str, ...] = ()

    @property
    def is_text(self) -> bool:
        """A stage text (judged as IR drift), not JSON-ready data."""
        return self.family == "ir"

    @property
    def normalize(self) -> Callable[[str], str]:
        """A stage text's normalizer, its dialect's: the raw text ``build`` gives in, the snapshot text out."""
        return NORMALIZERS[str(self.dialect)]

    @property
    def frontend(self) -> bool:
        """Built before XLA optimizes (jaxpr, StableHLO, lowered HLO): an upgrade's frontend drift."""
        return self.stage not in ("compiled", CONTEXT)

    @property
    def staged(self) -> bool:
        """Built from one staged call (every artifact but the ``stage_compiles`` record)."""
        return self.stage != CONTEXT


def _recorded_by_context(result: Staged) -> object:
    raise TypeError("the compiles artifact is recorded by the stage_compiles fixture, not built from a staged call")


def _cost(result: Staged) -> dict[str, object]:
    """XLA's cost analysis, with the step-time estimate on the config's chip (``step``)."""
    found = analyses.cost(
        result.compiled,
        result.lowered,
        via_cpu=result.compile_only,
        lowered_only=result.host_dependent,
        uncosted=kernel_specs.uncosted_calls(result.lowered_text),
    )
    step = step_time.host_dependent_step() if result.host_dependent else _estimate(result, found)
    return {**found, step_time.KEY: step}


def device_estimate(result: Staged) -> StepTime:
    """The step estimate of the compiled program the attached device runs, which ``--stages-measure`` times.

    The cost snapshot of a config lowered in CPU CI and compiled where its platform is attached
    counts the lowered program (the same figures on both hosts: no fusion, loop trip counts or
    buffers); a measurement is judged against what the device runs.
    """
    found = analyses.cost(result.compiled, result.lowered, uncosted=kernel_specs.uncosted_calls(result.lowered_text))
    return _estimate(result, found)


def _estimate(result: Staged, cost: CostAnalysis) -> StepTime:
    text = result.compiled_text if result.compiled is not None else None
    return step_time.estimate(cost, text, result.device_kind, result.chip_overrides)


def _compiled_locations(result: Staged) -> ir_sources.Located | None:
    # An executable read from the persistent cache carries the stack frames of the compile that
    # filled the cache (its key ignores source locations), so its lines may name old code.
    if result.from_cache:
        return None
    return ir_sources.hlo_locations(result.compiled_text, result.texts["compiled"])


ARTIFACTS: tuple[Artifact, ...] = (
    Artifact(
        "jaxpr",
        Kind.TEXT,
        ".jaxpr.txt",
        "jaxpr",
        False,
        build=lambda r: str(r.jaxpr),
        dialect="jaxpr",
        locate=lambda r: ir_sources.jaxpr_locations(str(r.jaxpr.pretty_print(source_info=True)), r.texts["jaxpr"]),
        signature=True,
    ),
    Artifact(
        "stablehlo",
        Kind.TEXT,
        ".stablehlo.mlir",
        "lowered",
        False,
        build=lambda r: r.lowered_text,
        dialect="mlir",
        locate=lambda r: ir_sources.mlir_locations(r.lowered.as_text(debug_info=True), r.texts["stablehlo"]),
    ),
    # Each custom kernel's IR (a Pallas TPU kernel's Mosaic payload, decoded), one section per
    # kernel; the stage texts hold a reference to its section in place of the payload.
    Artifact(
        "kernel_ir",
        Kind.TEXT,
        ".kernels.mlir",
        "lowered",
        False,
        build=lambda r: kernel_sections(r.lowered_text),
        dialect="mlir",
        title="kernel IR drift",
        locate=lambda r: ir_sources.mlir_locations(kernel_sections(r.lowered_text) or "", r.texts["kernel_ir"]),
        optional=True,
    ),
    Artifact(
        "hlo",
        Kind.TEXT,
        ".hlo.txt",
        "lowered",
        False,
        build=lambda r: r.lowered.as_text(dialect="hlo"),
        dialect="hlo",
        locate=lambda r: ir_sources.hlo_locations(r.lowered.as_text(dialect="hlo", debug_info=True), r.texts["hlo"]),
    ),
    Artifact(
        "compiled",
        Kind.TEXT,
        ".compiled.hlo.txt",
        "compiled",
        True,
        build=lambda r: r.compiled_text,
        dialect="hlo",
        locate=_compiled_locations,
    ),
    Artifact(
        "cost",
        Kind.COST,
        ".cost.json",
        "compiled",
        False,
        build=_cost,
        family="figures",
        headline="cost",
        lowered_stand_in=True,
        absent_is_zero=True,
        added=(step_time.KEY,),
    ),
    Artifact(
        "memory",
        Kind.MEMORY,
        ".memory.json",
        "compiled",
        True,
        build=lambda r: analyses.memory(r.compiled),
        family="figures",
        headline="memory",
    ),
    Artifact(
        "ops",
        Kind.TEXT,
        ".ops.json",
        "compiled",
        True,
        build=lambda r: r.compiled_ops,
        family="ops",
        headline="op structure",
        title="op structure changed",
    ),
    Artifact(
        "sharding",
        Kind.SHARDING,
        ".sharding.json",
        "compiled",
        True,
        build=lambda r: analyses.sharding(
            r.compiled,
            r.lowered,
            r.named_leaves,
            r.compiled_text,
            r.compiled_ops["collectives"],
            named_outputs=r.named_outputs,
            networks=r.compiled_ops.get("networks"),
        ),
        family="placement",
        headline="sharding",
    ),
    Artifact(
        "layout",
        Kind.LAYOUT,
        ".layout.json",
        "compiled",
        True,
        build=lambda r: analyses.layout(r.compiled, r.named_leaves, r.named_outputs),
        family="placement",
        headline="layout",
    ),
    # The grid, blocks, scratch and VMEM estimate of each Pallas kernel (only programs with kernels).
    Artifact(
        "kernels",
        Kind.KERNELS,
        ".kernels.json",
        "jaxpr",
        False,
        build=lambda r: kernel_specs.kernel_specs(r.jaxpr, r.device_kind),
        family="kernels",
        headline="kernels",
        title="kernel findings changed",
        optional=True,
    ),
    # Not one staged call's: the stage_compiles fixture counts what the user code inside it made
    # JAX trace, lower and compile, per function, and snapshots that (its own check kind, headline
    # and comparison, in check/recompiles.py; staging never builds it).
    Artifact(
        "compiles",
        Kind.COMPILES,
        ".compiles.json",
        CONTEXT,
        False,
        build=_recorded_by_context,
        family="compiles",
        headline="compiles",
        title="compile counts changed",
    ),
)

BY_NAME: dict[str, Artifact] = {artifact.name: artifact for artifact in ARTIFACTS}
STAGES = tuple(a.name for a in ARTIFACTS if a.is_text and a.staged)
ANALYSES = tuple(a.name for a in ARTIFACTS if not a.is_text and a.staged)
CHECK_KINDS = (*dict.fromkeys(a.kind for a in ARTIFACTS), BUDGET)
SUFFIXES = {a.name: a.suffix for a in ARTIFACTS}


def check_kind(name: str) -> Kind:
    """The ``--stages-check`` kind of an artifact (``budget`` for budget findings)."""
    return BY_NAME[name].kind if name in BY_NAME else Kind(name)


def headline_rank(name: str) -> int:
    """Where findings of an artifact come in a message or report: the order of :data:`HEADLINES`."""
    headline = BY_NAME[name].headline if name in BY_NAME else name
    return HEADLINES.index(headline) if headline in HEADLINES else len(HEADLINES)
