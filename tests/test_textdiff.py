"""ir.textdiff and ir.normalize at their edges, on the committed example snapshots: hunk headers, limits, sources."""

from __future__ import annotations

from pathlib import Path

from pytest_stages.ir.diff_render import describe_sources, hunks, side_by_side, sources, unified
from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir, strip_addresses, tidy_kept
from pytest_stages.ir.textdiff import EditScript, Row, common_prefix, edit_script

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots" / "stages"
COMPILED = (SNAPSHOTS / "rnn_decode/cpu1/rnn_decode.compiled.hlo.txt").read_text(encoding="utf-8")
LINES = COMPILED.splitlines()
EXTRA = "  %extra.9 = f32[4,32]{1,0} negate(%param_0.1)"
ADD = LINES.index("  %add.2 = f32[4,32]{1,0} add(%param_0.4, %param_1.4)")


def drifted(removed: int) -> list[str]:
    """The real module: a line inserted after line 10, line ``removed`` (0-based) gone, one add made a subtract."""
    lines = list(LINES)
    lines[ADD] = lines[ADD].replace(" add(", " subtract(")
    del lines[removed]
    lines.insert(10, EXTRA)
    return lines


def script_of(lines: list[str]):
    return edit_script("hlo", COMPILED, "\n".join(lines) + "\n")


def test_hunk_headers_give_one_based_starts_and_lengths_of_each_side():
    script = script_of(drifted(removed=20))
    assert unified(script, 100) == [
        "--- snapshot",
        "+++ staged",
        "@@ -9,4 +9,5 @@",
        f" {LINES[8]}",
        f" {LINES[9]}",
        f"+{EXTRA}",
        f" {LINES[10]}",
        f" {LINES[11]}",
        "@@ -19,5 +20,4 @@",
        f" {LINES[18]}",
        f" {LINES[19]}",
        f"-{LINES[20]}",
        f" {LINES[21]}",
        f" {LINES[22]}",
        "@@ -25,5 +25,5 @@",
        f" {LINES[24]}",
        f" {LINES[25]}",
        f"-{LINES[26]}",
        f"+{LINES[26].replace(' add(', ' subtract(')}",
        f" {LINES[27]}",
        f" {LINES[28]}",
    ]
    assert LINES[26] == LINES[ADD]


def test_changes_four_unchanged_lines_apart_share_a_hunk_and_five_apart_do_not():
    apart = hunks(script_of(drifted(removed=20)))
    assert len(apart) == 3
    together = hunks(script_of(drifted(removed=21)))
    assert len(together) == 2
    assert [(row.tag, row.old) for row in together[1]] == [
        ("=", 19),
        ("=", 20),
        ("-", 21),
        ("=", 22),
        ("=", 23),
        ("=", 24),
        ("=", 25),
        ("~", 26),
        ("=", 27),
        ("=", 28),
    ]
    assert unified(script_of(drifted(removed=21)), 100)[8] == "@@ -20,10 +21,9 @@"


def test_a_single_line_hunk_header_has_no_length_and_an_empty_side_reads_zero():
    one = edit_script(None, "a\nb\n", "a\nc\n")
    assert unified(one, 10) == ["--- snapshot", "+++ staged", "@@ -1,2 +1,2 @@", " a", "-b", "+c"]
    only = edit_script(None, "x\n", "y\n")
    assert unified(only, 10, header=False) == ["@@ -1 +1 @@", "-x", "+y"]
    emptied = edit_script(None, "x\n", "")
    assert unified(emptied, 10, header=False) == ["@@ -1 +0,0 @@", "-x"]


def test_the_diff_is_cut_at_the_limit_and_says_how_much_is_left():
    script = script_of(drifted(removed=20))
    full = unified(script, 100)
    assert unified(script, 5) == [*full[:5], f"... {len(full) - 5} more diff lines"]
    assert unified(script, 3, header=False) == [*full[2:5], f"... {len(full) - 5} more diff lines"]
    assert unified(script, len(full)) == full


