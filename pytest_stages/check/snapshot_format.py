"""Stored snapshots as this version compares them: held as they are, read in this version's form, or refused once.

A stored stage text is normalized again before it is compared, format-1 output names are read as format 2
names them, and an older format is rewritten only by ``--stages-migrate`` (docs/upgrades.md). Pure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.core.inputs import UNPARSED, parse_json
from pytest_stages.core.records import Migration
from pytest_stages.ir.normalize import to_json

# Gives, when asked, the map from a format-1 output name to this version's (None: a format-2 folder).
Renames = Callable[[], Mapping[str, str]] | None

FORMAT_VERSION = 2
# The oldest format this version compares; older folders are re-recorded once with --stages-update.
OLDEST_FORMAT = 1
# The first format that names output leaves as the function returns them.
NAMED_OUTPUTS = 2


@dataclass(frozen=True)
class Snapshot:
    """One artifact's snapshot file and its text (None when there is none yet).

    ``data`` is what was parsed of a JSON snapshot's text (:data:`~pytest_stages.core.inputs.UNPARSED`:
    not parsed); ``unreadable`` why that text is no JSON pytest-stages writes (None: not found so).
    """

    path: Path
    text: str | None
    data: object = UNPARSED
    unreadable: str | None = None


def compared_form(name: str, snapshot: Snapshot, built: object, renames: Renames) -> Snapshot | None:
    """The recorded ``snapshot`` of ``name`` (as :func:`parsed` read it) as it is compared with ``built``: None where
    it holds it, as stored or in this version's form (its format alone is no reason to write it:
    ``--stages-migrate`` is); else in this version's form. Only a snapshot that differs is renormalized."""
    text = snapshot.text or ""
    if holds(name, text, snapshot.data, built):
        return None
    current = current_form(name, text, renames)
    if current == text:
        return snapshot
    # Written by an older pytest-stages: renamed JSON is this version's printing of data parse_json read, so json.loads.
    data = UNPARSED if snapshot.data is UNPARSED else json.loads(current)
    return None if holds(name, current, data, built) else Snapshot(snapshot.path, current, data, snapshot.unreadable)


def parsed(name: str, snapshot: Snapshot) -> Snapshot:
    """A snapshot of ``name`` as read once: a JSON one with its data (unless the reader parsed it already), or with
    why it is unreadable; a stage text, or a file not there, as it is."""
    if snapshot.text is None or BY_NAME[name].is_text or snapshot.data is not UNPARSED:
        return snapshot
    try:
        return replace(snapshot, data=parse_json(snapshot.text))
    except ValueError as exc:
        return replace(snapshot, unreadable=str(exc))


def holds(name: str, text: str, data: object, built: object) -> bool:
    """Whether the snapshot of ``name`` holds exactly ``built``: the same ``text``, or JSON of the same ``data``.

    ``data`` is a JSON snapshot's text as :func:`parsed` read it (:data:`~pytest_stages.core.inputs.UNPARSED`:
    unreadable, it holds nothing). A JSON snapshot printed otherwise (by hand) holds the same data too; one
    written before a key was added to the artifact (:attr:`Artifact.added`) is held to ``built`` less those keys.
    """
    described = BY_NAME[name]
    if described.is_text:
        return bool(text == built)
    if data is UNPARSED:
        return False
    added = described.added
    if added and isinstance(data, dict) and isinstance(built, dict) and not all(k in data for k in added):
        built = {key: value for key, value in built.items() if key in data or key not in added}
    return bool(data == built)


def recorded_format(meta: Mapping[str, Any] | None) -> int:
    """The format a folder was written in (a folder with no metadata yet is written in this one)."""
    return int(meta["format"]) if meta else FORMAT_VERSION


def older(meta: Mapping[str, object], full: Mapping[str, object]) -> bool:
    """Whether a folder was written by an older version than this one writes it (``--stages-migrate`` rewrites
    it): in an older format, or without keys this version records (``full``: its metadata as this version
    writes it)."""
    return recorded_format(meta) < FORMAT_VERSION or not set(full) <= set(meta)


def incomparable(meta: Mapping[str, object] | None, version: str) -> str | None:
    """Why a folder's snapshots cannot be compared by pytest-stages ``version``, or None when they can.

    ``recorded by pytest-stages 0.0.9 (format 0); this is 0.1.0 (format 2): run `pytest --stages-update` once``.
    """
    written = recorded_format(meta)
    if OLDEST_FORMAT <= written <= FORMAT_VERSION:
        return None
    recorded = (meta or {}).get("pytest_stages") or "an earlier version"
    if not isinstance(recorded, str):
        recorded = "an unknown version"
    said = f"recorded by pytest-stages {recorded} (format {written}); this is {version} (format {FORMAT_VERSION})"
    if written > FORMAT_VERSION:
        return (
            f"{said}, which cannot read them: upgrade pytest-stages, or run `pytest --stages-update` once to "
            "re-record them with this version"
        )
    return f"{said}: run `pytest --stages-update` once"


