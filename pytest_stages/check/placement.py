"""Placement (``sharding.json``, ``layout.json``): each leaf whose sharding, donation, aliasing or layout changed.

Leaves sharing one change are one line from :data:`GROUP_LEAST` on; a finding's ``moves``
holds its headline text (shardings without their mesh).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_stages.analyse.artifacts import check_kind
from pytest_stages.check.changed_paths import deep_diff, levels, show
from pytest_stages.check.collectives import collective_deltas
from pytest_stages.core.records import Change, Compared, Finding, Pair

# Leaves sharing one change are listed as one line from this many on, naming the first few.
GROUP_LEAST = 3
GROUP_NAMES = 3


def compare_placement(artifact: str, expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Finding]:
    """Sharding/layout: one finding per leaf and field that changed (grouped across leaves), with before -> after."""
    keys = placement_keys(expected, actual)
    arguments = _argument_leaves([*expected.get("inputs", {}), *actual.get("inputs", {})])
    full = group_leaves([_placement_change(key, expected, actual) for key in keys], arguments=arguments)
    short = group_leaves(
        [_placement_change(key, expected, actual, mesh=False) for key in keys], arguments=arguments, headline=True
    )
    return [
        Finding(
            check_kind(artifact),
            artifact,
            message,
            change=Change.PLACEMENT if side else Change.COLLECTIVES,
            subject=DONATION if change.startswith((LOST, GAINED)) else "",
            moves=(headline,),
        )
        for (side, message, change), (_, headline, _) in zip(full, short, strict=True)
    ]


COLLECTIVES_LABEL = "collectives: "


PLACEMENT_SIDES = ("inputs", "outputs")
DONATION = "donation"  # the subject of a finding whose inputs lost or gained their donation
LOST, GAINED = " no longer donated", " is now donated"
# A leaf's argument: ``p[0].value.data_array`` -> ``p``, ``params['w']`` -> ``params``.
_ARGUMENT = re.compile(r"^[^\[.]+")
_FIELD_ORDER = {"sharding": 0, "donated": 1, "aliased_to": 2}


def placement_keys(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """What changed, read from deepdiff's paths.

    ``(side, leaf)``: a leaf added or removed; ``(side, leaf, field)``; ``("collectives",)``.
    ``root['inputs']["params['w']"]['sharding']['spec']`` becomes ``("inputs", "params['w']", "sharding")``.
    A donation change explains its aliasing change (``aliased_to`` dropped); a field only one side's JAX
    reports is unknown, never a change.
    """
    keys: set[tuple[str, ...]] = set()
    for level in levels(deep_diff(dict(expected), dict(actual))):
        path = [str(part) for part in level.path(output_format="list")]
        if path[0] == "collectives":
            keys.add(("collectives",))
        elif path[0] not in PLACEMENT_SIDES:
            continue
        elif len(path) == 1:
            keys.update((path[0], leaf) for leaf in {*expected.get(path[0], {}), *actual.get(path[0], {})})
        elif len(path) == 2 or _reported_by_both(path[:3], expected, actual):
            keys.add(tuple(path[:3]))
    keys -= {(key[0], key[1], "aliased_to") for key in keys if key[2:] == ("donated",)}
    return sorted(
        keys,
        key=lambda key: (
            len(PLACEMENT_SIDES) if key[0] == "collectives" else PLACEMENT_SIDES.index(key[0]),
            key[1:2],
            [(_FIELD_ORDER.get(f, 3), f) for f in key[2:]],
        ),
    )


def _reported_by_both(key: list[str], expected: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    """Whether a leaf's field is on both sides, or the leaf itself is new or gone (``[side, leaf, field]``)."""
    side, leaf, name = key
    old, new = expected.get(side, {}).get(leaf), actual.get(side, {}).get(leaf)
    return not isinstance(old, dict) or not isinstance(new, dict) or (name in old) == (name in new)


def group_leaves(
    changes: Sequence[tuple[str, str, str, str]],
    least: int = GROUP_LEAST,
    arguments: Mapping[str, int] | None = None,
    *,
    headline: bool = False,
) -> list[tuple[str, str, str]]:
    """``(side, leaf, change, extra)`` as ``(side, message, change)``, side ``""`` for the collectives; ``least``
    or more leaves with one change are one message.

    ``19 inputs (params['a'], params['b'], params['c'], +16 more) no longer donated``; inputs that are every
    leaf of their arguments (``arguments``: each one's leaf count) are named by them: ``arguments p, s (115
    arrays) no longer donated``. For the ``headline``, a group's field change comes before its leaves, so that a
    cut headline still says it: ``P('tensor', 'fsdp') -> P('fsdp', 'tensor'): 6 inputs (model.layers.0...)``."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for side, leaf, change, extra in changes:
        groups.setdefault((side, change), []).append((leaf, extra))
    messages: list[tuple[str, str, str]] = []
    for (side, change), members in groups.items():
        leaves = [leaf for leaf, _ in members]
        whole = _whole_arguments(leaves, arguments or {}) if side == "input" else []
        if not side:
            messages.append((side, change, change))
        elif len(leaves) < least:
            messages += [(side, f"{side} {leaf}{change}{extra}", change) for leaf, extra in members]
        else:
            plural = "s" if len(whole) > 1 else ""
            shown = ", ".join(leaves[:GROUP_NAMES]) + (
                f", +{len(leaves) - GROUP_NAMES} more" if len(leaves) > GROUP_NAMES else ""
            )
            group = (
                f"argument{plural} {', '.join(whole)} ({len(leaves)} arrays)"
                if whole
                else f"{len(leaves)} {side}s ({shown})"
            )
            first = headline and change.startswith(": ")
            messages.append((side, f"{change[2:]}: {group}" if first else f"{group}{change}", change))
    return messages


def _argument_leaves(leaves: Sequence[str]) -> dict[str, int]:
    """Each argument's count of distinct input leaves (``p[0]``, ``p[1]`` -> ``{"p": 2}``)."""
    return dict(Counter(map(_argument, dict.fromkeys(leaves))))


