"""Property-based tests: the name sanitizer, the normalizers, the renumbering-proof diff, and the snapshot schemas."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.store.names import MAX_COMPONENT, is_safe_component, safe_component
from pytest_stages.store.schemas import ANY, SCHEMAS, _mismatch, mismatch

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


# What a hand edit may put anywhere in a snapshot file: a value of another kind.
OTHER = st.sampled_from([None, True, False, 0, 1.5, "x", [], {}, [True], {"op": None}])
SCALARS = {int: st.integers(), float: st.floats(allow_nan=False), str: st.just("x"), bool: st.booleans()}


def shaped(schema: Any) -> st.SearchStrategy[Any]:
    """Data of ``schema``'s shape, any part of it possibly replaced by other JSON (a hand edit)."""
    if schema is ANY:
        return OTHER
    if isinstance(schema, list):
        fitting = st.lists(shaped(schema[0]), max_size=3)
    elif isinstance(schema, dict):
        named = {key: shaped(part) for key, part in schema.items() if key != "*"}
        others = (
            st.dictionaries(st.sampled_from(["a", "b"]), shaped(schema["*"]), max_size=2)
            if "*" in schema
            else st.just({})
        )
        fitting = st.builds(lambda fixed, rest: {**rest, **fixed}, st.fixed_dictionaries({}, optional=named), others)
    elif isinstance(schema, tuple) and not isinstance(schema[-1], type):
        fitting = st.none() | shaped(schema[-1])
    else:
        kinds = schema if isinstance(schema, tuple) else (schema,)
        fitting = st.one_of([SCALARS[kind] if kind in SCALARS else st.none() for kind in kinds])
    return fitting | OTHER


def parts(schema: Any) -> list[Any]:
    """``schema`` and every schema inside it (each is judged on its own too: a deep one is seldom reached)."""
    inner = schema[:1] if isinstance(schema, list) else list(schema.values()) if isinstance(schema, dict) else []
    if isinstance(schema, tuple) and not isinstance(schema[-1], type):
        inner = [schema[-1]]
    return [schema, *(part for child in inner for part in parts(child))]


SCHEMA_PARTS = [part for suffix in sorted(SCHEMAS) for part in parts(SCHEMAS[suffix]) if part is not ANY]


@settings(max_examples=400)
@given(st.sampled_from(SCHEMA_PARTS).flatmap(lambda schema: st.tuples(st.just(schema), shaped(schema))))
def test_a_snapshot_is_refused_exactly_where_the_walk_names_a_place(case):
    """The quick judgement of a snapshot's shape (no message made) agrees with the walk that names the place."""
    schema, data = case
    assert mismatch(data, schema, "the file") == _mismatch(data, schema, "the file")