def migrations(
    snapshots: Mapping[str, Snapshot], renames: Renames, analyses: Mapping[str, object]
) -> dict[Path, tuple[str, Migration]]:
    """``--stages-migrate``: each recorded snapshot (as :func:`parsed` read it) not in this version's form, as it
    writes it and why. A JSON one without the keys added to its artifact since (:attr:`Artifact.added`, such as the
    cost's ``step``) that holds what ``analyses`` (the call's, just built) hold otherwise gains them; one whose
    program changed is the update's to write, not a migration's."""
    out = {}
    for name, snapshot in snapshots.items():
        text, data, built = snapshot.text or "", snapshot.data, analyses.get(name)
        form = current_form(name, text, renames) if snapshot.text is not None else text
        lacks_added = isinstance(data, dict) and not set(BY_NAME[name].added) <= set(data)
        if form != text:
            out[snapshot.path] = form, Migration.NORMALIZED if BY_NAME[name].is_text else Migration.OUTPUTS
        elif lacks_added and holds(name, text, data, built):
            out[snapshot.path] = to_json(built), Migration.ADDED
    return out


def kept_format(recorded: Mapping[str, object] | None, written: Mapping[str, object]) -> dict[str, object]:
    """A folder's metadata ``written`` by an update, with the format and the version that wrote it the
    ``recorded`` ones: only a migration (or a folder's first record) changes them."""
    if not recorded:
        return {**written, "format": FORMAT_VERSION}
    out = {k: v for k, v in written.items() if k != "pytest_stages"}
    out["format"] = recorded_format(recorded)
    if "pytest_stages" in recorded:
        out["pytest_stages"] = recorded["pytest_stages"]
    return out


def records_other(recorded: Mapping[str, object], written: Mapping[str, object]) -> bool:
    """Whether ``written`` metadata holds another value for a key the ``recorded`` one has (keys added don't count)."""
    return any(written.get(key) != value for key, value in recorded.items())


def stored_form(artifact: str, text: str, data: object, renames: Renames = None) -> str:
    """A changed artifact as an update writes it (``text``: ``data`` as this version prints it): a placement
    snapshot of a format-1 folder with that folder's output names, the inverse of the renaming
    :func:`current_form` reads it with, so that its file changes only where its program did."""
    if renames is None or BY_NAME[artifact].family != "placement" or not isinstance(data, dict):
        return text
    names = renames()
    back = {new: old for old, new in names.items()}
    return to_json(renamed_outputs(data, back)) if names and len(back) == len(names) else text


def current_form(artifact: str, text: str, renames: Renames = None) -> str:
    """A stored snapshot text as this version writes it: stage texts normalized again, outputs renamed.

    ``renames`` gives the map from a format-1 output name to this version's (None for a format-2
    folder); it is asked only for a placement snapshot. A JSON snapshot that does not parse is
    left as it is (the comparison says so).
    """
    described = BY_NAME[artifact]
    if described.is_text:
        return described.normalize(text)
    if renames is None or described.family != "placement":
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return text
    names = renames()
    return to_json(renamed_outputs(data, names)) if names and isinstance(data, dict) else text


def renamed_outputs(data: Mapping[str, Any], renames: Mapping[str, str]) -> dict[str, Any]:
    """A placement snapshot with its output leaves renamed, and the inputs' ``aliased_to`` with them.

    Renamed all at once: an old name that is a new name of another leaf is not renamed twice. A
    snapshot holding a name only the new naming gives is named that way already (format 1 was
    still written for a while after outputs were named as functions return them) and is kept.
    """
    out = dict(data)
    outputs = out.get("outputs")
    if isinstance(outputs, dict) and (set(renames.values()) - set(renames)) & set(outputs):
        return out
    if isinstance(out.get("outputs"), dict):
        out["outputs"] = {renames.get(name, name): leaf for name, leaf in out["outputs"].items()}
    if isinstance(out.get("inputs"), dict):
        out["inputs"] = {name: _aliased(leaf, renames) for name, leaf in out["inputs"].items()}
    return out


def _aliased(leaf: object, renames: Mapping[str, str]) -> object:
    if not isinstance(leaf, dict) or not isinstance(leaf.get("aliased_to"), str):
        return leaf
    return {**leaf, "aliased_to": renames.get(leaf["aliased_to"], leaf["aliased_to"])}
