"""Property-based tests: the name sanitizer and the normalizers never raise and stay stable."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_stages.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.storage import MAX_COMPONENT, safe_component

HLO_PIECES = st.sampled_from([
    "  %a.1 = f32[8]{0} add(%p, %q)", ", metadata={op_name=\"x{y}\" stack_frame_id=3}", "FileNames",
    "StackFrames", "1 {file_location_id=1 parent_frame_id=1}", "", "}", " loc(#loc3)", "#loc3 = loc(\"f\")",
    "\"", "{", "(", ")", "ENTRY %main (p: f32[8]) -> f32[8] {",
])


@given(st.text())
def test_safe_component_is_a_single_safe_stable_component(name):
    safe = safe_component(name)
    assert safe == safe_component(name)
    assert safe and safe not in (".", "..") and "/" not in safe and "\x00" not in safe
    assert safe.isascii() and len(safe) <= MAX_COMPONENT


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
