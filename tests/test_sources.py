"""ir.sources: the source locations of stage-text lines, named relative to the project as messages show them."""

from __future__ import annotations

import sysconfig
from dataclasses import replace
from pathlib import Path

import pytest_stages
from pytest_stages.ir.sources import Location, describe_all, preferred


def test_describe_all_names_each_location_as_describe_does(tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (tmp_path / "link").symlink_to(project)
    model = str(tmp_path / "link" / "pkg" / "model.py")
    library = str(tmp_path / "venv" / "lib" / "site-packages" / "optax" / "alias.py")
    stdlib = str(Path(sysconfig.get_paths()["stdlib"]) / "functools.py")
    ours = str(Path(pytest_stages.__file__).parent / "stage" / "staging.py")
    first, second = Location(model, 3, "attention"), Location(model, 7)
    locations = [
        first,
        second,
        first,
        None,
        Location(library, 5, "adam"),
        Location(stdlib, 10, "wraps"),
        Location(ours, 40, "stage"),
        Location("/elsewhere/x.py", 2),
        second,
    ]
    expected = [
        "pkg/model.py:3 in attention",
        "pkg/model.py:7",
        "pkg/model.py:3 in attention",
        None,
        "optax/alias.py:5 in adam",
        "functools.py:10 in wraps",
        None,
        "/elsewhere/x.py:2",
        "pkg/model.py:7",
    ]
    assert list(describe_all(locations, project)) == expected
    assert list(describe_all(locations, tmp_path / "link")) == expected
    assert [where and where.describe(project) for where in locations if where is None or where.file != ours] == [
        text for text, where in zip(expected, locations, strict=True) if where is None or where.file != ours
    ]
    assert describe_all(locations, None)[:2] == [f"{model}:3 in attention", f"{model}:7"]
    assert describe_all(locations, None)[6] is None


def test_describe_all_names_the_innermost_project_frame_that_is_not_a_test_file(tmp_path):
    """A library installed from a checkout (outside the project, not site-packages) and a test
    file's callback are inner to the model module's line: the model's line is named."""
    project = tmp_path / "project"
    model, test = str(project / "model.py"), str(project / "test_model.py")
    checkout = "/src/flax/flax/linen/linear.py"
    chain = [Location(checkout, 422, "__call__"), Location(test, 9, "loss"), Location(model, 30, "forward")]
    assert preferred(chain) == replace(chain[0], callers=tuple(chain[1:]))
    assert list(describe_all([preferred(chain)], project)) == ["model.py:30 in forward"]
    assert list(describe_all([preferred(chain[:2])], project)) == ["test_model.py:9 in loss"]
    assert list(describe_all([preferred(chain)], None)) == [f"{checkout}:422 in __call__"]
    assert list(describe_all([preferred(chain[:1])], project)) == [f"{checkout}:422 in __call__"]


def test_a_library_installed_outside_site_packages_is_a_library_on_every_host(tmp_path):
    """``pip install --target DIR`` on PYTHONPATH (how a chip host without a venv gets optax): its files are
    library code, as under site-packages, so a headline names the same user line on every host. The project's
    own files beside no ``*.dist-info`` stay the user's."""
    target = tmp_path / "site"
    (target / "optax-0.2.8.dist-info").mkdir(parents=True)
    (target / "optax-0.2.8.dist-info" / "RECORD").write_text("optax/__init__.py,sha256=x,1\noptax/_src/alias.py,,\n")
    library = Location(str(target / "optax" / "_src" / "alias.py"), 12, "adamw")
    user = Location(str(tmp_path / "project" / "bert.py"), 95, "train_step")
    assert library.in_library
    assert not user.in_library
    assert library.describe(tmp_path / "project") == "optax/_src/alias.py:12 in adamw"
    assert preferred([library, user]) == replace(user, callers=())
    # A project that holds its dependencies itself (``pip install --target .``): its own files stay the user's.
    (target / "train.py").touch()
    assert not Location(str(target / "train.py"), 3, "main").in_library
