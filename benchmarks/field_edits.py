"""The field list: one-line edits of real model code, their verdicts, headlines and pull-request churn.

Usage: python benchmarks/field_edits.py [--list 58|67] [--only EDIT ...] [--configs cpu1,cpu8,v5e,fsdp8] [--json PATH]
       python benchmarks/field_edits.py --table PATH   (the table of a saved run)

Copies examples/field (penzai, Flax NNX, Equinox and diffrax models: docs/field.md) into a
scratch git repository, records the snapshots the chosen edits need (``--stages-update``) and
commits them. Then for each edit of the user's code: applies it, runs the edit's calls once
(compare: the verdict, pass or fail, and each failure's headline lines), accepts it with
``--stages-update``, and per changed snapshot file counts the lines ``git diff --numstat``
adds plus deletes (the pull request) against the ``+``/``-`` rows the ``pytest-stages diff``
driver prints for the same two files (the semantic diff: a changed line is one of each); then
reverts. A headline "names the edit" when it names the edited line's ``file:line``, or for a
configuration value one of the lines that use it (or the first line of a statement written over
several lines that holds one: Python reports such a call at its first line). Runs against whatever ``pytest_stages`` is
on ``PYTHONPATH`` (this tree's, by default) and the libraries installed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest
from diff_churn import _git, _replace

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "examples" / "field"
CONFIGS = ("cpu1", "cpu8", "v5e", "fsdp8")
# The goals: PR lines per file at most this many times its semantic rows; a one-constant edit's total.
RATIO_GOAL, CONSTANT_GOAL = 2.0, 60
NO_TESTS = pytest.ExitCode.NO_TESTS_COLLECTED


@dataclass(frozen=True)
class Edit:
    """A one-line edit of ``path`` (``old`` becomes ``new``; a reorder moves one line past another).

    ``tests``/``select``: the calls it affects (test files, a ``-k`` expression); ``expected``:
    the verdict a correct plugin gives ("fail": the program changed; "pass": it did not);
    ``uses``: for a configuration value, the lines that use it (a headline there names the edit).
    """

    name: str
    kind: str
    library: str
    path: str
    old: str
    new: str
    expected: str
    tests: tuple[str, ...]
    select: str
    uses: tuple[str, ...] = ()


LM_TRAIN = (("test_corpus.py",), "test_train_step and cpu1")
GEMMA_TRAIN = (("test_gemma.py",), "test_gemma_train_step and cpu1")
BERT_TRAIN = (("test_bert.py",), "test_bert_train_step and cpu1")
MLP_LINES = "        ff_gate = self.gate_proj(x)\n        ff1 = self.up_proj(x)\n"
EMBEDDING_LINES = (
    "        tokens_embedded = jax.vmap(self.token_embedding)(tokens)\n"
    "        positions_embedded = jax.vmap(self.position_embedding)(positions)\n"
)
EDITS = (
    Edit(
        "rms-eps",
        "constant",
        "penzai",
        "lm.py",
        "RMS_EPS = 1e-6",
        "RMS_EPS = 1e-5",
        "fail",
        *LM_TRAIN,
        uses=("rms_norm_eps=RMS_EPS,",),
    ),
    Edit(
        "logits-bf16",
        "dtype",
        "penzai",
        "lm.py",
        "LOGITS_DTYPE = jnp.float32",
        "LOGITS_DTYPE = jnp.bfloat16",
        "fail",
        *LM_TRAIN,
        uses=(".astype(LOGITS_DTYPE)",),
    ),
    Edit(
        "adamw-keyword",
        "refactor",
        "penzai",
        "lm.py",
        "OPTIMIZER = optax.adamw(1e-3, weight_decay=0.1)",
        "OPTIMIZER = optax.adamw(learning_rate=1e-3, weight_decay=0.1)",
        "pass",
        *LM_TRAIN,
    ),
    Edit(
        "remat-blocks",
        "jax.checkpoint",
        "penzai",
        "lm.py",
        "REMAT_BLOCKS = False",
        "REMAT_BLOCKS = True",
        "fail",
        *LM_TRAIN,
        uses=("if REMAT_BLOCKS:",),
    ),
    Edit(
        "lm-no-donation",
        "donation",
        "penzai",
        "lm.py",
        "    return jax.jit(lambda p, s, t: train_step(model, p, s, t), donate_argnums=(0, 1))",
        "    return jax.jit(lambda p, s, t: train_step(model, p, s, t))",
        "fail",
        *LM_TRAIN,
    ),
    Edit(
        "lm-logits-reshard",
        "sharding",
        "penzai",
        "lm.py",
        '            logits = jax.lax.with_sharding_constraint(logits, P("data"))',
        '            logits = jax.lax.with_sharding_constraint(logits, P("data", None, "model"))',
        "fail",
        ("test_corpus.py",),
        "test_sharded_train_step and cpu8",
    ),
    Edit(
        "lm-hidden-320",
        "shape",
        "penzai",
        "lm.py",
        "HIDDEN = 256",
        "HIDDEN = 320",
        "fail",
        ("test_corpus.py",),
        "test_forward",
        uses=("mlp_hidden_dim=HIDDEN,",),
    ),
    Edit(
        "gelu-silu",
        "activation",
        "flax-nnx",
        "gemma.py",
        "        activations = jax.nn.gelu(ff_gate, approximate=False) * ff1",
        "        activations = jax.nn.silu(ff_gate) * ff1",
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "erf-gelu-tanh",
        "activation",
        "flax-nnx",
        "gemma.py",
        "        activations = jax.nn.gelu(ff_gate, approximate=False) * ff1",
        "        activations = jax.nn.gelu(ff_gate, approximate=True) * ff1",
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "attention-logits-f32",
        "dtype",
        "flax-nnx",
        "gemma.py",
        '        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k)',
        '        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k, preferred_element_type=jnp.float32)',
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "no-donation",
        "donation",
        "flax-nnx",
        "gemma.py",
        "    return jax.jit(step, donate_argnums=(0, 1))",
        "    return jax.jit(step)",
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "logits-sharding",
        "sharding",
        "flax-nnx",
        "gemma.py",
        '        logits = jax.lax.with_sharding_constraint(logits, P("data"))',
        '        logits = jax.lax.with_sharding_constraint(logits, P("data", None, "model"))',
        "fail",
        ("test_gemma.py",),
        "test_gemma_sharded_train_step",
    ),
    Edit(
        "decode-steps",
        "loop count",
        "flax-nnx",
        "gemma.py",
        "DECODE_STEPS = 16",
        "DECODE_STEPS = 24",
        "fail",
        ("test_gemma.py",),
        "test_gemma_decode",
        uses=("jax.lax.fori_loop(0, DECODE_STEPS", "tokens = jnp.zeros((batch, length + DECODE_STEPS)"),
    ),
    Edit(
        "mlp-reorder",
        "reorder",
        "flax-nnx",
        "gemma.py",
        MLP_LINES,
        "".join(reversed(MLP_LINES.splitlines(keepends=True))),
        "pass",
        ("test_gemma.py",),
        "test_gemma",
    ),
    Edit(
        "residual-augmented",
        "refactor",
        "flax-nnx",
        "gemma.py",
        "        x = x + self.attention(self.pre_attention_norm(x), positions)",
        "        x += self.attention(self.pre_attention_norm(x), positions)",
        "pass",
        *GEMMA_TRAIN,
    ),
    Edit(
        "layer-norm-eps",
        "constant",
        "equinox",
        "bert.py",
        "LAYER_NORM_EPS = 1e-12",
        "LAYER_NORM_EPS = 1e-5",
        "fail",
        *BERT_TRAIN,
        uses=("eps=LAYER_NORM_EPS)",),
    ),
    Edit(
        "positions-stop-gradient",
        "stop_gradient",
        "equinox",
        "bert.py",
        "        positions_embedded = jax.vmap(self.position_embedding)(positions)",
        "        positions_embedded = jax.lax.stop_gradient(jax.vmap(self.position_embedding)(positions))",
        "fail",
        *BERT_TRAIN,
    ),
    Edit(
        "layer-checkpoint",
        "jax.checkpoint",
        "equinox",
        "bert.py",
        "            x = layer(x, mask)",
        "            x = eqx.filter_checkpoint(layer)(x, mask)",
        "fail",
        *BERT_TRAIN,
    ),
    Edit(
        "heads-8",
        "shape",
        "equinox",
        "bert.py",
        "HEADS = 4",
        "HEADS = 8",
        "fail",
        *BERT_TRAIN,
        uses=("eqx.nn.MultiheadAttention(HEADS, WIDTH",),
    ),
    Edit(
        "embedding-reorder",
        "reorder",
        "equinox",
        "bert.py",
        EMBEDDING_LINES,
        "".join(reversed(EMBEDDING_LINES.splitlines(keepends=True))),
        "pass",
        ("test_bert.py",),
        "test_bert",
    ),
    Edit(
        "ode-rtol",
        "constant",
        "diffrax",
        "ode.py",
        "RTOL = 1e-5",
        "RTOL = 1e-6",
        "fail",
        ("test_corpus.py",),
        "test_ode_solve",
        uses=("PIDController(rtol=RTOL",),
    ),
)


# Issue #67's fresh list: the training cookbook's jax.Ref step (plain JAX on 8 fsdp devices), the Flax NNX
# Gemma (train step and sampler), the Equinox BERT and the penzai LM; masks, precision, optimizers, donation,
# remat, dtypes, widths, two reorders and a refactor.
COOKBOOK = (("test_cookbook.py",), "test_cookbook_train_step and fsdp8")
GEMMA_DECODE = (("test_gemma.py",), "test_gemma_decode")
MOMENT_LINES = (
    '    moments["mu"][...] = BETA_1 * moments["mu"][...] + (1 - BETA_1) * grad\n'
    '    moments["nu"][...] = BETA_2 * moments["nu"][...] + (1 - BETA_2) * grad**2\n'
)
LIST_67 = (
    Edit(
        "ck-logits-f32",
        "precision",
        "jax",
        "cookbook.py",
        'logits = jnp.einsum("bsd,dv->bsv", out, params["unembed"])',
        'logits = jnp.einsum("bsd,dv->bsv", out, params["unembed"], preferred_element_type=jnp.float32)',
        "fail",
        *COOKBOOK,
    ),
    Edit(
        "ck-not-causal",
        "mask",
        "jax",
        "cookbook.py",
        "qkv[:, :, 2], is_causal=True)",
        "qkv[:, :, 2], is_causal=False)",
        "fail",
        *COOKBOOK,
    ),
    Edit(
        "ck-beta-2",
        "optimizer",
        "jax",
        "cookbook.py",
        "BETA_1, BETA_2, EPS = 0.9, 0.999, 1e-8",
        "BETA_1, BETA_2, EPS = 0.9, 0.95, 1e-8",
        "fail",
        *COOKBOOK,
        uses=("BETA_2 * moments",),
    ),
    Edit(
        "ck-remat-mlp",
        "jax.checkpoint",
        "jax",
        "cookbook.py",
        'out = jax.nn.gelu(jnp.einsum("bsd,dh->bsh", out, layer("mlp_in")))',
        'out = jax.checkpoint(lambda h: jax.nn.gelu(jnp.einsum("bsd,dh->bsh", h, layer("mlp_in"))))(out)',
        "fail",
        *COOKBOOK,
    ),
    Edit("ck-hidden-768", "width", "jax", "cookbook.py", "HIDDEN = 512", "HIDDEN = 768", "fail", *COOKBOOK),
    Edit(
        "ck-qkv-highest",
        "precision",
        "jax",
        "cookbook.py",
        'qkv = jnp.einsum("bsd,tdhk->bsthk", out, layer("qkv"))',
        'qkv = jnp.einsum("bsd,tdhk->bsthk", out, layer("qkv"), precision=jax.lax.Precision.HIGHEST)',
        "fail",
        *COOKBOOK,
    ),
    Edit(
        "ck-moments-reorder",
        "reorder",
        "jax",
        "cookbook.py",
        MOMENT_LINES,
        "".join(reversed(MOMENT_LINES.splitlines(keepends=True))),
        "pass",
        *COOKBOOK,
    ),
    Edit(
        "gm-sliding-window",
        "mask",
        "flax-nnx",
        "gemma.py",
        "causal = jnp.tril(jnp.ones((seq, seq), jnp.bool_))",
        "causal = jnp.tril(jnp.ones((seq, seq), jnp.bool_)) & jnp.triu(jnp.ones((seq, seq), jnp.bool_), -32)",
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "gm-attention-highest",
        "precision",
        "flax-nnx",
        "gemma.py",
        'logits = jnp.einsum("bqhd,bkhd->bhqk", q, k)',
        'logits = jnp.einsum("bqhd,bkhd->bhqk", q, k, precision=jax.lax.Precision.HIGHEST)',
        "fail",
        *GEMMA_TRAIN,
    ),
    Edit(
        "gm-lion",
        "optimizer",
        "flax-nnx",
        "gemma.py",
        "OPTIMIZER = optax.adamw(3e-4, b2=0.95, weight_decay=0.1)",
        "OPTIMIZER = optax.lion(3e-4, b2=0.95, weight_decay=0.1)",
        "fail",
        *GEMMA_TRAIN,
        uses=("OPTIMIZER.update(",),
    ),
    Edit("gm-hidden-384", "width", "flax-nnx", "gemma.py", "HIDDEN = 256", "HIDDEN = 384", "fail", *GEMMA_TRAIN),
    Edit(
        "gm-sampler-donation",
        "donation",
        "flax-nnx",
        "gemma.py",
        "return jax.jit(decode)",
        "return jax.jit(decode, donate_argnums=(1,))",
        "fail",
        *GEMMA_DECODE,
    ),
    Edit(
        "gm-sampler-state-donation",
        "donation",
        "flax-nnx",
        "gemma.py",
        "return jax.jit(decode)",
        "return jax.jit(decode, donate_argnums=(2,))",
        "fail",
        *GEMMA_DECODE,
    ),
    Edit(
        "gm-argmin",
        "sampling",
        "flax-nnx",
        "gemma.py",
        "jnp.argmax(logits, axis=-1)",
        "jnp.argmin(logits, axis=-1)",
        "fail",
        *GEMMA_DECODE,
    ),
    Edit(
        "gm-up-before-gate",
        "reorder",
        "flax-nnx",
        "gemma.py",
        MLP_LINES,
        "".join(reversed(MLP_LINES.splitlines(keepends=True))),
        "pass",
        ("test_gemma.py",),
        "test_gemma_train_step or test_gemma_sharded_train_step",
    ),
    Edit(
        "bt-layer-checkpoint",
        "jax.checkpoint",
        "equinox",
        "bert.py",
        "x = layer(x, mask)",
        "x = eqx.filter_checkpoint(layer)(x, mask)",
        "fail",
        *BERT_TRAIN,
    ),
    Edit("bt-ffn-384", "width", "equinox", "bert.py", "HIDDEN = 256", "HIDDEN = 384", "fail", *BERT_TRAIN),
    Edit(
        "bt-padding-keys-only",
        "mask",
        "equinox",
        "bert.py",
        "mask = padding[None, :] & padding[:, None]",
        "mask = jnp.broadcast_to(padding[None, :], (tokens.shape[0], tokens.shape[0]))",
        "fail",
        *BERT_TRAIN,
    ),
    Edit(
        "bt-no-weight-decay",
        "optimizer",
        "equinox",
        "bert.py",
        "OPTIMIZER = optax.adamw(1e-4, weight_decay=0.01)",
        "OPTIMIZER = optax.adamw(1e-4, weight_decay=0.0)",
        "fail",
        *BERT_TRAIN,
        uses=("OPTIMIZER.update(",),
    ),
    Edit(
        "bt-embeddings-bf16",
        "dtype",
        "equinox",
        "bert.py",
        "x = jax.vmap(self.embedding_norm)(tokens_embedded + positions_embedded)",
        "x = jax.vmap(self.embedding_norm)((tokens_embedded + positions_embedded).astype(jnp.bfloat16))",
        "fail",
        *BERT_TRAIN,
    ),
    Edit(
        "bt-len-refactor",
        "refactor",
        "equinox",
        "bert.py",
        "positions = jnp.arange(tokens.shape[0])",
        "positions = jnp.arange(len(tokens))",
        "pass",
        *BERT_TRAIN,
    ),
    Edit(
        "pz-logits-bf16",
        "dtype",
        "penzai",
        "lm.py",
        "LOGITS_DTYPE = jnp.float32",
        "LOGITS_DTYPE = jnp.bfloat16",
        "fail",
        *LM_TRAIN,
        uses=(".astype(LOGITS_DTYPE)",),
    ),
)
LISTS = {"58": EDITS, "67": LIST_67}


@dataclass
class FileChurn:
    """One changed snapshot file: PR lines (``git diff --numstat``), the driver's semantic rows, and
    rows shown as changed with the same text on both sides."""

    path: str
    pr_lines: int
    semantic_rows: int
    identical_rows: int
    cut: bool

    @property
    def ratio(self) -> float:
        return self.pr_lines / self.semantic_rows if self.semantic_rows else float("inf") if self.pr_lines else 0.0


@dataclass
class Result:
    """What one edit gave: per call its outcome and headline lines, and the accepted edit's churn."""

    edit: Edit
    edited: str
    verdict: str
    outcomes: dict[str, str] = field(default_factory=dict)
    headlines: dict[str, list[str]] = field(default_factory=dict)
    named: str = "-"
    files: list[FileChurn] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""  # the update failed: the failure's first lines (the edit breaks the program)


