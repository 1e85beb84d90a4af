"""A changed configuration value is headlined with the user's constant that holds it: ``RMS_EPS = 1e-5`` at
the top of a module reaches the program through a layer built with it, a line no traced call stack holds;
the headline names it (``1e-05 is RMS_EPS at lm.py:22``) after the line that uses it."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_stages.check.drift import compare_text
from pytest_stages.ir.literals import new_numbers
from pytest_stages.ir.sources import Location, describe_all, setting_holding
from pytest_stages.store.schemas import report_schema, schema_mismatch

# A model whose epsilon and width are module constants, used through an object built with them
# (as a config or a layer is): ``{eps}`` and ``{hidden}`` are the values the edits change.
MODEL = """
import jax, jax.numpy as jnp
EPS = {eps}
HIDDEN = {hidden}

class Norm:
    def __init__(self, eps, hidden):
        self.eps, self.hidden = eps, hidden

    def __call__(self, x):
        h = jnp.tanh(x @ jnp.ones((x.shape[-1], self.hidden)))
        return h * jax.lax.rsqrt(jnp.mean(h * h, axis=-1, keepdims=True) + self.eps)

def build():
    return Norm(EPS, HIDDEN)
"""
TEST = """
import jax, jax.numpy as jnp
import model

def test_forward(stage_snapshot):
    norm = model.build()
    stage_snapshot(jax.jit(lambda x: norm(x)), jnp.ones((4, 16)), name="forward")