def _whole_arguments(leaves: Sequence[str], arguments: Mapping[str, int]) -> list[str]:
    """The arguments ``leaves`` are every input leaf of, in order; [] where they are not whole arguments."""
    named = Counter(map(_argument, leaves))
    return list(named) if all(arguments.get(argument) == n for argument, n in named.items()) else []


def _argument(leaf: str) -> str:
    match = _ARGUMENT.match(leaf)
    return match[0] if match else leaf


def _placement_change(
    key: tuple[str, ...], expected: Mapping[str, Any], actual: Mapping[str, Any], *, mesh: bool = True
) -> tuple[str, str, str, str]:
    """``(side, leaf, change, extra)``: ``("input", "x", " no longer donated", "")``; side "" for collectives.

    Without ``mesh`` a sharding is written without its mesh (for the headline).
    """
    if key[0] == "collectives":
        deltas = collective_deltas(expected.get("collectives", []), actual.get("collectives", []))
        return "", "", COLLECTIVES_LABEL + (", ".join(deltas) or "reordered"), ""
    side, leaf = key[0], key[1]
    label = side[:-1]
    old_leaf, new_leaf = expected.get(side, {}).get(leaf), actual.get(side, {}).get(leaf)
    if old_leaf is None:
        return label, leaf, ": new leaf", f" ({_describe_leaf(new_leaf, mesh=mesh)})"
    if new_leaf is None:
        return label, leaf, ": leaf removed", f" (was {_describe_leaf(old_leaf, mesh=mesh)})"
    field = key[2] if len(key) > 2 else ""
    return label, leaf, _field_change(field, old_leaf, new_leaf, mesh=mesh), ""


def _field_change(field: str, old_leaf: Mapping[str, Any], new_leaf: Mapping[str, Any], *, mesh: bool = True) -> str:
    """How one field of a leaf changed: ``" no longer donated"``, ``": buffer now aliased to 0 (was none)"``."""
    old, new = old_leaf.get(field), new_leaf.get(field)
    if field == "donated":
        return _donation_change(old_leaf, new_leaf)
    if field == "aliased_to":
        if new is None:
            return f": donated buffer no longer reused for {old} (XLA could not alias it)"
        return f": buffer now aliased to {new} (was {old or 'none'})"
    if field == "sharding":
        return f": {_describe_sharding(old, mesh=mesh)} -> {_describe_sharding(new, mesh=mesh)}"
    if field == "major_to_minor":
        return f" layout {_tuple(old)} -> {_tuple(new)}"
    return f" {field}: {show(old)} -> {show(new)}"


def _donation_change(old_leaf: Mapping[str, object], new_leaf: Mapping[str, object]) -> str:
    """A donation lost or gained, and whether XLA had reused (reuses) the buffer."""
    if old_leaf.get("donated"):
        return LOST + (" (XLA had reused its buffer)" if old_leaf.get("aliased_to") else "")
    return GAINED + (" (XLA reuses its buffer)" if new_leaf.get("aliased_to") else " (XLA cannot reuse its buffer)")


def _describe_leaf(leaf: Mapping[str, Any] | None, *, mesh: bool = True) -> str:
    if leaf is None:
        return "none"
    if "sharding" in leaf:
        return _describe_sharding(leaf["sharding"], mesh=mesh)
    return json.dumps(leaf, sort_keys=True)


def _describe_sharding(sharding: Mapping[str, Any] | None, *, mesh: bool = True) -> str:
    if not sharding:
        return "none (an unused input jit dropped)"
    memory = sharding.get("memory_kind")
    where = f" in {memory} memory" if memory not in (None, "device") else ""
    if "spec" in sharding:
        if not mesh:
            return f"{sharding['spec']}{where}"
        axes = ",".join(f"{axis}={size}" for axis, size in sharding.get("mesh", {}).items())
        return f"{sharding['spec']} over mesh({axes}){where}"
    devices = sharding.get("devices")
    spread = ""
    if devices and len(devices) > 1 and "replicated" in sharding:
        spread = ", replicated" if sharding["replicated"] else ", split"
    return f"{sharding.get('kind')} on devices {devices}{spread}{where}"


def _tuple(value: object) -> str:
    return "(" + ",".join(str(v) for v in value) + ")" if isinstance(value, list) else show(value)


def placement(pair: Pair) -> Compared:
    """Shardings, donations and layouts, leaf by leaf; each donation change placed at the staged function
    (``pair.function_place``: the line that jits it, where its file holds one, ``gemma.py:166 in greedy_decode``;
    else its own line, ``lm.py:85 in <lambda>``): ``donate_argnums`` is set there, and names its arguments."""
    findings = compare_placement(pair.artifact, pair.before, pair.after)
    donated = [f.subject == DONATION for f in findings]
    where = pair.function_place() if any(donated) and pair.function_place is not None else None
    if where is None:
        return Compared(findings)
    return Compared([replace(f, locations=(where,)) if d else f for f, d in zip(findings, donated, strict=True)])
