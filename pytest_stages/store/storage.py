"""Snapshot storage: where each artifact lives, and reading/writing it safely.

One file per artifact, written atomically and never outside the snapshot folder; the tree's layout and
manifests are beyond syrupy's location model, so it is read and written here (docs/snapshots.md).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pytest_stages.analyse.artifacts import SUFFIXES
from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.core.errors import PathError, SnapshotError
from pytest_stages.core.inputs import UNPARSED, parse_json
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import Use, checked_path, plainly_below, shown_path, temporary_of, write_atomically
from pytest_stages.ir.normalize import to_json
from pytest_stages.store.errors import JournalError, write_fix
from pytest_stages.store.journal import Journal, read_journal
from pytest_stages.store.names import (
    ACCEPT_JOURNAL,
    LOCK_FILE,
    META_FILE,
    OWN_FOLDER,
    OWN_GITIGNORE,
    safe_component,
    safe_path,
)
from pytest_stages.store.prune import MANIFEST_KEY, is_meta, owned_names
from pytest_stages.store.schemas import invalid_snapshot, judge_snapshot, oversize

if TYPE_CHECKING:
    import filelock
else:
    filelock = lazy_module("filelock")


def parse_meta(text: str) -> dict[str, object] | None:
    """A folder's metadata as pytest-stages writes it, else None."""
    try:
        meta = parse_json(text)
    except ValueError:
        return None
    return meta if is_meta(meta) else None


