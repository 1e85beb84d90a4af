"""ir.textdiff on small drifts of real-looking programs: which lines a renumbering leaves unchanged, and
where an op that was added, removed or now reads another value shows.

Each test is one drift with its exact rows ``(tag, old line, new line)`` (unchanged runs left out,
0-based): the diff a reader sees is those rows.
"""

from __future__ import annotations

from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.textdiff import edit_script


def program(dialect: str | None, ops: str) -> str:
    """A chain of scalar ops in ``dialect``'s text, numbered as JAX and XLA number them: each op of
    ``ops`` (``"add multiply:2"``) reads the program's argument and, with ``:k``, the value k ops back.
    Plain text (``None``) is the ops' words one per line."""
    steps = [(op, int(back or 0)) for op, _, back in (word.partition(":") for word in ops.split())]
    if dialect is None:
        return "".join(f"{word}\n" for word in ops.split())
    if dialect == "hlo":
        lines = ["HloModule m", "", "ENTRY %main (p: f32[]) -> f32[] {", "  %p = f32[] parameter(0)"]
        names = ["%p"]
        for k, (op, back) in enumerate(steps, 1):
            lines.append(f"  %{op}.{k} = f32[] {op}({names[-back] if back else '%p'}, %p)")
            names.append(f"%{op}.{k}")
        return "\n".join([*lines, f"  ROOT %copy.{len(steps) + 1} = f32[] copy({names[-1]})", "}"]) + "\n"
    if dialect == "mlir":
        lines = ["module @m {", "  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {"]
        for k, (op, back) in enumerate(steps):
            lines.append(f"    %{k} = stablehlo.{op} {f'%{k - back}' if back else '%arg0'}, %arg0 : tensor<f32>")
        return "\n".join([*lines, f"    return %{len(steps) - 1} : tensor<f32>", "  }", "}"]) + "\n"
    names = "abcdefghijklmnopqrstuvwxyz"
    lines = ["{ lambda ; a:f32[]. let"]
    for k, (op, back) in enumerate(steps, 1):
        lines.append(f"    {names[k]}:f32[] = {op} {names[k - back] if back else 'a'} a")
    return "\n".join([*lines, f"  in ({names[len(steps)]},) }}"]) + "\n"


def rows(dialect: str | None, old: str, new: str) -> list[tuple[str, int | None, int | None, int]]:
    return [(row.tag, row.old, row.new, row.count) for row in edit_script(dialect, old, new).rows]


def changed_rows(dialect: str | None, old: str, new: str) -> list[tuple[str, int | None, int | None]]:
    return [(row.tag, row.old, row.new) for row in edit_script(dialect, old, new).rows if row.tag != "="]


def entry(number: int, root_reads: int, *, percent: bool = True) -> str:
    """A compiled (``percent``) or lowered HLO module of two chained negates and an add, its names
    numbered from ``number``; the add reads negate ``root_reads`` (1 or 2)."""
    p = "%" if percent else ""
    n = number
    lines = [
        "HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}",
        "",
        f"ENTRY {p}main.{n + 4} (p.{n}: f32[8]) -> f32[8] {{" if percent else f"ENTRY main.{n + 4} {{",
        f"  {p}p.{n} = f32[8]{{0}} parameter(0)",
        f"  {p}negate.{n + 1} = f32[8]{{0}} negate({p}p.{n})",
        f"  {p}negate.{n + 2} = f32[8]{{0}} negate({p}negate.{n + 1})",
        f"  ROOT {p}add.{n + 3} = f32[8]{{0}} add({p}negate.{n + root_reads}, {p}p.{n})",
        "}",
    ]
    return "\n".join(lines) + "\n"


def test_a_renumbered_hlo_module_whose_root_reads_another_value_changes_the_root_only():
    """Every name renumbered, and the add now reads the first negate: the header (its parameters
    renamed too) and the other lines are unchanged; only the root line is shown."""
    assert changed_rows("hlo", entry(1, 2), entry(1, 2)) == []
    assert changed_rows("hlo", entry(1, 2), entry(2, 2)) == []
    # the two leading lines are equal as text, the next four under the renaming
    assert rows("hlo", entry(1, 2), entry(2, 1)) == [("=", 0, 0, 2), ("=", 2, 2, 4), ("~", 6, 6, 1), ("=", 7, 7, 1)]


