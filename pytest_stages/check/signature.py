"""The input signature of a call, read from its jaxpr text: which argument shapes or dtypes changed."""

from __future__ import annotations

import re
from collections.abc import Sequence

SHOWN = 4
# A sharded dimension's axes in an abstract type:
# ``f32[8@data,4]`` -> ``@data``; ``f32[8@(data,model)]`` -> ``@(data,model)``.
_SHARDED_DIM = re.compile(r"@(?:\([^()]*\)|\w+)")


def input_types(jaxpr: str) -> list[str] | None:
    """``["f32[64,128]", "f32[128]"]``: the types of the top-level jaxpr's inputs (axis names dropped).

    The top-level jaxpr is the one that starts a line with ``{ lambda`` (functions it calls
    are bound before it with ``let name = { lambda``). None when there is no such line.
    """
    lines = jaxpr.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("{ lambda ")), None)
    if start is None:
        return None
    header = []
    for line in lines[start:]:
        head, let, _ = line.strip().partition(". let")  # a short jaxpr goes on after ". let" on one line
        header.append(head)
        if let:
            break
    binders = " ".join(header).removeprefix("{ lambda ")
    invars = binders.split(";", 1)[-1].split()
    return [_SHARDED_DIM.sub("", var.split(":", 1)[-1]) for var in invars if ":" in var]


def signature_change(names: Sequence[str], before: str, after: str) -> str | None:
    """``params['l1'].kernel f32[64,128] -> f32[64,160]; +2 more`` when input types differ, else None.

    ``names`` name the flat inputs in order; without one per input the inputs are numbered.
    """
    old, new = input_types(before), input_types(after)
    if old is None or new is None or old == new:
        return None
    if len(old) != len(new):
        return f"{len(old)} -> {len(new)} input leaves"
    labels = list(names) if len(names) == len(new) else [f"input {k}" for k in range(len(new))]
    changes = [f"{label} {a} -> {b}" for label, a, b in zip(labels, old, new, strict=True) if a != b]
    text = "; ".join(changes[:SHOWN])
    return text + (f"; +{len(changes) - SHOWN} more" if len(changes) > SHOWN else "")