def read_meta_file(path: Path) -> dict[str, object] | None:
    """The metadata file at ``path`` as pytest-stages writes it; None when absent or not readable as that."""
    try:
        return parse_meta(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


@dataclass(frozen=True)
class SnapshotFolder:
    """The folder of one (test, config): ``<root>/<module path>/<test>/<config>/``, its paths made once."""

    root: Path
    module: str
    test: str
    config: str

    @functools.cached_property
    def relative(self) -> PurePosixPath:
        return safe_path(self.module) / safe_component(self.test) / safe_component(self.config)

    @functools.cached_property
    def path(self) -> Path:
        return self.root / self.relative

    def artifact(self, name: str, artifact: str) -> Path:
        return self.path / f"{safe_component(name)}{SUFFIXES[artifact]}"

    @property
    def meta(self) -> Path:
        return self.path / META_FILE


class SnapshotStore:
    """Reads and writes artifact files under one snapshot root.

    Every file it writes is listed first in its folder's manifest, so that a prune can tell the files
    pytest-stages wrote. With ``repair`` (update mode) a file that does not hold what pytest-stages
    writes there reads as absent, so that the update records it again.
    """

    def __init__(self, root: Path, *, repair: bool = False) -> None:
        self.root = root
        self.repair = repair

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The snapshot tree's inter-process lock (:func:`tree_lock`), held around every write and prune."""
        return tree_lock(self.root)

    @functools.cached_property
    def _resolved_root(self) -> Path:
        return self.root.resolve()

    def read(self, path: Path) -> str | None:
        """The file's text, or None if it does not exist."""
        self._check_folder(path.parent)
        return self._judged(path, self._read_checked(path))[1]

    def read_all(self, paths: Mapping[str, Path], parsed: dict[str, object] | None = None) -> dict[str, str | None]:
        """:meth:`read` of each path, resolving each distinct folder once; ``parsed``, where given, receives
        the data of each JSON file the check parsed, by key (so the comparison does not parse it again)."""
        folders = {path.parent for path in paths.values()}
        for folder in folders:
            self._check_folder(folder)
        texts = {}
        for key, path in paths.items():
            data, texts[key] = self._judged(path, self._read_checked(path))
            if parsed is not None and data is not UNPARSED:
                parsed[key] = data
        return texts

    def _judged(self, path: Path, text: str | None) -> tuple[object, str | None]:
        """The data the check parsed (:data:`UNPARSED` where none) and ``text``, checked against what
        pytest-stages writes in a file of ``path``'s kind (None to repair it)."""
        data, problem = judge_snapshot(path.name, text) if text is not None else (UNPARSED, None)
        if problem is None:
            return data, text
        if self.repair:
            return UNPARSED, None
        raise SnapshotError(
            f"snapshot {path} does not hold what pytest-stages writes there ({problem}): it was edited or "
            "corrupted. Restore it from version control, or run `pytest --stages-update` for its test to record "
            "it again."
        )

    def _read_checked(self, path: Path) -> str | None:
        """The file's text (None if it does not exist), UTF-8 with universal newlines as syrupy reads it.

        A symlink, a folder, a FIFO or a device is refused by one ``lstat`` before any open (a FIFO would
        block the read); the read is one open that does not follow a link.
        """
        try:
            found = path.lstat()  # one stat: its mode and size decide what follows
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _unreadable(path, exc) from None
        mode = found.st_mode
        if stat.S_ISLNK(mode):
            raise _symlink(path)
        if stat.S_ISDIR(mode):
            raise SnapshotError(f"snapshot {path} is a folder, not a file; remove it and run `pytest --stages-update`.")
        if not stat.S_ISREG(mode):  # a FIFO or a device would block the read, or never end
            raise SnapshotError(
                f"snapshot {path} is not a regular file (a FIFO, socket or device); pytest-stages does not open it. "
                "Remove it and run `pytest --stages-update` to record the snapshot."
            )
        too_large = oversize(found.st_size)
        if too_large is not None:  # refused unread: comparing it would take minutes, or hours
            raise SnapshotError(
                f"snapshot {path} is {too_large} (pytest-stages never writes one so large), so it is not compared. "
                "Restore it from version control, or delete it and run `pytest --stages-update` to record it again."
            )
        try:
            text = _read_bytes(path).decode("utf-8")
        except UnicodeDecodeError:
            raise SnapshotError(
                f"snapshot {path} is not UTF-8 text (corrupt or not written by pytest-stages); "
                "restore it from version control, or delete it and run `pytest --stages-update`."
            ) from None
        except OSError as exc:
            raise _unreadable(path, exc) from None
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def write(self, path: Path, text: str) -> None:
        """Atomically replace ``path`` with ``text``, listing it first in its folder's manifest."""
        self.write_all([(path, text)])

    def write_all(self, files: Sequence[tuple[Path, str]], done: list[Path] | None = None) -> None:
        """Atomically replace each path with its text; each folder's manifest is written once, before its files.

        Every path is checked first, and the names are listed before they are written, so that a write
        killed midway leaves no file unlisted. Each path is appended to ``done`` once written.
        """
        written = done if done is not None else []
        for path, text in files:
            self._check_inside(path)
            _check_readable(path, text)
        with self.locked():
            self._write_all(files, written)

    def _write_all(self, files: Sequence[tuple[Path, str]], written: list[Path]) -> None:
        """:meth:`write_all` once checked, under the lock."""
        folders: dict[Path, dict[Path, str]] = {}
        for path, text in files:
            folders.setdefault(path.parent, {})[path] = text
        for folder, texts in folders.items():
            meta_path = folder / META_FILE
            names = {path.name for path in texts} - {META_FILE}
            meta_text = texts.pop(meta_path, None)
            folder.mkdir(parents=True, exist_ok=True)
            listed = self._listed(meta_path, names, meta_text)
            if listed is not None:
                self._write(meta_path, listed)
                if meta_text is not None:
                    written.append(meta_path)
            for path, text in texts.items():
                self._write(path, text)
                written.append(path)
            if meta_text is not None and listed is None:  # not metadata pytest-stages writes: kept as given
                self._write(meta_path, meta_text)
                written.append(meta_path)

    def _write(self, path: Path, text: str) -> None:
        try:
            write_atomically(path, text)
        except OSError as exc:
            raise SnapshotError(
                f"could not write snapshot {path} ({exc.strerror or exc}); it keeps its previous content "
                "(writes are atomic). Free disk space or fix the folder's permissions, then run "
                "`pytest --stages-update` again."
            ) from None

    def _manifest(self, meta_path: Path) -> tuple[dict[str, Any], set[str]]:
        """The metadata on disk in ``meta_path`` (``{"format": ...}`` if none) and the files it owns."""
        folder = meta_path.parent
        meta = read_meta_file(meta_path)
        names = {entry.name for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)}
        owned = owned_names(folder.name, names, meta) - {META_FILE}
        return meta or {"format": FORMAT_VERSION}, {n for n in owned if temporary_of(n) is None}

    def _listed(self, meta_path: Path, names: set[str], meta_text: str | None) -> str | None:
        """The metadata text that lists ``names`` besides the folder's files (None: nothing to write first):
        ``meta_text`` (new metadata) or else the metadata on disk, with ``names`` added."""
        on_disk, owned = self._manifest(meta_path)
        if meta_text is None:
            if names <= owned and isinstance(on_disk.get(MANIFEST_KEY), list):
                return None
            meta = on_disk
        else:
            parsed = parse_meta(meta_text)
            if parsed is None:
                return None
            meta = parsed
        return to_json({**meta, MANIFEST_KEY: sorted(owned | names)})

    def prune(self, paths: Sequence[Path], empty: Sequence[Path] = ()) -> list[Path]:
        """Delete files inside the snapshot root, then the folders left empty (and ``empty`` ones); returns those.

        A symlink is removed, not followed; a kept folder's manifest is updated to the files left. A file that
        cannot be deleted stops the prune with a :class:`SnapshotError` naming it.
        """
        deleted: list[Path] = []
        try:
            with self.locked():
                return self._prune(paths, empty, deleted)
        except OSError as exc:
            raise SnapshotError(
                f"could not delete {exc.filename or 'a snapshot file'} ({exc.strerror or exc}); {len(deleted)} of "
                f"{len(paths)} file(s) were deleted, the others are kept. Give the user running pytest write access "
                "to the snapshot folder, then prune again."
            ) from None

    def _prune(self, paths: Sequence[Path], empty: Sequence[Path], deleted: list[Path]) -> list[Path]:
        """:meth:`prune`, appending each file to ``deleted`` once it is gone."""
        for path in paths:
            if not path.is_symlink():
                self._check_inside(path)
            path.unlink()
            deleted.append(path)
        for folder in {path.parent for path in paths}:
            self._refresh_manifest(folder / META_FILE)
        return self._remove_empty(paths, empty)

    def _refresh_manifest(self, meta_path: Path) -> None:
        """Rewrite the manifest of a pruned folder's metadata (a plain file) to the files left in it."""
        if meta_path.is_file() and not meta_path.is_symlink():
            meta, owned = self._manifest(meta_path)
            if isinstance(meta.get(MANIFEST_KEY), list) and set(meta[MANIFEST_KEY]) != owned:
                self._write(meta_path, to_json({**meta, MANIFEST_KEY: sorted(owned)}))

    def _remove_empty(self, paths: Sequence[Path], empty: Sequence[Path]) -> list[Path]:
        """Remove the folders under the root left empty above ``paths`` and ``empty``, deepest first; returns them."""
        emptied = []
        candidates = {p for path in [*paths, *(e / "_" for e in empty)] for p in path.parents}
        for folder in sorted(
            {p for p in candidates if p.is_relative_to(self.root) and p != self.root},
            key=lambda p: len(p.parts),
            reverse=True,
        ):
            if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
                folder.rmdir()
                emptied.append(folder)
        return emptied

    def read_meta(self, folder: SnapshotFolder) -> dict[str, object] | None:
        """The folder's metadata (versions, platform, format), None if absent (or, with ``repair``, unusable);
        a format this version cannot compare is read all the same (the run says so once)."""
        text = self.read(folder.meta)
        if text is None:
            return None
        try:
            meta = parse_json(text)
        except ValueError as exc:
            if self.repair:
                return None
            raise SnapshotError(
                f"snapshot metadata {folder.meta} is not valid JSON ({exc}); "
                "restore it from version control or run `pytest --stages-update` for this test."
            ) from None
        if not is_meta(meta):
            if self.repair:
                return None
            raise SnapshotError(
                f'snapshot metadata {folder.meta} has no integer "format" field; '
                "restore it from version control or run `pytest --stages-update` for this test."
            )
        return meta  # type: ignore[no-any-return]

    def _check_inside(self, path: Path) -> None:
        """Refuse paths that leave the snapshot root, also through a symlink inside it."""
        self._check_folder(path.parent)
        self._check_file(path)

    def _check_folder(self, folder: Path) -> None:
        """Refuse a folder that resolves outside the snapshot root (resolved only where a part below the root
        is a link or ``..``)."""
        if plainly_below(folder, self.root):
            return
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
            raise _symlink(path)


