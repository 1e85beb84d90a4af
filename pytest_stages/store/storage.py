"""Snapshot storage: where each artifact lives, and reading/writing it safely.

Files are written through a syrupy ``SingleFileSnapshotExtension`` subclass in
text mode, one file per artifact, atomically (temporary file + rename in the
same folder), and never outside the snapshot folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from pytest_stages.analyse.artifacts import SUFFIXES

FORMAT_VERSION = 1
META_FILE = "_stages.json"
# The snapshot module of the registered functions: ``<snapshot_dir>/stages/<name>/<config>/``.
REGISTERED_MODULE = "stages"
# Where the snapshots of a test module outside the rootdir go: ``_outside_rootdir/<file name>/...``.
OUTSIDE_ROOTDIR = "_outside_rootdir"
MAX_COMPONENT = 96
_SAFE = re.compile(r"[^A-Za-z0-9_.+=,@\[\]-]")


class SnapshotError(Exception):
    """A snapshot file that cannot be read or written; the message names it and the fix."""


def safe_component(text: str) -> str:
    """Map any text to one safe, stable path component.

    Unsafe characters become ``_``; when anything had to change (or the name is
    too long) a short hash of the original keeps distinct names distinct.
    """
    cleaned = _SAFE.sub("_", text).strip(".")
    if cleaned == text and 0 < len(text) <= MAX_COMPONENT:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{cleaned[: MAX_COMPONENT - 11] or '_'}~{digest}"


def safe_path(path: str) -> PurePosixPath:
    """A relative posix path with every component made safe (``tests/test_a`` stays as it is)."""
    return PurePosixPath(*[safe_component(part) for part in PurePosixPath(path).parts])


@dataclass(frozen=True)
class SnapshotFolder:
    """The folder of one (test, config): ``<root>/<module path>/<test>/<config>/``."""

    root: Path
    module: str
    test: str
    config: str

    @property
    def relative(self) -> PurePosixPath:
        return safe_path(self.module) / safe_component(self.test) / safe_component(self.config)

    @property
    def path(self) -> Path:
        return self.root / self.relative

    def artifact(self, name: str, artifact: str) -> Path:
        return self.path / f"{safe_component(name)}{SUFFIXES[artifact]}"

    @property
    def meta(self) -> Path:
        return self.path / META_FILE


class StageSnapshotExtension(SingleFileSnapshotExtension):
    """syrupy single-file extension for stage texts and analyses (UTF-8 text)."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        path = Path(snapshot_collection.location)
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):  # text mode: the serializers give str
            raise TypeError(f"{cls.__name__} writes text, got {type(data).__name__} for {path}")
        write_atomically(path, data)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` through a fsynced temporary file in its folder: old or new, never half.

    Snapshots and the ``--stages-report`` files are written this way.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, _file_mode(path))
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _file_mode(path: Path) -> int:
    """The mode a replaced file keeps, or that of a normally created file (0644 under umask 022).

    ``mkstemp`` creates its file 0600; without this every new snapshot would be private.
    """
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class SnapshotStore:
    """Reads and writes artifact files under one snapshot root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._extension = StageSnapshotExtension()

    @functools.cached_property
    def _resolved_root(self) -> Path:
        return self.root.resolve()

    def read(self, path: Path) -> str | None:
        """The file's text, or None if it does not exist."""
        self._check_inside(path)
        return self._read_checked(path)

    def read_all(self, paths: Mapping[str, Path]) -> dict[str, str | None]:
        """:meth:`read` of each path, resolving each distinct folder once (a test reads nine files of one)."""
        folders = {path.parent for path in paths.values()}
        for folder in folders:
            self._check_folder(folder)
        for path in paths.values():
            self._check_file(path)
        return {key: self._read_checked(path) for key, path in paths.items()}

    def _read_checked(self, path: Path) -> str | None:
        try:
            return self._extension.read_snapshot_data_from_location(
                snapshot_location=str(path), snapshot_name=path.name, session_id=""
            )
        except UnicodeDecodeError:
            raise SnapshotError(
                f"snapshot {path} is not UTF-8 text (corrupt or not written by pytest-stages); "
                "restore it from version control, or delete it and run `pytest --stages-update`."
            ) from None
        except IsADirectoryError:
            raise SnapshotError(
                f"snapshot {path} is a folder, not a file; remove it and run `pytest --stages-update`."
            ) from None

    def write(self, path: Path, text: str) -> None:
        """Atomically replace ``path`` with ``text``."""
        self._check_inside(path)
        collection = SnapshotCollection(location=str(path))
        collection.add(Snapshot(name=path.name, data=text))
        try:
            self._extension.write_snapshot_collection(snapshot_collection=collection)
        except OSError as exc:
            raise SnapshotError(
                f"could not write snapshot {path} ({exc.strerror or exc}); it keeps its previous content "
                "(writes are atomic). Free disk space or fix the folder's permissions, then run "
                "`pytest --stages-update` again."
            ) from None

    def prune(self, paths: list[Path]) -> list[Path]:
        """Delete files inside the snapshot root, then the folders that left empty; returns those folders.

        A symlink is removed, not followed.
        """
        for path in paths:
            if not path.is_symlink():
                self._check_inside(path)
            self._extension.delete_snapshots(snapshot_location=str(path), snapshot_names={path.name})
        emptied = []
        for folder in sorted(
            {p for path in paths for p in path.parents if p.is_relative_to(self.root) and p != self.root},
            key=lambda p: len(p.parts),
            reverse=True,
        ):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                emptied.append(folder)
        return emptied

    def read_meta(self, folder: SnapshotFolder) -> dict[str, Any] | None:
        """The folder's metadata (versions, platform), None if absent."""
        text = self.read(folder.meta)
        if text is None:
            return None
        try:
            meta = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SnapshotError(
                f"snapshot metadata {folder.meta} is not valid JSON ({exc.msg}, line {exc.lineno}); "
                "restore it from version control or run `pytest --stages-update` for this test."
            ) from None
        if not isinstance(meta, dict) or not isinstance(meta.get("format"), int):
            raise SnapshotError(
                f'snapshot metadata {folder.meta} has no integer "format" field; '
                "restore it from version control or run `pytest --stages-update` for this test."
            )
        if meta["format"] > FORMAT_VERSION:
            raise SnapshotError(
                f"snapshot metadata {folder.meta} has format {meta['format']}, newer than this "
                f"pytest-stages understands ({FORMAT_VERSION}); upgrade pytest-stages."
            )
        return meta

    def _check_inside(self, path: Path) -> None:
        """Refuse paths that leave the snapshot root, also through a symlink inside it.

        The root is resolved once per session (nine files per test are checked against it).
        """
        self._check_folder(path.parent)
        self._check_file(path)

    def _check_folder(self, folder: Path) -> None:
        """Refuse a folder that resolves outside the snapshot root."""
        root = self._resolved_root
        resolved = folder.resolve()
        if not resolved.is_relative_to(root):
            raise SnapshotError(
                f"refusing to use {folder}: it resolves to {resolved}, outside the snapshot "
                f"folder {root}; remove the link."
            )

    def _check_file(self, path: Path) -> None:
        """Refuse a file that is a symlink (its folder is checked by :meth:`_check_folder`)."""
        if path.is_symlink():
            raise SnapshotError(
                f"refusing to use {path}: it is a symlink, and snapshots are plain files; remove the link."
            )
