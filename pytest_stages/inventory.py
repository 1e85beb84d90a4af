"""Which snapshot files a run used, and which are unused or left over from an interrupted write."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from .storage import META_FILE, SUFFIXES, safe_component

TEMPORARY_SUFFIX = ".tmp"


def snapshot_files(root: Path) -> list[PurePosixPath]:
    """Every file under ``root``, relative to it (symlinks are listed, never followed)."""
    if not root.is_dir():
        return []
    return sorted(PurePosixPath(p.relative_to(root).as_posix()) for p in root.rglob("*") if p.is_file() or p.is_symlink())


def used_files(calls: Iterable[tuple[str, str, Iterable[str]]]) -> set[PurePosixPath]:
    """Files of ``(folder, name, artifacts)`` calls, with each folder's metadata file."""
    used = set()
    for folder, name, artifacts in calls:
        used.add(PurePosixPath(folder, META_FILE))
        for artifact in artifacts:
            if artifact in SUFFIXES:
                used.add(PurePosixPath(folder, f"{safe_component(name)}{SUFFIXES[artifact]}"))
    return used


def unused_files(
    files: Iterable[PurePosixPath], used: set[PurePosixPath], protected: set[str]
) -> tuple[list[PurePosixPath], list[PurePosixPath]]:
    """``(unused, leftovers)``: files no call used outside protected folders, and temporary files.

    ``protected`` holds the folders of tests that did not pass: their snapshots are never
    reported, so a crashed test cannot lose them to a prune.
    """
    unused, leftovers = [], []
    for path in files:
        if path.name.startswith(".") and path.name.endswith(TEMPORARY_SUFFIX):
            leftovers.append(path)
        elif path not in used and str(path.parent) not in protected:
            unused.append(path)
    return unused, leftovers