def _check_readable(path: Path, text: str) -> None:
    """Refuse to write a snapshot the reader would refuse: both hold it to the one schema of its kind."""
    too_large = oversize(len(text)) and oversize(len(text.encode("utf-8")))
    if too_large:
        raise SnapshotError(
            f"the snapshot built for {path} is {too_large}: a stage text this long takes minutes to compare, so "
            "nothing was written. Leave that stage out for this test (stages = [...] in [tool.pytest_stages], or "
            "@pytest.mark.stages(stages=[...])), or stage a smaller function."
        )
    problem = invalid_snapshot(path.name, text)
    if problem is not None:
        raise SnapshotError(
            f"the snapshot built for {path} would be refused when read back ({problem}); nothing was written. "
            "This is a bug in pytest-stages; please report it with the function staged."
        )


def unreadable_snapshot(name: str, data: bytes) -> str | None:
    """Why the compare would refuse a snapshot file ``name`` holding ``data`` (None: it reads it as written)."""
    too_large = oversize(len(data))
    if too_large is not None:
        return too_large
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte {exc.start})"
    if name.endswith(".json"):
        try:
            parsed = parse_json(text)
        except ValueError as exc:
            return f"not valid JSON: {exc}"
        if name == META_FILE and not is_meta(parsed):
            return 'metadata without an integer "format" field'
    return invalid_snapshot(name, text)


