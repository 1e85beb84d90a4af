"""Findings carry what the renderers show as fields: no renderer reads text back out of a message."""

from __future__ import annotations

from pytest_stages.check import recompiles
from pytest_stages.check.decide import Verdict
from pytest_stages.check.drift import CONSTANT, changed_constants, constant_text, summary_lines
from pytest_stages.check.message import Call, Labels, call_message, details, failure_message
from pytest_stages.core.records import CallRecord, Finding
from pytest_stages.ir import literals
from pytest_stages.ir.textdiff import EditScript, Row
from pytest_stages.report.html_report import _call_section

CALL = Call("f", "cpu1", "snaps", {})
EXPLAINED = "TRACING CACHE MISS at model.py:3 (f):\n  never seen input type signature"


def _message(*failing: Finding) -> str:
    return call_message(CALL, Verdict(failing=failing), notes=(), diff_lines=100, full=False)


def test_a_compile_count_finding_carries_jax_explanations_as_a_field() -> None:
    before = {"functions": {"step": {"traces": 1, "lowerings": 1, "compiles": 1, "signatures": ["a"]}}}
    after = {"functions": {"step": {"traces": 2, "lowerings": 2, "compiles": 2, "signatures": ["a", "b"]}}}
    (found,) = recompiles.compare_counts(before, after, {"step": ["first", EXPLAINED]})
    assert found.message == "step: 2 traces, was 1; 2 lowerings, was 1; 2 compiles, was 1; new signature (b)"
    assert found.explanations == (EXPLAINED,)
    assert details(found)[1:] == [
        "    JAX: TRACING CACHE MISS at model.py:3 (f):",
        "      never seen input type signature",
    ]
    assert CallRecord.from_dict({**_record(), "findings": [found.to_dict()]}).findings == [found]
    html = _call_section(CallRecord(**_record(), findings=[found]))
    assert "new signature (b)<br>JAX: TRACING CACHE MISS at model.py:3 (f):<br>never seen input type signature" in html


def test_budget_details_are_left_out_only_when_the_headline_says_them_whole() -> None:
    flops = Finding("budget", "budget", "flops 120 exceeds the ceiling 100")
    assert _message(flops).splitlines()[1:3] == [
        "  budget: flops 120 exceeds the ceiling 100",
        "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program.",
    ]
    ceiling = {"functions": {"step": {"compiles": 2, "signatures": ["a", "b"]}}}
    (breach,) = recompiles.check_budget(1, ceiling, {"step": ["first", EXPLAINED]})
    assert breach.message == "step: 2 compiles exceed the ceiling 1; new signature (b)"
    text = _message(breach)
    assert "- budget: step: 2 compiles exceed the ceiling 1; new signature (b)" in text
    assert "    JAX: TRACING CACHE MISS at model.py:3 (f):" in text


def test_a_drift_summary_keeps_its_source_lines_as_data() -> None:
    detail = {"summary": ["ops: +1 add"], "sources": [["model.py:3 in f", {"added": 1}]], "removed": 2}
    assert summary_lines(detail) == [
        "ops: +1 add",
        "source: model.py:3 in f (1 added)",
        "removed: 2 line(s), whose source lines the snapshot does not keep",
    ]
    finding = Finding("text", "jaxpr", "IR drift", detail={**detail, "hunks": [], "truncated": False})
    html = _call_section(CallRecord(**_record(), findings=[finding]))
    assert "<li>ops: +1 add</li>\n<li>removed: 2 line(s)" in html
    assert "source:" not in html
    assert '<li class="source">model.py:3 in f: 1 added</li>' in html


def _record() -> dict[str, str]:
    return {"nodeid": "t.py::test_f", "config": "cpu1", "name": "f", "folder": "snaps"}


