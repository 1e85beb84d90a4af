"""What changed between two JSON-ready values, as deepdiff's tree view reports it.

deepdiff is imported at its first use (``pytest_stages.check``'s late imports): an unchanged snapshot never pays for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pytest_stages.check import deepdiff


def deep_diff(before: Any, after: Any, **options: Any) -> Any:
    """deepdiff's tree view, always down to the changed leaves.

    By default deepdiff reports a dict that shares under a third of its keys with the other
    side as one replaced value (``threshold_to_diff_deeper``); a snapshot whose cost gained
    twenty per-operand figures would then have no changed figure to name.
    """
    return deepdiff.DeepDiff(before, after, view="tree", threshold_to_diff_deeper=0, **options)


def levels(diff: Any) -> Iterable[Any]:
    """Every changed place of a deepdiff tree view, whatever the kind of change."""
    for report in diff.values():
        yield from report


def show(value: Any) -> str:
    """A value as the details write it: JSON, or ``absent``."""
    return "absent" if value is None else json.dumps(value, sort_keys=True)
