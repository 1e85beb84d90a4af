"""Drift explanation: renumbering-proof diffs, source attribution, and the HTML review page."""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.check.drift import compare_text
from pytest_stages.check.message import details
from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.ir import hlo
from pytest_stages.ir.diff_render import sources
from pytest_stages.ir.sources import describe_all, hlo_locations
from pytest_stages.ir.textdiff import BLOCK, edit_script
from pytest_stages.stage.activation import activate
from pytest_stages.stage.jax_events import CompileEvents
from pytest_stages.stage.staging import stage

MODEL = """\
import jax.numpy as jnp


def block(x, w):
    for k in range(125):
        x = jnp.tanh(x @ w) + jnp.sin(x)
    return x
"""
PLANTED_LINE = 8
PLANTED = MODEL.replace("jnp.sin(x)\n", "jnp.sin(x)\n        if k == 60:\n            x = x * 3.0\n")
ARGS = (jax.ShapeDtypeStruct((8, 8), jnp.float32), jax.ShapeDtypeStruct((8, 8), jnp.float32))
TEXTS = ("jaxpr", "stablehlo", "hlo", "compiled")


def _load(path: Path, source: str):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"drift_model_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.block


def _stage(fn):
    active = activate(DeviceConfig(name="cpu1"))
    return stage(fn, ARGS, {}, name="block", active=active, stages=TEXTS, analyses=(), events=CompileEvents())


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """The 500-op module before and after one planted multiply, from real files (for locations)."""
    root = tmp_path_factory.mktemp("drift")
    (root / "old").mkdir()
    (root / "new").mkdir()
    before = _stage(_load(root / "old" / "model.py", MODEL))
    after = _stage(_load(root / "new" / "model.py", PLANTED))
    return before, after, root / "new"


def _plain_changed_lines(expected: str, actual: str) -> int:
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(), n=0, lineterm="")
    return sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))


@pytest.mark.parametrize("artifact, plain_at_least", [("jaxpr", 100), ("stablehlo", 100), ("hlo", 4)])
def test_one_planted_op_is_a_few_diff_rows_not_hundreds(staged, artifact, plain_at_least):
    before, after, _ = staged
    expected, actual = before.texts[artifact], after.texts[artifact]
    assert len(expected.splitlines()) > 400
    assert _plain_changed_lines(expected, actual) >= plain_at_least
    changed = [row.tag for row in edit_script(BY_NAME[artifact].dialect, expected, actual).rows if row.tag != "="]
    assert "+" in changed and len(changed) <= 8, changed


def test_compiled_hlo_diff_is_a_fraction_of_a_plain_diff(staged):
    before, after, _ = staged
    expected, actual = before.texts["compiled"], after.texts["compiled"]
    changed = sum(1 for row in edit_script("hlo", expected, actual).rows if row.tag != "=")
    assert changed * 5 < _plain_changed_lines(expected, actual)


@pytest.mark.parametrize("artifact", TEXTS)
def test_every_stage_text_line_gets_its_source_and_the_edit_is_found(staged, artifact):
    before, after, root = staged
    located = describe_all(after.source_lines(artifact), root)
    assert len(located) == len(after.texts[artifact].splitlines())
    script = edit_script(BY_NAME[artifact].dialect, before.texts[artifact], after.texts[artifact])
    found = dict(sources(script, located))
    assert found[f"model.py:{PLANTED_LINE} in block"].get("added", 0) >= 1


