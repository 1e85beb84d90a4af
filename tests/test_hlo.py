"""The HLO parser on real JAX output (CPU, 8 devices) and on hand-written edge-case lines."""

from __future__ import annotations

import functools
from collections import Counter

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from pytest_stages.check.drift import compare_text
from pytest_stages.check.message import details
from pytest_stages.ir import frame_tables as debug_frames
from pytest_stages.ir import hlo, hlo_records
from pytest_stages.ir.normalize import normalize_hlo
from pytest_stages.ir.textdiff import edit_script

F32 = jnp.float32


def _donating(a, b):
    return a + 1, (b * 2, a.sum())


def _scaled(x):
    return jnp.sin(x) * 2.0


def _row_sums(x):
    return x.sum(axis=1)


@functools.cache
def _donating_text() -> str:
    jitted = jax.jit(_donating, donate_argnums=(0, 1))
    return jitted.trace(jax.ShapeDtypeStruct((4,), F32), jax.ShapeDtypeStruct((3,), F32)).lower().compile().as_text()


@functools.cache
def _sharded_text() -> str:
    """``_row_sums`` over a (4, 2) mesh: an all-reduce over "model", an all-gather of the replicated result."""
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    x = jax.ShapeDtypeStruct((64, 16), F32, sharding=NamedSharding(mesh, P("data", "model")))
    out = NamedSharding(mesh, P())
    return jax.jit(_row_sums, out_shardings=out).trace(x).lower().compile().as_text()


# Lines of real compiled modules (GPU and TPU snapshots under snapshots/), trimmed after the operands.
ASYNC_REDUCE_SCATTER = (
    "  %reduce-scatter-start = ((f32[16,256]{0,1}), f32[16,128]{0,1}) reduce-scatter-start(%gemm_fusion_dot.2),"
    " channel_id=10, replica_groups=[2,2]<=[4], use_global_device_ids=true, dimensions={1}, to_apply=%add.clone"
)
REDUCE_SCATTER_DONE = "  %reduce-scatter-done = f32[16,128]{0,1} reduce-scatter-done(%reduce-scatter-start)"
TPU_ALL_GATHER = (
    "  %all-gather.7 = bf16[16,256]{1,0:T(8,128)(2,1)S(1)} all-gather(%get-tuple-element.12), channel_id=1,"
    " replica_groups=[2,2]<=[4], dimensions={1}, use_global_device_ids=true"
)
TPU_MULTI_OUTPUT_FUSION = (
    "  %fusion.9 = (f32[128]{0:T(128)S(1)}, bf16[16,128]{1,0:T(8,128)(2,1)S(1)}) fusion(%copy-done.1,"
    " %get-tuple-element.4), kind=kOutput, calls=%fused_computation.9"
)
# An async all-gather whose operand part is a tuple and whose layouts carry TPU tiles:
# parentheses three deep.
TPU_ASYNC_ALL_GATHER = (
    "  %all-gather-start = ((f32[8]{0:T(128)}), f32[64]{0:T(128)}) all-gather-start(%p), dimensions={0}"
)


def test_a_compiled_module_gives_each_instruction_its_computation():
    text = _donating_text()
    parsed = list(hlo.instructions(text))
    header = next(hlo.parse_computation(line) for line in text.splitlines() if line.startswith("ENTRY "))
    entry = [i for i in parsed if i.entry]
    assert header.entry and {i.computation for i in entry} == {header.name}
    assert all(i.computation not in ("", header.name) for i in parsed if not i.entry)
    assert [i.shape for i in entry if i.opcode == "parameter"] == ["f32[4]", "f32[3]"]
    assert [(i.opcode, i.shape) for i in entry if i.root] == [("tuple", "(f32[4], f32[3], f32[])")]
    fusions = [i for i in parsed if i.opcode == "fusion"]
    assert fusions and all(i.entry and i.fusion_kind == "kLoop" for i in fusions)
    assert hlo.opcode_counts(text) == Counter(i.opcode for i in parsed)


def test_donated_inputs_show_in_the_aliasing_header():
    assert hlo.aliases(_donating_text()) == (
        hlo_records.Alias((0,), 0, "may-alias"),
        hlo_records.Alias((1,), 1, "may-alias"),
    )


def test_a_sharded_module_has_its_collectives_with_bytes():
    text = _sharded_text()
    assert hlo.collectives(text) == [
        hlo_records.Collective("all-reduce", "f32[16]", 64),
        hlo_records.Collective("all-gather", "f32[64]", 256),
    ]
    assert hlo.opcode_counts(text)["all-reduce"] == hlo.opcode_counts(text)["all-gather"] == 1
    assert hlo.count_opcode(text, "fusion") == hlo.opcode_counts(text)["fusion"]


def test_lowered_hlo_names_have_no_percent_sign():
    lowered = jax.jit(_scaled).trace(jax.ShapeDtypeStruct((8,), F32)).lower().as_text(dialect="hlo")
    parsed = list(hlo.instructions(lowered))
    assert parsed and not any(i.name.startswith("%") for i in parsed)
    assert [i.shape for i in parsed if i.entry and i.opcode == "parameter"] == ["f32[8]"]
    assert {"sine", "multiply"} <= {i.opcode for i in parsed}


