"""The field corpus (examples/field): findings on real model-library code point at the user's lines.

Each test copies the corpus project into a pytester folder, records one call, edits the user's
module (``lm.py``, ``ode.py``, ``gemma.py``: the code around penzai, diffrax and Flax NNX) and reads
the failure message.
Skipped without the ``field`` extra (with the install command); CI installs it and must run them.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest
from conftest import Project

pytestmark = pytest.mark.extras("field")

FIELD = Path(__file__).resolve().parent.parent / "examples" / "field"


@pytest.fixture
def field(pytester: pytest.Pytester) -> Project:
    """The corpus project, without snapshots, as the inner session's root.

    Its libraries are imported here, once: pytester's in-process runs forget the modules a run
    imports, and re-importing penzai in each would cost seconds.
    """
    for module in ("penzai.models.transformer.variants.llamalike_common", "diffrax", "optax", "flax.nnx"):
        importlib.import_module(module)
    for name in ("pyproject.toml", "lm.py", "ode.py", "test_corpus.py"):
        shutil.copy(FIELD / name, pytester.path / name)
    return Project(pytester)


def edit(project: Project, name: str, old: str, new: str) -> None:
    path = project.path / name
    text = path.read_text()
    assert old in text, f"{name} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


def line_of(project: Project, name: str, text: str) -> int:
    """The 1-based number of the line of ``name`` that holds ``text``."""
    lines = (project.path / name).read_text().splitlines()
    return next(k + 1 for k, line in enumerate(lines) if text in line)


def headlines(result: pytest.RunResult) -> list[str]:
    """The failure message's headline lines (two-space indented, before the details)."""
    lines = result.stdout.lines
    start = next(k for k, line in enumerate(lines) if line.startswith("pytest-stages: "))
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith("  ") or line.startswith("- "):
            break
        out.append(line)
    return out


TRAIN_STEP = ("-k", "test_train_step and cpu1")

# The snapshot files of a recording of the unedited corpus, by selection: each process records a call
# once (seconds of compiling a penzai train step) and later tests start from a copy of its files.
RECORDED: dict[tuple[str, ...], dict[str, bytes]] = {}


def record(project: Project, selection: tuple[str, ...]) -> None:
    """Record the call ``selection`` picks from the unedited corpus, or plant this process's earlier recording."""
    root = project.path / "snapshots"
    if selection not in RECORDED:
        project.run("--stages-update", *selection).assert_outcomes(passed=1, deselected=4)
        RECORDED[selection] = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
        return
    for name, data in RECORDED[selection].items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_a_changed_literal_names_old_and_new_value_at_the_users_line(field):
    record(field, TRAIN_STEP)
    edit(field, "lm.py", "RMS_EPS = 1e-6\n", "RMS_EPS = 1e-12\n")
    result = field.run(*TRAIN_STEP)
    result.assert_outcomes(failed=1, deselected=4)
    line = line_of(field, "lm.py", "return bound(pz.nx.wrap(tokens)")
    eps = line_of(field, "lm.py", "RMS_EPS = 1e-12")
    assert headlines(result) == [
        f"  IR: stablehlo, compiled changed; stablehlo: 1e-06 -> 1e-12 at lm.py:{line} in forward"
        f"; 1e-12 is RMS_EPS at lm.py:{eps}",
    ]
    result.stdout.fnmatch_lines([f"    constants: 1e-06 -> 1e-12 (* lines) at lm.py:{line} in forward"])


def test_no_headline_names_a_library_frame_when_a_frame_of_the_project_exists(field):
    """A wider MLP changes ops inside penzai's layers; the headline names the model module's line."""
    record(field, TRAIN_STEP)
    edit(field, "lm.py", "HIDDEN = 256\n", "HIDDEN = 384\n")
    result = field.run(*TRAIN_STEP)
    result.assert_outcomes(failed=1, deselected=4)
    line = line_of(field, "lm.py", "return bound(pz.nx.wrap(tokens)")
    hidden = line_of(field, "lm.py", "HIDDEN = 384")
    ir = [headline for headline in headlines(result) if headline.startswith("  IR: ")]
    assert ir == [
        f"  IR: jaxpr, stablehlo, compiled changed at lm.py:{line} in forward (188 changed)"
        f"; 384 is HIDDEN at lm.py:{hidden}"
    ]
    assert not any("penzai/" in headline for headline in headlines(result))
    # The jaxpr keeps one frame per equation, penzai's: its details say so, the headline does not.
    result.stdout.fnmatch_lines(["    source: penzai/core/named_axes.py:* in *"])


def test_the_loss_target_slice_moved_before_the_forward_pass_is_no_drift_and_rewrites_nothing(field):
    """The slice moves JAX's variable names by one, so another variable of the step is named ``in``
    (the jaxpr's keyword): once a drift in the jaxpr only."""
    record(field, TRAIN_STEP)
    before = field.snapshots()
    edit(
        field,
        "lm.py",
        "    logits = forward(model, params, tokens)[:, :-1].astype(LOGITS_DTYPE)\n"
        "    return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()\n",
        "    targets = tokens[:, 1:]\n"
        "    logits = forward(model, params, tokens)[:, :-1].astype(LOGITS_DTYPE)\n"
        "    return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()\n",
    )
    field.run(*TRAIN_STEP).assert_outcomes(passed=1, deselected=4)
    field.run("--stages-update", *TRAIN_STEP).assert_outcomes(passed=1, deselected=4)
    assert field.snapshots() == before


SOLVE = ("-k", "test_ode_solve")


def test_two_independent_projections_swapped_is_no_drift_and_rewrites_nothing(field):
    field.run("--stages-update", *SOLVE).assert_outcomes(passed=1, deselected=4)
    before = field.snapshots()
    edit(
        field,
        "ode.py",
        '    hidden = jnp.tanh(y @ params["w1"])\n    skip = y @ params["skip"]\n',
        '    skip = y @ params["skip"]\n    hidden = jnp.tanh(y @ params["w1"])\n',
    )
    field.run(*SOLVE).assert_outcomes(passed=1, deselected=4)
    field.run("--stages-update", *SOLVE).assert_outcomes(passed=1, deselected=4)
    assert field.snapshots() == before


def test_a_changed_constant_of_the_flax_nnx_model_names_its_values_at_the_line_that_uses_it(field):
    """The NNX Gemma (one block, so that it compiles in seconds): the RMS epsilon is named where it is used."""
    for name in ("gemma.py", "test_gemma.py"):
        shutil.copy(FIELD / name, field.path / name)
    edit(field, "gemma.py", "LAYERS = 6\n", "LAYERS = 1\n")
    train = ("test_gemma.py", "-k", "test_gemma_train_step and cpu1")
    field.run("--stages-update", *train).assert_outcomes(passed=1, deselected=4)
    edit(field, "gemma.py", "RMS_EPS = 1e-6\n", "RMS_EPS = 1e-5\n")
    result = field.run(*train)
    result.assert_outcomes(failed=1, deselected=4)
    line = line_of(field, "gemma.py", "jax.lax.rsqrt(variance + RMS_EPS)")
    eps = line_of(field, "gemma.py", "RMS_EPS = 1e-5")
    assert headlines(result) == [
        f"  IR: jaxpr, stablehlo, compiled changed; jaxpr: 1e-06 -> 1e-05 at gemma.py:{line} in RMSNorm.__call__"
        f"; 1e-05 is RMS_EPS at gemma.py:{eps}",
    ]