def _pytest(repo: Path, tests: tuple[str, ...], select: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The selected calls of the corpus, with the ``pytest_stages`` on this process's ``PYTHONPATH``."""
    command = [sys.executable, "-m", "pytest", *tests, "-rA", "-p", "no:cacheprovider", "-W", "ignore", *args]
    command += ["-k", select]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))}
    return subprocess.run(command, check=False, cwd=repo, env=env, capture_output=True, text=True)


def _selection(edit: Edit, configs: tuple[str, ...]) -> str:
    """The edit's ``-k`` expression narrowed to ``configs``."""
    narrowed = f"({' or '.join(configs)})" if set(configs) != set(CONFIGS) else ""
    return " and ".join(f"({part})" for part in (edit.select, narrowed) if part)


def _outcomes(stdout: str) -> dict[str, str]:
    """Each call's outcome from pytest's ``-rA`` summary (``PASSED test_x.py::test_y[cpu1]``)."""
    found = re.findall(r"^(PASSED|FAILED|ERROR|SKIPPED) (\S+::\S+)", stdout, re.MULTILINE)
    return {test: outcome.lower() for outcome, test in found}


def _headlines(stdout: str) -> dict[str, list[str]]:
    """Each failed call's headline lines: the lines indented two spaces below ``pytest-stages: ...``."""
    out: dict[str, list[str]] = {}
    test, inside = "", False
    for line in stdout.splitlines():
        title = re.match(r"^_{3,} (\S+) _{3,}$", line)
        if title:
            test, inside = title.group(1), False
        elif line.startswith("pytest-stages: ") and test:
            inside = True
            out.setdefault(test, [])
        elif inside and line.startswith("  ") and not line.startswith("    "):
            out[test].append(line.strip())
        else:
            inside = False
    return out