def test_stack_frames_lead_back_to_the_traced_line():
    text = jax.jit(_scaled).trace(jax.ShapeDtypeStruct((8,), F32)).lower().compile().as_text()
    body, tables = hlo.split_tables(text.splitlines())
    table = debug_frames.StackFrames.parse(tables)
    assert not set(hlo.TABLES) & {line.strip() for line in body}
    sine = next(line for line in body if " sine(" in line)
    innermost = next(table.chain(debug_frames.stack_frame_id(sine)))
    assert innermost == debug_frames.Frame(__file__, _scaled.__code__.co_firstlineno + 1, "_scaled")
    assert debug_frames.stack_frame_id("  %p = f32[8]{0} parameter(0)") is None


def test_hand_written_stack_frames_follow_parents_and_stop_at_cycles():
    tables = {
        "FileNames": ['1 "/src/model.py"', '2 "/src/a \\"b\\".py"'],
        "FunctionNames": ['1 "layer"', '2 "main"'],
        "FileLocations": [
            "1 {file_name_id=1 function_name_id=1 line=7}",
            "2 {file_name_id=2 function_name_id=2 line=3}",
            "3 {file_name_id=1}",
        ],
        "StackFrames": [
            "1 {file_location_id=2 parent_frame_id=1}",
            "2 {file_location_id=1 parent_frame_id=2}",
            "3 {file_location_id=3 parent_frame_id=5}",
            "4 {file_location_id=1 parent_frame_id=4}",
        ],
    }
    table = debug_frames.StackFrames.parse(tables)
    # A parent is printed as its id + 1: frame 2 is called from frame 1; frames 3 and 4 call each other.
    assert list(table.chain(2)) == [
        debug_frames.Frame("/src/model.py", 7, "layer"),
        debug_frames.Frame('/src/a "b".py', 3, "main"),
    ]
    assert list(table.chain(3)) == [None, debug_frames.Frame("/src/model.py", 7, "layer")]
    assert list(table.chain(9)) == []
    line = '  %x = f32[] add(%a, %b), metadata={op_name="add" source_file="/src/m.py" source_line=12}'
    assert debug_frames.source_position(line) == debug_frames.Frame("/src/m.py", 12)
    assert debug_frames.stack_frame_id(line) is None


def test_tuple_shapes_at_any_depth_keep_their_opcode():
    nested = "  ROOT %w = ((s32[], f32[4]{0}), (f32[2,2]{1,0}, (pred[]))) while(%t), condition=%c, body=%b"
    instruction = hlo.parse_instruction(nested)
    assert instruction == hlo.Instruction(
        "%w", "((s32[], f32[4]), (f32[2,2], (pred[])))", "while", "%t), condition=%c, body=%b", root=True
    )
    assert hlo.shape_bytes(instruction.shape) == 4 + 16 + 16 + 1
    custom = hlo.parse_instruction('  %cc = (f32[2]{0}, s32[]) custom-call(%p), custom_call_target="foo"')
    assert (custom.shape, custom.custom_call_target, custom.fusion_kind) == ("(f32[2], s32[])", "foo", None)
    fusion = hlo.parse_instruction(TPU_MULTI_OUTPUT_FUSION)
    assert (fusion.shape, fusion.fusion_kind) == ("(f32[128], bf16[16,128])", "kOutput")


def test_async_collectives_count_once_with_what_they_produce():
    """The result in a start's tuple, as its ``-done`` returns it: the async form reads as the sync one."""
    text = "\n".join([ASYNC_REDUCE_SCATTER, REDUCE_SCATTER_DONE, TPU_ALL_GATHER, TPU_ASYNC_ALL_GATHER])
    assert hlo.collectives(text) == [
        hlo_records.Collective("reduce-scatter", "f32[16,128]", 16 * 128 * 4),
        hlo_records.Collective("all-gather", "bf16[16,256]", 16 * 256 * 2),
        hlo_records.Collective("all-gather", "f32[64]", 64 * 4),
    ]
    assert hlo.parse_instruction(REDUCE_SCATTER_DONE).collective is None
    assert hlo.parse_instruction(REDUCE_SCATTER_DONE).shape == "f32[16,128]"
    # A combined all-reduce's start has the shapes of its results, which are its operands' shapes.
    combined = hlo.parse_instruction(
        "  %all-reduce-start = (f32[8]{0}, f32[4]{0}) all-reduce-start(%a, %b), to_apply=%add"
    )
    assert combined.collective == hlo_records.Collective("all-reduce", "(f32[8], f32[4])", 8 * 4 + 4 * 4)


def test_tuple_elements_split_at_the_top_level_only():
    assert hlo.tuple_elements("((f32[8]), f32[4,2], u32[])") == ["(f32[8])", "f32[4,2]", "u32[]"]
    assert hlo.tuple_elements("(f32[2,3])") == ["f32[2,3]"]
    assert hlo.tuple_elements("()") == []


