"""The commits that touched the snapshot folder and the files they recorded, read through git's command line.

``git log`` lists the commits and each one's changed files with their blob ids (``--raw``, renames found
with ``-M``); one ``git cat-file --batch`` process reads the blobs, all of them in one pass. Nothing is
checked out. Every way git can refuse (no git, no repository, a bad revision) is a :class:`HistoryError`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_stages.store.errors import HistoryError

# The separator of one commit's header in the log, and of its fields (bytes no subject holds).
_RECORD, _FIELD = "\x1e", "\x1f"
_FORMAT = f"--format={_RECORD}%H{_FIELD}%P{_FIELD}%cI{_FIELD}%s"
# git's id of a missing side of a change (an added file's old blob, a deleted file's new one).
NO_BLOB = "0" * 40
FETCH_MORE = (
    "fetch the rest with `git fetch --unshallow` (in GitHub Actions: `fetch-depth: 0` in actions/checkout's `with:`)"
)


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed: git's status letter (A, M, D, R...), its path, the path it was renamed
    from (renames only), and the blob ids before and after (None for a missing side)."""

    status: str
    path: str
    old_path: str | None
    old_blob: str | None
    new_blob: str | None


@dataclass(frozen=True)
class Commit:
    """A commit as the history shows it: its id, committer date (ISO), subject, parent count and changes."""

    sha: str
    date: str
    subject: str
    parents: int
    changes: tuple[FileChange, ...]

    @property
    def short(self) -> str:
        return self.sha[:7]


@dataclass(frozen=True)
class Log:
    """The commits read, oldest first; whether the clone is shallow, and whether they are the first parent's."""

    commits: tuple[Commit, ...]
    shallow: bool
    first_parent: bool


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """git's standard output; a git that is not installed or fails is a :class:`HistoryError` by its own words."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_LITERAL_PATHSPECS": "1", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args], cwd=root, input=stdin, capture_output=True, env=env, check=False
        )
    except FileNotFoundError:
        raise HistoryError(
            "git was not found on PATH: `pytest-stages history` reads the snapshots' history through git's "
            "command line. Install git (e.g. `apt-get install git`) and run it again."
        ) from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HistoryError(f"`git {' '.join(args[:2])}` failed: {said[0] if said else f'status {done.returncode}'}")
    return done.stdout


def repository_root(folder: Path) -> Path:
    """The top of the git work tree holding ``folder``; a folder in no repository is refused with the fix."""
    try:
        return Path(_git(folder, "rev-parse", "--show-toplevel").decode().strip())
    except HistoryError as exc:
        if "not a git repository" not in str(exc):
            raise
    raise HistoryError(
        f"{folder} is not in a git repository: the history of the snapshots is read from the commits that "
        "recorded them. Run `pytest-stages history` in a clone of the project (`git clone URL`), or `git init` "
        "and commit the snapshot folder to start one."
    )


def resolve(root: Path, revision: str) -> str:
    """The commit ``revision`` names; one git does not know is refused with the fix."""
    try:
        return (
            _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
            .decode()
            .strip()
        )
    except HistoryError:
        shallow = " (this clone is shallow: the commit may be older than what was fetched; " + FETCH_MORE + ")"
        raise HistoryError(
            f"--since {revision!r} names no commit of this repository{shallow if is_shallow(root) else ''}. "
            "Name a commit, tag or branch that `git log` shows, e.g. --since main or --since HEAD~20."
        ) from None


def is_shallow(root: Path) -> bool:
    return _git(root, "rev-parse", "--is-shallow-repository").decode().strip() == "true"


def read_log(
    root: Path,
    folder: str,
    *,
    since: str | None = None,
    max_count: int | None = None,
    first_parent: bool = True,
    paths: Sequence[str] = (),
) -> Log:
    """The commits of HEAD (after ``since``) that touched ``folder`` (relative to ``root``; or only ``paths``
    under it), oldest first.

    First parent by default: a merge reads as the change it brought to the branch (its diff against
    its first parent); without, every commit is listed with a merge's diff against its first parent.
    """
    try:
        _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except HistoryError:  # a repository with no commit yet
        return Log((), is_shallow(root), first_parent)
    revisions = [f"{resolve(root, since)}..HEAD"] if since else ["HEAD"]
    options = ["--first-parent"] if first_parent else ["--topo-order"]
    count = [f"--max-count={max_count}"] if max_count else []
    text = _git(
        root,
        "log",
        *options,
        "--diff-merges=first-parent",
        "--raw",
        "--no-abbrev",
        "-M",
        _FORMAT,
        *count,
        *revisions,
        "--",
        *(paths or [folder]),
    ).decode("utf-8", "replace")
    commits = tuple(reversed([_commit(record) for record in text.split(_RECORD)[1:]]))
    return Log(commits, is_shallow(root), first_parent)


def _commit(record: str) -> Commit:
    header, _, body = record.partition("\n")
    sha, parents, date, subject = header.split(_FIELD, 3)
    changes = [_change(line) for line in body.splitlines() if line.startswith(":")]
    return Commit(sha, date, subject, len(parents.split()), tuple(changes))


def _change(line: str) -> FileChange:
    """One ``--raw`` line: ``:100644 100644 OLD NEW M\tpath`` (``R100\told\tnew`` for a rename)."""
    meta, *paths = line.split("\t")
    _, _, old, new, status = meta.split(" ")
    renamed = status[0] in "RC"
    return FileChange(
        status[0],
        paths[-1],
        paths[0] if renamed else None,
        None if old == NO_BLOB else old,
        None if new == NO_BLOB else new,
    )


def read_blobs(root: Path, blobs: Iterable[str]) -> Mapping[str, bytes | None]:
    """Each blob's bytes by id (None for one this clone does not hold), through one ``git cat-file --batch``."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    out = _git(root, "cat-file", "--batch", stdin="".join(f"{blob}\n" for blob in wanted).encode())
    found: dict[str, bytes | None] = {}
    at = 0
    for blob in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        if len(header) < 3:  # "<id> missing"
            found[blob], at = None, end + 1
            continue
        size = int(header[2])
        found[blob] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found