def _first_error(stdout: str) -> str:
    """The first ``pytest-stages: ...`` failure of an update and the line after it, joined."""
    lines = stdout.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("pytest-stages: ")), None)
    return " ".join(line.strip() for line in lines[start : start + 2]) if start is not None else stdout[-500:]


def _line_numbers(repo: Path, path: str, texts: tuple[str, ...]) -> list[int]:
    """The 1-based numbers of ``path``'s lines that hold any of ``texts``."""
    lines = (repo / path).read_text(encoding="utf-8").splitlines()
    return [k + 1 for k, line in enumerate(lines) if any(text in line for text in texts)]


def _statement_starts(repo: Path, path: str, numbers: list[int]) -> list[int]:
    """The first line of each simple statement written over several lines that holds one of ``numbers``:
    Python reports a call written over several lines at its first line, so a headline there names the use."""
    tree = ast.parse((repo / path).read_text(encoding="utf-8"))
    simple = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, simple) and any(node.lineno < n <= (node.end_lineno or node.lineno) for n in numbers)
        }
    )


def _named(headlines: dict[str, list[str]], path: str, edited: list[int], uses: list[int]) -> str:
    """Whether the failed calls' headlines name the edit: "edit" (each names an edited line), "use"
    (each names it or a line that uses the edited value), "no", or "-" (no call failed)."""
    if not headlines:
        return "-"

    def names(lines: list[str], numbers: list[int]) -> bool:
        return any(re.search(rf"(?<![\w/.]){re.escape(path)}:{n}\b", " ".join(lines)) for n in numbers)

    if all(names(lines, edited) for lines in headlines.values()):
        return "edit"
    return "use" if all(names(lines, edited + uses) for lines in headlines.values()) else "no"


