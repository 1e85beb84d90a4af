"""Snapshot storage: where each artifact lives, and reading/writing it safely.

Files are written through a syrupy ``SingleFileSnapshotExtension`` subclass in
text mode, one file per artifact, atomically (temporary file + rename in the
same folder), and never outside the snapshot folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

FORMAT_VERSION = 1
META_FILE = "_stages.json"
SUFFIXES = {
    "jaxpr": ".jaxpr.txt",
    "stablehlo": ".stablehlo.mlir",
    "hlo": ".hlo.txt",
    "compiled": ".compiled.hlo.txt",
    "cost": ".cost.json",
    "memory": ".memory.json",
    "ops": ".ops.json",
    "sharding": ".sharding.json",
    "layout": ".layout.json",
}
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


@dataclass(frozen=True)
class SnapshotFolder:
    """The folder of one (test, config): ``<root>/<module path>/<test>/<config>/``."""

    root: Path
    module: str
    test: str
    config: str

    @property
    def relative(self) -> PurePosixPath:
        parts = [safe_component(p) for p in PurePosixPath(self.module).parts]
        return PurePosixPath(*parts, safe_component(self.test), safe_component(self.config))

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
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class SnapshotStore:
    """Reads and writes artifact files under one snapshot root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._extension = StageSnapshotExtension()

    def read(self, path: Path) -> str | None:
        """The file's text, or None if it does not exist."""
        self._check_inside(path)
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
        self._extension.write_snapshot_collection(snapshot_collection=collection)

    def delete(self, path: Path) -> None:
        """Delete one file inside the snapshot root (prune only); a symlink is removed, not followed."""
        if not path.is_symlink():
            self._check_inside(path)
        self._extension.delete_snapshots(snapshot_location=str(path), snapshot_names={path.name})

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
                f"snapshot metadata {folder.meta} has no integer \"format\" field; "
                "restore it from version control or run `pytest --stages-update` for this test."
            )
        if meta["format"] > FORMAT_VERSION:
            raise SnapshotError(
                f"snapshot metadata {folder.meta} has format {meta['format']}, newer than this "
                f"pytest-stages understands ({FORMAT_VERSION}); upgrade pytest-stages."
            )
        return meta

    def _check_inside(self, path: Path) -> None:
        """Refuse paths that leave the snapshot root, also through a symlink inside it."""
        root = self.root.resolve()
        resolved = path.resolve()
        if not resolved.is_relative_to(root) or path.is_symlink():
            raise SnapshotError(
                f"refusing to use {path}: it resolves to {resolved}, outside the snapshot "
                f"folder {root} (or is a symlink); remove the link."
            )
