"""core.text: user text shown in a terminal or a report, its control characters escaped and its lines bounded."""

from __future__ import annotations

from pytest_stages.core.text import clip, shown, visible


def test_control_characters_are_escaped_and_lines_bounded():
    assert visible("a\x1b[2Jb\x1b]0;pwned\x07\tc") == "a\\x1b[2Jb\\x1b]0;pwned\\x07\tc"
    assert clip("x" * 12, 10) == "xxxxxxxxxx… [2 more characters]"
    assert shown("ok\n\x9bline") == "ok\n\\x9bline"
