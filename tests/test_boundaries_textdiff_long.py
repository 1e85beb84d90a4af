"""ir.textdiff on modules too long for difflib: a renumbering insert and a change far apart, each where it is.

A module of 1,050 repeated layers (2,100 lines a side, past ``SMALL`` = 4,000,000 line pairs) is
aligned at anchors (lines counted from the start and from the end); what differs is a few rows.
"""

from __future__ import annotations

from pytest_stages.ir.textdiff import SMALL, edit_script, unified

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