def _diff_rows(repo: Path, path: str) -> tuple[int, int, bool]:
    """The ``+``/``-`` rows ``pytest-stages diff`` prints for the committed and the updated file, the
    rows among them that a ``-`` and a ``+`` row of the same run show with the same text, and
    whether the driver stopped at its window."""
    with tempfile.TemporaryDirectory() as tmp:
        # The driver names the artifact by the file's suffix: both copies keep the snapshot's.
        suffix = "".join(Path(path).suffixes)
        old, new = Path(tmp) / f"old{suffix}", Path(tmp) / f"new{suffix}"
        tracked = _git(repo, "ls-files", "--", path).strip()
        old.write_text(_git(repo, "show", f"HEAD:{path}") if tracked else "", encoding="utf-8")
        new.write_text((repo / path).read_text(encoding="utf-8") if (repo / path).exists() else "", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest_stages", "diff", str(old), str(new)],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))},
        )
    lines = done.stdout.splitlines()
    is_row = [line[:1] in "+-" and not line.startswith(("+++ ", "--- ")) for line in lines]
    identical, run = 0, []
    for line, row in zip([*lines, ""], [*is_row, False], strict=True):
        if row:
            run.append(line)
            continue
        removed = Counter(text[1:] for text in run if text[0] == "-")
        identical += 2 * sum((removed & Counter(text[1:] for text in run if text[0] == "+")).values())
        run = []
    return sum(is_row), identical, any("beyond the diffed window" in line for line in lines)


