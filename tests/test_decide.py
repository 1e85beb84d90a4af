"""check.decide at its edges: which findings fail a call in each mode, and what the message adds below them."""

from __future__ import annotations

from pytest_stages.check.compare import no_snapshot
from pytest_stages.check.decide import Policy, Verdict, decide, judged
from pytest_stages.core.records import Finding

ALL_KINDS = ("text", "cost", "memory", "sharding", "layout", "budget")
NOTE = "snapshots were taken with jax 0.9.0, jaxlib 0.9.0; this run uses jax 0.10.2, jaxlib 0.10.2"

TEXT = Finding("text", "compiled", "Compiled HLO changed")
TEXT_AGAIN = Finding("text", "compiled", "Compiled HLO changed (second hunk)")
JAXPR = Finding("text", "jaxpr", "Jaxpr changed")
COST = Finding("cost", "cost", "flops 100 -> 120 (+20.0%, tolerance exact)")
BUDGET = Finding("budget", "budget", "flops 120 exceeds the ceiling 100")
FASTER = Finding("memory", "memory", "temp_size_in_bytes 10 -> 5 (-50.0%): improved", failing=False)
UNMEASURED = Finding("budget", "budget", "flops: not measured on this backend", failing=False)
FINDINGS = (TEXT, TEXT_AGAIN, JAXPR, COST, BUDGET, FASTER, UNMEASURED)


def policy(mode: str = "fail", *, update: bool = False, enforced: tuple[str, ...] = ALL_KINDS) -> Policy:
    return Policy(update=update, on_version_mismatch=mode, enforced=enforced)


def test_skip_mode_skips_only_a_real_mismatch_and_never_in_update_mode():
    assert policy("skip").skips(NOTE)
    assert not policy("skip").skips("")
    assert not policy("skip", update=True).skips(NOTE), "--stages-update rewrites snapshots of other versions"
    assert not any(policy(mode).skips(NOTE) for mode in ("fail", "warn", "semantic"))


def test_a_plain_run_fails_on_every_failing_finding_and_lists_improvements_apart():
    verdict = decide(FINDINGS, policy(), "")
    assert verdict.failing == (TEXT, TEXT_AGAIN, JAXPR, COST, BUDGET)
    assert verdict.passing == (FASTER, UNMEASURED)
    assert (verdict.churn, verdict.unenforced) == ((), ())
    assert not verdict.passed
    assert not verdict.only_budget


def test_update_mode_fails_only_on_enforced_budgets_and_reports_nothing_else():
    assert decide(FINDINGS, policy(update=True), NOTE) == Verdict(failing=(BUDGET,))
    assert decide(FINDINGS, policy(update=True, enforced=("text",)), "") == Verdict()
    verdict = decide((TEXT, COST, FASTER), policy(update=True), "")
    assert verdict.passed
    assert verdict == Verdict()


def test_warn_mode_under_a_mismatch_fails_only_budgets_and_names_the_rest_unenforced():
    verdict = decide(FINDINGS, policy("warn"), NOTE)
    assert verdict.failing == (BUDGET,)
    assert verdict.only_budget
    assert verdict.churn == ()
    assert verdict.unenforced == ("compiled", "jaxpr", "cost")
    assert decide(FINDINGS, policy("warn"), "").failing == (TEXT, TEXT_AGAIN, JAXPR, COST, BUDGET)


def test_semantic_mode_passes_text_churn_but_still_fails_figures_and_budgets():
    verdict = decide(FINDINGS, policy("semantic"), NOTE)
    assert verdict.failing == (COST, BUDGET)
    assert verdict.churn == ("compiled", "jaxpr"), "each churned artifact once, in order"
    assert verdict.unenforced == (), "churned artifacts are listed as churn, not as unchecked"
    assert verdict.passing == (FASTER, UNMEASURED)
    assert decide(FINDINGS, policy("semantic"), "").failing == (TEXT, TEXT_AGAIN, JAXPR, COST, BUDGET)


def test_stages_check_narrows_what_fails_and_names_each_unchecked_artifact_once():
    verdict = decide(FINDINGS, policy(enforced=("cost", "budget")), "")
    assert verdict.failing == (COST, BUDGET)
    assert verdict.unenforced == ("compiled", "jaxpr")
    assert verdict.churn == ()
    only_text = decide(FINDINGS, policy(enforced=("text",)), "")
    assert only_text.failing == (TEXT, TEXT_AGAIN, JAXPR)
    assert only_text.unenforced == ("cost", "budget")


def test_semantic_churn_outside_the_checked_kinds_is_churn_not_unchecked():
    verdict = decide(FINDINGS, policy("semantic", enforced=("cost",)), NOTE)
    assert verdict.failing == (COST,)
    assert verdict.churn == ("compiled", "jaxpr")
    assert verdict.unenforced == ("budget",)


def test_only_budget_is_true_for_a_passing_call_and_false_with_any_other_kind():
    assert Verdict().only_budget
    assert Verdict(failing=(BUDGET, BUDGET)).only_budget
    assert not Verdict(failing=(BUDGET, COST)).only_budget
    assert Verdict(passing=(FASTER,)).passed


def test_a_text_file_never_recorded_fails_under_every_version_policy():
    """No upgrade changed a snapshot that does not exist: semantic and warn excuse drift, not absence."""
    missing = no_snapshot("hlo")
    for mode in ("semantic", "warn", "fail"):
        verdict = decide((missing, TEXT), policy(mode), NOTE)
        assert missing in verdict.failing, mode
        assert "hlo" not in verdict.churn, mode
    assert decide((missing, TEXT), policy("semantic"), NOTE).churn == ("compiled",)


def test_the_reports_call_failing_exactly_what_the_verdict_failed():
    unchecked = policy(enforced=("budget",))
    verdict = decide(FINDINGS, unchecked, "")
    reported = judged(FINDINGS, verdict)
    assert [(f.message, f.failing) for f in reported] == [
        ("Compiled HLO changed", False),
        ("Compiled HLO changed (second hunk)", False),
        ("Jaxpr changed", False),
        ("flops 100 -> 120 (+20.0%, tolerance exact)", False),
        ("flops 120 exceeds the ceiling 100", True),
        ("temp_size_in_bytes 10 -> 5 (-50.0%): improved", False),
        ("flops: not measured on this backend", False),
    ]
    assert reported[4] is BUDGET and reported[5] is FASTER, "a finding the verdict agrees with is passed on as it is"
    assert judged(FINDINGS, decide(FINDINGS, policy(), "")) == list(FINDINGS)
    twin = Finding("text", "compiled", "Compiled HLO changed")
    assert [f.failing for f in judged([twin, TEXT], Verdict((TEXT,)))] == [False, True], "by identity, not equality"