def test_an_ir_headline_is_cut_before_its_location_never_through_it():
    long_ops = {f"custom-call-{'x' * 40}-{k}": k + 1 for k in range(6)}
    drift = Finding(
        "text",
        "compiled",
        "IR drift",
        change="drift",
        ops=long_ops,
        locations=("models/very/deep/package/transformer_block.py:1234 in TransformerBlock.__call__ (3 added)",),
    )
    message = failure_message("title", [drift], labels=Labels({}), diff_lines=10)
    headline = message.splitlines()[1]
    assert headline.endswith(
        " at models/very/deep/package/transformer_block.py:1234 in TransformerBlock.__call__ (3 added)"
    )
    assert "..." in headline and len(headline) <= len("  IR: ") + 160


def test_a_changed_constant_alone_reads_as_its_old_and_new_value_in_the_headline():
    constant = {"old": "1e-05", "new": "1e-12", "lines": 2, "at": "bert.py:17 in forward"}
    drift = Finding(
        "text",
        "compiled",
        "IR drift",
        change="drift",
        subject=CONSTANT,
        before="1e-05",
        after="1e-12",
        detail={"summary": [f"constants: {constant_text(constant)}"], "sources": [], "hunks": [], "truncated": False},
        locations=("bert.py:17 in forward",),
    )
    message = failure_message("title", [drift], labels=Labels({}), diff_lines=10).splitlines()
    assert message[1:4] == [
        "  IR: compiled changed; compiled: 1e-05 -> 1e-12 at bert.py:17 in forward",
        "- compiled: IR drift",
        "    constants: 1e-05 -> 1e-12 (2 lines) at bert.py:17 in forward",
    ]


def test_only_a_scalar_literal_change_is_a_changed_constant():
    pairs = [
        ("  %constant.533 = f32[] constant(1e-06)", "  %constant.534 = f32[] constant(1e-12)", 7),
        ("  %c.1 = f32[4]{0} constant({1, 2, 3, 4})", "  %c.1 = f32[4]{0} constant({1, 2, 3, 5})", 8),
        ("  %b.1 = f32[8]{0} broadcast(%c.1), dimensions={}", "  %b.1 = f32[9]{0} broadcast(%c.1), dimensions={}", 9),
        ("  %c.2 = s32[] constant(3)", "  %c.2 = f32[] constant(3)", 10),
    ]
    assert literals.changed("hlo", pairs) == [literals.LiteralChange("1e-06", "1e-12", 7)]
    mlir = (
        "    %cst_0 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>",
        "    %cst_0 = stablehlo.constant dense<1.000000e-02> : tensor<f32>",
        3,
    )
    assert literals.changed("mlir", [mlir]) == [literals.LiteralChange("1e-06", "0.01", 3)]
    jaxpr = ("    c:f32[8] = add b 1e-06:f32[]", "    c:f32[8] = add b 2:f32[]", 4)
    assert literals.changed("jaxpr", [jaxpr]) == [literals.LiteralChange("1e-06", "2", 4)]
    lines = [
        "%f {",
        "  %c.1 = f32[] constant(1)",
        "  %b.2 = f32[8]{0} broadcast(%c.1)",
        "  ROOT %a.3 = f32[8]{0} add(%p, %b.2)",
        "}",
        "  %x = f32[] negate(%c.1)",
    ]
    assert list(literals.users("hlo", lines, 1)) == [2, 3]


def test_each_block_of_removed_then_added_lines_pairs_its_own_lines_as_changed_constants():
    old = ["  %c.1 = f32[] constant(1)", "  %c.2 = f32[] constant(2)"]
    new = ["  %c.1 = f32[] constant(5)", "  %n.9 = f32[] negate(%c.1)", "  %c.2 = f32[] constant(3)"]
    rows = [Row("-", 0, None), Row("+", None, 0), Row("+", None, 1), Row("-", 1, None), Row("+", None, 2)]
    found = changed_constants("hlo", EditScript(old, new, rows), [])
    assert [(c["old"], c["new"]) for c in found] == [("1", "5"), ("2", "3")]