def test_side_by_side_numbers_from_one_and_stops_at_its_row_budget():
    lines = drifted(removed=20)
    where = [f"model.py:{k}" for k in range(len(lines))]
    script = script_of(lines)
    rows = side_by_side(script, 100, where)
    assert [len(group) for group in rows] == [7, 13], "three lines of context: changes six lines apart share a hunk"
    assert rows[0][3] == ("+", None, "", 11, EXTRA, "model.py:10")
    assert rows[0][0] == ("=", 8, LINES[7], 8, LINES[7], "model.py:7")
    assert rows[1][3] == ("-", 21, LINES[20], None, "", None)
    assert side_by_side(script, 9, where) == [rows[0], rows[1][:2]]
    assert side_by_side(script, 7, where) == [rows[0]]
    assert side_by_side(script, 100, where[:5])[0][3][5] is None, "a line past the known locations has none"


def test_sources_charge_a_removal_to_the_next_staged_line_and_count_each_kind():
    lines = drifted(removed=20)
    where = ["model.py:1"] * 20 + ["model.py:2"] * (len(lines) - 20)
    found = sources(script_of(lines), where)
    assert found == [("model.py:1", {"added": 1}), ("model.py:2", {"removed": 1, "changed": 1})]
    assert describe_sources(found) == "model.py:1 (1 added); model.py:2 (1 changed, 1 removed)"
    no_location = [None] * len(lines)
    assert sources(script_of(lines), no_location) == []


def test_describe_sources_names_five_and_counts_the_rest():
    found = [(f"m.py:{k}", {"added": k}) for k in range(1, 8)]
    assert describe_sources(found) == (
        "m.py:1 (1 added); m.py:2 (2 added); m.py:3 (3 added); m.py:4 (4 added); m.py:5 (5 added); and 2 more"
    )
    assert describe_sources(found[:5]).count(";") == 4
    assert describe_sources(found, limit=6).endswith("m.py:6 (6 added); and 1 more")


def test_differing_gives_exactly_the_removed_added_and_changed_lines():
    script = script_of(drifted(removed=20))
    old, new = script.differing()
    assert old.split("\n") == [LINES[20], LINES[26]]
    assert new.split("\n") == [EXTRA, LINES[26].replace(" add(", " subtract(")]
    assert list(script.changes()) == [1, 3, 5]
    assert script.rows[0] == Row("=", 0, 0, 10)


def test_a_renumbered_copy_of_a_real_module_is_no_change():
    renumbered = COMPILED.replace("%add.2", "%add.7").replace("%tanh.2", "%tanh.8")
    script = edit_script("hlo", COMPILED, renumbered)
    assert list(script.changes()) == []
    assert unified(script, 10) == ["--- snapshot", "+++ staged"]


# --- normalizers ------------------------------------------------------------------------------


def test_addresses_in_either_case_are_masked_whole():
    text = "{ lambda ; a:f32[]. let b = pjit[jaxpr=<function f at 0x7FfE12ab> name=f at 0x1] a in (b,) }"
    assert (
        strip_addresses(text) == "{ lambda ; a:f32[]. let b = pjit[jaxpr=<function f at 0x?> name=f at 0x?] a in (b,) }"
    )
    assert normalize_jaxpr("x flat 0x12\n") == "x flat 0x12\n", "only the word `at` starts an address"


def test_mlir_location_removal_repeats_until_nothing_is_left():
    # A #loc definition whose removal leaves an alias name above its "=" continuation: a second pass removes it.
    text = '#loc1\n#loc2 = loc("a")\n = x\nmodule @m {\n}\n'
    once = normalize_mlir(text)
    assert once == normalize_mlir(once), "idempotent"
    assert once == "module @m {\n}\n"


