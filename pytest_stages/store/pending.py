"""Pending snapshots: what an update would write, kept in a folder of their own for CI to upload.

``--stages-pending DIR`` writes each call's pending files under their snapshot-tree paths, beside its manifest
``<name>.pending.json`` (the base compared against, environment, digests, findings; docs/review.md);
:func:`read_set` reads a set back, checked, for ``pytest-stages accept``.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_stages.core.errors import InputError
from pytest_stages.core.inputs import read_json
from pytest_stages.core.paths import write_atomically
from pytest_stages.ir.normalize import to_json
from pytest_stages.store.errors import PendingError
from pytest_stages.store.names import META_FILE, safe_component, snapshot_folder
from pytest_stages.store.prune import own_name
from pytest_stages.store.schemas import ANY, call_schema, mismatch, oversize, schema_mismatch

PENDING_SCHEMA = "pytest-stages-pending/1"
# A call's manifest: ``<safe call name>.pending.json`` (no artifact suffix ends so).
MANIFEST_SUFFIX = ".pending.json"
_HEX = str
_MANIFEST_SCHEMA = {
    "schema": str,
    "project": (str, type(None)),
    "snapshot_dir": str,
    "plugin": (str, type(None)),
    "commit": (str, type(None)),
    "nodeid": str,
    "config": str,
    "name": str,
    "folder": str,
    "config_record": {"*": ANY},
    "environment": {"*": ANY},
    "base": {"*": (_HEX, type(None))},
    "files": {"*": _HEX},
    "record": {"*": ANY},
}
_REQUIRED = tuple(_MANIFEST_SCHEMA)


def digest(data: bytes) -> str:
    """The SHA-256 of ``data``, hex: how a manifest names a file's content."""
    return hashlib.sha256(data).hexdigest()


def text_digest(text: str) -> str:
    """The digest of a snapshot text as written (UTF-8)."""
    return digest(text.encode("utf-8"))


def disk_digest(path: Path) -> str | None:
    """The digest of the plain file ``path`` as it is now; None where there is none (or a link, a folder, a FIFO)."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return None
        return digest(path.read_bytes())
    except FileNotFoundError:
        return None


def project_name(pyproject: Mapping[str, object]) -> str | None:
    """The ``[project] name`` of a parsed pyproject.toml, the identity a pending set records (None without one)."""
    project = pyproject.get("project")
    name = project.get("name") if isinstance(project, Mapping) else None
    return name if isinstance(name, str) else None


@dataclass(frozen=True)
class PendingCall:
    """One call's pending files and manifest, as the runner hands them over (plain data)."""

    folder: PurePosixPath
    files: Mapping[str, str]
    manifest: Mapping[str, Any]

    @property
    def manifest_name(self) -> str:
        return f"{safe_component(self.manifest['name'])}{MANIFEST_SUFFIX}"


def manifest(
    *,
    identity: Mapping[str, object],
    call: Mapping[str, object],
    base: Mapping[str, str | None],
    files: Mapping[str, str],
    record: Mapping[str, object],
) -> dict[str, object]:
    """A call's manifest: who wrote it (``identity``: project, snapshot_dir, plugin, commit), the call, base, files."""
    return {
        "schema": PENDING_SCHEMA,
        **identity,
        **call,
        "base": dict(base),
        "files": {name: text_digest(text) for name, text in files.items()},
        "record": dict(record),
    }


def write_call(directory: Path, call: PendingCall) -> list[Path]:
    """Write one call's pending files, then its manifest (last: a set without it is ignored); the paths written.

    A write that fails (a full disk) takes back the files it wrote that no manifest beside them names, so that
    the set is left as it was: else they would stop its accept and the next run's ``--stages-pending``.
    """
    folder = directory / call.folder
    written: list[Path] = []
    try:
        for name, text in call.files.items():
            write_atomically(folder / name, text)
            written.append(folder / name)
        write_atomically(folder / call.manifest_name, to_json(dict(call.manifest)))
    except OSError:
        _take_back(directory, folder, written)
        raise
    return [*written, folder / call.manifest_name]


def _take_back(directory: Path, folder: Path, written: Sequence[Path]) -> None:
    """Remove ``written`` (files this process just wrote in ``folder``) that no manifest there names, then the
    folders up to ``directory`` left empty; a manifest that cannot be read keeps every file."""
    named: set[str] = set()
    for manifest_path in folder.glob(f"*{MANIFEST_SUFFIX}"):
        try:
            files = read_json(manifest_path).get("files", {})
            named |= set(files)
        except (InputError, OSError, AttributeError):
            return
    for path in written:
        if path.name not in named:
            path.unlink(missing_ok=True)
    for parent in [folder, *folder.parents]:
        if parent == directory or not parent.is_relative_to(directory):
            break
        try:
            parent.rmdir()
        except OSError:
            break


