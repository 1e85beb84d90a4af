"""The parts every dialect's state rewrite shares: the :class:`Plan` a dialect returns, the stable hash the
canonical order sorts by, the order itself, and the bracket-aware splitting of a text's lists
(``dataflow.state_plan`` says what the rewrite is for)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# A line's index, then its name tokens and their hashes, read where the line's unit is hashed.
Probes = Mapping[int, Mapping[str, str]]
# A line range [start, stop) of the text and the lines that replace it.
Edit = tuple[int, int, list[str]]


def digest(parts: Sequence[str]) -> str:
    """A hash of ``parts`` that is the same in every process: the canonical order sorts by it, and
    Python's ``hash`` of a string changes with ``PYTHONHASHSEED``, which would let the order (and so a
    verdict on texts that are one program only up to order) change from one run to the next."""
    return hashlib.blake2b("\x1e".join(parts).encode(), digest_size=16).hexdigest()


@dataclass
class Plan:
    """What one text's rewrite needs: the lines whose names' hashes it reads (``wanted``), and
    ``apply``, which turns those hashes into the rewritten text (the same text when nothing moves);
    ``lists``: how many lists of positions it puts in order."""

    wanted: set[int]
    apply: Callable[[Probes], str]
    lists: int


def order(keys: Sequence[str], slots: Sequence[int]) -> dict[int, int]:
    """The new position of each position in ``slots`` (ascending): the slots refilled in the order of
    the positions' ``keys`` (ties in their order); positions that keep their place left out."""
    ranked = sorted(slots, key=lambda k: keys[k])
    return {old: new for old, new in zip(ranked, slots, strict=True) if old != new}


def permuted(items: Sequence[str], moves: Mapping[int, int]) -> list[str]:
    """``items`` with item k at ``moves.get(k, k)``."""
    out = list(items)
    for old, new in moves.items():
        out[new] = items[old]
    return out


def split_top(text: str, opening: str = "([{", closing: str = ")]}") -> list[str]:
    """``text`` split at each ``", "`` outside brackets."""
    parts: list[str] = []
    depth = 0
    start = 0
    for k, c in enumerate(text):
        if c in opening:
            depth += 1
        elif c in closing:
            depth -= 1
        elif c == "," and depth == 0 and text.startswith(", ", k):
            parts.append(text[start:k])
            start = k + 2
    parts.append(text[start:])
    return parts


def matching(text: str, start: int) -> int:
    """The index of the bracket that closes the one at ``start``; -1 if none."""
    depth = 0
    for k in range(start, len(text)):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k
    return -1


def apply_edits(lines: list[str], edits: list[Edit]) -> str:
    """``lines`` with each edit's range replaced, the lines joined back; ``lines`` as they are if two
    ranges overlap (a text read otherwise than planned: nothing is rewritten rather than half)."""
    ordered = sorted(edits, key=lambda edit: edit[0], reverse=True)
    if any(second[0] < first[1] for first, second in itertools.pairwise(ordered[::-1])):
        return "\n".join(lines)
    for start, stop, new in ordered:
        lines[start:stop] = new
    return "\n".join(lines)