def test_hlo_metadata_nested_in_quotes_goes_and_the_rest_stays():
    line = '  %a.1 = f32[8]{0} add(%p, %q), metadata={op_name="jit(f)/add" source_file="a{b}.py" source_line=3}'
    assert normalize_hlo(f"HloModule m\n\n{line}\n\n\n") == "HloModule m\n\n  %a.1 = f32[8]{0} add(%p, %q)\n"


def test_tidy_keeps_one_blank_line_between_blocks_and_none_at_the_ends():
    assert tidy_kept(["", "", "a", "", "", "b", "", ""]) == [2, 3, 5]
    assert tidy_kept(["a", "b"]) == [0, 1]
    assert tidy_kept(["", ""]) == []
    assert normalize_jaxpr("  \n\na  \n\n\n\nb\n\n") == "a\n\nb\n"
    assert normalize_jaxpr("") == ""


# --- rows in, hunks and sources out (scripts written by hand) ----------------------------------


def script(rows: list[Row], old: int, new: int) -> EditScript:
    """An edit script over ``old`` and ``new`` numbered lines (``o0``.., ``n0``..) with the given rows."""
    return EditScript([f"o{k}" for k in range(old)], [f"n{k}" for k in range(new)], rows)


def test_a_change_on_the_first_line_has_no_context_before_it():
    """The first row has no row before it: the unchanged run at the end of the module is not its context."""
    assert hunks(script([Row("~", 0, 0), Row("=", 1, 1, 5)], 6, 6)) == [
        [Row("~", 0, 0), Row("=", 1, 1), Row("=", 2, 2)]
    ]


def test_a_short_unchanged_run_at_the_end_is_cut_to_the_context():
    """Three lines after the last change: two are shown (the run is not between two changes)."""
    assert hunks(script([Row("=", 0, 0, 3), Row("~", 3, 3), Row("=", 4, 4, 3)], 7, 7)) == [
        [Row("=", 1, 1), Row("=", 2, 2), Row("~", 3, 3), Row("=", 4, 4), Row("=", 5, 5)]
    ]


def test_a_short_unchanged_run_before_the_last_change_joins_the_two_hunks():
    """Three unchanged lines between two changes, the second one last in the script: one hunk."""
    rows = [Row("~", 0, 0), Row("=", 1, 1, 3), Row("~", 4, 4)]
    assert hunks(script(rows, 5, 5)) == [
        [Row("~", 0, 0), Row("=", 1, 1), Row("=", 2, 2), Row("=", 3, 3), Row("~", 4, 4)]
    ]


def test_side_by_side_shows_one_row_of_a_hunk_when_one_is_left_of_the_budget():
    rows = side_by_side(script([Row("~", 0, 0), Row("=", 1, 1, 10), Row("~", 11, 11)], 12, 12), 5)
    assert [[row[:2] for row in group] for group in rows] == [[("~", 1), ("=", 2), ("=", 3), ("=", 4)], [("=", 9)]]


def test_sources_add_up_each_kind_over_rows_and_removals_at_one_location():
    """Two changed lines, one added, and removals of one and then two lines, all charged to one place."""
    rows = [
        Row("-", 0, None),
        Row("~", 1, 0),
        Row("-", 2, None),
        Row("-", 3, None),
        Row("~", 4, 1),
        Row("+", None, 2),
    ]
    found = sources(script(rows, 5, 3), ["m.py:1"] * 3)
    assert found == [("m.py:1", {"changed": 2, "removed": 3, "added": 1})]


def test_common_prefix_counts_past_the_first_slice():
    """Compared 1,024 items at a time, then item by item: a prefix longer than one slice is counted whole."""
    first = list(range(3000))
    assert common_prefix(first, [*range(2500), -1]) == 2500
    assert common_prefix(first, first[:1500]) == 1500
    assert common_prefix(first, [*range(1024), -1]) == 1024
    assert common_prefix([], first) == 0
