"""What a reviewer pastes or reads from the pull-request comment: quoted commands, escaped node ids.

The comment's commands are run by bash here, with ``gh`` and ``pytest-stages`` as shell functions that
print the arguments they get: a hostile set name arrives as one argument and runs nothing.
"""

from __future__ import annotations

import re
import subprocess

from pytest_stages.core.records import CallRecord, Finding, Kind
from pytest_stages.report.markdown import markdown
from pytest_stages.report.render import RunReport

HOSTILE = "p $(touch PWNED);x"
SPACED = "stages pending 2"
NODE = "tests/test_a.py::test_s[<img src=x onerror=alert(1)>]"


def comment(*sets: str) -> str:
    hunk = [["-", 1, "<script>alert(1)</script>", None, None, None]]
    records = [
        CallRecord(
            NODE,
            "cpu1",
            "<b>f</b>",
            "tests/test_a/test_s_~0123456789/cpu1",
            status={"hlo": "changed"},
            findings=[
                Finding(Kind.TEXT, "hlo", "HLO <i>drifted</i>", detail={"summary": ["<u>1 op</u>"], "hunks": [hunk]})
            ],
            pending=name,
            versions="jax 0.8 <s>",
            version_change=["0.8 <s>", "0.9"],
        )
        for name in sets
    ]
    return markdown(RunReport(records, False, {"jax": "0.9", "jaxlib": "0.9"}))


def test_the_pasted_commands_pass_each_set_name_as_one_argument_and_run_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    monkeypatch.setenv("GITHUB_REPOSITORY", "me/proj")
    text = comment(HOSTILE, SPACED)
    [command] = re.findall(r"```bash\n(.*)\n```", text)
    [(_, review)] = re.findall(r"or walk them one by one with (`+) ?(.*?) ?\1\.", text)
    shell = 'gh() { printf "gh<%s>\\n" "$@"; }; pytest-stages() { printf "ps<%s>\\n" "$@"; }; '
    done = subprocess.run(
        ["bash", "-c", shell + command + "; " + review], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert not (tmp_path / "PWNED").exists()
    assert done.stdout.splitlines() == [
        *(f"gh<{arg}>" for arg in ["run", "download", "4242", "-R", "me/proj", "-p", HOSTILE, "-p", SPACED]),
        "gh<-D>",
        "gh<stages-pending>",
        *(f"ps<{arg}>" for arg in ["accept", f"stages-pending/{HOSTILE}", f"stages-pending/{SPACED}"]),
        *(f"ps<{arg}>" for arg in ["review", f"stages-pending/{HOSTILE}", f"stages-pending/{SPACED}"]),
    ]


def test_no_html_from_node_ids_reaches_the_comment():
    text = comment("p")
    # Outside code spans and fences, where GitHub renders HTML, every < of user text is escaped.
    prose = re.sub(r"(?ms)^\s*(`{3,})diff$.*?^\s*\1$", "", text)
    prose = re.sub(r"(`+) .*? \1|`[^`]*`", "", prose)
    tags = re.findall(r"<(?!/?(?:details|summary)>)[^>]*>", prose)
    assert not tags, tags
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