def test_a_renumbered_lowered_hlo_module_is_renamed_by_its_bare_names():
    """Lowered HLO writes names without ``%`` (``negate.2 = f32[8]{0} negate(p.1)``): those are
    renamed as well, so a renumbering alone is no change there either."""
    assert changed_rows("hlo", entry(1, 2, percent=False), entry(2, 2, percent=False)) == []
    assert changed_rows("hlo", entry(1, 2, percent=False), entry(2, 1, percent=False)) == [("~", 6, 6)]
    diff = unified(edit_script("hlo", entry(1, 2, percent=False), entry(2, 1, percent=False)), 20)
    assert diff[-3:] == [
        "-  ROOT add.4 = f32[8]{0} add(negate.3, p.1)",
        "+  ROOT add.5 = f32[8]{0} add(negate.3, p.2)",
        " }",
    ]


def test_program_renders_the_texts_the_tests_read():
    """What the helper above prints, in each dialect (the tests below read these shapes)."""
    assert program("hlo", "add multiply:1").splitlines()[4:6] == [
        "  %add.1 = f32[] add(%p, %p)",
        "  %multiply.2 = f32[] multiply(%add.1, %p)",
    ]
    assert program("mlir", "add multiply:1").splitlines()[2:5] == [
        "    %0 = stablehlo.add %arg0, %arg0 : tensor<f32>",
        "    %1 = stablehlo.multiply %0, %arg0 : tensor<f32>",
        "    return %1 : tensor<f32>",
    ]
    assert program("jaxpr", "add multiply:1") == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = add a a\n    c:f32[] = multiply b a\n  in (c,) }\n"
    )
    assert program(None, "add multiply:1") == "add\nmultiply:1\n"


def test_an_op_replaced_by_one_that_reads_another_value_and_the_root_reading_its_name():
    """``%add.1`` becomes ``%tanh.1`` and the old ``%add.2`` goes; the new ``%add.2`` is the old
    ``%add.1``: the root still copies ``%add.2``, now another value, so it is shown changed."""
    old, new = program("hlo", "add add:1"), program("hlo", "tanh add")
    assert old.splitlines()[6] == new.splitlines()[6] == "  ROOT %copy.3 = f32[] copy(%add.2)"
    assert rows("hlo", old, new) == [
        ("=", 0, 0, 4),
        ("+", None, 4, 1),
        ("=", 4, 5, 1),
        ("-", 5, None, 1),
        ("~", 6, 6, 1),
        ("=", 7, 7, 1),
    ]


def test_two_ops_removed_before_the_last_one_which_now_reads_another_value():
    """Removing ``%2`` and ``%3`` renumbers ``%4`` to ``%2``; it read ``%3`` and now reads ``%1``:
    two removed rows and one changed, the return of the renumbered result unchanged."""
    old = program("mlir", "add multiply:2 multiply:2 negate:1 multiply:1")
    new = program("mlir", "add multiply:2 multiply:1")
    assert rows("mlir", old, new) == [
        ("=", 0, 0, 4),
        ("-", 4, None, 1),
        ("-", 5, None, 1),
        ("~", 6, 4, 1),
        ("=", 7, 5, 1),
        ("=", 8, 6, 2),
    ]


def test_two_jaxpr_ops_inserted_before_the_result_are_two_added_rows():
    """The variables after the insert are renamed (``c`` -> ``e``): the rest is unchanged."""
    old, new = program("jaxpr", "exp multiply"), program("jaxpr", "exp multiply:1 multiply multiply")
    assert rows("jaxpr", old, new) == [("=", 0, 0, 2), ("+", None, 2, 1), ("+", None, 3, 1), ("=", 2, 4, 2)]


def test_two_jaxpr_ops_exchanged_and_the_last_changed():
    """``b = multiply`` and ``c = add`` change places, ``d = add c a`` becomes ``d = exp c a``: the
    multiply stays where both sides have it, the result line names another value."""
    old, new = program("jaxpr", "multiply add add:1"), program("jaxpr", "add multiply exp:1")
    assert rows("jaxpr", old, new) == [
        ("=", 0, 0, 1),
        ("+", None, 1, 1),
        ("=", 1, 2, 1),
        ("-", 2, None, 1),
        ("-", 3, None, 1),
        ("+", None, 3, 1),
        ("~", 4, 4, 1),
    ]


