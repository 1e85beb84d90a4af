"""ir.literals at its edges: which lines use a changed constant, where a headline then places it."""

from __future__ import annotations

from pytest_stages.ir.literals import MAX_USERS, LiteralChange, changed, shown_value, users


def test_users_are_found_breadth_first_in_the_constants_block_only():
    lines = [
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {",  # 0
        "  %c = stablehlo.constant dense<2.0> : tensor<f32>",  # 1
        "  stablehlo.custom_call @log(%c) : (tensor<f32>) -> ()",  # 2: uses %c, defines nothing
        "  %1 = stablehlo.multiply %a, %c : tensor<f32>",  # 3
        "",  # 4: a blank line stays inside the block
        "  %2 = stablehlo.add %1, %c : tensor<f32>",  # 5: uses %c and %1: found once
        "  %3 = stablehlo.negate %2 : tensor<f32>",  # 6
        "  return %3 : tensor<f32>",  # 7
        "}",  # 8
        "func.func private @other(%c: tensor<f32>) -> tensor<f32> {",  # 9: another %c, outside the block
        "  %1 = stablehlo.multiply %c, %c : tensor<f32>",  # 10
        "}",  # 11
    ]
    assert list(users("mlir", lines, 1)) == [2, 3, 5, 6, 7]


def test_a_constant_first_in_its_block_and_one_last():
    lines = ["  %c = stablehlo.constant dense<1> : tensor<i32>", "  %1 = stablehlo.add %c, %c : tensor<i32>"]
    assert list(users("mlir", lines, 0)) == [1]
    assert list(users("mlir", ["  %x = stablehlo.add %a, %a : tensor<i32>", *lines[:1]], 1)) == []


def test_a_chain_of_users_stops_at_max_users():
    lines = ["  %v0 = stablehlo.constant dense<1> : tensor<i32>"]
    lines += [f"  %v{k} = stablehlo.add %v{k - 1}, %v{k - 1} : tensor<i32>" for k in range(1, 100)]
    assert list(users("mlir", lines, 0)) == list(range(1, MAX_USERS + 1))


def test_a_jaxpr_literal_is_inline_its_own_line_uses_it():
    assert list(users("jaxpr", ["    b:f32[] = mul a 2.0:f32[]"], 0)) == [0]
    assert list(users(None, ["x"], 0)) == [0]


def test_a_line_pair_is_a_changed_literal_only_when_one_value_differs_and_nothing_else():
    same = ("  %constant.3 = f32[] constant(2)", "  %constant.7 = f32[] constant(2)", 0)
    moved = ("  %constant.3 = f32[] constant(2)", "  %constant.9 = f32[] constant(3)", 5)
    assert changed("hlo", [same, moved]) == [LiteralChange("2", "3", 5)], "renumbered alone is no change"
    assert changed("jaxpr", [("    b:f32[] = mul a 2.0:f32[]", "    b:f32[] = mul a 3.0:f32[]", 1)]) == [
        LiteralChange("2", "3", 1)
    ]
    assert changed("text", [moved]) == [] and changed(None, [moved]) == []


def test_a_literal_is_shown_as_a_reader_writes_it():
    assert [shown_value(v) for v in ("1234567", "1e7", "1E7", "9.99999997E-7", "2.0", "0x7F", "inf")] == [
        "1234567",
        "1e+07",
        "1e+07",
        "1e-06",
        "2",
        "0x7F",
        "inf",
    ]


def test_a_line_before_the_constants_block_is_never_its_user():
    lines = [
        "func.func private @other(%c: tensor<f32>) -> tensor<f32> {",
        "  %1 = stablehlo.multiply %c, %c : tensor<f32>",
        "}",
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {",
        "  %c = stablehlo.constant dense<2.0> : tensor<f32>",
        "  %1 = stablehlo.multiply %a, %c : tensor<f32>",
        "}",
    ]
    assert list(users("mlir", lines, 4)) == [5]


def test_a_literal_changed_on_a_name_that_gained_its_first_suffix_is_found():
    """XLA names the first constant ``%constant`` and later ones ``%constant.1``: a drift that adds a
    constant before it renames it so, and the pair is still a changed literal, not a changed line."""
    pair = ("  %constant = f32[] constant(0.001)", "  %constant.1 = f32[] constant(0.01)", 4)
    assert changed("hlo", [pair]) == [LiteralChange("0.001", "0.01", 4)]
    assert changed(
        "mlir",
        [
            (
                "    %cst = stablehlo.constant dense<1.0> : tensor<f32>",
                "    %cst_0 = stablehlo.constant dense<2.0> : tensor<f32>",
                2,
            )
        ],
    ) == [LiteralChange("1", "2", 2)]