@dataclass(frozen=True)
class PendingEntry:
    """One call of a pending set as read: where it came from, its manifest and its files' texts."""

    source: str
    manifest: Mapping[str, Any]
    texts: Mapping[str, bytes]

    @property
    def folder(self) -> str:
        return str(self.manifest["folder"])

    @property
    def key(self) -> tuple[str, str, str]:
        """The call: its test, config and name."""
        return (self.manifest["nodeid"], self.manifest["config"], self.manifest["name"])

    @property
    def label(self) -> str:
        return f"{self.manifest['nodeid']} {self.manifest['name']!r} on {self.manifest['config']}"


@dataclass(frozen=True)
class PendingSet:
    """A pending folder read back: its calls, in path order."""

    path: Path
    entries: list[PendingEntry] = field(default_factory=list)


def read_set(path: Path) -> PendingSet:
    """The pending set in ``path``, checked; raises :class:`PendingError` naming what is wrong and the fix.

    Refused: anything but a folder of plain files its manifests name, a manifest that does not read as
    pytest-stages writes it, and a file whose bytes are not those its manifest's digest says.
    """
    fix = "Pass the folder a run wrote with --stages-pending DIR (or the CI artifact that holds it)."
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        raise PendingError(f"pending set {path} does not exist. {fix}") from None
    except OSError as exc:
        raise PendingError(f"cannot read pending set {path} ({exc.strerror or exc}). {fix}") from None
    if stat.S_ISLNK(mode):
        raise PendingError(
            f"pending set {path} is a symlink; pytest-stages reads pending sets only as plain folders. Pass the "
            "folder it points to."
        )
    if not stat.S_ISDIR(mode):
        raise PendingError(f"pending set {path} is not a folder (a file, FIFO or device). {fix}")
    found = PendingSet(path)
    for folder, dirs, names in os.walk(path):
        here = Path(folder)
        for name in sorted([*dirs, *names]):
            entry_mode = (here / name).lstat().st_mode
            if stat.S_ISLNK(entry_mode) or not (stat.S_ISDIR(entry_mode) or stat.S_ISREG(entry_mode)):
                raise PendingError(
                    f"pending set {path}: {here / name} is a symlink, FIFO or device; a pending set holds plain "
                    f"files only, so it was not written by pytest-stages or was tampered with. {fix}"
                )
        dirs.sort()
        found.entries.extend(_read_folder(path, here, sorted(names)))
    if not found.entries:
        raise PendingError(
            f"pending set {path} holds no call (no *{MANIFEST_SUFFIX} manifest): the run it came from found no "
            f"difference, or this is not a pending set. {fix}"
        )
    return found


def _read_folder(root: Path, folder: Path, names: list[str]) -> list[PendingEntry]:
    """The calls of one folder of a pending set, each with the files its manifest names."""
    relative = folder.relative_to(root).as_posix()
    manifests = [n for n in names if n.endswith(MANIFEST_SUFFIX)]
    named: set[str] = set()
    entries = []
    for name in manifests:
        data = _manifest(root, folder / name)
        if data["folder"] != relative:
            raise _edited(root, folder / name, f"it names the folder {data['folder']!r} but lies in {relative!r}")
        if name != f"{safe_component(data['name'])}{MANIFEST_SUFFIX}":  # else a reject removes another call's
            raise _edited(root, folder / name, f"it names the call {data['name']!r}, whose manifest is not {name!r}")
        texts = {}
        for file, expected in data["files"].items():
            if (file != META_FILE and not own_name(file)) or file not in names:
                raise _edited(root, folder / name, f"it names {file!r}, which is not a pending file beside it")
            too_large = oversize((folder / file).lstat().st_size)
            if too_large is not None:  # refused unread, as the compare refuses such a snapshot
                raise _edited(root, folder / file, f"it is {too_large}")
            content = (folder / file).read_bytes()
            if digest(content) != expected:
                raise _edited(root, folder / file, "its bytes are not those its manifest's digest says")
            try:  # every file of a set is a snapshot text, written as UTF-8
                content.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _edited(root, folder / file, f"it is not UTF-8 text: byte {exc.start}") from None
            texts[file] = content
        named |= set(data["files"])
        entries.append(PendingEntry(str(root), data, texts))
    stray = sorted(set(names) - named - set(manifests))
    if stray:
        raise _edited(root, folder / stray[0], "no manifest beside it names it")
    return entries


