"""store.names at its edges: the snapshot module folder of each test module, and back, apart from the plugin's own."""

from __future__ import annotations

import pytest

from pytest_stages.store.names import OUTSIDE_ROOTDIR, REGISTERED_MODULE, module_folder, module_source, safe_component

FOLDERS = [
    # (the module's steps from the rootdir, its snapshot folder, the file it maps back to)
    (("tests", "test_a"), "tests/test_a", "tests/test_a.py"),
    (("test_a",), "test_a", "test_a.py"),
    (("stages",), "stages_", "stages.py"),
    (("stages_",), "stages__", "stages_.py"),
    (("stages", "test_a"), "stages/test_a", "stages/test_a.py"),
    (("tests", "stages"), "tests/stages", "tests/stages.py"),
    (("_outside_rootdir", "test_a"), "_outside_rootdir_/test_a", "_outside_rootdir/test_a.py"),
    (("_outside_rootdir__", "test_a"), "_outside_rootdir___/test_a", "_outside_rootdir__/test_a.py"),
    (("_outside_rootdir",), "_outside_rootdir_", "_outside_rootdir.py"),
    (("tests", "_outside_rootdir"), "tests/_outside_rootdir", "tests/_outside_rootdir.py"),
    (("__stages",), "__stages", "__stages.py"),
    (("..", "x", "test_a"), "_outside_rootdir/_up/x/test_a", None),
    (("..", "..", "_up", "test_a"), "_outside_rootdir/_up/_up/_up_/test_a", None),
    (("..", "_up__", "stages"), "_outside_rootdir/_up/_up___/stages", None),
    (("x", "..", "test_a"), "x/../test_a", "x/../test_a.py"),
]


@pytest.mark.parametrize(("steps", "folder", "source"), FOLDERS, ids=["/".join(case[0]) for case in FOLDERS])
def test_a_module_folder_and_back(steps, folder, source):
    assert module_folder(steps) == folder
    assert module_source(folder) == source


def test_the_registered_functions_folder_has_no_module_file():
    assert module_folder(()) == ""
    assert module_source("stages") is None
    assert module_source("_outside_rootdir/_up/test_a") is None


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "a/b", "nul\x00byte", "é" * 200, "..", "", "x" * 500, "CON", "tëst[ü]"]
)
def test_safe_component_is_safe_unique_and_stable(name):
    safe = safe_component(name)
    assert "/" not in safe and "\x00" not in safe and safe not in (".", "..", "")
    assert len(safe) <= 96 and safe == safe_component(name)
    assert safe.isascii()


def test_safe_component_keeps_plain_names_and_separates_lookalikes():
    assert safe_component("test_mlp[cpu8-bf16]") == "test_mlp[cpu8-bf16]"
    assert safe_component("a/b") != safe_component("a_b") == "a_b"


MODULES = [
    ("stages",),
    ("stages_",),
    ("stages__",),
    ("stages", "test_a"),
    ("_outside_rootdir", "test_a"),
    ("_outside_rootdir_", "test_a"),
    ("_outside_rootdir", "_up", "test_a"),
    ("tests", "_up", "test_a"),
    ("tests", "test_a"),
    ("..", "test_a"),
    ("..", "..", "test_a"),
    ("..", "_up", "test_a"),
    ("..", "_up_", "test_a"),
    ("..", "..", "_up", "test_a"),
]


def test_module_folders_are_distinct_and_apart_from_the_plugins_own():
    folders = [module_folder(steps) for steps in MODULES]
    assert len(set(folders)) == len(folders), folders
    for steps, folder in zip(MODULES, folders, strict=True):
        outside = steps[0] == ".."
        assert folder.startswith(f"{OUTSIDE_ROOTDIR}/") == outside, folder
        assert folder != REGISTERED_MODULE
        assert module_source(folder) == (None if outside else "/".join(steps) + ".py"), folder
    # Paths recorded before: unchanged where nothing collides.
    assert module_folder(("tests", "test_a")) == "tests/test_a"
    assert module_folder(("stages", "test_a")) == "stages/test_a"
    assert module_folder(("..", "x", "test_a")) == "_outside_rootdir/_up/x/test_a"
