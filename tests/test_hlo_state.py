"""ir.dataflow.state_plan on a compiled HLO ``while`` with seven state positions (so XLA's ``/*index=5*/`` marks
appear in every list), its condition printed before its body, and a weight read from the loop's
result: the rewrite given the weights' hashes, and the places another reader forbids it.

Five weights w1..w5 sit at positions 0, 3, 4, 5, 6 (1 is the counter, 2 the value the body changes);
the body reads each weight differently, and w5 is bf16 (so a type list left unmoved shows).
``hlo(order)`` places them in another order: the same program when every reader moves with them.
"""

from __future__ import annotations

import pytest

from pytest_stages.ir import dataflow
from pytest_stages.ir.renaming import equivalent
from pytest_stages.ir.state_rewrite import matching, split_top

SLOTS = (0, 3, 4, 5, 6)
PLAIN = ("w1", "w2", "w3", "w4", "w5")


def marked(items: list[str]) -> str:
    """A list as XLA prints it: ``/*index=5*/`` before the sixth item."""
    return ", ".join(f"/*index=5*/{item}" if k == 5 else item for k, item in enumerate(items))


def state(weight: str, counter: str, value: str, order: tuple[str, ...], names: dict[str, str]) -> list[str]:
    """The seven state items: the weights (``names[w]`` each, or their type: ``weight``, bf16 for w5)
    at SLOTS in ``order``, the counter at 1 and the value at 2."""
    items = ["", counter, value, "", "", "", ""]
    for slot, w in zip(SLOTS, order, strict=True):
        items[slot] = names.get(w, weight.replace("f32", "bf16") if w == "w5" else weight)
    return items


def hlo(order: tuple[str, ...] = PLAIN, *, body_uses: str = "%b", entry: tuple[str, ...] = (), read: str = "w1") -> str:
    """The module with the weights in the state in ``order``. ``body_uses``: what the body multiplies
    tanh(w1) by (w2 as written); ``entry``: lines before the entry's ``ROOT``; ``read``: the weight
    the entry reads from the loop's result."""
    pos = {w: slot for slot, w in zip(SLOTS, order, strict=True)}
    typed = "(" + marked(state("f32[8]{0}", "s32[]", "f32[8]{0}", order, {})) + ")"
    header = "(" + marked(state("f32[8]", "s32[]", "f32[8]", order, {})) + ")"
    letters = dict(zip(PLAIN, ("%a", "%b", "%c", "%d", "%e"), strict=True))
    lines = [
        "HloModule m, is_scheduled=true",
        "",
        f"%cond (q: {header}) -> pred[] {{",
        f"  %q = {typed} parameter(0)",
        "  %n = s32[] get-tuple-element(%q), index=1",
        "  %five = s32[] constant(5)",
        "  ROOT %lt = pred[] compare(%n, %five), direction=LT",
        "}",
        "",
        f"%body (p: {header}) -> {header} {{",
        f"  %p = {typed} parameter(0)",
        *(f"  {letters[w]} = f32[8]{{0}} get-tuple-element(%p), index={pos[w]}" for w in PLAIN[:4]),
        f"  %e = bf16[8]{{0}} get-tuple-element(%p), index={pos['w5']}",
        "  %x = f32[8]{0} get-tuple-element(%p), index=2",
        "  %i = s32[] get-tuple-element(%p), index=1",
        "  %one = s32[] constant(1)",
        "  %j = s32[] add(%i, %one)",
        "  %t = f32[8]{0} tanh(%a)",
        f"  %u = f32[8]{{0}} multiply(%t, {body_uses})",
        "  %s = f32[8]{0} sine(%c)",
        "  %v = f32[8]{0} multiply(%s, %d)",
        "  %f = f32[8]{0} convert(%e)",
        "  %g = f32[8]{0} exponential(%f)",
        "  %h = f32[8]{0} add(%u, %v)",
        "  %k = f32[8]{0} add(%h, %g)",
        "  %y = f32[8]{0} add(%k, %x)",
        f"  ROOT %r = {typed} tuple({marked(state('', '%j', '%y', order, letters))})",
        "}",
        "",
        "ENTRY %main (x0: f32[8], w1: f32[8], w2: f32[8], w3: f32[8], w4: f32[8], w5: bf16[8]) -> f32[8] {",
        "  %x0 = f32[8]{0} parameter(0)",
        *(f"  %{w} = f32[8]{{0}} parameter({k})" for k, w in enumerate(PLAIN[:4], start=1)),
        "  %w5 = bf16[8]{0} parameter(5)",
        "  %zero = s32[] constant(0)",
        f"  %init = {typed} tuple({marked(state('', '%zero', '%x0', order, {w: '%' + w for w in PLAIN}))})",
        f"  %loop = {typed} while(%init), condition=%cond, body=%body",
        "  %out = f32[8]{0} get-tuple-element(%loop), index=2",
        f"  %wl = f32[8]{{0}} get-tuple-element(%loop), index={pos[read]}",
        *entry,
        "  ROOT %r0 = f32[8]{0} add(%out, %wl)",
        "}",
        "",
    ]
    return "\n".join(lines)