def test_a_pure_renumbering_passes_but_a_rewire_or_a_merged_name_is_a_drift():
    text = (
        "ENTRY %main.4 (x.1: f32[8], y.2: f32[8]) -> f32[8] {\n"
        "  %x.1 = f32[8]{0} parameter(0)\n"
        "  %y.2 = f32[8]{0} parameter(1)\n"
        "  %add.3 = f32[8]{0} add(%x.1, %y.2)\n"
        "  ROOT %multiply.4 = f32[8]{0} multiply(%add.3, %x.1)\n"
        "}\n"
    )
    renumbered = re.sub(r"\.(\d)\b", lambda m: f".{int(m[1]) + 10}", text)
    assert renumbered != text
    assert all(row.tag == "=" for row in edit_script("hlo", text, renumbered).rows)
    assert compare_text("compiled", text, renumbered, diff_lines=20) is None
    merged = renumbered.replace("%y.12", "%x.11").replace("y.12:", "x.11:")
    assert compare_text("compiled", text, merged, diff_lines=20).failing
    jaxpr = "{ lambda ; a:f32[8] b:f32[8]. let c:f32[8] = add a b in (c,) }\n"
    merged = jaxpr.replace("b:", "a:").replace("add a b", "add a a")
    assert all(row.tag == "=" for row in edit_script("jaxpr", jaxpr, merged).rows)  # the alignment sees no change
    message = "\n".join(details(compare_text("jaxpr", jaxpr, merged, diff_lines=20)))
    assert "only names changed, but not one-to-one: two values now share a name, or one has two" in message
    rewired = renumbered.replace("multiply(%add.13, %x.11)", "multiply(%add.13, %y.12)")
    rows = edit_script("hlo", text, rewired).rows
    assert [(row.tag, row.old) for row in rows if row.tag != "="] == [("~", 4)]


def test_a_line_removed_among_look_alikes_of_a_renumbered_module_is_one_removal():
    """Without its digits, ``constant(3)`` pairs with ``constant(2)``.

    That tail holds changed lines, so it is aligned again on the canonical form.
    """
    text = (
        "ENTRY %main.5 () -> f32[] {\n"
        "  %c.1 = f32[] constant(1)\n"
        "  %c.2 = f32[] constant(2)\n"
        "  %c.3 = f32[] constant(3)\n"
        "  ROOT %add.4 = f32[] add(%c.1, %c.2)\n"
        "}\n"
    )
    removed = re.sub(r"\.(\d)\b", lambda m: f".{int(m[1]) + 10}", text.replace("  %c.3 = f32[] constant(3)\n", ""))
    rows = edit_script("hlo", text, removed).rows
    assert [(row.tag, row.old) for row in rows if row.tag != "="] == [("-", 3)]


def _renumbered(text: str, names: set[str]) -> str:
    """Every name in ``names`` (with or without its ``%``) numbered 1000 on.

    ``%add.3`` -> ``%add.1003``, ``%f`` -> ``%f.1000``.
    """
    bare = {name.lstrip("%") for name in names}

    def renumber(match: re.Match[str]) -> str:
        if match[0].lstrip("%") not in bare:
            return match[0]
        stem, _, number = match[0].rpartition(".")
        return f"{stem}.{int(number) + 1000}" if number.isdigit() and stem else f"{match[0]}.1000"

    return re.sub(r"(?<![\w.\-])%?[A-Za-z_][\w.\-]*", renumber, text)


def test_a_renumbered_module_is_unchanged_and_a_rewire_deep_in_it_is_its_one_change(staged):
    """Past the first blocks of a real compiled module, headers' bare parameters included.

    The rewired line reads another value of the same kind (``%add.5`` for ``%add.7``): its
    canonical form is unchanged, so only the check of the renamed line itself can see it.
    """
    before, _, _ = staged
    text = before.texts["compiled"]
    lines = text.splitlines()
    assert len(lines) > 2 * BLOCK and sum(1 for line in lines if ": f32[" in line and line[:1] == "%") > 10
    names = set(hlo.defined_names(text))
    assert all(row.tag == "=" for row in edit_script("hlo", text, _renumbered(text, names)).rows)

    def rewire(k: int) -> str | None:
        """Line ``k`` reading an earlier value of the same kind instead of one of its operands, if it has one."""
        head, _, operands = lines[k].partition("(")
        defined = [name for line in lines[:k] for name in hlo.defined_names(line) if name.startswith("%")]
        for operand in re.findall(r"%[\w.\-]+", operands):
            kind = operand.rsplit(".", 1)[0]
            other = next((name for name in defined if name.rsplit(".", 1)[0] == kind and name != operand), None)
            if other:
                return head + "(" + operands.replace(operand, other, 1)
        return None

    k, line = next((k, line) for k in range(2 * BLOCK, len(lines)) if (line := rewire(k)))
    rewired = "\n".join([*lines[:k], line, *lines[k + 1 :]]) + "\n"
    rows = edit_script("hlo", text, _renumbered(rewired, names)).rows
    assert [(row.tag, row.old) for row in rows if row.tag != "="] == [("~", k)]


