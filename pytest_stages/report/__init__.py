"""Session reports: the header, the summary table, JSON, Markdown and the HTML review page."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): what only a failing finding or
# an HTML report needs, the drift family's summary lines, a pending call's headline (the failure
# message's) and the review page; a passing run loads
# neither (tests/test_lazy_imports.py); the lines of a refused prune, which a run that observed the whole
# tree never prints. The moved figures' recent history, which only a Markdown report of a run where a
# figure moved reads (with git, the history's reader and the compare's tolerances).
if TYPE_CHECKING:
    from pytest_stages.check import drift as check_drift
    from pytest_stages.check import message as check_message
    from pytest_stages.report import history_trends as history_trends_
    from pytest_stages.report import html_report as html_report_
    from pytest_stages.report import refusal_text as refusal_text_
else:
    check_drift = lazy_module("pytest_stages.check.drift")
    check_message = lazy_module("pytest_stages.check.message")
    history_trends_ = lazy_module("pytest_stages.report.history_trends")
    html_report_ = lazy_module("pytest_stages.report.html_report")
    refusal_text_ = lazy_module("pytest_stages.report.refusal_text")

__all__ = ["check_drift", "check_message", "history_trends_", "html_report_", "refusal_text_"]
