"""Property-based tests: the name sanitizer, the normalizers, and the renumbering-proof diff."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.store.names import MAX_COMPONENT, is_safe_component, safe_component

HLO_PIECES = st.sampled_from(
    [
        "  %a.1 = f32[8]{0} add(%p, %q)",
        ', metadata={op_name="x{y}" stack_frame_id=3}',
        "FileNames",
        "StackFrames",
        "1 {file_location_id=1 parent_frame_id=1}",
        "",
        "}",
        " loc(#loc3)",
        '#loc3 = loc("f")',
        '"',
        "{",
        "(",
        ")",
        "ENTRY %main (p: f32[8]) -> f32[8] {",
    ]
)


@given(st.text())
def test_safe_component_is_a_single_safe_stable_component(name):
    safe = safe_component(name)
    assert safe == safe_component(name)
    assert safe and safe not in (".", "..") and "/" not in safe and "\x00" not in safe
    assert safe.isascii() and len(safe) <= MAX_COMPONENT
    assert is_safe_component(safe), "the prune knows every name the writer gives as its own"


@given(st.text(), st.text())
def test_distinct_names_get_distinct_components(first, second):
    if first != second:
        assert safe_component(first) != safe_component(second)


@settings(max_examples=300)
@given(st.one_of(st.text(), st.lists(HLO_PIECES).map("\n".join), st.lists(HLO_PIECES).map("".join)))
def test_normalizers_never_raise_and_are_idempotent(text):
    for normalize in (normalize_hlo, normalize_mlir, normalize_jaxpr):
        once = normalize(text)
        assert normalize(once) == once
        assert once == "" or once.endswith("\n")


OPS = st.sampled_from(["add", "multiply", "tanh", "sine"])


@st.composite
def hlo_programs(draw):
    """A straight-line HLO computation: each op reads two earlier values."""
    names = ["%x.1", "%y.2"]
    lines = [
        "ENTRY %main.9 (x.1: f32[8], y.2: f32[8]) -> f32[8] {",
        "  %x.1 = f32[8]{0} parameter(0)",
        "  %y.2 = f32[8]{0} parameter(1)",
    ]
    for k in range(draw(st.integers(1, 12))):
        op = draw(OPS)
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        name = f"%{op}.{k + 3}"
        lines.append(f"  {name} = f32[8]{{0}} {op}({a}, {b})")
        names.append(name)
    return "\n".join([*lines, "}"]) + "\n", names


@settings(max_examples=200)
@given(hlo_programs(), st.integers(1, 50), st.data())
def test_diffs_see_through_renumbering_but_not_rewiring(program, shift, data):
    text, names = program
    renumbered = re.sub(r"\.(\d+)\b", lambda m: f".{int(m[1]) + shift}", text)
    assert all(row.tag == "=" for row in edit_script("hlo", text, renumbered).rows)
    lines = text.splitlines()
    target = data.draw(st.integers(3, len(lines) - 2))
    operand = re.search(r"\((%[\w.]+),", lines[target])[1]
    other = data.draw(st.sampled_from([n for n in names[: target - 1] if n != operand] or [None]))
    if other is None:
        return
    lines[target] = lines[target].replace(f"({operand},", f"({other},")
    rewired = re.sub(r"\.(\d+)\b", lambda m: f".{int(m[1]) + shift}", "\n".join(lines) + "\n")
    changed = [row.old for row in edit_script("hlo", text, rewired).rows if row.tag != "="]
    assert changed == [target]