MOVED = ("w5", "w3", "w1", "w4", "w2")


def test_hlo_seven_position_loop_permuted_is_one_program():
    """The weights in another order in the state, the body's reads, its root, the init tuple and the
    result read: one program, both ways; the body reading another weight, or the entry reading
    another weight from the result, is another."""
    plain, moved = hlo(), hlo(MOVED)
    assert plain != moved
    assert equivalent("hlo", plain, moved)
    assert equivalent("hlo", moved, plain)
    assert not equivalent("hlo", plain, hlo(MOVED, body_uses="%d"))
    assert not equivalent("hlo", plain, hlo(MOVED, read="w2"))


def test_hlo_rewrite_orders_the_weights_by_their_hashes_in_every_list():
    """Given hashes, each copy rewrites to the module with the weights in the hashes' order: lists
    re-marked ``/*index=5*/``, reads renumbered, the counter and value left at 1 and 2."""
    hashes = {"w1": "4", "w2": "2", "w3": "0", "w4": "3", "w5": "1", "zero": "9", "x0": "9"}
    by_hash = tuple(sorted(PLAIN, key=hashes.__getitem__))
    for order in (PLAIN, MOVED):
        text = hlo(order)
        found = dataflow.state_plan("hlo", text)
        assert found is not None
        (at,) = found.wanted
        assert text.split("\n")[at].startswith("  %init = ")
        assert found.apply({at: hashes}) == hlo(by_hash)
        assert found.apply({}) == hlo(tuple(sorted(order, key=lambda w: f"%{w}")))


def test_hlo_body_called_again_elsewhere_is_left_as_written():
    """The body computation is also called by the entry with the weights in their written order: its
    parameter's order is that call's too, so the loop's state keeps its order."""

    def text(order: tuple[str, ...]) -> str:
        base = hlo(order)
        typed = base.split("\n")[3].split(" = ", 1)[1].removesuffix(" parameter(0)")
        items = "%zero, %zero, %x0, %x0, %x0, /*index=5*/%x0, %x0"
        extra = (f"  %init2 = {typed} tuple({items})", f"  %again = {typed} call(%init2), to_apply=%body")
        return hlo(order, entry=extra)

    assert dataflow.state_plan("hlo", text(PLAIN)) is None
    assert not equivalent("hlo", text(PLAIN), text(MOVED))


@pytest.mark.parametrize("computation", ["%body", "%cond"])
def test_hlo_state_parameter_read_whole_is_left_as_written(computation):
    """A body or condition that reads its parameter other than through ``get-tuple-element`` (here a
    copy, kept as the module's output) sees the weights' order: the loop's state keeps it."""
    marker = "  %p = " if computation == "%body" else "  %q = "

    def text(order: tuple[str, ...]) -> str:
        lines = hlo(order).split("\n")
        k = next(j for j, line in enumerate(lines) if line.startswith(marker))
        name = marker.strip().split(" ")[0]
        typed = lines[k].split(" = ", 1)[1].removesuffix(" parameter(0)")
        lines.insert(k + 1, f"  %whole = {typed} copy({name})")
        lines.insert(k + 2, "  %w0 = f32[8]{0} get-tuple-element(%whole), index=3")
        return "\n".join(lines)

    assert dataflow.state_plan("hlo", text(PLAIN)) is None
    assert not equivalent("hlo", text(PLAIN), text(MOVED))


# --- the list helpers ------------------------------------------------------------------------------


def test_split_top_splits_only_outside_brackets_wherever_they_open():
    """A bracket that opens the text or an item right after ``", "`` still counts."""
    assert split_top("(a, b), c") == ["(a, b)", "c"]
    assert split_top("a, (b, c), d") == ["a", "(b, c)", "d"]
    assert split_top("tensor<2x3xf32>, tuple<i32, i1>", "(<[{", ")>]}") == ["tensor<2x3xf32>", "tuple<i32, i1>"]


def test_matching_says_minus_one_for_a_bracket_left_open():
    assert matching("(a, [b])", 0) == 7
    assert matching("(a, [b]", 0) == -1


def test_plan_of_a_dialect_without_loop_state_is_none():
    assert dataflow.state_plan("cost", "{}") is None
