"""Headlines name the edit: the user's edited line, never an installed library's, the
optimizer's or the test file's when a user line exists; op kinds that appear or disappear first."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TWO_CONFIGS
from test_drift_details import MLIR

from pytest_stages.check.drift import compare_text
from pytest_stages.ir.sources import ELSEWHERE, PROJECT, TEST_FILE, Location, describe_all, rank

pytest.importorskip("flax.nnx")
pytest.importorskip("optax")

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"

# The user's model (model.py), its train step in a file of its own (train.py, where the optimizer's
# update is the user's line too) and the test. ``{...}`` are the lines the edits change.
MODEL = """
import jax, jax.numpy as jnp
from functools import partial
from flax import nnx
class Block(nnx.Module):
    def __init__(self, rngs):
        self.qk = nnx.Linear(16, 32, rngs=rngs)
        self.up = nnx.Linear(16, 64, rngs=rngs)
        self.down = nnx.Linear(64, 16, rngs=rngs)
        self.out = nnx.Linear(16, 8, rngs=rngs)

    def __call__(self, x):
        q, k = jnp.split(self.qk(x), 2, axis=-1)
        probs = jax.nn.softmax(q @ k.T / 4.0, axis=-1){probs}
        x = x + probs @ x
        h = {activation}(self.up(x))
        h = {constraint}
        x = x + self.down(h)
        return jnp.einsum("bd,dv->bv", x.astype(jnp.bfloat16), self.out.kernel.value.astype(jnp.bfloat16){logits})
"""
EDIT_LINE = {"probs": 14, "activation": 16, "constraint": 17, "logits": 19}
ORIGINAL = {"probs": "", "activation": "partial(jax.nn.gelu, approximate=False)", "constraint": "h", "logits": ""}
EDITS = {
    "activation": "jax.nn.silu",
    "logits": ", preferred_element_type=jnp.float32",
    "probs": ".astype(jnp.bfloat16).astype(jnp.float32)",
    "constraint": "jax.sharding.reshard(h, jax.sharding.PartitionSpec('data'))",
}
TRAIN = """
import jax, jax.numpy as jnp, optax
from flax import nnx

@nnx.jit
def train_step(model, optimizer, x, y):
    def loss(model):
        return ((model(x) - y) ** 2).mean()
    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value
"""
TEST = """
import contextlib
import jax, jax.numpy as jnp, optax
from flax import nnx
from model import Block
from train import train_step