def _changed_files(repo: Path) -> dict[str, int]:
    """Per changed file under snapshots/: added plus deleted lines (``git diff --numstat``, new files included)."""
    _git(repo, "add", "-A", "snapshots")
    out = {}
    for line in _git(repo, "diff", "--cached", "--numstat", "snapshots").splitlines():
        added, deleted, path = line.split("\t")
        out[path] = int(added) + int(deleted)
    return out


def measure(repo: Path, edit: Edit, configs: tuple[str, ...]) -> Result | None:
    """Apply ``edit``, compare, accept it, count the churn, revert (None: no call of it runs on ``configs``)."""
    start = time.perf_counter()
    if (repo / edit.path).read_text(encoding="utf-8").count(edit.old) != 1:
        raise SystemExit(f"{edit.path} does not hold the line edit {edit.name} changes exactly once: {edit.old!r}")
    _replace(repo, edit.path, edit.old, edit.new)
    edited = _line_numbers(repo, edit.path, tuple(edit.new.splitlines()))  # a reorder edits each line it moves
    uses = _line_numbers(repo, edit.path, edit.uses) if edit.uses else []
    uses += _statement_starts(repo, edit.path, uses)
    select = _selection(edit, configs)
    compared = _pytest(repo, edit.tests, select)
    outcomes = _outcomes(compared.stdout)
    if compared.returncode == NO_TESTS:  # none of the edit's calls runs on the configs chosen
        _git(repo, "reset", "-q", "--hard", "start")
        return None
    if not outcomes:
        raise SystemExit(f"edit {edit.name}: no call ran:\n{compared.stdout[-3000:]}")
    verdict = "pass" if all(o == "passed" for o in outcomes.values()) else "fail"
    headlines = _headlines(compared.stdout)
    updated = _pytest(repo, edit.tests, select, "--stages-update")
    error = "" if updated.returncode == 0 else _first_error(updated.stdout)
    files = [FileChurn(path, lines, *_diff_rows(repo, path)) for path, lines in sorted(_changed_files(repo).items())]
    _git(repo, "reset", "-q", "--hard", "start")
    _git(repo, "clean", "-fdq")
    result = Result(edit, f"{edit.path}:{','.join(map(str, edited))}", verdict, outcomes, headlines, files=files)
    result.error = error
    result.named = _named(headlines, edit.path, edited, uses)
    result.seconds = time.perf_counter() - start
    return result


