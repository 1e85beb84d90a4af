"""Snapshots that survive upgrades of pytest-stages itself.

``tests/data/upgrade_0fe98ff`` holds a small suite and the snapshots pytest-stages recorded for it
at commit 0fe98ff of its own history (jax 0.10.2, cpu1): before ``outer_dimension_partitions``
was dropped from compiled HLO and before outputs were named as functions return them (an NNX
step whose donated model state came back as ``output[0][0].states[0][0]``). The current code
must compare them with no false failure, and an update after the upgrade must keep names.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ONE_CONFIG

from pytest_stages.analyse.artifacts import ARTIFACTS, BY_NAME
from pytest_stages.check.snapshot_format import (
    FORMAT_VERSION,
    current_form,
    incomparable,
    renamed_outputs,
)

pytest.importorskip("flax.nnx")

DATA = Path(__file__).parent / "data" / "upgrade_0fe98ff"
CONFIG = ONE_CONFIG.replace("[[tool", '[tool.pytest_stages]\nstages = ["jaxpr", "stablehlo", "compiled"]\n\n[[tool', 1)
FOLDERS = {
    "test_nnx": "sgd_step",
    "test_dict_state": "update",
    "test_wide": "wide",
}
NNX = "snapshots/test_upgrade_suite/test_nnx/cpu1"


@pytest.fixture
def old_project(pytester):
    """The suite with the snapshots pytest-stages 0fe98ff recorded for it."""
    pytester.makepyprojecttoml(CONFIG)
    shutil.copy(DATA / "upgrade_suite.py", pytester.path / "test_upgrade_suite.py")
    shutil.copytree(DATA / "snapshots", pytester.path / "snapshots")
    return pytester


def _files(root: Path) -> dict[str, str]:
    """The snapshot files under ``root`` (the tree's lock, which an update makes, left out)."""
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted((root / "snapshots").rglob("*"))
        if p.is_file() and ".pytest-stages" not in p.parts
    }


def test_the_recorded_snapshots_hold_what_the_upgrade_changed():
    """The premise: the old files differ from what this version writes in exactly these ways."""
    assert "outer_dimension_partitions" in (DATA / NNX / "sgd_step.compiled.hlo.txt").read_text()
    sharding = json.loads((DATA / NNX / "sgd_step.sharding.json").read_text())
    assert "output[0][0].states[0][0]" in sharding["outputs"]
    assert sharding["inputs"]["model.l1.bias"]["aliased_to"] == "output[0][0].states[0][0]"
    assert "pytest_stages" not in json.loads((DATA / NNX / "_stages.json").read_text())


def test_snapshots_of_an_earlier_pytest_stages_compare_with_no_false_failure(old_project):
    """All three calls pass: no compiled-IR drift, and no NNX sharding or layout leaf seen as new or removed."""
    before = _files(old_project.path)
    result = old_project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert "changed" not in result.stdout.str()
    assert _files(old_project.path) == before, "a compare run writes nothing"


def test_older_snapshots_that_pass_leave_nothing_pending_and_an_update_writes_nothing(old_project, tmp_path):
    """Their format alone is no reason to write: a compare leaves no pending call, an update writes 0 files.

    Before: the compare left 3 calls pending and the update rewrote 21 files (every compiled text
    renormalized, the NNX outputs renamed, each folder's _stages.json), none of them a program change.
    """
    before = _files(old_project.path)
    compared = old_project.runpytest("-p", "no:cacheprovider", "--stages-pending", str(tmp_path / "pending"))
    compared.assert_outcomes(passed=3)
    assert "left what --stages-update would write" not in compared.stdout.str()
    assert not (tmp_path / "pending").exists() or not any((tmp_path / "pending").rglob("*.json"))

    updated = old_project.runpytest("--stages-update", "-p", "no:cacheprovider")
    updated.assert_outcomes(passed=3)
    updated.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert _files(old_project.path) == before


