"""An estimated step time: the compiled program's kernels over a chip's figures, the binding term named.

``estimate`` reads the compiled HLO text as the kernels the chip runs (``ir/hlo_kernels.py``): each costs
the largest of its matrix time (multiply-adds at the rate of their element type), its vector time and its
HBM time, plus a fixed time per kernel; loop bodies count once per iteration, a conditional its dearest
branch; the step is the larger of that and the host's launch (docs/step-time.md, chip figures in
:data:`CHIPS`). No estimate, a stated reason instead, for CPU or for kernels XLA cannot cost.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from pytest_stages.core.errors import ConfigError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CostAnalysis, StepTime

if TYPE_CHECKING:
    from pytest_stages.ir import hlo_kernels
else:  # read only where a chip is named: a CPU run never loads it
    hlo_kernels = lazy_module("pytest_stages.ir.hlo_kernels")

# The cost snapshot's entry for the estimate, and the one figure of it that is judged.
KEY: Final = "step"
SECONDS: Final = "estimated_seconds"
TERMS = ("compute", "HBM", "collectives", "launch")
# The estimate as the cost comparison names it (the ``step`` table flattened), and the cost figure
# behind each term a headline names.
METRIC = f"{KEY} {SECONDS}"
DRIVERS = {"compute": "flops", "HBM": "bytes accessed"}


@dataclass(frozen=True)
class Chip:
    """One accelerator's figures: published peaks (rates in operations/s, bandwidths in bytes/s), rates
    measured where none is published, and the achievable share of each peak.

    Matrix rates per operand type: ``bf16_flops``, ``f32_flops`` (JAX's default precision), ``int8_ops``,
    ``fp8_flops`` (a chip without 8-bit float units converts to bf16: its bf16 rate); ``matrix_tile``: the
    side of the matrix unit products are padded to; ``vector_ops``: elementwise results/s,
    ``transcendental_ops``: results/s of an exp, log, tanh, divide,
    ``polynomial_ops``: of a sine or power; ``sort_ops``: element-stages/s of a sorting network;
    ``top_k_ops``: comparisons/s of a top-k (an element against one of the ``k`` values kept);
    ``gather_fraction``: the share of the achievable bandwidth a gather or scatter of rows reaches;
    ``relayout_bytes_per_s``: bytes/s a copy into another layout (a transpose, another tiling) reads and writes;
    ``index_seconds``: the time of one index a gather or scatter applies one after another (a scatter's update,
    a gather of one element); ``scalar_read_seconds``: the wait of the scalar unit for a value the kernels
    computed that it takes as an offset; ``kernel_seconds``: the fixed cost of one kernel,
    ``iteration_seconds`` of one trip of a loop; dispatch costs ``launch_seconds`` plus a time per buffer.
    """

    name: str
    bf16_flops: float
    f32_flops: float
    int8_ops: float
    fp8_flops: float
    hbm_bytes_per_s: float
    interconnect_bytes_per_s: float
    matrix_tile: int
    vector_ops: float
    transcendental_ops: float
    polynomial_ops: float
    iteration_seconds: float
    sort_ops: float
    top_k_ops: float
    gather_fraction: float
    relayout_bytes_per_s: float
    index_seconds: float
    scalar_read_seconds: float
    kernel_seconds: float
    launch_seconds: float
    input_seconds: float
    output_seconds: float
    compute_fraction: float
    hbm_fraction: float
    interconnect_fraction: float


T, G = 1e12, 1e9
# Achievable shares, the vector, sort and kernel figures and the launch time of TPU v5e: measured on the
# chip (docs/step-time.md, calibration set); the other chips take v5e's until measured, GPUs NVIDIA's usual
# shares.
_TPU = {
    "kernel_seconds": 0.04e-6,
    "iteration_seconds": 0.1e-6,
    "launch_seconds": 120e-6,
    "input_seconds": 1.1e-6,
    "output_seconds": 9e-6,
    "compute_fraction": 0.95,
    "hbm_fraction": 0.8,
    "interconnect_fraction": 0.7,
}
_V5E_VECTOR = {
    "vector_ops": 4 * T,
    "transcendental_ops": 1 * T,
    "polynomial_ops": 0.04 * T,
    "sort_ops": 0.16 * T,
    "top_k_ops": 0.32 * T,
    "gather_fraction": 0.5,
    "relayout_bytes_per_s": 500 * G,
    "index_seconds": 9e-9,
    "scalar_read_seconds": 1.5e-6,
}
_GPU = {**_TPU, **_V5E_VECTOR, "launch_seconds": 20e-6, "kernel_seconds": 3e-6, "compute_fraction": 0.7}
CHIPS: dict[str, Chip] = {
    "v4": Chip("TPU v4", 275 * T, 275 * T, 275 * T, 275 * T, 1200 * G, 300 * G, 128, **_V5E_VECTOR, **_TPU),
    "v5e": Chip("TPU v5e", 197 * T, 197 * T, 394 * T, 197 * T, 819 * G, 400 * G, 128, **_V5E_VECTOR, **_TPU),
    "v5p": Chip("TPU v5p", 459 * T, 459 * T, 918 * T, 459 * T, 2765 * G, 1200 * G, 128, **_V5E_VECTOR, **_TPU),
    "v6e": Chip("TPU v6e", 918 * T, 918 * T, 1836 * T, 918 * T, 1638 * G, 800 * G, 256, **_V5E_VECTOR, **_TPU),
    "h100": Chip("NVIDIA H100 SXM", 989 * T, 494 * T, 1979 * T, 1979 * T, 3350 * G, 900 * G, 16, **_GPU),
    "a100": Chip("NVIDIA A100 SXM", 312 * T, 156 * T, 624 * T, 312 * T, 2039 * G, 600 * G, 16, **_GPU),
}
# Device kinds as JAX names them (lower case) -> chip; the first key found in the kind wins.
_KINDS = (
    ("v5 lite", "v5e"),
    ("v5e", "v5e"),
    ("v6 lite", "v6e"),
    ("v6e", "v6e"),
    ("v5p", "v5p"),
    ("tpu v5", "v5p"),
    ("tpu v4", "v4"),
    ("h100", "h100"),
    ("a100", "a100"),
)
# A config's ``chip = {...}`` keys: a chip of the table to start from, then figures in the units people write.
OVERRIDES = {
    "bf16_tflops": ("bf16_flops", T),
    "f32_tflops": ("f32_flops", T),
    "int8_tops": ("int8_ops", T),
    "fp8_tflops": ("fp8_flops", T),
    "hbm_gbps": ("hbm_bytes_per_s", G),
    "interconnect_gbps": ("interconnect_bytes_per_s", G),
    "vector_tops": ("vector_ops", T),
    "transcendental_tops": ("transcendental_ops", T),
    "polynomial_tops": ("polynomial_ops", T),
    "sort_tops": ("sort_ops", T),
    "top_k_tops": ("top_k_ops", T),
    "gather_fraction": ("gather_fraction", 1.0),
    "relayout_gbps": ("relayout_bytes_per_s", G),
    "index_ns": ("index_seconds", 1e-9),
    "scalar_read_us": ("scalar_read_seconds", 1e-6),
    "kernel_us": ("kernel_seconds", 1e-6),
    "iteration_us": ("iteration_seconds", 1e-6),
    "launch_us": ("launch_seconds", 1e-6),
    "input_us": ("input_seconds", 1e-6),
    "output_us": ("output_seconds", 1e-6),
    "compute_fraction": ("compute_fraction", 1.0),
    "hbm_fraction": ("hbm_fraction", 1.0),
    "interconnect_fraction": ("interconnect_fraction", 1.0),
}
FRACTIONS = ("compute_fraction", "hbm_fraction", "interconnect_fraction", "gather_fraction")


def chip_for(device_kind: str | None, overrides: Mapping[str, Any] | None = None) -> Chip | None:
    """The chip a device kind names (``TPU v5 lite`` -> v5e), with a config's overrides; None if unknown."""
    table = dict(overrides or {})
    named = table.pop("name", None)
    base = CHIPS.get(str(named)) if named else None
    if base is None and device_kind:
        kind = device_kind.lower()
        base = next((CHIPS[chip] for key, chip in _KINDS if key in kind), None)
    if base is None:
        return None
    figures: dict[str, Any] = {OVERRIDES[key][0]: float(value) * OVERRIDES[key][1] for key, value in table.items()}
    return replace(base, **figures)


def parse_chip(where: str, raw: object) -> tuple[tuple[str, object], ...]:
    """A config's ``chip = { name = "v5e", hbm_gbps = 700, ... }``: known keys, positive figures, fractions <= 1."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f'{where}: chip must be a table, e.g. chip = {{ name = "v5e", hbm_gbps = 700 }}.')
    known = ["name", *OVERRIDES]
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{where}: chip has an unknown key {key!r}; the known keys are {known}.")
        if key == "name":
            if value not in CHIPS:
                raise ConfigError(f"{where}: chip name {value!r} is not in the chip table; use one of {list(CHIPS)}.")
            continue
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        top = 1.0 if key in FRACTIONS else math.inf
        if not math.isfinite(number) or not 0 < number <= top:
            shown = "a fraction above 0, at most 1" if key in FRACTIONS else "a positive number"
            raise ConfigError(f"{where}: chip {key} = {value!r} must be {shown}, e.g. {key} = 0.8.")
    return tuple(sorted(raw.items()))


def host_dependent_step() -> StepTime:
    """The ``step`` of a config with a platform and no topology, the same on every host: it is lowered in CPU CI
    and compiled where its chip is attached, so an estimate of either program would differ between them."""
    return {
        "unknown": "a config without a topology is lowered in CPU CI and compiled where its chip is attached, so "
        'no estimate reads the same on both; add topology = "v5e:1x1" (compile-only, the same figures on every '
        "host) for one; --stages-measure still reports the chip's estimate beside its measured time"
    }


def estimate(
    cost: CostAnalysis,
    compiled_text: str | None,
    device_kind: str | None,
    overrides: Mapping[str, object] | None = None,
) -> StepTime:
    """The cost snapshot's ``step`` entry: the estimate and its terms, or ``{"unknown": reason}``."""
    chip = chip_for(device_kind, overrides)
    if chip is None:
        return {
            "unknown": f"no chip figures for device kind {device_kind!r} (a CPU's time depends on its host); "
            'name a chip in the config (chip = { name = "v5e" }) to estimate for it'
        }
    if cost.get("unknown"):
        names = ", ".join(dict.fromkeys(cost["unknown"]["kernels"]))
        return {"unknown": f"kernels without a cost estimate ({names}): XLA counts nothing inside them"}
    compiled = cost.get("compiled") or {}
    if compiled_text and not compiled.get("unavailable"):
        program = hlo_kernels.Module(compiled_text, chip.matrix_tile).program()
        entry = _program_entry(program, chip)
        notes = [f"{program.unknown_trips} loop(s) of unknown trip count: each body counted once"] * bool(
            program.unknown_trips
        )
    else:
        figures = cost.get("lowered") or compiled
        if figures.get("unavailable") or (figures.get("flops") is None and figures.get("bytes accessed") is None):
            return {"unknown": "XLA gave no cost analysis for this program"}
        entry = _totals_entry(figures, chip)
        notes = [
            "counted on the lowered program's totals (before XLA fuses it; no kernels, loop trip counts or buffers)"
        ]
    entry["chip"] = chip.name
    optimal = compiled.get("optimal_seconds")
    if isinstance(optimal, (int, float)) and optimal > 0:  # XLA's own figure, where it is a time
        entry["xla_optimal_seconds"] = optimal
    if notes:
        entry["notes"] = "; ".join(notes)
    return entry


@dataclass(frozen=True)
class _Terms:
    """Seconds of a block of kernels, summed kernel by kernel: the whole, and what each term bound."""

    seconds: float = 0.0
    compute: float = 0.0
    hbm: float = 0.0
    collectives: float = 0.0
    kernels: int = 0

    def __add__(self, other: _Terms) -> _Terms:
        return _Terms(
            self.seconds + other.seconds,
            self.compute + other.compute,
            self.hbm + other.hbm,
            self.collectives + other.collectives,
            self.kernels + other.kernels,
        )

    def times(self, count: int) -> _Terms:
        return _Terms(
            self.seconds * count, self.compute * count, self.hbm * count, self.collectives * count, self.kernels * count
        )


def _program_entry(program: hlo_kernels.Program, chip: Chip) -> StepTime:
    """The estimate of a compiled program: its kernels' times in order, against the host's launch."""
    device = _block(program.entry, chip)
    launch = chip.launch_seconds + chip.input_seconds * program.inputs + chip.output_seconds * program.outputs
    terms = {"compute": device.compute, "HBM": device.hbm, "collectives": device.collectives, "launch": launch}
    binding = "launch" if launch >= device.seconds else max(TERMS[:3], key=lambda term: terms[term])
    return {**_terms_entry(max(launch, device.seconds), binding, terms), "kernels": device.kernels}


def _block(block: hlo_kernels.Block, chip: Chip, looped: bool = False) -> _Terms:
    """A block's kernels one after another, each loop body times its trips, each conditional its dearest branch;
    async copies run beside the kernels, so they add only where the HBM traffic outlasts the kernels; each value
    the scalar unit reads back to use as an offset adds its wait."""
    total = _Terms(block.scalar_reads * chip.scalar_read_seconds)
    bandwidth = chip.hbm_bytes_per_s * chip.hbm_fraction
    dma = sum(kernel.dma_bytes for kernel in block.kernels) / bandwidth
    for kernel in block.kernels:
        total += _kernel(kernel, chip, looped) if not kernel.dma_bytes else _Terms()
    if dma > 0:
        extra = max(0.0, total.hbm + dma - total.seconds)
        total += _Terms(extra, hbm=extra)
    for body, trips in block.loops:
        total += (_block(body, chip, looped=True) + _Terms(chip.iteration_seconds)).times(trips)
    for branches in block.branches:
        total += max((_block(branch, chip, looped) for branch in branches), key=lambda t: t.seconds, default=_Terms())
    return total


def _kernel(kernel: hlo_kernels.Kernel, chip: Chip, looped: bool = False) -> _Terms:
    """One kernel: the larger of its compute (the largest of its matrix, vector and sort time) and its HBM time,
    plus its fixed cost; in a loop body, where each iteration waits on the last, the two one after the other;
    a collective its bytes over the interconnect."""
    if kernel.collective_bytes:
        seconds = kernel.collective_bytes / (chip.interconnect_bytes_per_s * chip.interconnect_fraction)
        return _Terms(seconds + chip.kernel_seconds, collectives=seconds, kernels=1)
    work = (
        kernel.macs
        or kernel.vector
        or kernel.transcendental
        or kernel.polynomial
        or kernel.sort
        or kernel.top_k
        or kernel.relayout_bytes
    )
    if not (work or kernel.hbm_bytes):
        return _Terms()  # a scalar op or a view: no kernel of its own
    rates = {"bf16": chip.bf16_flops, "f32": chip.f32_flops, "s8": chip.int8_ops, "f8": chip.fp8_flops}
    matrix = sum(2 * macs / (rates[kind] * chip.compute_fraction) for kind, macs in kernel.macs)
    vector = (
        kernel.vector / chip.vector_ops
        + kernel.transcendental / chip.transcendental_ops
        + kernel.polynomial / chip.polynomial_ops
    )
    compute = max(
        matrix,
        vector,
        kernel.sort / chip.sort_ops,
        kernel.top_k / chip.top_k_ops,
        kernel.relayout_bytes / chip.relayout_bytes_per_s,
        kernel.indices * chip.index_seconds,
    )
    share = chip.hbm_fraction * (chip.gather_fraction if kernel.gathered else 1.0)
    hbm = kernel.hbm_bytes / (chip.hbm_bytes_per_s * share)
    bound = compute + hbm if looped else max(compute, hbm)
    return _Terms(
        bound + chip.kernel_seconds,
        compute=bound if compute >= hbm else 0.0,
        hbm=bound if hbm > compute else 0.0,
        kernels=1,
    )


def _totals_entry(figures: Mapping[str, float | None], chip: Chip) -> StepTime:
    """Where no compiled program is at hand: XLA's flops and bytes over the chip's bf16 rate and bandwidth."""
    flops, hbm = float(figures.get("flops") or 0), float(figures.get("bytes accessed") or 0)
    terms = {
        "compute": flops / (chip.bf16_flops * chip.compute_fraction),
        "HBM": hbm / (chip.hbm_bytes_per_s * chip.hbm_fraction),
        "collectives": 0.0,
        "launch": chip.launch_seconds,
    }
    return _terms_entry(
        max(terms["launch"], terms["compute"], terms["HBM"]), max(TERMS, key=lambda term: terms[term]), terms
    )


def _terms_entry(seconds: float, binding: str, terms: Mapping[str, float]) -> StepTime:
    """The estimate, the term that binds it and each term's seconds (``compute_seconds``, ``hbm_seconds``...)."""
    return {
        SECONDS: seconds,
        "binding": binding,
        "compute_seconds": terms["compute"],
        "hbm_seconds": terms["HBM"],
        "collectives_seconds": terms["collectives"],
        "launch_seconds": terms["launch"],
    }