def _symlink(path: Path) -> SnapshotError:
    return SnapshotError(f"refusing to use {path}: it is a symlink, and snapshots are plain files; remove the link.")


def _read_bytes(path: Path) -> bytes:
    """The bytes of the regular file ``path`` (a link is not followed: a race that put one there fails the open)."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(handle, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


def _unreadable(path: Path, exc: OSError) -> SnapshotError:
    return SnapshotError(
        f"cannot read snapshot {path} ({exc.strerror or exc}); give the user running pytest read access to it "
        "(and its folders), or restore it from version control."
    )


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex; "" when it cannot be read (a merge then finds no agreement)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def snapshot_root(rootpath: Path, snapshot_dir: str, *, recovering: bool = False) -> Path:
    """The snapshot folder of the project at ``rootpath``, checked to be a folder of pytest-stages' own.

    It must lie inside the project once links are followed, be neither the project root nor inside ``.git``,
    and be a folder if it exists; else :class:`SnapshotError` names the setting and the fix. An interrupted
    accept's journal is refused too, unless ``recovering`` (``accept --recover``, which reads it).
    """
    root = rootpath / snapshot_dir
    fix = 'Give snapshots a folder of their own inside the project (snapshot_dir = "snapshots").'
    try:  # first: a path too long to resolve, inside .git, out of the project, not a folder
        checked_path(root, Use(f"snapshot_dir = {shown_path(snapshot_dir)!r}", fix, folder=True, inside=rootpath))
    except PathError as exc:
        raise SnapshotError(str(exc)) from None
    project = rootpath.resolve()
    if root.resolve() == project:
        raise SnapshotError(
            f"snapshot_dir = {snapshot_dir!r} is the project root {project}: pytest-stages writes and prunes only "
            f"in a folder of its own. {fix}"
        )
    journal = None if recovering else _journal(root)
    if journal is not None:
        with tree_lock(root):  # an accept under way holds the lock: once it has finished, its journal is gone
            journal = _journal(root)
    if journal is not None:
        raise SnapshotError(
            f"an interrupted `pytest-stages accept` left {root / ACCEPT_JOURNAL}: some snapshot folders may be "
            "half-way through its swap. Run `pytest-stages accept --recover` to put them back as they were, then "
            "run again."
        )
    return root


def _journal(root: Path) -> Journal | None:
    """The accept journal in ``root`` (None: none); one that is not valid is --recover's paragraph, word for word."""
    try:
        return read_journal(root) if root.is_dir() else None
    except JournalError as exc:
        raise SnapshotError(str(exc)) from None


