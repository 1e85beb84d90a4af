"""Where the plugin's error classes live: one module per layer at most, every one under the one base."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_stages

PACKAGE = Path(pytest_stages.__file__).parent
# Signals the package catches itself: staging keeps a partial analysis; a command's output that cannot be
# written ends it with one line. Neither reaches a user as an error.
SIGNALS = {"Unavailable", "OutputLost"}


def _error_classes() -> dict[str, tuple[str, list[str]]]:
    """Each exception class of the package: its module (relative path) and its bases' names."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
                found[node.name] = (path.relative_to(PACKAGE).as_posix(), bases)
    errors: dict[str, tuple[str, list[str]]] = {}
    while True:
        more = {
            name: entry
            for name, entry in found.items()
            if name not in errors and any(b in errors or b.endswith(("Exception", "Error")) for b in entry[1])
        }
        if not more:
            return errors
        errors.update(more)


def test_each_layer_holds_its_error_classes_in_one_module():
    modules: dict[str, set[str]] = {}
    for name, (module, _) in _error_classes().items():
        if name not in SIGNALS:
            modules.setdefault(module.split("/")[0] if "/" in module else module, set()).add(module)
    assert {layer: found for layer, found in modules.items() if len(found) > 1} == {}


def test_every_error_a_user_reads_derives_from_the_one_base():
    classes = _error_classes()

    def based(name: str) -> bool:
        return name == "StagesError" or any(based(b) for b in classes.get(name, ("", []))[1])

    assert sorted(name for name in classes if name not in SIGNALS and not based(name)) == []
