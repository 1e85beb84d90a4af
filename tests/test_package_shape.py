"""The package's shape: no import cycles, late imports bound where they are used, a docstring per subpackage.

import-linter's layers contract (``lint-imports``, run by ``.ci/run``) keeps the layers
importing downward; a cycle between two modules of one layer is outside that contract, so
this test walks the whole graph that grimp builds (the ``TYPE_CHECKING`` imports that name each
late import included). A module binds what it imports late itself, under its real home (core/lazy.py).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
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


PACKAGE = Path(pytest_stages.__file__).parent


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"


def imports_in_functions(tree: ast.AST) -> list[int]:
    """The lines of the import statements inside a function or method body."""
    return [
        inner.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for inner in ast.walk(node)
        if isinstance(inner, ast.Import | ast.ImportFrom)
    ]


def late_names(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """What a module binds under ``if TYPE_CHECKING:`` (name -> module imported) and with ``lazy_module``
    at run time (name -> module named), both at its top level."""
    typed: dict[str, str] = {}
    late: dict[str, str] = {}
    for node in tree.body:
        if not _is_type_checking(node):
            continue
        assert isinstance(node, ast.If)
        for statement in node.body:
            if isinstance(statement, ast.Import):
                typed |= {a.asname or a.name: a.name for a in statement.names}
            elif isinstance(statement, ast.ImportFrom):
                typed |= {a.asname or a.name: f"{statement.module}.{a.name}" for a in statement.names}
        for statement in node.orelse:
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
                [target] = statement.targets
                [argument] = statement.value.args
                assert isinstance(target, ast.Name) and isinstance(argument, ast.Constant)
                late[target.id] = argument.value
    return typed, late


def late_names_read_elsewhere(trees: dict[str, ast.Module]) -> list[str]:
    """Where a module reads a late name another module binds (``from pytest_stages.calls import check_message``,
    or ``hooks.store_pending`` after ``from pytest_stages import hooks``): such an import names that module,
    not the module's real home."""
    late = {module: late_names(tree)[1] for module, tree in trees.items()}
    found = []
    for module, tree in trees.items():
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in late:
                found += [f"{module}: {node.module}.{a.name}" for a in node.names if a.name in late[node.module]]
            if isinstance(node, ast.ImportFrom) and node.module:
                aliases |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
        found += [
            f"{module}: {aliases[node.value.id]}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
            if node.attr in late.get(aliases[node.value.id], {})
        ]
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_late_imports_are_bound_where_used_and_seen_by_import_linter():
    """No function body imports; each ``lazy_module`` name is bound at the top of the module that uses it,
    matched by a ``TYPE_CHECKING`` import of the same module (so mypy types it and import-linter checks
    the edge), and no other module imports it from there."""
    trees = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        source = path.read_text(encoding="utf-8")
        tree = trees[_module_name(path)] = ast.parse(source)
        assert imports_in_functions(tree) == [], f"{name}: import inside a function; bind it at the module's top"
        if "lazy_module(" in source and name != "core/lazy.py":
            typed, late = late_names(tree)
            assert late, f"{name}: lazy_module outside `if TYPE_CHECKING: ... else: ...`"
            assert {n: typed.get(n) for n in late} == late, f"{name}: a late name without its TYPE_CHECKING import"
    assert late_names_read_elsewhere(trees) == [], "import each late module from its real home, bound where used"


def test_the_checks_of_late_imports_can_fail():
    """The rules above, on sources that break them."""
    assert imports_in_functions(ast.parse("def f():\n    import jax\n")) == [2]
    assert imports_in_functions(ast.parse("import jax\nif True:\n    import os\n")) == []
    hub = "if TYPE_CHECKING:\n    import jax\nelse:\n    jax = lazy_module('jax')\n    np = lazy_module('numpy')\n"
    typed, late = late_names(ast.parse(hub))
    assert typed == {"jax": "jax"} and late == {"jax": "jax", "np": "numpy"}
    trees = {
        "p.stage": ast.parse(hub),
        "p.stage.staging": ast.parse("from p.stage import jax, plan\n"),
        "p.hooks.configure": ast.parse("from p import stage\n\ndef f():\n    return stage.np.ones, stage.plan\n"),
    }
    assert late_names_read_elsewhere(trees) == ["p.stage.staging: p.stage.jax", "p.hooks.configure: p.stage.np"]


def test_each_subpackage_says_what_lives_there():
    for info in pkgutil.iter_modules(pytest_stages.__path__):
        if info.ispkg:
            module = importlib.import_module(f"pytest_stages.{info.name}")
            doc = ast.get_docstring(ast.parse(Path(module.__file__).read_text(encoding="utf-8")))
            assert doc and len(doc.splitlines()) == 1, info.name