# How long a writer waits for another process's hold of the snapshot tree's lock (an accept takes seconds).
LOCK_TIMEOUT = 60.0


@contextlib.contextmanager
def tree_lock(root: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the inter-process lock of the snapshot tree at ``root`` (``<root>/.pytest-stages/lock``) around a write.

    Re-entrant in a process; another process waits up to ``timeout`` seconds, then gets a
    :class:`SnapshotError` naming the lock. The file is never deleted; its folder ignores itself in git.
    """
    path = root / OWN_FOLDER / LOCK_FILE
    try:
        _make_own_folder(root)
        _check_lock_file(path)
        lock = filelock.FileLock(path, is_singleton=True)
        lock.acquire(timeout=timeout)
    except filelock.Timeout:
        raise SnapshotError(
            f"another pytest-stages process (an accept, a prune or an update) has held the snapshot folder's lock "
            f"{path} for over {timeout:.0f} s; nothing was written. Let it finish (or stop it), then run again."
        ) from None
    except OSError as exc:
        raise SnapshotError(f"cannot take the snapshot folder's lock {path}{_lock_fix(exc, path)}") from None
    try:
        yield
    finally:
        lock.release()


def _make_own_folder(root: Path) -> None:
    """The snapshot folder and pytest-stages' own folder in it, whose ``.gitignore`` (``*``) is written before the
    lock, so that git never shows the lock (nor the ``.gitignore``)."""
    own = root / OWN_FOLDER
    root.mkdir(parents=True, exist_ok=True)
    own.mkdir(exist_ok=True)
    if not stat.S_ISDIR(own.lstat().st_mode):  # a link to a folder elsewhere would lock nothing of this tree
        raise OSError(errno.EINVAL, "not a folder")
    ignore = own / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        write_atomically(ignore, OWN_GITIGNORE)


def _lock_fix(exc: OSError, path: Path) -> str:
    """The rest of the paragraph of a lock at ``path`` not taken: something in its place, or why the write failed."""
    for held in (path.parent, path):
        with contextlib.suppress(OSError):
            mode = held.lstat().st_mode
            if not (stat.S_ISDIR(mode) if held == path.parent else stat.S_ISREG(mode)):
                return (
                    f"; nothing was written. {held} is a {_kind(mode)}, where pytest-stages keeps its own "
                    f"{'folder' if held == path.parent else 'lock file'}: remove it, then run again."
                )
    failed = Path(exc.filename) if isinstance(exc.filename, str) else path
    return f" ({exc.strerror or exc}); nothing was written. {write_fix(exc, failed.parent)}"


def _kind(mode: int) -> str:
    return (
        "folder"
        if stat.S_ISDIR(mode)
        else "symlink"
        if stat.S_ISLNK(mode)
        else "file"
        if stat.S_ISREG(mode)
        else "FIFO, socket or device"
    )


def _check_lock_file(path: Path) -> None:
    """``OSError`` where the lock's path holds anything but a plain file: a FIFO or a device opens and locks as one."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a plain file")
