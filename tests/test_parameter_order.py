"""Compiled HLO's ``parameter(k)`` lines in another order: no change to the compare, no line to the update.

XLA's TPU scheduler places a computation's parameter lines anywhere before their first use, and a one-line
edit elsewhere (donating an argument, issue #67) moves dozens of them past the copies it schedules. The
texts below are written as the v5e sampler's entry computation prints (a parameter, its prefetch, the next
parameter); ``examples/field`` reproduces the real one (docs/field.md).
"""

from __future__ import annotations

from pytest_stages.ir.renaming import equivalent, keep_names

HEAD = """\
HloModule jit_decode, is_scheduled=true, entry_computation_layout={(f32[64]{0}, f32[64]{0}, s32[8]{0})->s32[8]{0}}

%fused_computation (param_0: f32[64], param_1: f32[64]) -> f32[64] {
  %param_0 = f32[64]{0} parameter(0)
  %param_1 = f32[64]{0} parameter(1)
  ROOT %add.1 = f32[64]{0} add(%param_0, %param_1)
}

ENTRY %main.9 (w.1: f32[64], v.1: f32[64], tokens.1: s32[8]) -> s32[8] {
"""
W, V, TOKENS = (
    "  %w.1 = f32[64]{0} parameter(0)",
    "  %v.1 = f32[64]{0} parameter(1)",
    "  %tokens.1 = s32[8]{0} parameter(2)",
)
PREFETCH = [
    "  %copy-start.1 = (f32[64]{0:S(1)}, f32[64]{0}, u32[]) copy-start(%w.1)",
    "  %copy-done.1 = f32[64]{0:S(1)} copy-done(%copy-start.1)",
]
BODY = [
    "  %add_fusion = f32[64]{0} fusion(%copy-done.1, %v.1), kind=kLoop, calls=%fused_computation",
    "  %convert.2 = s32[64]{0} convert(%add_fusion)",
    "  %slice.3 = s32[8]{0} slice(%convert.2), slice={[0:8]}",
    "  ROOT %add.4 = s32[8]{0} add(%slice.3, %tokens.1)",
]


def module(lines: list[str]) -> str:
    return HEAD + "\n".join(lines) + "\n}\n"


# As recorded: each parameter, then what reads it first.
OLD = module([W, PREFETCH[0], V, TOKENS, PREFETCH[1], *BODY])


def test_parameters_moved_past_a_prefetch_are_the_same_program():
    """The v5e reorder: a parameter moves past an asynchronous copy (a unit that keeps its place)."""
    moved = module([TOKENS, V, W, PREFETCH[0], PREFETCH[1], *BODY])
    assert equivalent("hlo", OLD, moved)
    assert keep_names("hlo", OLD, moved) == OLD  # the update writes nothing


def test_a_parameter_of_another_shape_or_number_is_a_change():
    """Only the place is free: a parameter's shape or number is the program."""
    assert not equivalent("hlo", OLD, OLD.replace("s32[8]{0} parameter(2)", "s32[16]{0} parameter(2)"))
    swapped = OLD.replace(W, W.replace("(0)", "(1)")).replace(V, V.replace("(1)", "(0)"))
    assert not equivalent("hlo", OLD, swapped)


def test_an_update_keeps_the_parameters_where_the_snapshot_has_them():
    """A real change (one more op) with the parameters reordered around it: the update writes the new op,
    each parameter where the snapshot had it, so the pull request shows the change alone."""
    changed = [*BODY[:2], "  %negate.5 = s32[64]{0} negate(%convert.2)", BODY[2].replace("%convert.2", "%negate.5")]
    new = module([TOKENS, V, W, PREFETCH[0], PREFETCH[1], *changed, BODY[3]])
    kept = keep_names("hlo", OLD, new)
    assert equivalent("hlo", kept, new)
    old_lines, kept_lines = OLD.split("\n"), kept.split("\n")
    assert [line for line in kept_lines if line not in old_lines] == [changed[2], changed[3]]
    assert [line for line in old_lines if line not in kept_lines] == [BODY[2]]
    assert kept_lines.index(W) < kept_lines.index(PREFETCH[0]) < kept_lines.index(V) < kept_lines.index(TOKENS)


def test_a_parameter_read_earlier_than_before_is_placed_before_that_read():
    """Where the new schedule reads a parameter before the line the snapshot had it above, it goes above its
    first read: the text stays one a reader follows top to bottom."""
    early = "  %copy-start.7 = (s32[8]{0:S(1)}, s32[8]{0}, u32[]) copy-start(%tokens.1)"
    new = module([W, early, PREFETCH[0], V, TOKENS, PREFETCH[1], *BODY])
    kept = keep_names("hlo", OLD, new).split("\n")
    assert kept.index(TOKENS) < kept.index(early)
