"""Soundness of :func:`pytest_stages.ir.renaming.equivalent` on real JAX texts: one semantic edit is never "equal".

A false "equal" hides a real regression, so each real program (an MLP with special-float
literals, ``fori_loop``/``while_loop``/``scan`` with captured constants, a ``custom_jvp``
function) is staged to jaxpr, StableHLO and compiled HLO (CPU), normalized as the plugin
stores it, then edited once at every site a mutation applies to (a literal's value, the
operands of a non-commutative op, an op's name, a dtype or a shape, a loop's trip count, a
``get-tuple-element`` index, a comparison's direction): every edit must compare unequal.
A consistent renaming of all names (JAX's own printer with its names permuted, or every
``%name`` permuted) must compare equal.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax._src import core

from pytest_stages.ir.dataflow import ORDERS
from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.renaming import equivalent, keep_names


def _mlp(x: jax.Array, w: jax.Array) -> jax.Array:
    h = jnp.tanh(x @ w - 0.5) / (jnp.abs(x @ w) + 2.0)
    h = jnp.maximum(h, -jnp.inf) + jnp.where(h > 0, h, jnp.nan) - jnp.minimum(h, jnp.inf)
    return (h @ w.T - x) * -3.0


def _fori(x: jax.Array, w: jax.Array) -> jax.Array:
    return jax.lax.fori_loop(0, 7, lambda i, c: (c - w[0] * 1.5) / (i + 2.0), x)


def _while(x: jax.Array, w: jax.Array) -> jax.Array:
    def body(state: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        k, c = state
        return k + 1, c * w[1] - k

    return jax.lax.while_loop(lambda s: s[0] < 5, body, (jnp.int32(0), x))[1]


def _scan(x: jax.Array, w: jax.Array) -> jax.Array:
    def step(c: jax.Array, row: jax.Array) -> tuple[jax.Array, jax.Array]:
        return c - row / w[2], c * 2.0

    carry, ys = jax.lax.scan(step, x, w)
    return carry - ys.sum(0)


@jax.custom_jvp
def _soft(x: jax.Array) -> jax.Array:
    return jnp.log1p(jnp.exp(x)) - x / 4.0


@_soft.defjvp
def _soft_jvp(primals: tuple[jax.Array], tangents: tuple[jax.Array]) -> tuple[jax.Array, jax.Array]:
    (x,), (t,) = primals, tangents
    return _soft(x), t / (1.0 + jnp.exp(-x))


def _custom(x: jax.Array, w: jax.Array) -> jax.Array:
    return _soft(x - w[3]) / w[0]


def _cond(x: jax.Array, w: jax.Array) -> jax.Array:
    return jax.lax.cond(x[0, 0] > w[0, 1], lambda a: a - w * 2.0, lambda a: a / w + 1.0, x)


def _masked(x: jax.Array, w: jax.Array) -> jax.Array:
    return jnp.where(w > 0, x, jnp.nan) + w


PROGRAMS: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "mlp": _mlp,
    "masked": _masked,
    "fori": _fori,
    "while": _while,
    "scan": _scan,
    "cond": _cond,
    "custom_jvp": _custom,
}
ARGS = (jnp.ones((4, 4), jnp.float32), jnp.ones((4, 4), jnp.float32))


@contextmanager
def _permuted_jaxpr_names(seed: int) -> Iterator[None]:
    """JAX's jaxpr printer with its fresh names permuted among the names of the same length, so the
    layout (line breaks) stays and ``inf``/``nan`` may name variables."""
    encode = core._encode_digits_alphabetic
    rng = random.Random(seed)
    cache: dict[int, str] = {}
    pools: dict[int, list[int]] = {}

    def permuted(n: int) -> str:
        if n not in cache:
            width = len(encode(n))
            if width not in pools:
                pool = [k for k in range(26 ** (width - 1) if width > 1 else 0, 26**width) if len(encode(k)) == width]
                rng.shuffle(pool)
                pools[width] = pool
            cache[n] = encode(pools[width][n - (26 ** (width - 1) if width > 1 else 0)])
        return cache[n]

    core._encode_digits_alphabetic = permuted  # type: ignore[assignment]
    try:
        yield
    finally:
        core._encode_digits_alphabetic = encode  # type: ignore[assignment]


def _texts(fn: Callable[[jax.Array, jax.Array], jax.Array]) -> dict[str, str]:
    jitted = jax.jit(fn)
    lowered = jitted.lower(*ARGS)
    return {
        "jaxpr": normalize_jaxpr(str(jax.make_jaxpr(fn)(*ARGS))),
        "mlir": normalize_mlir(lowered.as_text()),
        "lowered": normalize_hlo(lowered.as_text(dialect="hlo")),
        "hlo": normalize_hlo(lowered.compile().as_text()),
    }


@pytest.fixture(scope="module")
def texts() -> dict[tuple[str, str], str]:
    return {(name, dialect): text for name, fn in PROGRAMS.items() for dialect, text in _texts(fn).items()}


# Each mutation: a pattern and how one match is rewritten (a different program every time).
_FLIP = {"inf": "-inf", "-inf": "nan", "nan": "inf", "True": "False", "False": "True"}
_SPECIAL = r"(?<![\w.])-?(?:inf|nan)(?=:[a-z]\w*\[)"


def _other_value(value: str) -> str:
    if value in _FLIP:
        return _FLIP[value]
    if value.startswith("-"):
        return value[1:]
    return "-" + value if value not in ("0", "0.0") else "1"


_SWAPPABLE = r"(?:sub|div|dot_general|pow|atan2|rem)"
MUTATIONS: dict[str, dict[str, tuple[str, Callable[[re.Match[str]], str]]]] = {
    "jaxpr": {
        "literal": (
            r"(?<![\w.])(-?(?:[\d.]+(?:e[-+]?\d+)?|inf|nan)|True|False)(?=:[a-z]\w*\[)",
            lambda m: _other_value(m[1]),
        ),
        "special": (_SPECIAL, lambda m: {"inf": "nan", "nan": "-inf", "-inf": "inf"}[m[0]]),
        "swap": (rf"(= {_SWAPPABLE}(?:\[[^\]\n]*\])? )([a-z]+) ([a-z]+)$", lambda m: f"{m[1]}{m[3]} {m[2]}"),
        "op": (
            r"(?<= = )(sub|div|tanh|exp|log1p|mul|lt|max|min|dot_general)\b",
            lambda m: {"lt": "gt"}.get(m[1], "add"),
        ),
        "dtype": (r"(?<=:)f32(?=\[)", lambda m: "f16"),
        "trip": (r"(?<=length=)\d+", lambda m: str(int(m[0]) + 1)),
        "count": (r"\b(num_consts|num_carry|body_nconsts|cond_nconsts)=(\d+)", lambda m: f"{m[1]}={int(m[2]) + 1}"),
        "operands": (r"(?<= )([a-z]+) ([a-z]+)$", lambda m: f"{m[2]} {m[1]}"),
        "binders": (r"(?<=[ ;])([a-z]+):(\S+) ([a-z]+):(?=\2[ .])", lambda m: f"{m[3]}:{m[2]} {m[1]}:"),
    },
    "mlir": {
        "literal": (r"(?<=dense<)([^>]+)(?=>)", lambda m: "1.250000e+00" if m[1] != "1.250000e+00" else "0.0"),
        "swap": (
            r"(stablehlo\.(?:subtract|divide|power|remainder|dot_general) )(%[\w#]+), (%[\w#]+)",
            lambda m: f"{m[1]}{m[3]}, {m[2]}",
        ),
        "op": (r"stablehlo\.(subtract|divide|tanh|exponential|multiply|maximum|minimum)\b", lambda m: "stablehlo.add"),
        "dtype": (r"(?<=x)f32(?=>)", lambda m: "f16"),
        "shape": (r"(?<=tensor<)4(?=x)", lambda m: "5"),
        "operands": (r"(%[\w#]+), (%[\w#]+)", lambda m: f"{m[2]}, {m[1]}"),
        "inits": (r"(%\w+ = )(%[\w#]+), (%\w+ = )(%[\w#]+)", lambda m: f"{m[1]}{m[4]}, {m[3]}{m[2]}"),
        "compare": (r"(?<=compare )(LT|GT)", lambda m: {"LT": "LE", "GT": "GE"}[m[1]]),
    },
    "hlo": {
        "literal": (r"(?<=constant\()([^)]+)(?=\))", lambda m: _other_value(m[1])),
        "swap": (
            r"((?:subtract|divide|power|remainder|dot)\()(%?[\w.\-]+), (%?[\w.\-]+)",
            lambda m: f"{m[1]}{m[3]}, {m[2]}",
        ),
        "op": (r"(?<= )(subtract|divide|tanh|exponential|multiply|maximum|minimum)(?=\()", lambda m: "add"),
        "dtype": (r"(?<= )f32(?=\[)", lambda m: "f16"),
        "shape": (r"(?<=f32\[)4(?=[,\]])", lambda m: "5"),
        "operands": (r"(?<=[(, ])(%?[\w.\-]+), (%?[\w.\-]+)(?=[,)])", lambda m: f"{m[2]}, {m[1]}"),
        "callees": (r"condition=(%?[\w.\-]+), body=(%?[\w.\-]+)", lambda m: f"condition={m[2]}, body={m[1]}"),
        "calls": (
            r"(?<=calls=)%[\w.\-]+",
            lambda m: "%fused_computation" if m[0] != "%fused_computation" else "%fused_computation.1",
        ),
        "parameter": (r"(?<=parameter\()\d+", lambda m: str(int(m[0]) ^ 1)),
        "gte": (r"(?<=, index=)(\d+)", lambda m: str(int(m[1]) ^ 1)),
        "trip": (r'(?<="n":")\d+', lambda m: str(int(m[0]) + 1)),
        "compare": (r"direction=(LT|GT)", lambda m: "direction=" + {"LT": "GE", "GT": "LE"}[m[1]]),
    },
}


def _changed_line(text: str, mutant: str) -> str:
    """The first line of ``mutant`` that differs from ``text``'s (a mutation changes one line)."""
    return next(b for a, b in zip(text.split("\n"), mutant.split("\n"), strict=True) if a != b)