def test_a_json_line_that_became_two_is_removed_and_both_added():
    """Plain text (an analysis' JSON) has no names: an uneven change is its removed and added lines."""
    old, new = '{\n  "a": 1\n}\n', '{\n  "a": 2,\n  "b": 3\n}\n'
    assert rows(None, old, new) == [
        ("=", 0, 0, 1),
        ("-", 1, None, 1),
        ("+", None, 1, 1),
        ("+", None, 2, 1),
        ("=", 2, 3, 1),
    ]
    assert rows(None, "\n", "a\nb\n") == [("-", 0, None, 1), ("+", None, 0, 1), ("+", None, 1, 1)]


def test_a_plain_text_line_changed_in_place_is_one_changed_row():
    assert rows(None, "a\nb\n", "a\nc\n") == [("=", 0, 0, 1), ("~", 1, 1, 1)]


def test_an_op_replaced_by_one_that_defines_nothing_leaves_its_readers_changed():
    """The negate becomes a custom call with no result: its name is gone, so the return that read it
    is changed even though its text is the same."""
    old = program("mlir", "add negate:1")
    new = old.replace(
        "    %1 = stablehlo.negate %0, %arg0 : tensor<f32>", "    stablehlo.custom_call @log(%0) : (tensor<f32>) -> ()"
    )
    assert old.splitlines()[4] == new.splitlines()[4] == "    return %1 : tensor<f32>"
    assert rows("mlir", old, new) == [("=", 0, 0, 3), ("~", 3, 3, 1), ("~", 4, 4, 1), ("=", 5, 5, 2)]


def test_a_mesh_axis_is_part_of_the_op_not_a_name():
    """``f32[8@data]``: ``data`` is a mesh axis, never renamed. An op moved to another axis is another
    op: it is not paired with its old self, and a jaxpr with such words is aligned without error."""
    old = "{ lambda ; a:f32[8@data]. let\n    b:f32[8@data] = sin a\n    c:f32[8@data] = cos b\n  in (c,) }\n"
    new = "{ lambda ; a:f32[8@data]. let\n    b:f32[8@model] = cos a\n  in (b,) }\n"
    assert rows("jaxpr", old, new) == [
        ("=", 0, 0, 1),
        ("-", 1, None, 1),
        ("-", 2, None, 1),
        ("+", None, 1, 1),
        ("~", 3, 2, 1),
    ]


def constants(*values: int) -> str:
    lines = ["HloModule m", "", "ENTRY %main () -> f32[] {"]
    lines += [f"  %constant.{k} = f32[] constant({value})" for k, value in enumerate(values, 1)]
    return "\n".join([*lines, "}"]) + "\n"


def test_a_constant_removed_among_look_alikes_is_the_one_shown_removed():
    """Without digits the constants' lines are all alike, so pairing from the end puts ``constant(2)``
    beside ``constant(1)``; a changed line whose canonical form differs puts that pairing in doubt,
    and the lines are aligned again on the canonical form: the first constant changed (7 -> 8), the
    ``constant(2)`` removed, the others unchanged."""
    assert rows("hlo", constants(7, 1, 2, 3), constants(8, 1, 3)) == [
        ("=", 0, 0, 3),
        ("~", 3, 3, 1),
        ("=", 4, 4, 1),
        ("-", 5, None, 1),
        ("=", 6, 5, 1),
        ("=", 7, 6, 1),
    ]


def test_a_jaxpr_output_no_longer_read_is_the_same_op_with_its_name_dropped():
    """JAX prints an output nothing reads as ``_``: ``b:f32[] = sin a`` -> ``_:f32[] = sin a`` is the
    sin changed in place (its name gone), beside the exp added before it."""
    old = "{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n  in (c,) }\n"
    new = "{ lambda ; a:f32[]. let\n    b:f32[] = exp a\n    _:f32[] = sin a\n    c:f32[] = cos a\n  in (c,) }\n"
    assert rows("jaxpr", old, new) == [("=", 0, 0, 1), ("+", None, 1, 1), ("~", 1, 2, 1), ("=", 2, 3, 2)]