"""


def _ir_headline(project, **edit: str) -> str:
    """The IR headline after the model constants are changed to ``edit`` (the JSON report: ``stages.json``)."""
    project.configure('stages = ["jaxpr", "stablehlo"]\nanalyses = []')
    project.write("model.py", MODEL.format(eps="1e-6", hidden="32"))
    project.write("test_model.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("model.py", MODEL.format(**{"eps": "1e-6", "hidden": "32", **edit}))
    result = project.run("--stages-report=stages.json")
    result.assert_outcomes(failed=1)
    return next(line for line in result.outlines if line.startswith("  IR: "))


def test_a_changed_epsilon_names_the_constant_that_holds_it(project) -> None:
    headline = _ir_headline(project, eps="1e-5")
    assert "1e-06 -> 1e-05 at model.py:12 in Norm.__call__" in headline, headline
    assert headline.endswith("; 1e-05 is EPS at model.py:3"), headline
    # the JSON report keeps it as data, and stays valid against its schema (which a merge of shard reports checks)
    report = json.loads((project.path / "stages.json").read_text())
    assert schema_mismatch(report, report_schema(), "the report") is None
    (call,) = report["calls"]
    settings = [f["detail"]["setting"] for f in call["findings"] if f["detail"] and f["detail"].get("setting")]
    assert settings and all(s == {"name": "EPS", "value": "1e-05", "place": "model.py:3"} for s in settings)


def test_a_changed_width_names_the_constant_that_holds_it(project) -> None:
    headline = _ir_headline(project, hidden="48")
    assert "32 -> 48 at model.py:12 in Norm.__call__" in headline, headline
    assert headline.endswith("; 48 is HIDDEN at model.py:4"), headline


def test_new_numbers_are_the_values_lines_now_hold_where_they_held_another() -> None:
    pairs = [
        (
            "%1 = stablehlo.reshape %0 : (tensor<8x64xf32>) -> tensor<8x4x16xf32>",
            "%1 = stablehlo.reshape %0 : (tensor<8x64xf32>) -> tensor<8x8x8xf32>",
            0,
        ),
        ("b:f32[] = add a 1e-06:f32[]", "b:f32[] = add a 1e-05:f32[]", 1),
        ("%c = f32[] constant(9.99999997E-7)", "%c = f32[] constant(9.99999975E-6)", 2),
        # names and dtypes are no numbers: a renumbered fusion, f32 -> f16
        ("%fusion.12 = f32[8]{0} fusion(%p)", "%fusion.13 = f16[8]{0} fusion(%p)", 3),
        # a tuple index that only moved, one way and back: no new value
        ("%a = get-tuple-element(%t), index=3", "%a = get-tuple-element(%t), index=5", 4),
        ("%b = get-tuple-element(%t), index=5", "%b = get-tuple-element(%t), index=3", 5),
    ]
    assert new_numbers(pairs) == {"8": 2, "1e-05": 2}


def test_a_setting_is_the_one_module_constant_of_the_projects_files_holding_the_value(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("WIDTH = 64\nEPS = 1e-5\nDEPTH = 4\nFLAG = True\n\ndef f():\n    return 1\n")
    (tmp_path / "test_model.py").write_text("SEED = 3\n")
    site = tmp_path.parent / "venv" / "lib" / "python3.11" / "site-packages" / "lib.py"
    site.parent.mkdir(parents=True, exist_ok=True)
    site.write_text("LIMIT = 7\n")
    places = describe_all(
        [
            Location(str(tmp_path / "model.py"), 7, "f"),
            Location(str(tmp_path / "test_model.py"), 1, "t"),
            Location(str(site), 1, "g"),
        ],
        tmp_path,
    )
    found = setting_holding(places, {"1e-05", "13"})
    assert found is not None and found.describe() == "1e-05 is EPS at model.py:2"
    # two constants hold a value the drift holds: naming either could be false
    assert setting_holding(places, {"64", "4"}) is None
    # a test file's and an installed library's constants are no setting; a flag is no number
    assert setting_holding(places, {"3"}) is None and setting_holding(places, {"7"}) is None
    assert setting_holding(places, {"true", "1"}) is None
    # plain text (no file behind it) names nothing
    assert setting_holding(["model.py:7 in f"], {"1e-05"}) is None


SNAPSHOT = Path(__file__).resolve().parent.parent / "snapshots/stages/rnn_decode/cpu1/rnn_decode"


def test_a_setting_is_read_from_the_texts_before_xla_only(tmp_path: Path) -> None:
    """A sharding change splits the compiled program's shapes (a vocabulary of 512 over 2 devices reads
    256): numbers no constant of the user's wrote. The texts before XLA keep the program's own."""
    (tmp_path / "model.py").write_text("HIDDEN = 48\n")
    (place,) = describe_all([Location(str(tmp_path / "model.py"), 1, "f")], tmp_path)
    for artifact, suffix, old, new in (
        ("stablehlo", "stablehlo.mlir", "-> tensor<4x32xf32>", "-> tensor<4x48xf32>"),
        ("compiled", "compiled.hlo.txt", "f32[4,32]{1,0} dot(", "f32[4,48]{1,0} dot("),
    ):
        text = SNAPSHOT.with_name(f"{SNAPSHOT.name}.{suffix}").read_text()
        lines = text.splitlines()
        k = next(k for k, line in enumerate(lines) if old in line)
        lines[k] = lines[k].replace(old, new)
        located: list[str | None] = [None] * len(lines)
        located[k] = place
        found = compare_text(artifact, text, "\n".join(lines) + "\n", diff_lines=8, locations=lambda at=located: at)
        assert found is not None and found.detail is not None
        expected = {"name": "HIDDEN", "value": "48", "place": "model.py:1"} if artifact == "stablehlo" else None
        assert found.detail["setting"] == expected, artifact


def test_numbers_in_quoted_strings_are_no_new_values() -> None:
    sharded = '%1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[4,1,2]<=[8]}"} : tensor<8x64xf32>'
    pairs = [
        (sharded, sharded.replace("[4,1,2]", "[8,1,1]"), 0),  # the sharding changed: more than numbers
        (sharded, sharded.replace("8x64", "8x96"), 1),  # the type's numbers changed, the sharding's did not
    ]
    assert new_numbers(pairs) == {"96": 1}