def test_migrating_is_its_own_step_and_says_what_it_rewrites(old_project):
    """``--stages-update --stages-migrate`` writes the old texts in this version's form (nothing renamed,
    outputs named as returned, format 2 recorded) and lists each file with its reason."""
    before = _files(old_project.path)
    result = old_project.runpytest("--stages-update", "--stages-migrate", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    after = _files(old_project.path)
    assert sorted(after) == sorted(before)
    migrated = {path for path in after if after[path] != before[path]}
    out = result.stdout.str()
    assert f"pytest-stages: migrated {len(migrated)} file(s) to snapshot format {FORMAT_VERSION}:" in out
    result.stdout.fnmatch_lines(
        [
            f"  {NNX}/_stages.json: the folder's metadata as this version records it (format, version, environment)",
            f"  {NNX}/sgd_step.compiled.hlo.txt: the stage text normalized as this version normalizes it (names kept)",
            f"  {NNX}/sgd_step.cost.json: with the figures this version adds (the cost's estimated step time, `step`)",
            f"  {NNX}/sgd_step.sharding.json: outputs named as the function returns them",
        ]
    )
    for path, text in before.items():
        name = Path(path).name
        if name == "_stages.json":
            meta = json.loads(after[path])
            assert meta["format"] == FORMAT_VERSION and meta["pytest_stages"]
            continue
        artifact = next(a.name for a in ARTIFACTS if name.endswith(a.suffix))
        if BY_NAME[artifact].is_text:
            assert after[path] == current_form(artifact, text), f"{path}: only renormalized, no name changed"
        elif artifact == "cost":  # the estimated step time added, nothing else changed
            assert {k: v for k, v in json.loads(after[path]).items() if k != "step"} == json.loads(text), path
            assert "step" in json.loads(after[path]) and "step" not in json.loads(text), path
        elif artifact not in ("sharding", "layout") or "test_nnx" not in path:
            assert after[path] == text, path
    assert "outer_dimension_partitions" not in after[f"{NNX}/sgd_step.compiled.hlo.txt"]
    sharding = json.loads(after[f"{NNX}/sgd_step.sharding.json"])
    assert sorted(sharding["outputs"]) == [
        "model.l1.bias",
        "model.l1.kernel",
        "model.l2.bias",
        "model.l2.kernel",
        "output",
    ]
    assert sharding["inputs"]["model.l1.bias"]["aliased_to"] == "model.l1.bias"
    old = json.loads(before[f"{NNX}/sgd_step.sharding.json"])
    assert [leaf for _, leaf in sorted(sharding["outputs"].items())] == [
        leaf for _, leaf in sorted(old["outputs"].items())
    ], "the same leaves, in the same flat order, renamed"
    old_project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
    again = old_project.runpytest("--stages-update", "--stages-migrate", "-p", "no:cacheprovider")
    again.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert "migrated" not in again.stdout.str()


def test_stages_migrate_without_stages_update_is_refused(old_project):
    result = old_project.runpytest("--stages-migrate", "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--stages-migrate rewrites snapshots in this version's format: use it together*"])


def test_an_accepted_change_on_older_snapshots_writes_only_the_change(old_project):
    """A real change (``wide``'s constant; ``sgd_step`` no longer donating its model) on format-1 snapshots:
    only the files whose program changed are written, each changed only where its program did; the
    NNX placement keeps its format-1 output names and every _stages.json stays as it was, so that the
    next compare reads them as it reads the rest."""
    before = _files(old_project.path)
    suite = old_project.path / "test_upgrade_suite.py"
    source = suite.read_text()
    suite.write_text(source.replace("* 3.0 + x", "* 4.0 + x").replace("@nnx.jit(donate_argnums=0)", "@nnx.jit"))
    old_project.runpytest("--stages-update", "-p", "no:cacheprovider").assert_outcomes(passed=3)
    after = _files(old_project.path)
    written = sorted(path for path in after if after[path] != before[path])
    wide = "snapshots/test_upgrade_suite/test_wide/cpu1"
    assert [path for path in written if "test_nnx" not in path] == [
        f"{wide}/_stages.json",
        f"{wide}/wide.compiled.hlo.txt",
        f"{wide}/wide.jaxpr.txt",
        f"{wide}/wide.stablehlo.mlir",
    ], written
    assert f"{NNX}/sgd_step.sharding.json" in written
    for path in (p for p in written if p.endswith("_stages.json")):  # only the manifest a prune needs is added
        meta = json.loads(after[path])
        assert meta == {**json.loads(before[path]), "files": meta["files"]}
    for path in written[-3:]:
        removed = set(before[path].splitlines()) - set(after[path].splitlines())
        assert removed and len(removed) <= 2, removed
        assert all("3" in line for line in removed), removed
    old, new = (json.loads(side[f"{NNX}/sgd_step.sharding.json"]) for side in (before, after))
    assert sorted(new["outputs"]) == sorted(old["outputs"]), "format-1 output names kept"
    assert new["outputs"] == old["outputs"]
    assert old["inputs"]["model.l1.bias"]["aliased_to"] == "output[0][0].states[0][0]"
    assert new["inputs"]["model.l1.bias"]["aliased_to"] is None
    assert {k: {**v, "aliased_to": None, "donated": False} for k, v in old["inputs"].items()} == new["inputs"]
    old_project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def _set_format(root: Path, fmt: int) -> None:
    for folder in FOLDERS:
        meta = root / "snapshots/test_upgrade_suite" / folder / "cpu1/_stages.json"
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "format": fmt}))


