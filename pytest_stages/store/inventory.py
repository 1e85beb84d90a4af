"""The snapshot tree as found on disk: the I/O that gathers a prune's :class:`~pytest_stages.store.prune.Listing`."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from pytest_stages.store.names import META_FILE
from pytest_stages.store.prune import Listing, owned_names
from pytest_stages.store.storage import read_meta_file


def snapshot_files(root: Path) -> Listing:
    """Every entry under ``root``, sorted into pytest-stages' own files and the rest (symlinks never followed).

    One ``scandir`` per folder: the entries' types come with the listing, so a tree of nine
    files per test costs no ``stat`` per file (``Path.rglob`` plus ``is_file`` cost two); only a
    folder's metadata is read. Which files are pytest-stages' own is :func:`~pytest_stages.store.prune.owned_names`.
    """
    listing = Listing()
    pending = [PurePosixPath()] if root.is_dir() and not root.is_symlink() else []
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(root / folder) as scan:
                entries = list(scan)
        except OSError:
            listing.unreadable.append(folder)
            continue
        files: set[str] = set()
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(folder / entry.name)
            elif entry.is_file(follow_symlinks=False):
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
        found.sort()
    return listing
