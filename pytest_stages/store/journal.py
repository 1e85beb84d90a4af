"""The journal of a ``pytest-stages accept`` under way (``<snapshot_dir>/.stages-accept.json``), read only when valid.

Recovery renames and deletes what the journal names, so :func:`read_journal` checks the whole file (schema,
phase, every folder and name of accept's own naming) before anything is touched, else raises
:class:`JournalError` (docs/safety.md, "The paths inside files").
"""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_stages.core.errors import InputError
from pytest_stages.core.inputs import read_json
from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.core.paths import plainly_below, write_atomically
from pytest_stages.ir.normalize import to_json
from pytest_stages.store.errors import JournalError
from pytest_stages.store.names import ACCEPT_JOURNAL, snapshot_folder

JOURNAL_SCHEMA = "pytest-stages-accept/1"
PHASES = ("staging", "swapping", "committed")
_TOKEN = lazy_pattern(r"[0-9a-f]{8}")
_FIELDS = {"folder": str, "staged": str, "old": str, "existed": bool, "created": list}


@dataclass(frozen=True)
class Swap:
    """One folder's swap: the folder, its staged copy, where the old one waits, whether it existed."""

    folder: str
    staged: str
    old: str
    existed: bool
    created: tuple[str, ...] = ()


@dataclass(frozen=True)
class Journal:
    """A journal as read and checked: how far the accept got, and its swaps."""

    phase: str
    swaps: tuple[Swap, ...]


def staged_names(folder: str, token: str) -> tuple[str, str]:
    """The names beside ``folder`` of its staged copy and of the old folder set aside, for one accept's token."""
    name = PurePosixPath(folder).name
    return f".{name}.accept-{token}", f".{name}.accepted-{token}"


def write_journal(root: Path, phase: str, swaps: Sequence[Swap]) -> None:
    data = {"schema": JOURNAL_SCHEMA, "phase": phase, "swaps": [dataclasses.asdict(s) for s in swaps]}
    write_atomically(root / ACCEPT_JOURNAL, to_json(data))


def read_journal(root: Path) -> Journal | None:
    """The journal in ``root``, checked in full; None where there is none; :class:`JournalError` if not valid."""
    path = root / ACCEPT_JOURNAL
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _invalid(path, f"it cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise _invalid(path, "it is a folder, link, FIFO or device, not a file")
    try:
        data = read_json(path)
    except (InputError, OSError) as exc:
        raise _invalid(path, str(exc)) from None
    problem = _problem(data) or next(filter(None, (_swap_problem(root, s) for s in data["swaps"])), None)
    if problem is not None:
        raise _invalid(path, problem)
    tokens = {s["staged"].rsplit("-", 1)[-1] for s in data["swaps"]}
    if len(tokens) > 1:
        raise _invalid(path, "its swaps are of more than one accept")
    if len({s["folder"] for s in data["swaps"]}) < len(data["swaps"]):
        raise _invalid(path, "its swaps name a folder more than once")
    swaps = tuple(Swap(**{**s, "created": tuple(s["created"])}) for s in data["swaps"])
    return Journal(data["phase"], swaps)


def _problem(data: object) -> str | None:
    if not isinstance(data, dict) or set(data) != {"schema", "phase", "swaps"}:
        return 'it is not an object of "schema", "phase" and "swaps"'
    if data["schema"] != JOURNAL_SCHEMA:
        return f"its schema is {data['schema']!r}, not {JOURNAL_SCHEMA!r}"
    if data["phase"] not in PHASES:
        return f"its phase {data['phase']!r} is none of {', '.join(PHASES)}"
    if not isinstance(data["swaps"], list) or not all(isinstance(s, dict) for s in data["swaps"]):
        return "its swaps are not a list of objects"
    return None


def _swap_problem(root: Path, swap: dict[str, Any]) -> str | None:
    """What is wrong with one swap of the journal (None: every name in it is the accept's own, inside the tree)."""
    if set(swap) != set(_FIELDS) or not all(isinstance(swap[k], t) for k, t in _FIELDS.items()):
        return f"a swap is not an object of {', '.join(_FIELDS)} of the types accept writes"
    folder = swap["folder"]
    if not snapshot_folder(folder):
        return f"the folder {folder!r} is not a snapshot folder pytest-stages names"
    token = swap["staged"].rsplit("-", 1)[-1]
    if _TOKEN.fullmatch(token) is None or (swap["staged"], swap["old"]) != staged_names(folder, token):
        return f"the staged {swap['staged']!r} or old {swap['old']!r} of {folder!r} is not a name accept gives"
    above = {p.as_posix() for p in PurePosixPath(folder).parents} - {"."}
    if not all(isinstance(c, str) and c in above for c in swap["created"]):
        return f"a created folder of {folder!r} is not one of the folders above it"
    if not plainly_below(root / folder, root):
        return f"the folder {folder!r} is reached through a link"
    return None


def _invalid(path: Path, why: str) -> JournalError:
    return JournalError(
        f"the accept journal {path} does not read as pytest-stages writes it ({why}), so `pytest-stages accept "
        "--recover` touches nothing it names. If an accept was interrupted, folders named .<name>.accept-<token> "
        f"or .<name>.accepted-<token> beside the snapshot folders hold its copies: check `git status "
        f"{path.parent}`, restore the snapshot folders from version control where needed, then remove {path}."
    )