def test_the_drift_summary_reads_collectives_the_op_analysis_reads():
    before = "ENTRY %main (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0:T(128)} parameter(0)\n"
    after = before + TPU_ASYNC_ALL_GATHER + "\n" + TPU_ALL_GATHER + "\n"
    lines = details(compare_text("compiled", before + "}\n", after + "}\n", diff_lines=10))
    assert lines[1] == "    ops: +1 all-gather, +1 all-gather-start"
    assert lines[2] == ("    collectives: +1 all-gather bf16[16,256] (8.0 KiB), +1 all-gather f32[64] (256 B)")


def test_several_aliases_in_the_module_header():
    header = (
        "HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1, 2}: (3, {0}, must-alias), {}: (1, {}) },"
        " entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\nENTRY %main (p: f32[4]) -> f32[4] {\n"
    )
    assert hlo.aliases(header) == (
        hlo_records.Alias((0,), 0, "may-alias"),
        hlo_records.Alias((1, 2), 3, "must-alias"),
        hlo_records.Alias((), 1, ""),
    )
    assert hlo.aliases("HloModule m, entry_computation_layout={()->f32[]}\n") == ()


def test_lines_that_are_not_instructions():
    for line in (
        "HloModule jit_f, is_scheduled=true",
        "ENTRY %main.2 (a.1: f32[4]) -> f32[4] {",
        "region_0.1 {",
        "}",
        "",
        "FileNames",
        '1 "/src/model.py"',
        "1 {file_location_id=1 parent_frame_id=1}",
        "  %t = (f32[2]{0}, s32[] tuple(%a)",
        "  %x = f32[8]{0}",
    ):
        assert hlo.parse_instruction(line) is None, line


def test_every_line_break_splitlines_knows_ends_an_instruction_line_and_a_title_inside_a_table_is_a_row():
    text = _donating_text()
    for line_break in ("\r\n", "\r", "\x0b", "\u2028"):
        assert list(hlo.instructions(text.replace("\n", line_break))) == list(hlo.instructions(text))
    lines = ["FileNames", '1 "a.py"', "StackFrames", "2 b", "", "  ENTRY %m {", "StackFrames", "1 {x}"]
    rows = {"FileNames": ['1 "a.py"', "StackFrames", "2 b"], "StackFrames": ["1 {x}"]}
    assert hlo.split_tables(lines) == (["  ENTRY %m {"], rows)


def test_defined_names_of_instructions_and_headers():
    assert hlo.defined_names("  ROOT %constant.0.clone.1 = f32[] constant(0)") == ["%constant.0.clone.1"]
    assert hlo.defined_names("%add.clone (x.3: f32[], y.1: f32[]) -> f32[] {") == ["%add.clone", "x.3", "y.1"]
    assert hlo.defined_names("ENTRY main.2 {") == ["main.2"]
    assert hlo.parse_computation("ENTRY main.2 {") == hlo.Computation("main.2", True)
    assert hlo.defined_names("  }") == hlo.defined_names('1 "/src/model.py"') == []


def test_layouts_go_and_bytes_count_every_array():
    assert hlo.strip_layouts("(f32[8,16]{1,0:T(8,128)}, u32[]{:S(2)})") == "(f32[8,16], u32[])"
    assert hlo.shape_bytes("(bf16[8,8], pred[3], s4[3])") == 128 + 3 + 2
    assert hlo.shape_bytes("f8e4m3fn[4,<=8]") == 32


def test_normalizing_drops_the_tables_and_keeps_the_program():
    text = _donating_text()
    body, tables = hlo.split_tables(text.splitlines())
    assert set(tables) == set(hlo.TABLES)
    assert normalize_hlo(text) == normalize_hlo("\n".join(body))


def test_the_diff_sees_through_renumbered_clone_names():
    text = (
        "\n".join(
            [
                "%region_0.2.clone (x.3: f32[], y.1: f32[]) -> f32[] {",
                "  ROOT %add.1 = f32[] add(%x.3, %y.1)",
                "}",
                "ENTRY %main.2 (p.1: f32[8]) -> f32[] {",
                "  %p.1 = f32[8]{0} parameter(0)",
                "  %constant.0.clone.1 = f32[] constant(0)",
                "  ROOT %reduce.1 = f32[] reduce(%p.1, %constant.0.clone.1), "
                "dimensions={0}, to_apply=%region_0.2.clone",
                "}",
            ]
        )
        + "\n"
    )
    renumbered = text.replace("%region_0.2.clone", "%region_0.1.clone.1").replace(".0.clone.1", ".0.clone.4")
    assert {row.tag for row in edit_script("hlo", text, renumbered).rows} == {"="}
    rewired = renumbered.replace("reduce(%p.1, %constant.0.clone.4)", "reduce(%constant.0.clone.4, %p.1)")
    assert [row.tag for row in edit_script("hlo", text, rewired).rows if row.tag != "="] == ["~"]