def _short(path: str) -> str:
    return path.removeprefix("snapshots/")


def report(results: list[Result]) -> str:
    """The table (one row per edit, then per changed file) and the totals the goals are stated in."""
    out = ["| edit | kind | library | expected | verdict | headline | names the edit | PR lines | semantic rows |"]
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        first = " / ".join(next((lines for lines in r.headlines.values() if lines), []))
        pr, semantic = sum(f.pr_lines for f in r.files), sum(f.semantic_rows for f in r.files)
        cut = "*" if any(f.cut for f in r.files) else ""
        first = f"update failed: {r.error}" if r.error else first
        out.append(
            f"| {r.edit.name} ({r.edited}) | {r.edit.kind} | {r.edit.library} | {r.edit.expected} | {r.verdict} "
            f"| {first.replace('|', '/')} | {r.named} | {pr} | {semantic}{cut} |"
        )
    out.append("")
    out.append("Per changed snapshot file (PR lines / semantic rows, ratio; rows with the same text on both sides):")
    for r in results:
        out.append(
            f"- {r.edit.name}: {r.seconds:.0f} s; calls: " + ", ".join(f"{t} {o}" for t, o in r.outcomes.items())
        )
        for test, lines in r.headlines.items():
            out.extend(f"    headline {test}: {line}" for line in lines)
        for f in r.files:
            identical = f", {f.identical_rows} identical" if f.identical_rows else ""
            out.append(
                f"    {_short(f.path)}: {f.pr_lines} / {f.semantic_rows}{'*' if f.cut else ''}, "
                f"{f.ratio:.1f}x{identical}"
            )
    right = sum(r.verdict == r.edit.expected for r in results)
    failed = [r for r in results if r.verdict == "fail"]
    named = sum(r.named in ("edit", "use") for r in failed)
    files = [(r.edit.name, f) for r in results for f in r.files]
    worst = max(files, key=lambda item: item[1].ratio, default=None)
    over = sum(f.ratio > RATIO_GOAL for _, f in files)
    out.append("")
    out.append(f"verdicts right: {right}/{len(results)}")
    out.append(
        f"headline names the edit: {named}/{len(failed)} failed edits "
        f"({sum(r.named == 'edit' for r in failed)} the edited line, "
        f"{sum(r.named == 'use' for r in failed)} a use of the edited value)"
    )
    if worst:
        out.append(
            f"worst PR/semantic ratio per file: {worst[1].ratio:.1f}x ({worst[0]}: {_short(worst[1].path)}, "
            f"{worst[1].pr_lines} / {worst[1].semantic_rows}); files above {RATIO_GOAL:g}x: {over}/{len(files)}"
        )
    out.append(
        "files written by edits expected to pass: "
        + ", ".join(f"{r.edit.name} {len(r.files)}" for r in results if r.edit.expected == "pass")
    )
    out.append("rows with the same text on both sides: " + str(sum(f.identical_rows for _, f in files)))
    out.append(
        "one-constant edits, PR lines in all: "
        + ", ".join(f"{r.edit.name} {sum(f.pr_lines for f in r.files)}" for r in results if r.edit.kind == "constant")
        + f" (goal: at most {CONSTANT_GOAL})"
    )
    out.append("* the diff driver stopped at its window: its rows are a lower bound")
    return "\n".join(out)


