"""Text as pytest-stages shows it: control characters escaped, every line bounded in width.

A name, an id or a snapshot line may hold an ANSI escape (``\x1b[2J`` clears the terminal), an
OSC title sequence, or be a 200 MB one-line file; what reaches a terminal, a failure message
or a report shows such characters as escapes and cuts such lines, saying how much was cut.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

# The widest line shown; longer ones are cut with a marker (an HLO line of a big fusion is ~500).
MAX_WIDTH = 1000
# C0 controls but tab and newline, DEL, and the C1 controls (``\x9b`` starts a CSI sequence too).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with each control character shown as its escape: ``"a\\x1b[2Jb"`` -> ``a\\x1b[2Jb`` (literally)."""
    return _CONTROL.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)


def clip(line: str, width: int = MAX_WIDTH) -> str:
    """``line`` cut to ``width`` characters, saying how many were cut: ``xxxx… [96 more characters]``."""
    if len(line) <= width:
        return line
    return f"{line[:width]}… [{len(line) - width} more characters]"


def shown(text: str, width: int = MAX_WIDTH) -> str:
    """Each line of ``text`` made :func:`visible` and :func:`clip`-ped: what a terminal or report may print."""
    return "\n".join(clip(visible(line), width) for line in text.split("\n"))


def listing(choices: Iterable[object]) -> str:
    """A closed set as people read it: ``text, cost, memory`` (an enum member shows its value)."""
    return ", ".join(str(choice) for choice in choices)


def close_match(word: str, choices: Iterable[object]) -> str:
    """`` (did you mean 'configs'?)`` when ``word`` is a near miss of one of ``choices``; "" when none is close."""
    found = difflib.get_close_matches(word, [str(choice) for choice in choices], n=1)
    return f" (did you mean {found[0]!r}?)" if found else ""