# A line's tokens (names, opcodes, literals), and an instruction's or an eqn's definition of ``name``.
_TOKEN = re.compile(r"%?[\w.\-]+")
_COMMUTATIVE_ROOT = re.compile(r"  ROOT %\S+ = \S+ (?:add|multiply|and|or|xor)\((%\S+), (%\S+)\)$")


def _definition(lines: list[str], name: str) -> str | None:
    """What the nearest line of ``lines`` (the last) that defines ``name`` computes, without the name."""
    found = re.compile(rf"\s*(?:ROOT )?{re.escape(name)}(?::(\S+))? = (.*)$")
    return next((f"{m[1]} {m[2]}" for line in reversed(lines) if (m := found.match(line))), None)


def _swaps_one_value(text: str, mutant: str) -> bool:
    """Whether ``mutant`` swaps two operands that are one value, which is no edit: two definitions alike but
    for their names (the constant 0 defined twice), or the two operands of a fusion whose computation is one
    commutative op of its two parameters (XLA's ``wrapped_add``)."""
    lines = text.split("\n")
    at, changed = next((k, b) for k, (a, b) in enumerate(zip(lines, mutant.split("\n"), strict=True)) if a != b)
    pairs = [(a, b) for a, b in zip(_TOKEN.findall(lines[at]), _TOKEN.findall(changed), strict=False) if a != b]
    if len(pairs) != 2:
        return False
    defined = [_definition(lines[:at], name) for name in pairs[0]]
    if defined[0] is not None and defined[0] == defined[1]:
        return True
    callee = re.search(r" fusion\(.*, calls=(%[\w.\-]+)", changed)
    if callee is None:
        return False
    start = lines.index(next(line for line in lines if line.startswith(f"{callee[1]} (")))
    body = lines[start + 1 : lines.index("}", start)]
    roots = [m for line in body if (m := _COMMUTATIVE_ROOT.match(line))]
    parameters = [line for line in body if " parameter(" in line]
    return len(body) == 3 and len(roots) == 1 and len(parameters) == 2


