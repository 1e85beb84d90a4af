"""ir.textdiff on modules too long for difflib: a renumbering insert and a change far apart, each where it is.

A module of 1,050 repeated layers (2,100 lines a side, past ``SMALL`` = 4,000,000 line pairs) is
aligned at anchors (lines counted from the start and from the end); what differs is a few rows.
"""

from __future__ import annotations

from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.textdiff import BLOCK, SMALL, edit_script

LAYERS = 1050


def module(*, insert: int | None = None, change: int | None = None, drop: int | None = None) -> str:
    """``add`` then ``tanh`` per layer, chained; ``insert`` puts an unused ``negate`` before that layer
    (renumbering every later value), ``change`` makes its ``add`` a ``multiply``, ``drop`` removes its ``tanh``."""
    lines = ["func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {"]
    value, previous = 0, "%arg0"
    for layer in range(LAYERS):
        if layer == insert:
            lines.append(f"  %{value} = stablehlo.negate %arg0 : tensor<8xf32>")
            value += 1
        op = "multiply" if layer == change else "add"
        lines.append(f"  %{value} = stablehlo.{op} {previous}, %arg0 : tensor<8xf32>")
        if layer == drop:
            previous, value = f"%{value}", value + 1
            continue
        lines.append(f"  %{value + 1} = stablehlo.tanh %{value} : tensor<8xf32>")
        previous, value = f"%{value + 1}", value + 2
    lines += [f"  return {previous} : tensor<8xf32>", "}"]
    return "\n".join(lines) + "\n"


def changed_rows(old: str, new: str) -> list[tuple[str, int | None, int | None]]:
    return [(row.tag, row.old, row.new) for row in edit_script("mlir", old, new).rows if row.tag != "="]


def test_the_module_is_past_what_difflib_aligns():
    assert len(module().splitlines()) ** 2 > SMALL


def test_a_renumbering_insert_near_the_start_is_one_added_line():
    assert changed_rows(module(), module(insert=5)) == [("+", None, 11)]
    assert changed_rows(module(insert=5), module()) == [("-", 11, None)]


def test_an_insert_near_the_start_and_a_change_near_the_end_are_found_where_they_are():
    old, new = module(), module(insert=5, change=1000)
    assert changed_rows(old, new) == [("+", None, 11), ("~", 2001, 2002)]
    diff = unified(edit_script("mlir", old, new), 100)
    assert "-  %2000 = stablehlo.add %1999, %arg0 : tensor<8xf32>" in diff
    assert "+  %2001 = stablehlo.multiply %2000, %arg0 : tensor<8xf32>" in diff


def test_a_change_near_the_start_and_a_removal_near_the_end_with_its_reader():
    assert changed_rows(module(), module(change=3, drop=1045)) == [("~", 7, 7), ("-", 2092, None), ("~", 2093, 2092)]


def test_an_insert_near_the_start_and_a_removal_far_from_it_are_three_rows():
    """Between two anchors, a stretch of repeated layers is aligned line by line: difflib's autojunk
    (lines in over 1% of a stretch ignored) left it no match, and 1,792 rows showed as changed."""
    assert changed_rows(module(), module(insert=5, drop=900)) == [("+", None, 11), ("-", 1802, None), ("~", 1803, 1803)]


def each_line_once(old: str, new: str, dialect: str | None = "mlir") -> bool:
    """Whether the edit script holds every line of each side in exactly one row (its contract)."""
    script = edit_script(dialect, old, new)
    olds = [r.old + k for r in script.rows if r.old is not None for k in range(r.count)]
    news = [r.new + k for r in script.rows if r.new is not None for k in range(r.count)]
    return olds == list(range(len(script.old))) and news == list(range(len(script.new)))


def test_every_line_of_a_long_drift_is_in_one_row_in_order():
    """Anchors are chained in order on both sides and the stretches between them aligned once: no
    line is left out or shown twice, however many anchors the drift has."""
    assert each_line_once(module(), module(insert=5, change=1000))
    assert each_line_once(module(), module(change=3, drop=1045))
    assert each_line_once(module(), module(insert=5, drop=900))
    assert each_line_once(module(insert=700), module(change=3, drop=1045), dialect=None)


def lines(prefix: str, shared_at: int) -> str:
    return "".join("shared\n" if k == shared_at else f"{prefix} {k}\n" for k in range(2100))


def test_long_texts_with_one_line_in_common_are_aligned_at_it():
    """One anchor: the shared line is unchanged; what lies either side is removed and added."""
    script = edit_script(None, lines("old", 1000), lines("new", 1200))
    assert [(row.tag, row.old, row.new) for row in script.rows if row.tag == "="] == [("=", 1000, 1200)]
    tags = [row.tag for row in script.rows]
    assert (tags.count("-"), tags.count("+"), tags.count("~")) == (2099, 2099, 0)


def test_long_texts_with_no_line_in_common_are_changed_line_for_line():
    """No anchor at all: the stretch stays unaligned, each line changed into the one at its place."""
    script = edit_script(None, lines("old", -1), lines("new", -1))
    assert [(row.tag, row.old, row.new) for row in script.rows] == [("~", k, k) for k in range(2100)]


def hlo_chain(*, insert: int | None = None, change: int | None = None, ops: int = 600) -> str:
    """Compiled HLO of ``ops`` chained adds; ``insert`` puts an unused negate before that op (renumbering
    every later name), ``change`` makes that op a multiply."""
    lines = ["HloModule m", "", "ENTRY %main (p: f32[8]) -> f32[8] {", "  %p = f32[8]{0} parameter(0)"]
    previous, number = "%p", 1
    for k in range(ops):
        if k == insert:
            lines.append(f"  %negate.{number} = f32[8]{{0}} negate(%p)")
            number += 1
        op = "multiply" if k == change else "add"
        lines.append(f"  %{op}.{number} = f32[8]{{0}} {op}({previous}, %p)")
        previous, number = f"%{op}.{number}", number + 1
    lines += [f"  ROOT %copy.{number} = f32[8]{{0}} copy({previous})", "}"]
    return "\n".join(lines) + "\n"


def test_a_renumbered_hlo_module_longer_than_a_block_is_checked_block_after_block():
    """HLO is checked ``BLOCK`` (256) aligned lines at a time under the renaming: an insert near the
    start renames the 600 lines after it; a change near the end and the add that reads it (now the
    value of a multiply) are the other rows."""
    assert BLOCK == 256
    old, new = hlo_chain(), hlo_chain(insert=3, change=500)
    script = edit_script("hlo", old, new)
    assert [(row.tag, row.old, row.new, row.count) for row in script.rows] == [
        ("=", 0, 0, 7),
        ("+", None, 7, 1),
        ("=", 7, 8, 497),
        ("~", 504, 505, 1),
        ("~", 505, 506, 1),
        ("=", 506, 507, 99),
        ("=", 605, 606, 1),
    ]
    assert each_line_once(old, new, dialect="hlo")


def test_a_long_drift_with_its_argument_renamed_is_anchored_inside_the_differing_stretch():
    """Every line names the argument (``%arg0`` -> ``%arg7``), so no line is common as text; the
    leading lines equal up to names are paired first, and the anchors are looked for only in what
    remains (not among those lines): the same three rows as without the renaming."""
    old, new = module(), module(change=3, drop=1045).replace("%arg0", "%arg7")
    assert changed_rows(old, new) == [("~", 7, 7), ("-", 2092, None), ("~", 2093, 2092)]
    assert each_line_once(old, new)
