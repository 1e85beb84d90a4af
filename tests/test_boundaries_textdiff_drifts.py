"""ir.textdiff on small drifts of real-looking programs: which lines a renumbering leaves unchanged, and
where an op that was added, removed or now reads another value shows.

Each test is one drift with its exact rows ``(tag, old line, new line)`` (unchanged runs left out,
0-based): the diff a reader sees is those rows.
"""

from __future__ import annotations

from pytest_stages.ir.textdiff import edit_script, unified


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
    assert changed_rows("hlo", entry(1, 2), entry(2, 1)) == [("~", 6, 6)]


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
