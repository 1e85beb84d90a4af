"""The paths pytest-stages reads and writes for a user: one resolver that refuses unsafe ones, one atomic write.

Every path a user names goes through :func:`checked_path`, which refuses what docs/safety.md lists with one
:class:`PathError` (what the user wrote, why, the fix); every file is written by :func:`write_atomically`.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pytest_stages.core.errors import PathError

# The folders where version control keeps its own data: pytest-stages never writes inside one.
VCS_FOLDERS = (".git", ".hg", ".svn", ".bzr", ".jj", "_darcs")
# The most bytes of one name (ext4, APFS and NTFS take 255), and of a whole path (Linux's PATH_MAX).
MAX_NAME = 255
MAX_PATH = 4096
# A temporary file of an atomic write: ``.<file name>.<mkstemp's 8 characters>.tmp``.
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


@dataclass(frozen=True)
class Use:
    """What a path is for: how the user named it (``--stages-pending=x``), the fix, and the rules it keeps.

    ``folder``: a folder is wanted (else a file). ``inside``: the project it must lie inside,
    also once symlinks are followed (the snapshot folder); an output the user named explicitly
    may lie outside the project (a report in ``/tmp``, GitHub's step summary): None.
    """

    named: str
    fix: str
    folder: bool
    inside: Path | None = None


def checked_path(path: Path, use: Use) -> Path:
    """``path`` made absolute, or :class:`PathError` where pytest-stages must not use it (see the module)."""
    absolute = path.absolute()
    problem = _impossible(absolute)
    resolved = absolute
    if problem is None:
        try:
            resolved = absolute.resolve()
        except (OSError, RuntimeError) as exc:  # a loop of links, a name too long once a link is followed
            problem = f"cannot be resolved ({getattr(exc, 'strerror', None) or exc})"
    problem = problem or _vcs(absolute, resolved) or _outside(absolute, resolved, use.inside) or _kind(resolved, use)
    if problem is not None:
        raise PathError(f"{use.named} {problem}. {use.fix}")
    return absolute


def held_inside(path: Path, project: Path) -> Path | None:
    """``project`` where ``path`` names a place in it (``..`` taken away, links not followed), else None.

    The :attr:`Use.inside` of a path the project's own settings give: one that names a folder in the
    project must not lead out of it through a link in the checkout; one that names a folder
    elsewhere (a shared mount, by its own path) is taken as named.
    """
    return project if Path(os.path.normpath(path.absolute())).is_relative_to(project.absolute()) else None


def folder_setting(text: str) -> str:
    """A folder setting as the project names it: relative to the rootdir, ``.`` and ``..`` taken away lexically
    (``tests/../snapshots`` is ``snapshots``), in POSIX form; "" where it is absolute or leads above the rootdir."""
    if Path(text).is_absolute():
        return ""
    normal = Path(os.path.normpath(text)).as_posix()
    return "" if normal == ".." or normal.startswith("../") else normal


def shown_path(path: str, width: int = 80) -> str:
    """``path``, cut in the middle when longer than ``width`` characters (a message names it, not prints it whole)."""
    return path if len(path) <= width else f"{path[: width // 2]}...{path[-width // 2 :]}"


def _impossible(path: Path) -> str | None:
    """Why no file system takes ``path`` (a NUL, a path or a name too long), checked before any system call."""
    if "\0" in str(path):
        return "holds a NUL character, which no file system takes"
    size = len(os.fsencode(str(path)))
    if size >= MAX_PATH:
        return f"is {size} bytes long once absolute; file systems take a path of fewer than {MAX_PATH}"
    name = max((len(os.fsencode(part)) for part in path.parts), default=0)
    if name > MAX_NAME:
        return f"has a name of {name} bytes; file systems take at most {MAX_NAME} a name"
    return None


def _vcs(absolute: Path, resolved: Path) -> str | None:
    for path in (resolved, absolute):
        internal = next((part for part in path.parts if part in VCS_FOLDERS), None)
        if internal is not None:
            return (
                f"resolves to {resolved}, inside {internal}, version control's own folder: files written there "
                "corrupt the repository"
            )
    return None


def _outside(absolute: Path, resolved: Path, project: Path | None) -> str | None:
    if project is None:
        return None
    root = project.resolve()
    if resolved.is_relative_to(root):
        return None
    lexical = Path(os.path.normpath(absolute))  # ``..`` taken away, links not followed
    if lexical.is_relative_to(project) or lexical.is_relative_to(root):
        return f"resolves to {resolved}, outside the project {root} (through a symlink): remove the link"
    return f"resolves to {resolved}, outside the project {root}: it must lie inside the project"


def _kind(resolved: Path, use: Use) -> str | None:
    try:
        mode = resolved.stat().st_mode
    except OSError:  # nothing there yet (or unreadable: the write itself says so)
        return None
    wanted = "folder" if use.folder else "file"
    if stat.S_ISDIR(mode):
        return None if use.folder else "is a folder, not a file"
    if stat.S_ISREG(mode):
        return "is a file, not a folder" if use.folder else None
    return f"is a FIFO, socket or device, not a {wanted}: pytest-stages writes only plain files and folders"


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it, once symlinks are followed."""
    resolved, root = path.resolve(), folder.resolve()
    return resolved == root or root in resolved.parents


def plainly_below(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` joined with parts that are neither ``..`` nor links (missing is fine)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    if ".." in parts:
        return False
    below = root
    for part in parts:
        below /= part
        try:
            if stat.S_ISLNK(below.lstat().st_mode):
                return False
        except FileNotFoundError:
            return True  # nothing below a missing part exists, so no link either
        except OSError:
            return False  # unreadable: a full resolve says what is wrong
    return True


def write_atomically(path: Path, text: str | Iterable[str], *, sync: bool = True) -> None:
    """Replace ``path`` with ``text`` through a temporary file in its folder: old or new, never half.

    ``text`` in pieces (a large JSON report) is written as they come, never joined. With ``sync``
    the file is fsynced before the rename (a crash then leaves old or new); a cache, where an
    entry lost to a crash is only a miss, passes ``sync=False``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, _file_mode(path))
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.writelines([text] if isinstance(text, str) else text)
            if sync:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def temporary_of(name: str) -> str | None:
    """The file a temporary file of an interrupted :func:`write_atomically` was to become.

    ``.f.cost.json.ab12cd34.tmp`` -> ``f.cost.json``; ``f.cost.json`` -> None.
    """
    match = _TEMPORARY.fullmatch(name)
    return match["name"] if match else None


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
