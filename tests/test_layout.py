"""The package's shape: no import cycles (function-level imports counted), a docstring per subpackage.

import-linter's layers contract (``lint-imports``, run by ``.ci/run``) keeps the layers
importing downward; a cycle between two modules of one layer is outside that contract, so
this test walks the whole graph that grimp builds (it reads imports inside functions too).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import grimp

import pytest_stages


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The components of more than one module (Tarjan's algorithm), i.e. the import cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_strongly_connected_finds_a_cycle_and_only_one():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycles():
    graph = grimp.build_graph("pytest_stages")
    # The root __init__ re-exports the public API: it imports its subpackages, none imports it.
    modules = {m for m in graph.modules if m != "pytest_stages"}
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    assert strongly_connected(edges) == []
    assert not any("pytest_stages" in graph.find_modules_directly_imported_by(m) for m in modules)


def test_each_subpackage_says_what_lives_there():
    for info in pkgutil.iter_modules(pytest_stages.__path__):
        if info.ispkg:
            module = importlib.import_module(f"pytest_stages.{info.name}")
            doc = ast.get_docstring(ast.parse(Path(module.__file__).read_text(encoding="utf-8")))
            assert doc and len(doc.splitlines()) == 1, info.name


ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_the_architecture_page_describes_every_module_of_the_tree():
    """docs/architecture.md's module table has one row per module file and none for a file that is gone,
    and its layer box names every module under its own subpackage."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    package = Path(pytest_stages.__file__).parent
    modules = {p.relative_to(package).as_posix() for p in package.rglob("*.py") if p.name != "__init__.py"}
    rows = set(re.findall(r"^\| [a-z_ ]+ \| `([^`]+\.py)` \|", text, re.M))
    assert sorted(modules - rows) == [], "modules without a row in docs/architecture.md"
    assert sorted(rows - modules) == [], "rows of docs/architecture.md for files that do not exist"
    box = text[text.index(" pytest_stages/\n") : text.index("imports point down only")]
    sections = re.split(r"\n [├└][─]+[┤┘]\n", box)
    named = {}
    for section in sections:
        match = re.match(r"\s*(?:pytest_stages/\n ┌─+┐\n)?\s*│ (\w+)/", section)
        if match:
            named[match.group(1)] = set(re.findall(r"\b\w+\b", section))
    for module in modules:
        if "/" in module:
            layer, name = module.split("/", 1)
            assert name.removesuffix(".py") in named.get(layer, set()), f"{module} is not in the layer box"