@pytest.mark.parametrize(
    ("fmt", "fix"),
    [
        (0, "(format 0); this is * (format 2): run `pytest --stages-update` once."),
        (99, "(format 99); this is * (format 2), which cannot read them: upgrade pytest-stages, or run*"),
    ],
)
def test_a_format_this_version_cannot_compare_is_said_once(old_project, fmt, fix):
    _set_format(old_project.path, fmt)
    result = old_project.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(failed=1, skipped=2)
    out = result.stdout.str()
    said = (
        "pytest-stages: the snapshots in snapshots/test_upgrade_suite/test_nnx/cpu1/ (and any others of that "
        f"format) were recorded by pytest-stages an earlier version {fix}"
    )
    result.stdout.fnmatch_lines([said])
    assert out.count("recorded by pytest-stages") == 1, "said once, not once per test"
    skipped = (
        f"SKIPPED * the snapshots in snapshots/test_upgrade_suite/test_*/cpu1/ are of format {fmt}, which this "
        "version cannot compare (see the failure above)"
    )
    result.stdout.fnmatch_lines([skipped, skipped])
    assert "IR drift" not in out and "leaf removed" not in out
    old_project.runpytest("--stages-update", "-p", "no:cacheprovider").assert_outcomes(passed=3)
    old_project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_incomparable_names_both_versions_and_formats():
    assert incomparable({"format": 1}, "0.2.0") is None
    assert incomparable(None, "0.2.0") is None
    assert incomparable({"format": 0, "pytest_stages": "0.0.9"}, "0.2.0") == (
        "recorded by pytest-stages 0.0.9 (format 0); this is 0.2.0 (format 2): run `pytest --stages-update` once"
    )


def test_outputs_are_renamed_all_at_once():
    """An old name that is another leaf's new name is renamed once (a swap stays a swap)."""
    data = {
        "inputs": {"x": {"aliased_to": "output[0]", "donated": True}, "y": {"aliased_to": None}},
        "outputs": {"output[0]": {"v": 0}, "output[1]": {"v": 1}},
    }
    renamed = renamed_outputs(data, {"output[0]": "output[1]", "output[1]": "output[0]"})
    assert renamed["outputs"] == {"output[1]": {"v": 0}, "output[0]": {"v": 1}}
    assert renamed["inputs"]["x"]["aliased_to"] == "output[1]"
    assert renamed["inputs"]["y"] == {"aliased_to": None}


def test_a_format_1_snapshot_already_named_as_functions_return_is_kept():
    """equinox.filter_jit: the old names are JAX's (marker, arrays, static) paths, which overlap the new ones."""
    renames = {"output[0]": "(equinox marker)", "output[1]": "output[0]", "output[2]": "output[1]"}
    old_style = {"inputs": {}, "outputs": {"output[0]": {"v": "m"}, "output[1]": {"v": 0}, "output[2]": {"v": 1}}}
    new_style = {
        "inputs": {},
        "outputs": {"(equinox marker)": {"v": "m"}, "output[0]": {"v": 0}, "output[1]": {"v": 1}},
    }
    assert renamed_outputs(old_style, renames) == new_style
    assert renamed_outputs(new_style, renames) == new_style


def test_a_normalizer_improvement_is_applied_to_the_stored_text():
    """A compiled line as an older version stored it: host key kept, backend_config keys unsorted."""
    old = (
        "  %fusion = f32[8]{0} fusion(%p), kind=kLoop, calls=%fused, "
        'backend_config={"outer_dimension_partitions":["2"],"fusion_config":{"kind":"__ynn_fusion"},"a":1}\n'
    )
    assert current_form("compiled", old) == (
        '  %fusion = f32[8]{0} fusion(%p), kind=kLoop, calls=%fused, backend_config={"a":1,"fusion_config":'
        '{"kind":"__ynn_fusion"}}\n'
    )


def test_a_normalizer_improvement_never_fails_a_current_snapshot():
    """Every committed example text snapshot is already in the current form: renormalizing it changes nothing."""
    root = Path(__file__).parent.parent / "snapshots"
    checked = 0
    for artifact in (a for a in ARTIFACTS if a.is_text and a.staged):
        for path in root.rglob(f"*{artifact.suffix}"):
            text = path.read_text()
            assert current_form(artifact.name, text) == text, path
            checked += 1
    assert checked > 50
