"""The docs' samples and references against the program: a changed table or option group fails here.

README.md holds the one sample of the summary table (docs/index.md points to it); its header,
its rows' alignment and the lines below it are checked against a real run of a tiny suite.
docs/check_links.py's check of links to README.md's sections is tested on made-up pages. The two
commands have one copy (README.md's), and docs/architecture.md's module table and layer diagram are
held to the package, so that they cannot drift when modules move.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A config lowered only (no chip attached), beside one compiled: the sample's two kinds of rows.
CONFIGS = """
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1

[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
"""
TEST = """
import jax, jax.numpy as jnp

def test_step(stage_snapshot):
    stage_snapshot(lambda x: jnp.tanh(x).sum(), jax.ShapeDtypeStruct((8,), jnp.float32), name="train_step")
"""
# The sample's table header: the first line of the fenced block that starts with "test  ".
HEADER = re.compile(r"^test {2,}config {2,}name .*$", re.M)
# A row of docs/architecture.md's module table: | store | `store/prune.py` | the rules of a safe prune |
MODULE_ROW = re.compile(r"^\| [^|`]+ \| `([^`]+)` \|", re.M)


def readme_sample() -> list[str]:
    """The lines of README.md's sample output: the fenced block after "The first prints"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text[text.index("The first prints") :]
    return after[after.index("```\n") + 4 : after.index("\n```", after.index("```\n") + 4)].splitlines()


def columns(line: str) -> list[tuple[int, str]]:
    """The cells of a table line with the column each starts at (cells are separated by 2+ spaces)."""
    return [(match.start(), match.group()) for match in re.finditer(r"\S+(?: \S+)*", line)]


def summary_lines(pytester: pytest.Pytester) -> list[str]:
    """The terminal summary of a real compare run of a tiny suite on a compiled and a lowered-only config."""
    pytester.makefile(".toml", pyproject=f"[tool.pytest_stages]\n{CONFIGS}")
    pytester.makepyfile(test_step=TEST)
    pytester.runpytest("--stages-update").assert_outcomes(passed=2)
    # A process of its own: the compilation cache line is what a fresh session prints.
    result = pytester.runpytest_subprocess("-W", "ignore::UserWarning")
    result.assert_outcomes(passed=2)
    return result.outlines


def test_readme_sample_table_has_the_header_and_alignment_the_plugin_prints(pytester: pytest.Pytester) -> None:
    real = summary_lines(pytester)
    sample = readme_sample()
    real_header = next(line for line in real if HEADER.match(line))
    sample_header = next(line for line in sample if HEADER.match(line))
    assert [cell for _, cell in columns(sample_header)] == [cell for _, cell in columns(real_header)]
    starts = [start for start, _ in columns(sample_header)]
    below = next(i for i, line in enumerate(sample) if line.startswith("pytest-stages: "))
    rows = sample[sample.index(sample_header) + 1 : below]
    assert rows, "README.md's sample has no table rows"
    deltas = [cell for _, cell in columns(sample_header)].index("deltas")
    for row in (row for row in rows if row != "..."):
        cells = columns(row)
        # Every cell starts where its column's header does; the deltas column is empty in the sample.
        assert [start for start, _ in cells] == starts[:deltas] + starts[deltas + 1 :], row
    real_row = next(line for line in real if line.startswith("test_step.py::test_step[cpu1]"))
    assert len(columns(real_row)) == len(starts) - 1  # the real run's deltas column is empty too


def test_readme_sample_lines_below_the_table_are_what_the_plugin_prints(pytester: pytest.Pytester) -> None:
    real = summary_lines(pytester)
    below = [line for line in readme_sample() if line.startswith("pytest-stages: ")]
    assert len(below) == 2
    skipped, cache = below
    assert skipped in real  # the lowered-only config's line, word for word
    figures = re.compile(r"\d+ of \d+")
    assert figures.sub("N of M", cache) in [figures.sub("N of M", line) for line in real]
    assert re.fullmatch(r"\d+ passed, \d+ skipped", readme_sample()[-1])


def test_the_sample_table_has_one_copy_in_the_docs() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    copies = [page.name for page in pages if HEADER.search(page.read_text(encoding="utf-8"))]
    assert copies == ["README.md"]


def test_the_two_commands_have_one_copy_which_the_home_page_includes() -> None:
    command = re.compile(r"^python3 -m venv \.venv && ", re.M)
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    copies = [page.name for page in pages if command.search(page.read_text(encoding="utf-8"))]
    assert copies == ["README.md"]
    assert '\n--8<-- "README.md:commands"\n' in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def test_architecture_md_lists_every_module_and_layer_of_the_package_and_no_other() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = MODULE_ROW.findall(text[text.index("\n## Modules\n") : text.index("\n## The artifact table\n")])
    package = ROOT / "pytest_stages"
    # Every module, the package's own __init__.py (its public names) included; a subpackage's __init__.py
    # holds its docstring only, described by the layer's row of the diagram.
    modules = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name != "__init__.py" or path.parent == package
    }
    assert sorted(modules - set(listed)) == [], "modules docs/architecture.md's table does not list"
    assert sorted(set(listed) - modules) == [], "rows of docs/architecture.md's table that name no module"
    assert len(listed) == len(set(listed)), "a module listed twice in docs/architecture.md's table"
    # The layer diagram names each layer (a subpackage, or a module of the package's root) on a line of its own.
    diagram = text[text.index(" pytest_stages/\n") : text.index("imports point down only")]
    layers = {path.name for path in package.iterdir() if (path / "__init__.py").exists()}
    layers |= {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    drawn = set(re.findall(r"^ │ (\w+)", diagram, re.M))
    assert sorted(layers - drawn) == [], "layers docs/architecture.md's diagram does not draw"
    assert sorted(drawn - layers) == [], "layers of docs/architecture.md's diagram that do not exist"


def test_configuration_md_names_the_option_group_as_pytest_help_shows_it(pytester: pytest.Pytester) -> None:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    named = re.search(r"under the heading `([^`]+)` in `pytest --help`", text)
    assert named is not None, "docs/configuration.md does not quote the option group's heading"
    assert f"{named.group(1)}:" in pytester.runpytest("--help").outlines


def check_links() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_links", ROOT / "docs" / "check_links.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_links_to_readme_sections_are_checked_against_its_headings(tmp_path: Path) -> None:
    links = check_links()
    readme = "# pytest-stages\n\n## Example\n\n```bash\n# not a heading\n```\n\n## `stage_snapshot` and friends\n"
    assert links.readme_anchors(readme) == {"pytest-stages", "example", "stage_snapshot-and-friends"}
    page = "[the example](../README.md#example), [gone](../README.md#compilation-cache), [x](README.md#not-a-heading)"
    assert links.broken_readme_anchors(page, readme) == [
        "README.md#compilation-cache: README.md has no such section",
        "README.md#not-a-heading: README.md has no such section",
    ]
    assert links.broken_links(readme + "[up](#example) [gone](#reproducible-snapshots)\n", tmp_path, tmp_path) == [
        "#reproducible-snapshots: README.md has no such section"
    ]


def test_the_docs_and_readme_link_only_to_readme_sections_that_exist() -> None:
    links = check_links()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    own = [target for target in links.LINK.findall(links.FENCE.sub("", readme)) if target.startswith("#")]
    broken = [target for target in own if target[1:] not in links.readme_anchors(readme)]
    for page in sorted((ROOT / "docs").glob("*.md")):
        broken += links.broken_readme_anchors(page.read_text(encoding="utf-8"), readme)
    assert broken == []