def test_step(stage_snapshot, stage_config):
    model = Block(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    mesh = stage_config.mesh
    with jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext():
        stage_snapshot(train_step, model, optimizer, jnp.ones((8, 16)), jnp.ones((8, 8)))
"""


def _headline(project, edit: str, config: str) -> str:
    """The IR headline after ``edit`` of the model, staged on ``config``."""
    project.configure('stages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = []', configs=TWO_CONFIGS)
    project.write("model.py", MODEL.format(**ORIGINAL))
    project.write("train.py", TRAIN)
    project.write("test_model.py", TEST)
    project.run("--stages-update", f"--stages-configs={config}").assert_outcomes(passed=1)
    project.write("model.py", MODEL.format(**{**ORIGINAL, edit: EDITS[edit]}))
    result = project.run(f"--stages-configs={config}")
    result.assert_outcomes(failed=1)
    return next(line for line in result.outlines if line.startswith("  IR: "))


@pytest.mark.parametrize(
    ("edit", "config"), [("activation", "cpu1"), ("logits", "cpu1"), ("probs", "cpu1"), ("constraint", "cpu8")]
)
def test_the_headline_names_the_edited_line(project, edit: str, config: str) -> None:
    headline = _headline(project, edit, config)
    assert f" at model.py:{EDIT_LINE[edit]} in Block.__call__ (" in headline, headline
    assert "train.py" not in headline and "test_model.py" not in headline and "site-packages" not in headline


def test_op_kinds_that_appear_or_disappear_come_before_count_changes(project) -> None:
    headline = _headline(project, "activation", "cpu1")
    ops = headline.split("; jaxpr: ", 1)[1].split(" at ", 1)[0].split(", ")
    # exact gelu's erfc replaced by silu's logistic: named first, before the counts of kinds that stay
    assert {"-1 erfc", "+1 logistic"} <= set(ops[:4]), headline
    assert not any(op.endswith((" mul", " add")) for op in ops[:4]), headline


def test_a_headline_names_the_projects_own_line_before_a_test_files_and_never_a_librarys(tmp_path) -> None:
    """Places of changed lines, in the order of the text: an installed library's (flax), the test
    file's, the project's. The headline's places: the project's first, the test file's after, the
    library's never; the details keep them all, in the text's order."""
    (tmp_path / "model.py").write_text("")
    site = tmp_path.parent / "venv" / "lib" / "python3.11" / "site-packages" / "flax" / "nnx" / "nn" / "linear.py"
    frames = [
        Location(str(site), 422, "__call__"),
        Location(str(tmp_path / "test_model.py"), 9, "test_step"),
        Location(str(tmp_path / "model.py"), 14, "Block.__call__"),
    ]
    places = describe_all(frames, tmp_path)
    assert [(str(p), rank(p)) for p in places] == [
        ("flax/nnx/nn/linear.py:422 in __call__", ELSEWHERE),
        ("test_model.py:9 in test_step", TEST_FILE),
        ("model.py:14 in Block.__call__", PROJECT),
    ]
    # three ops changed in place: the first a library's, the second the test file's, the third the project's
    edits = [
        ("precision = [DEFAULT, DEFAULT] : (tensor<4x32xf32>", "precision = [HIGHEST, DEFAULT] : (tensor<4x32xf32>"),
        ("%2 = stablehlo.add %0, %1", "%2 = stablehlo.subtract %0, %1"),
        ("%3 = stablehlo.tanh %2", "%3 = stablehlo.logistic %2"),
    ]
    lines = MLIR.splitlines()
    located: list[str | None] = [None] * len(lines)
    for (old, new), place in zip(edits, places, strict=True):
        k = next(k for k, line in enumerate(lines) if old in line)
        lines[k], located[k] = lines[k].replace(old, new), place
    found = compare_text("stablehlo", MLIR, "\n".join(lines) + "\n", diff_lines=8, locations=lambda: located)
    assert found is not None
    assert [place for place, _ in found.detail["sources"]] == [str(p) for p in places]
    # the project's line first (it also holds logistic, a kind that appeared), then the test file's
    assert [text.split(" (")[0] for text in found.locations] == [str(places[2]), str(places[1])]


# An Equinox BERT-like block: token and position embeddings, its train step made by ``make_step``
# (the optimizer's update is the user's line there); ``{positions}`` is the line the edit changes.
BERT = """
import jax, jax.numpy as jnp, equinox as eqx

class Block(eqx.Module):
    tok: eqx.nn.Embedding
    pos: eqx.nn.Embedding
    dense: eqx.nn.Linear

    def __init__(self, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.tok = eqx.nn.Embedding(32, 16, key=k1)
        self.pos = eqx.nn.Embedding(8, 16, key=k2)
        self.dense = eqx.nn.Linear(16, 32, key=k3)

    def __call__(self, tokens):
        positions = jax.vmap(self.pos)(jnp.arange(tokens.shape[0]))
        positions = {positions}
        return jax.vmap(self.dense)(jax.vmap(self.tok)(tokens) + positions)

def make_step(tx):
    @eqx.filter_jit
    def step(model, opt_state, tokens):
        loss = lambda model: jax.nn.logsumexp(jax.vmap(model)(tokens), axis=-1).mean()
        value, grads = eqx.filter_value_and_grad(loss)(model)
        updates, opt_state = tx.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return value, eqx.apply_updates(model, updates), opt_state
    return step
"""
BERT_TEST = """
import jax, jax.numpy as jnp, equinox as eqx, optax
from bert import Block, make_step

def test_step(stage_snapshot):
    model = Block(jax.random.PRNGKey(0))
    tx = optax.adamw(1e-3)
    stage_snapshot(make_step(tx), model, tx.init(eqx.filter(model, eqx.is_array)), jnp.zeros((4, 8), jnp.int32))
"""


def test_stop_gradient_is_headlined_at_its_line_not_at_the_optimizers(project) -> None:
    """``stop_gradient(positions)`` adds no op past the jaxpr: the backward pass loses ops and the
    optimizer's update changes. The headline names the edited line, from the jaxpr."""
    pytest.importorskip("equinox")
    project.configure('stages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = []')
    project.write("bert.py", BERT.format(positions="positions"))
    project.write("test_bert.py", BERT_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("bert.py", BERT.format(positions="jax.lax.stop_gradient(positions)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    headline = next(line for line in result.outlines if line.startswith("  IR: "))
    line = 1 + BERT.splitlines().index("        positions = {positions}")
    assert f" at bert.py:{line} in Block.__call__ (" in headline, headline


def test_a_jaxpr_whose_first_changed_op_is_a_librarys_names_no_line(tmp_path) -> None:
    """The jaxpr records one frame per op, in the order the program ran: where the first changed op is
    a library's, the user's line that called it is not in the jaxpr, and a later line of the user's is
    downstream of the edit. That text names none (StableHLO's call stacks will); one whose first
    changed op is the user's names it."""
    jaxpr = (SNAPSHOTS / "stages/rnn_decode/cpu1/rnn_decode.jaxpr.txt").read_text()
    (tmp_path / "model.py").write_text("")
    site = tmp_path.parent / "venv" / "lib" / "python3.11" / "site-packages" / "flax" / "linear.py"
    library, own = describe_all([Location(str(site), 9, "f"), Location(str(tmp_path / "model.py"), 3, "g")], tmp_path)
    lines = jaxpr.splitlines()
    first, second = (next(k for k, line in enumerate(lines) if text in line) for text in ("= add j k", "= tanh l"))
    lines[first], lines[second] = lines[first].replace("add", "sub"), lines[second].replace("tanh", "sin")
    edited = "\n".join(lines) + "\n"
    for places, named in (((library, own), []), ((own, library), ["model.py:3 in g"])):
        located: list[str | None] = [None] * len(lines)
        located[first], located[second] = places
        found = compare_text("jaxpr", jaxpr, edited, diff_lines=8, locations=lambda located=located: located)
        assert found is not None
        assert [text.split(" (")[0] for text in found.locations] == named
