"""Normalizers on real JAX output captured in-process: noise goes, the program stays."""

from __future__ import annotations

import itertools
import json

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.ir.normalize import (
    normalize_hlo,
    normalize_jaxpr,
    normalize_mlir,
    tidy_kept,
    to_json,
)


def model(x, w):
    return jax.nn.gelu(jnp.tanh(x @ w)).sum()


ARGS = (jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 4), jnp.float32))


@pytest.fixture(scope="module")
def lowered():
    return jax.jit(model).trace(*ARGS).lower()


def test_compiled_hlo_loses_stack_frame_tables_and_metadata(lowered):
    raw = lowered.compile().as_text()
    assert "StackFrames" in raw and "metadata={" in raw
    text = normalize_hlo(raw)
    for noise in (
        "FileNames",
        "FunctionNames",
        "FileLocations",
        "StackFrames",
        "metadata=",
        "stack_frame_id",
        __file__,
    ):
        assert noise not in text
    assert "ENTRY %main" in text and "tanh(" in text and "backend_config=" in text
    assert text.endswith("}\n") and "\n\n\n" not in text


def test_stablehlo_debug_locations_are_removed(lowered):
    raw = lowered.as_text(debug_info=True)
    assert "#loc" in raw and __file__ in raw
    text = normalize_mlir(raw)
    assert "loc(" not in text and "#loc" not in text
    assert text == normalize_mlir(lowered.as_text())


def test_hlo_dialect_text_is_normalized(lowered):
    text = normalize_hlo(lowered.as_text(dialect="hlo"))
    assert text.startswith("HloModule jit_model") and "metadata=" not in text


def test_jaxpr_object_addresses_are_masked():
    text = "b = custom_jvp_call[jvp=<function f at 0x7f3a2b1c0d30>] a\n"
    assert normalize_jaxpr(text) == "b = custom_jvp_call[jvp=<function f at 0x?>] a\n"


def test_real_jaxpr_passes_through_unchanged_but_tidied():
    jaxpr = str(jax.jit(model).trace(*ARGS).jaxpr)
    assert normalize_jaxpr(jaxpr) == jaxpr.rstrip() + "\n"


def test_metadata_with_braces_inside_strings_is_removed_whole():
    line = '  %a = f32[] add(%x, %y), metadata={op_name="jit(f)/{weird}" source_file="a.py"}, sharding={replicated}\n'
    assert normalize_hlo(line) == "  %a = f32[] add(%x, %y), sharding={replicated}\n"


def test_unbalanced_text_never_eats_the_next_line():
    text = '%a = add(), metadata={op_name="x\n%b = mul()\n'
    assert normalize_hlo(text) == text


@pytest.mark.parametrize("normalize", [normalize_hlo, normalize_mlir, normalize_jaxpr])
def test_normalizers_are_idempotent_on_real_output(normalize, lowered):
    for raw in (lowered.compile().as_text(), lowered.as_text(debug_info=True), str(jax.jit(model).trace(*ARGS).jaxpr)):
        once = normalize(raw)
        assert normalize(once) == once


def test_json_has_sorted_keys_and_a_trailing_newline():
    text = to_json({"b": 1, "a": {"d": 2, "c": 3}})
    assert text == '{\n  "a": {\n    "c": 3,\n    "d": 2\n  },\n  "b": 1\n}\n'
    assert json.loads(text) == {"a": {"c": 3, "d": 2}, "b": 1}


def test_tidy_keeps_what_a_line_by_line_fold_of_blank_lines_keeps():
    """Every arrangement of up to ten blank and non-blank lines, against the plain loop: the indexes and the text."""

    def folded(lines: list[str]) -> list[int]:
        kept, previous_blank = [], True
        for k, line in enumerate(lines):
            if line or not previous_blank:
                kept.append(k)
            previous_blank = not line
        while kept and not lines[kept[-1]]:
            kept.pop()
        return kept

    for size in range(11):
        for lines in itertools.product(("", "x"), repeat=size):
            kept = folded(list(lines))
            assert tidy_kept(list(lines)) == kept, lines
            assert normalize_jaxpr("".join(f"{line} \n" for line in lines)) == "".join(f"{lines[k]}\n" for k in kept), (
                lines
            )