def test_a_line_whose_debug_line_is_not_its_snapshot_line_has_no_source(staged):
    """Locations are read line by line when asked, each checked against its own snapshot line."""
    _, after, root = staged
    text = after.texts["compiled"]
    lines = text.splitlines()
    located = describe_all(hlo_locations(after.compiled_text, text), root)
    k = next(k for k, where in enumerate(located) if where and k + 1 < len(lines) and located[k + 1])
    edited = "\n".join([*lines[:k], lines[k] + " ", *lines[k + 1 :]]) + "\n"
    relocated = describe_all(hlo_locations(after.compiled_text, edited), root)
    assert (relocated[k], relocated[k + 1]) == (None, located[k + 1])
    assert hlo_locations(after.compiled_text, text + "  %extra = f32[] constant(0)\n") is None


def test_mlir_ssa_ids_and_arguments_are_renumbering_proof():
    text = (
        "func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>) {\n"
        "  %0 = stablehlo.add %arg0, %arg1 : tensor<f32>\n"
        "  %1 = stablehlo.multiply %0, %arg0 : tensor<f32>\n"
        "  return %1 : tensor<f32>\n"
        "}\n"
    )
    inserted = text.replace(
        "  %1 = stablehlo.multiply %0, %arg0",
        "  %cst = stablehlo.constant dense<2.0> : tensor<f32>\n  %1 = stablehlo.divide %0, %cst : tensor<f32>\n"
        "  %2 = stablehlo.multiply %0, %arg0",
    ).replace("return %1", "return %2")
    rows = edit_script("mlir", text, inserted).rows
    assert [row.tag for row in rows for _ in range(row.count)] == ["=", "=", "+", "+", "=", "=", "="]


MODEL_TEST = """
import jax, jax.numpy as jnp
from model import block

def test_block(stage_snapshot):
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32)
    stage_snapshot(block, x, x)
"""


@pytest.fixture
def drifted(project):
    """A recorded project whose model then gets one planted multiply."""
    project.configure("stages = ['jaxpr', 'stablehlo', 'compiled']\nanalyses = ['cost']")
    project.write("model.py", MODEL)
    project.write("test_model.py", MODEL_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("model.py", PLANTED)
    return project


def test_moving_code_changes_no_snapshot(project):
    project.write("model.py", MODEL)
    project.write("test_model.py", MODEL_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    files = project.snapshots()
    project.write("model.py", '"""Blocks."""\n\n# moved down by a docstring and comments\n\n' + MODEL)
    project.run().assert_outcomes(passed=1)
    assert project.snapshots() == files


def test_a_drift_message_points_at_the_edited_source_line(drifted):
    result = drifted.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "- jaxpr (block.jaxpr.txt): IR drift",
            "    ops: +1 mul",
            f"    source: model.py:{PLANTED_LINE} in block (1 added); model.py:6 in block (* changed)",
            "- stablehlo (block.stablehlo.mlir): IR drift",
            "    ops: +1 stablehlo.broadcast_in_dim, +1 stablehlo.constant, +1 stablehlo.multiply",
            f"    source: model.py:{PLANTED_LINE} in block (2 added); model.py:6 in block (* changed)",
        ]
    )
    jaxpr_diff = drifted.output(result).split("- jaxpr")[1].split("- stablehlo")[0]
    assert len([line for line in jaxpr_diff.splitlines() if line.startswith(("    +", "    -"))]) <= 10


def test_markdown_report_carries_sources_and_diff(drifted, tmp_path):
    report = tmp_path / "stages.md"
    drifted.run(f"--stages-report={report}").assert_outcomes(failed=1)
    text = report.read_text()
    assert "- `test_model.py::test_block[cpu1]` block / stablehlo: IR drift\n" in text
    assert f"  - source: model.py:{PLANTED_LINE} in block (2 added)" in text
    assert "  <details><summary>diff</summary>\n\n  ```diff\n  --- snapshot\n  +++ staged\n" in text
    assert "  +    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>\n" in text