def _as_json(result: Result) -> dict[str, object]:
    data = asdict(result)
    for item, churn in zip(data["files"], result.files, strict=True):
        item["ratio"] = churn.ratio if churn.ratio != float("inf") else None
    return data


def _from_json(data: dict[str, Any]) -> Result:
    """A result as ``--json`` saved it."""
    edit = Edit(**{**data["edit"], "tests": tuple(data["edit"]["tests"]), "uses": tuple(data["edit"]["uses"])})
    files = [FileChurn(**{k: v for k, v in item.items() if k != "ratio"}) for item in data["files"]]
    return Result(**{**data, "edit": edit, "files": files})


def _save(path: Path | None, results: list[Result]) -> None:
    if path:
        path.write_text(json.dumps([_as_json(r) for r in results], indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", choices=sorted(LISTS), default="58", help="issue #58's list or #67's fresh one")
    parser.add_argument("--only", nargs="+", metavar="EDIT", help="the edits to run (names or parts of them)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="the configs to run (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="save the results here (after each edit)")
    parser.add_argument(
        "--table", type=Path, metavar="JSON", help="print the table of results --json saved; run nothing"
    )
    args = parser.parse_args()
    if args.table:
        print(report([_from_json(item) for item in json.loads(args.table.read_text(encoding="utf-8"))]))
        return
    chosen = [e for e in LISTS[args.list] if not args.only or any(word in e.name for word in args.only)]
    configs = tuple(c for c in args.configs.split(",") if c)
    if not chosen or not set(configs) <= set(CONFIGS):
        raise SystemExit(f"no such edit or config: edits {[e.name for e in LISTS[args.list]]}, configs {CONFIGS}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "field"
        shutil.copytree(FIELD, repo, ignore=shutil.ignore_patterns("snapshots", "__pycache__", ".pytest_cache"))
        started = time.perf_counter()
        tests = tuple(sorted({t for e in chosen for t in e.tests}))
        select = " or ".join(f"({_selection(e, configs)})" for e in chosen)
        done = _pytest(repo, tests, select, "--stages-update")
        if done.returncode not in {0, NO_TESTS}:
            raise SystemExit(f"recording the corpus failed:\n{done.stdout[-3000:]}")
        print(f"recorded {len(_outcomes(done.stdout))} calls in {time.perf_counter() - started:.0f} s", flush=True)
        _git(repo, "init", "-q")
        _git(repo, "config", "user.name", "bench")
        _git(repo, "config", "user.email", "bench@example.com")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "start")
        _git(repo, "tag", "start")
        results = []
        for edit in chosen:
            r = measure(repo, edit, configs)
            if r is None:
                print(f"{edit.name}: skipped, none of its calls ({edit.select}) runs on {','.join(configs)}")
                continue
            results.append(r)
            _save(args.json, results)
            print(
                f"{edit.name}: {r.verdict} (expected {edit.expected}), {len(r.files)} files, "
                f"{sum(f.pr_lines for f in r.files)} PR lines, {r.seconds:.0f} s",
                flush=True,
            )
    print()
    print(report(results))


if __name__ == "__main__":
    main()
