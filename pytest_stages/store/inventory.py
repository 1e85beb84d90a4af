"""The snapshot tree as found on disk: the I/O that gathers a prune's :class:`~pytest_stages.store.prune.Listing`."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pytest_stages.store.names import LEGACY_LOCK, META_FILE, OWN_FOLDER
from pytest_stages.store.prune import Listing, owned_names
from pytest_stages.store.storage import read_meta_file


def snapshot_files(root: Path) -> Listing:
    """Every entry under ``root``, sorted into pytest-stages' own files and the rest (symlinks never followed).

    One ``scandir`` per folder: the entries' types come with the listing, so a tree of nine
    files per test costs no ``stat`` per file (``Path.rglob`` plus ``is_file`` cost two); only a
    folder's metadata is read. Which files are pytest-stages' own is :func:`~pytest_stages.store.prune.owned_names`.
    """
    listing = Listing()
    for folder, entries in _folders(root):
        if entries is None:
            listing.unreadable.append(folder)
            continue
        files: set[str] = set()
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                continue
            if entry.is_file(follow_symlinks=False):
                files.add(entry.name)
            else:
                listing.foreign.append(folder / entry.name)
        if not entries and folder.parts:
            listing.empty.append(folder)
        meta = read_meta_file(root / folder / META_FILE) if META_FILE in files else None
        owned = owned_names(folder.name, files, meta)
        listing.own.extend(folder / name for name in owned)
        listing.foreign.extend(folder / name for name in files - owned)
    for found in (listing.own, listing.foreign, listing.empty, listing.unreadable):
        found.sort(key=_parts)
    return listing


def _parts(path: PurePosixPath) -> tuple[str, ...]:
    """A relative path's sort key: its parts, the order its own comparison gives, without a Python-level
    ``__lt__`` per comparison (a tree of 500 tests sorts 4,500 paths)."""
    return path.parts


def _folders(root: Path) -> Iterator[tuple[PurePosixPath, list[os.DirEntry[str]] | None]]:
    """Every folder under ``root`` (relative; ``root`` itself first) with its entries, None where it
    cannot be listed: one ``scandir`` per folder, symlinks never followed into. pytest-stages' own folder
    at the root (the lock), and the lock earlier versions kept there, are no part of the tree: neither listed
    nor judged."""
    pending = [PurePosixPath()] if root.is_dir() and not root.is_symlink() else []
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(os.path.join(root, folder)) as scan:  # a str: no Path parsed per folder
                entries = [e for e in scan if folder.parts or e.name not in (OWN_FOLDER, LEGACY_LOCK)]
        except OSError:
            yield folder, None
            continue
        pending.extend(folder / entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
        yield folder, entries


def checkout_state(rootpath: Path, root: Path) -> tuple[str, str]:
    """The git commit of the checkout at ``rootpath`` ("" outside git) and :func:`tree_digest` of ``root``.

    A shard's report carries both; a merge prunes only a checkout in the same state, so that a
    report of another commit (a call named in a helper module that changed since) or of
    another snapshot tree deletes nothing.
    """
    return git_commit(rootpath), tree_digest(root)


def git_commit(rootpath: Path) -> str:
    """``git rev-parse HEAD`` in ``rootpath``; "" when it is no git checkout or git cannot say."""
    try:
        done = subprocess.run(
            ["git", "-C", str(rootpath), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def tree_digest(root: Path) -> str:
    """The SHA-256 of the snapshot tree under ``root``: every entry's path, and each metadata file's bytes.

    Links are not followed; what cannot be read counts by its name. pytest-stages' own folder (the lock) is
    left out (:func:`_folders`): it is never committed, so it must not tell two checkouts of one commit apart.
    """
    digest = hashlib.sha256()
    found: list[tuple[PurePosixPath, bool]] = []
    for folder, entries in _folders(root):
        for entry in entries or ():
            if not entry.is_dir(follow_symlinks=False):  # a metadata file is read only when regular (a FIFO blocks)
                found.append((folder / entry.name, entry.name == META_FILE and entry.is_file(follow_symlinks=False)))
    for path, is_meta in sorted(found):
        digest.update(f"{path}\0".encode("utf-8", "surrogateescape"))
        if is_meta:
            try:
                digest.update(hashlib.sha256((root / path).read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
    return digest.hexdigest()