def test_markdown_shows_user_text_literally_and_the_whole_diff():
    from pytest_stages.core.records import CallRecord, Finding
    from pytest_stages.report.markdown import markdown
    from pytest_stages.report.render import RunReport

    hunk = [["=", 1, "a", 1, "a", None], ["~", 2, "b", 2, "c", None], ["+", None, "", 3, "d", None]]
    finding = Finding("text", "jaxpr", "IR drift\n    (cut to diff_lines)", detail={"summary": [], "hunks": [hunk]})
    record = CallRecord(
        nodeid="t.py::test_f[cpu1-<lambda>]", config="cpu1", name="<lambda>`x", folder="f", findings=[finding]
    )
    text = markdown(RunReport([record], update=False, environment={}))
    assert "| t.py::test_f[cpu1-&lt;lambda&gt;] | cpu1 | &lt;lambda&gt;`x |" in text
    assert "- `t.py::test_f[cpu1-<lambda>]` &lt;lambda&gt;`x / jaxpr: IR drift" in text
    assert "  --- snapshot\n  +++ staged\n  @@ line 1 -> 1\n   a\n  -b\n  +c\n  +d\n" in text


def test_the_review_page_shows_an_improvement_rather_than_no_drift():
    from pytest_stages.core.records import CallRecord, Finding, Mode
    from pytest_stages.report.html_report import page
    from pytest_stages.report.render import RunReport, table_rows

    record = CallRecord(
        nodeid="t.py::test_f[cpu1]",
        config="cpu1",
        name="f",
        folder="f",
        status={"cost": "improved"},
        findings=[Finding("cost", "cost", "flops 80 -> 8 (-90.0%): improved", failing=False)],
    )
    report = RunReport([record], update=False, environment={"jax": "0.10.2", "jaxlib": "0.10.2"})
    html = page(report.records, table_rows(report.records), report.environment, Mode.COMPARE)
    assert "No drift" not in html and "1 with findings" in html
    assert "<b>cost</b> (passes): flops 80 -&gt; 8 (-90.0%): improved" in html


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        reason = (
            "Chromium not found: install Debian's `chromium` package to check the HTML report "
            "in a real browser (.ci/run installs it)"
        )
        if os.environ.get("STAGES_REQUIRE_CHROMIUM"):
            pytest.fail(reason + "; STAGES_REQUIRE_CHROMIUM is set, so this check must run")
        pytest.skip(reason)
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


def test_html_report_is_self_contained_and_shows_the_drift_found_by_xdist_workers(drifted, tmp_path):
    report = tmp_path / "review.html"
    drifted.run("-p", "xdist", "-n", "2", f"--stages-report={report}").assert_outcomes(failed=1)
    page = report.read_text()
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "<h3>stablehlo: IR drift</h3>" in page
    assert f'<li class="source">model.py:{PLANTED_LINE} in block: 2 added</li>' in page
    assert '<td class="loc">model.py:8 in block</td>' in page
    assert "<h3>cost and memory</h3>" in page


def test_html_report_renders_in_chromium(drifted, tmp_path):
    from PIL import Image

    report = tmp_path / "review.html"
    drifted.run(f"--stages-report={report}").assert_outcomes(failed=1)
    dom = _chromium("--dump-dom", report.as_uri()).stdout
    assert "pytest-stages review" in dom and "stablehlo: IR drift" in dom
    assert f"model.py:{PLANTED_LINE} in block" in dom
    shot = tmp_path / "review.png"
    _chromium("--window-size=1280,1600", f"--screenshot={shot}", report.as_uri())
    with Image.open(shot) as image:
        assert image.size == (1280, 1600)
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=1 << 20)}
    added, removed = (230, 255, 236), (255, 235, 233)
    assert added in colours and removed in colours


def test_json_report_with_a_drift_validates_against_its_schema(drifted, tmp_path):
    import json

    import jsonschema

    import pytest_stages

    report = tmp_path / "stages.json"
    drifted.run(f"--stages-report={report}").assert_outcomes(failed=1)
    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text()))
    (call,) = data["calls"]
    detail = next(f["detail"] for f in call["findings"] if f["artifact"] == "stablehlo")
    assert [f"model.py:{PLANTED_LINE} in block", {"added": 2}] in detail["sources"]
    rows = [row for hunk in detail["hunks"] for row in hunk if row[0] != "="]
    assert any(
        row[0] == "+" and "stablehlo.multiply" in row[4] and row[5] == f"model.py:{PLANTED_LINE} in block"
        for row in rows
    )