def _manifest(root: Path, path: Path) -> dict[str, Any]:
    """A call's manifest as pytest-stages writes it, else :class:`PendingError`."""
    try:
        data = read_json(path)
    except (InputError, ValueError) as exc:
        raise _edited(root, path, f"it is not JSON as pytest-stages writes it ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != PENDING_SCHEMA:
        raise _edited(root, path, f"it is not a pending manifest of schema {PENDING_SCHEMA}")
    problem = mismatch(data, _MANIFEST_SCHEMA, "the manifest")
    missing = [key for key in _REQUIRED if key not in data]
    if problem or missing:
        raise _edited(root, path, problem or f"it has no {missing[0]!r}")
    problem = _content_problem(data)
    if problem:
        raise _edited(root, path, problem)
    return data


def _content_problem(data: dict[str, Any]) -> str | None:
    """What is wrong in a manifest of the right shape: its files, digests, record or folder; None if nothing."""
    if set(data["base"]) != set(data["files"]):
        named = sorted(set(data["base"]) ^ set(data["files"]))[0]
        return f"its base and its files do not name the same files ({named!r})"
    written = [*data["base"].items(), *data["files"].items()]
    odd = next((name for name, value in written if value is not None and not _sha256(value)), None)
    if odd is not None:  # else an edited base digest reads as a stale snapshot
        return f"its digest of {odd!r} is not a SHA-256 (64 hex digits)"
    # The call's record, as the JSON report holds a call: review shows it.
    problem = schema_mismatch(data["record"], call_schema(), "the manifest['record']")
    if problem:
        return problem
    if not snapshot_folder(data["folder"]):
        return f"its folder {data['folder']!r} is not a snapshot folder pytest-stages names"
    return None


def _sha256(value: str) -> bool:
    """Whether ``value`` is a digest as :func:`digest` writes it."""
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _edited(root: Path, path: Path, why: str) -> PendingError:
    return PendingError(
        f"pending set {root}: {path} does not read as pytest-stages wrote it ({why}): it was edited by hand, cut off "
        "or mixed with other files, and nothing was written. Download the CI artifact again, or rerun the compare "
        "with --stages-pending into an empty folder."
    )


def discard(found: PendingSet, entries: Sequence[PendingEntry], *, keep_root: bool = False) -> None:
    """Remove ``entries`` from the pending folder: each manifest, and the files no other manifest beside it names.

    Only files a manifest of the set names are removed (they were read and checked), then the folders left
    empty, the set's own folder too unless ``keep_root`` (a run about to write its set there keeps it).
    """
    gone = {(e.folder, e.manifest["name"]) for e in entries}
    kept: dict[str, set[str]] = {}
    for entry in found.entries:
        if (entry.folder, entry.manifest["name"]) not in gone:
            kept.setdefault(entry.folder, set()).update(entry.texts)
    for entry in entries:
        folder = found.path / entry.folder
        for name in [*entry.texts, f"{safe_component(entry.manifest['name'])}{MANIFEST_SUFFIX}"]:
            if name not in kept.get(entry.folder, set()):
                (folder / name).unlink(missing_ok=True)
        for parent in [folder, *folder.parents]:
            if not parent.is_relative_to(found.path) or (keep_root and parent == found.path):
                break
            try:
                parent.rmdir()
            except OSError:
                break
            if parent == found.path:
                break


def unwritable(found: PendingSet, entries: Sequence[PendingEntry]) -> Path | None:
    """The first folder of ``found`` that :func:`discard` cannot remove ``entries``' files from (None: all can)."""
    for folder in dict.fromkeys(found.path / entry.folder for entry in entries):
        if not os.access(folder, os.W_OK):
            return folder
    return None


def earlier_set(path: Path) -> PendingSet | None:
    """The set an earlier run left in ``path`` (None where there is none), checked before a run starts.

    A set holds one run's calls, so a run replaces it (:func:`start_set`). Refused (:class:`PendingError`): a
    folder holding anything but a pending set pytest-stages wrote, and a set whose folders cannot be written.
    """
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
        return None
    try:
        found = read_set(path)
    except PendingError as exc:
        raise PendingError(
            f"the pending folder {path} holds files that are not a pending set pytest-stages wrote, and a run "
            f"writes its set afresh (removing only the files an earlier run's manifests name): {exc} Name a new or "
            "empty folder, or remove this one."
        ) from None
    folder = unwritable(found, found.entries)
    if folder is not None:
        raise PendingError(
            f"the pending folder {path} holds an earlier run's set, which this run replaces, but {folder} is not "
            "writable. Make it writable, or name another folder with --stages-pending."
        )
    return found


def start_set(path: Path) -> None:
    """Make ``path`` ready for a run's pending set: the files an earlier run's manifests name are removed, so
    that a call that passes now keeps no older pending change. Called once the run has selected tests."""
    found = earlier_set(path)
    if found is None:
        return
    try:
        discard(found, found.entries, keep_root=True)
    except OSError as exc:
        raise PendingError(
            f"could not remove the earlier run's set from the pending folder {path} ({exc.strerror or exc}); "
            "make it writable, or name another folder with --stages-pending."
        ) from None