def _mutants(text: str, pattern: str, rewrite: Callable[[re.Match[str]], str]) -> Iterator[str]:
    for match in re.finditer(pattern, text, re.MULTILINE):
        mutant = text[: match.start()] + rewrite(match) + text[match.end() :]
        if mutant != text:
            yield mutant


@pytest.mark.parametrize("stage", ["jaxpr", "mlir", "lowered", "hlo"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_every_single_edit_compares_unequal(texts: dict[tuple[str, str], str], program: str, stage: str) -> None:
    text, dialect = texts[program, stage], "hlo" if stage == "lowered" else stage
    tried, equal, lost = 0, [], []
    commutative = ORDERS[dialect].commutative
    for kind, (pattern, rewrite) in MUTATIONS[dialect].items():
        for mutant in _mutants(text, pattern, rewrite):
            tried += 1
            changed = _changed_line(text, mutant)
            if kind == "operands" and (
                (commutative is not None and commutative.match(changed)) or _swaps_one_value(text, mutant)
            ):
                assert equivalent(dialect, text, mutant)  # ``a + b`` -> ``b + a``: no edit of the program
                continue
            if equivalent(dialect, text, mutant) or equivalent(dialect, mutant, text):
                equal.append(
                    (
                        kind,
                        next(
                            a + " -> " + b for a, b in zip(text.split("\n"), mutant.split("\n"), strict=True) if a != b
                        ),
                    )
                )
            if not equivalent(
                dialect, mutant, keep_names(dialect, text, mutant)
            ):  # an update writes the staged program
                lost.append(kind)
    assert tried > 5
    assert (equal, lost) == ([], [])


def _permute_percent_names(text: str, seed: int) -> str:
    """``text`` with its ``%`` names (and a compiled header's bare parameters) permuted: a consistent renaming."""
    names = sorted(set(re.findall(r"%([\w.\-]+)", text)))
    shuffled = names[:]
    random.Random(seed).shuffle(shuffled)
    mapping = dict(zip(names, shuffled, strict=True))
    renamed = re.sub(r"%([\w.\-]+)", lambda m: "%" + mapping[m[1]], text)
    return re.sub(r"(?<=[(, ])([\w.\-]+)(?=: )", lambda m: mapping.get(m[1], m[1]), renamed)


def _permute_bare_names(text: str, seed: int) -> str:
    """Lowered HLO with the names it defines (left of `` = ``, a computation's header) permuted."""
    found = re.finditer(r"^(?:ENTRY )?([\w.\-]+) \{$|^ +(?:ROOT )?([\w.\-]+) = ", text, re.MULTILINE)
    names = sorted({match[1] or match[2] for match in found})
    shuffled = names[:]
    random.Random(seed).shuffle(shuffled)
    mapping = dict(zip(names, shuffled, strict=True))
    return re.sub(r"(?<![\w.\-])[A-Za-z_][\w.\-]*", lambda m: mapping.get(m[0], m[0]), text)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_a_consistent_renaming_compares_equal(texts: dict[tuple[str, str], str], program: str, seed: int) -> None:
    for stage, dialect, rename in [
        ("mlir", "mlir", _permute_percent_names),
        ("hlo", "hlo", _permute_percent_names),
        ("lowered", "hlo", _permute_bare_names),
    ]:
        text = texts[program, stage]
        renamed = rename(text, seed)
        assert renamed != text
        assert equivalent(dialect, text, renamed)
    with _permuted_jaxpr_names(seed):
        renamed = normalize_jaxpr(str(jax.make_jaxpr(PROGRAMS[program])(*ARGS)))
    assert renamed != texts[program, "jaxpr"]
    assert equivalent("jaxpr", texts[program, "jaxpr"], renamed)


def _long(x: jax.Array) -> jax.Array:
    """Enough variables that JAX names some ``inf`` and ``nan`` (the 5752nd and the 8802nd), next to
    the literals ``-inf:f32[]``, ``nan:f32[]`` and ``inf:f32[]``."""
    for _ in range(4401):
        x = jnp.sin(x) * 2.0
    return jnp.maximum(x, -jnp.inf) + jnp.where(x > 0, x, jnp.nan) + jnp.minimum(x, jnp.inf)


def test_special_float_literals_are_values_and_variables_so_named_are_names() -> None:
    text = normalize_jaxpr(str(jax.make_jaxpr(_long)(jnp.ones(3))))
    assert re.search(r"^ +inf:f32\[3\] = ", text, re.MULTILINE) and re.search(r"^ +nan:f32\[3\] = ", text, re.MULTILINE)
    for literal in (r" = max [a-z]+ -inf:f32\[\]$", r" [a-z]+ nan:f32\[\]$", r" = min [a-z]+ inf:f32\[\]$"):
        assert re.search(literal, text, re.MULTILINE)
    for old, new in [("-inf:f32[]", "-nan:f32[]"), ("-inf:f32[]", "inf:f32[]"), ("nan:f32[]\n", "inf:f32[]\n")]:
        mutant = text.replace(old, new, 1)
        assert mutant != text
        assert not equivalent("jaxpr", text, mutant)
    with _permuted_jaxpr_names(3):
        renamed = normalize_jaxpr(str(jax.make_jaxpr(_long)(jnp.ones(3))))
    assert renamed != text
    assert equivalent("jaxpr", text, renamed)


def test_pure_literal_edits_on_jaxpr_lines() -> None:
    """The shapes JAX prints a special float in: after an op, after a call's parameters, as an output."""
    for old, new in [
        ("eq -inf:f32[] a", "eq -nan:f32[] a"),
        ("    b:f32[] = max a inf:f32[]", "    b:f32[] = max a nan:f32[]"),
        ("    ] c a nan:f32[]", "    ] c a inf:f32[]"),
        ("  in (nan:f32[],) }", "  in (inf:f32[],) }"),
    ]:
        assert not equivalent("jaxpr", old, new)
    binders = "{ lambda ; a:f32[]. let\n    inf:f32[] nan:f32[] = f a\n    b:f32[] = max inf nan\n  in (b,) }"
    assert equivalent("jaxpr", binders, binders.replace("inf", "c").replace("nan", "d"))


def _clip_old(x: jax.Array) -> jax.Array:
    return jnp.minimum(jnp.maximum(x, -jnp.inf), jnp.nan)


def _clip_new(x: jax.Array) -> jax.Array:
    return jnp.minimum(jnp.maximum(x, jnp.nan), -jnp.inf)


def test_an_update_keeps_the_new_special_floats() -> None:
    """Name keeping maps the staged text's names to the snapshot's: a literal is no name to map."""
    old, new = (normalize_jaxpr(str(jax.make_jaxpr(fn)(jnp.ones(3)))) for fn in (_clip_old, _clip_new))
    assert "-inf:f32[]" in old and "nan:f32[]" in new
    assert keep_names("jaxpr", old, new) == new
    assert not equivalent("jaxpr", old, new)


def _first_then(x: jax.Array, w: jax.Array) -> jax.Array:
    a = jnp.tanh(x @ w)
    b = jnp.exp(w - 1.0)
    return a / b


def _second_then(x: jax.Array, w: jax.Array) -> jax.Array:
    b = jnp.exp(w - 1.0)
    a = jnp.tanh(x @ w)
    return a / b


@pytest.mark.parametrize("dialect", ["jaxpr", "mlir", "hlo"])
def test_independent_operations_in_another_order_compare_equal_and_no_edit_of_them_does(dialect: str) -> None:
    first, second = _texts(_first_then)[dialect], _texts(_second_then)[dialect].replace("_second_then", "_first_then")
    assert equivalent(dialect, first, second)
    commutative = ORDERS[dialect].commutative
    assert commutative is not None
    mutants = [
        mutant
        for kind, (pattern, rewrite) in MUTATIONS[dialect].items()
        for mutant in _mutants(second, pattern, rewrite)
        # two operands of ``a + b`` swapped are no edit
        if kind != "operands" or not commutative.match(_changed_line(second, mutant))
    ]
    assert len(mutants) > 5
    assert not any(equivalent(dialect, first, mutant) for mutant in mutants)  # reordered and edited: unequal


def _two_constants(x: jax.Array, w: jax.Array, v: jax.Array) -> jax.Array:
    return jax.lax.fori_loop(0, 5, lambda i, c: jnp.sin(c) * w - v, x)


def _in_body(text: str, edit: Callable[[str], str]) -> str:
    """``text`` with ``edit`` applied to the loop body's computation only (``%region_0.2``)."""
    start = text.index("%region_0.2 (")
    end = text.index("\n}\n", start)
    return text[:start] + edit(text[start:end]) + text[end:]


def _swap_indexes(block: str) -> str:
    return re.sub(r"index=([23])\b", lambda m: "index=" + ("3" if m[1] == "2" else "2"), block)


def test_a_loop_state_permuted_in_some_places_only_compares_unequal() -> None:
    """Loop state compares up to a permutation applied at every place that reads it by position: one
    applied at only some of them (the loop's operands but not its body's binders, the tuple built
    but not the indexes read) swaps the two constants' roles, and is a drift."""
    args = (jnp.ones((4, 4)), jnp.ones((4, 4)), jnp.ones((4, 4)))
    jaxpr = normalize_jaxpr(str(jax.make_jaxpr(_two_constants)(*args)))
    in_jaxpr = [
        ("] b c 0:i32[] a", "] c b 0:i32[] a"),
        ("{ lambda ; e:f32[4,4] f:f32[4,4] g", "{ lambda ; f:f32[4,4] e:f32[4,4] g"),
    ]
    assert all(old in jaxpr for old, _ in in_jaxpr)
    for old, new in in_jaxpr:
        assert not equivalent("jaxpr", jaxpr, jaxpr.replace(old, new))
    assert equivalent("jaxpr", jaxpr, jaxpr.replace(*in_jaxpr[0]).replace(*in_jaxpr[1]))  # at every place: one program

    compiled = normalize_hlo(jax.jit(_two_constants).lower(*args).compile().as_text())
    places: list[Callable[[str], str]] = [
        lambda t: t.replace("tuple(%copy.7, %copy.6, %w.1, %v.1)", "tuple(%copy.7, %copy.6, %v.1, %w.1)"),
        lambda t: _in_body(t, _swap_indexes),
        lambda t: _in_body(
            t,
            lambda b: b.replace(
                "%get-tuple-element.18, %get-tuple-element.19)", "%get-tuple-element.19, %get-tuple-element.18)"
            ),
        ),
    ]
    for some in itertools.chain(itertools.combinations(places, 1), itertools.combinations(places, 2)):
        mutant = functools.reduce(lambda text, place: place(text), some, compiled)
        assert mutant != compiled
        assert not equivalent("hlo", compiled, mutant)


SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
_SUFFIXES = {".jaxpr.txt": "jaxpr", ".stablehlo.mlir": "mlir", ".hlo.txt": "hlo"}
# Swapping the initial values of two loop-state positions that nothing reads (XLA's TPU loop keeps
# two s32 constants it only passes through) gives the same program: equal is the right answer.
_DEAD_STATE = re.compile(r"tuple\(%copy\.\d+, %custom-call, .*%constant\.\d+, %constant\.\d+\)$")


def _computation(lines: list[str], name: str) -> str | None:
    """A computation of compiled HLO, its own name left out: its header's rest and its body; None if none."""
    start = next((k for k, line in enumerate(lines) if line.startswith(f"{name} (")), None)
    if start is None:
        return None
    return "\n".join([lines[start][len(name) :], *lines[start + 1 : lines.index("}", start)]])


def _same_callee(text: str, mutant: str) -> bool:
    """Whether a ``calls=`` mutant calls a computation that is the one it called up to names (XLA fused two
    dots alike): the same program. Equal is the right answer; the compare finds it where the two fusions'
    operands, put in order by their hashes, keep their order, which depends on the hash seed."""
    lines = text.split("\n")
    at = next(k for k, (a, b) in enumerate(zip(lines, mutant.split("\n"), strict=True)) if a != b)
    old, new = (re.search(r"calls=(%[\w.\-]+)", line) for line in (lines[at], mutant.split("\n")[at]))
    if old is None or new is None:
        return False
    called, calling = _computation(lines, old[1]), _computation(lines, new[1])
    return called is not None and calling is not None and equivalent("hlo", called, calling)


def one_site_edits(folder: Path) -> Iterator[tuple[Path, str, str, str, str]]:
    """Each stage text of a committed snapshot folder with each mutation at its first, middle and last
    site: its path, dialect, mutation kind, text and mutant."""
    for path in sorted(folder.iterdir()):
        dialect = next((d for suffix, d in _SUFFIXES.items() if path.name.endswith(suffix)), None)
        if dialect is None:
            continue
        text = path.read_text(encoding="utf-8")
        for kind, (pattern, rewrite) in MUTATIONS[dialect].items():
            mutants = list(_mutants(text, pattern, rewrite))
            for mutant in {mutants[k] for k in (0, len(mutants) // 2, -1)} if mutants else ():
                yield path, dialect, kind, text, mutant


@pytest.mark.parametrize(
    "folder", sorted({p.parent for p in SNAPSHOTS.rglob("*.jaxpr.txt")}), ids=lambda p: str(p.relative_to(SNAPSHOTS))
)
def test_edits_of_the_committed_snapshots_compare_unequal(folder: Path) -> None:
    """The committed snapshots (CPU, sharded over 8 devices, TPU): each mutation at its first, middle and
    last site."""
    for path, dialect, kind, text, mutant in one_site_edits(folder):
        changed = _changed_line(text, mutant)
        commuted = kind == "operands" and (
            ORDERS[dialect].commutative.match(changed)  # type: ignore[union-attr]
            or _swaps_one_value(text, mutant)
        )
        same = _DEAD_STATE.search(changed) or (kind == "calls" and _same_callee(text, mutant))
        assert bool(commuted) == equivalent(dialect, text, mutant) or same, (path.name, kind, changed)
