"""``pytest-stages accept``: pending sets in, the snapshot tree an update would leave out, all or nothing.

:func:`plan` judges (the files to write per folder, or an :class:`AcceptError` naming the set refused and
why: another project, config or environment, stale, or conflicting); :func:`apply` writes copies of the
folders and swaps them in under a journal that :func:`recover` reads (docs/review.md states the rules).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pytest_stages.check.environment import compare_environments, describe
from pytest_stages.config.settings import Settings
from pytest_stages.core.errors import ConfigError, SnapshotError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import temporary_of
from pytest_stages.core.text import shown
from pytest_stages.ir.normalize import to_json
from pytest_stages.store.errors import AcceptError, write_fix
from pytest_stages.store.journal import Swap, read_journal, staged_names, write_journal
from pytest_stages.store.names import ACCEPT_JOURNAL, META_FILE
from pytest_stages.store.pending import PendingEntry, PendingSet, discard, disk_digest, read_set, unwritable
from pytest_stages.store.prune import module_file
from pytest_stages.store.storage import SnapshotStore, parse_meta, read_meta_file, tree_lock, unreadable_snapshot

if TYPE_CHECKING:
    from _pytest.mark import expression
else:
    expression = lazy_module("_pytest.mark.expression")

NOTHING_WRITTEN = "Nothing was written."


@dataclass(frozen=True)
class Selection:
    """Which calls to accept: node ids (a test, or one of its parameters), a ``-k`` expression, configs."""

    nodeids: tuple[str, ...] = ()
    keyword: str | None = None
    configs: tuple[str, ...] = ()

    def chooses(self, entry: PendingEntry) -> bool:
        nodeid, config, name = entry.key
        if self.configs and config not in self.configs:
            return False
        if not node_matches(nodeid, self.nodeids):
            return False
        return self.keyword is None or keyword_matches(self.keyword, [*nodeid.replace("::", " ").split(), name])


def node_matches(nodeid: str, nodeids: Sequence[str]) -> bool:
    """Whether ``nodeid`` is one of ``nodeids`` (a test, or one of its parameters); any without ``nodeids``."""
    return not nodeids or any(nodeid == n or nodeid.startswith((f"{n}::", f"{n}[")) for n in nodeids)


def keyword_matches(keyword: str, words: Sequence[str]) -> bool:
    """pytest's ``-k`` over a call's words (its node id's parts, parameters, the call's name): substrings, any case."""
    lowered = [word.lower() for word in words]

    def matches(part: str, /, **_: str | int | bool | None) -> bool:
        return any(part.lower() in word for word in lowered)

    return expression.Expression.compile(keyword).evaluate(matches)


def check_keyword(keyword: str | None) -> None:
    """Refuse a ``-k`` expression pytest's ``-k`` would not take (None: no ``-k``)."""
    if keyword is None:
        return
    try:  # a parse nested past Python's recursion limit (thousands of parentheses, or of `or`s) is refused too
        expression.Expression.compile(keyword)
    except (SyntaxError, RecursionError, getattr(expression, "ParseError", SyntaxError)) as exc:  # 8.0-8.3
        # Python's own words for the recursion vary with where the parse hit the limit ("... in comparison").
        reason = "maximum recursion depth exceeded" if isinstance(exc, RecursionError) else exc
        raise ConfigError(
            f"-k {shown(repr(keyword), 200)} is not an expression pytest's -k takes ({reason}); write it as for "
            "pytest, e.g. -k 'test_a and not cpu8'."
        ) from None


@dataclass(frozen=True)
class Project:
    """What a plan checks the sets against: the project's name, settings, and its root."""

    rootdir: Path
    settings: Settings
    name: str | None

    @property
    def snapshots(self) -> Path:
        return self.rootdir / self.settings.snapshot_dir


@dataclass(frozen=True)
class Plan:
    """The files to write, per snapshot folder (relative to the snapshot root), and the calls they come from."""

    snapshot_dir: str
    folders: dict[str, dict[str, bytes]] = field(default_factory=dict)
    calls: list[PendingEntry] = field(default_factory=list)

    def paths(self, prefix: str) -> list[str]:
        """Every file the plan writes, ``<snapshot_dir>/<folder>/<name>``, in order."""
        return [f"{prefix}/{folder}/{name}" for folder, files in self.folders.items() for name in files]


def plan(
    sets: Sequence[PendingSet],
    project: Project,
    selection: Selection,
    on_disk: Callable[[str], str | None],
) -> Plan:
    """The files to write for the selected calls of ``sets``; :class:`AcceptError` when a set must be refused.

    ``on_disk`` gives the digest of a file (``<folder>/<name>``, relative to the snapshot root)
    as it is now, or None where there is none.
    """
    chosen = [entry for found in sets for entry in found.entries if selection.chooses(entry)]
    if not chosen:
        raise nothing_selected(sets)
    for entry in chosen:
        _check_project(entry, project)
        _check_environment(entry, project, on_disk)
        _check_readable(entry, project.settings.snapshot_dir)
    out = Plan(project.settings.snapshot_dir)
    givers: dict[str, PendingEntry] = {}
    for entry in chosen:
        files = out.folders.setdefault(entry.folder, {})
        for name, data in entry.texts.items():
            path = f"{entry.folder}/{name}"
            if name in files and files[name] != data:
                _conflict(givers[path], entry, path, project.settings.snapshot_dir)
            files[name] = data
            givers.setdefault(path, entry)
        out.calls.append(entry)
    _check_tree(chosen, project.snapshots, project.settings.snapshot_dir, on_disk)
    for files in out.folders.values():  # the metadata first, as an update lists its files
        ordered = {**({META_FILE: files[META_FILE]} if META_FILE in files else {}), **dict(sorted(files.items()))}
        files.clear()
        files.update(ordered)
    return out


def nothing_selected(sets: Sequence[PendingSet]) -> AcceptError:
    """The refusal of a selection that chooses no call of ``sets`` (an accept's, and a review's)."""
    return AcceptError(
        f"no call of {', '.join(str(s.path) for s in sets)} is selected by the node ids, -k or --configs given; "
        f"{NOTHING_WRITTEN} Run `pytest-stages accept --dry-run DIR...` without a selection to see the calls."
    )


def _check_project(entry: PendingEntry, project: Project) -> None:
    data, label = entry.manifest, f"{entry.source}: {entry.label}"
    ours = project.name
    theirs = data["project"]
    module = module_file(entry.folder.rsplit("/", 2)[0])
    if ours and theirs and ours != theirs:
        why = f"it was written by the project {theirs!r}, this is {ours!r}"
    elif data["snapshot_dir"] != project.settings.snapshot_dir:
        why = (
            f"it was written with snapshot_dir = {data['snapshot_dir']!r}, this project has "
            f"{project.settings.snapshot_dir!r}"
        )
    elif module is not None and not (project.rootdir / module).is_file():
        why = f"its test module {module} is not in {project.rootdir}"
    else:
        return
    raise AcceptError(
        f"{label} is from another project: {why}. {NOTHING_WRITTEN} Run `pytest-stages accept` at the root of the "
        "project whose CI wrote the set (--rootdir), on the branch it was written for."
    )


def _check_environment(entry: PendingEntry, project: Project, on_disk: Callable[[str], str | None]) -> None:
    """A set recorded for another config definition, platform or device kind than the config's own is refused."""
    data, label = entry.manifest, f"{entry.source}: {entry.label}"
    config = data["config"]
    known = {c.name: c for c in project.settings.configs}
    prefix = f"{project.settings.snapshot_dir}/{entry.folder}"
    why = ""
    if config not in known:
        why = f"this project configures no config {config!r} (it has {', '.join(known)})"
    else:
        ours = json.loads(to_json(dataclasses.asdict(known[config])))
        if ours != data["config_record"]:
            moved = sorted(k for k in {*ours, *data["config_record"]} if ours.get(k) != data["config_record"].get(k))
            why = (
                f"it was recorded for config {config} defined otherwise ({', '.join(moved)} differ from "
                f"pyproject.toml's [[tool.pytest_stages.configs]] {config!r})"
            )
        elif known[config].platform and data["environment"].get("platform") not in (known[config].platform, None):
            why = (
                f"it was staged {describe(data['environment'])}, but config {config} is for platform "
                f"{known[config].platform!r}"
            )
        else:
            recorded = _recorded(project.snapshots / entry.folder / META_FILE, on_disk(f"{entry.folder}/{META_FILE}"))
            change = compare_environments(recorded, data["environment"])
            if change.foreign:
                why = (
                    f"it was staged {describe(change.current)}, but {prefix}/ holds snapshots recorded "
                    f"{describe(change.recorded)}; accept does not replace snapshots of another platform or device "
                    "kind, as --stages-update does not"
                )
    if why:
        raise AcceptError(
            f"{label} is recorded for another environment than config {config}'s own: {why}. {NOTHING_WRITTEN} "
            f"Accept the set written on the runner that stages config {config} (or re-record there with "
            "`pytest --stages-update --stages-rerecord`)."
        )


def _recorded(path: Path, present: str | None) -> dict[str, object] | None:
    """The folder's metadata on disk (None where there is none, or it is not metadata pytest-stages writes)."""
    if present is None:
        return None
    try:
        return parse_meta(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _check_readable(entry: PendingEntry, snapshot_dir: str) -> None:
    """Every file the call writes must read back as the compare reads it: accept never writes what it refuses."""
    for name, data in entry.texts.items():
        problem = unreadable_snapshot(name, data)
        if problem is not None:
            raise AcceptError(
                f"{entry.source}: {entry.label} would write {snapshot_dir}/{entry.folder}/{name}, which the compare "
                f"would refuse to read ({problem}): the set was edited or corrupted after its run. {NOTHING_WRITTEN} "
                "Download the CI artifact again, or rerun the compare with --stages-pending."
            )


def _check_tree(
    entries: Sequence[PendingEntry], root: Path, snapshot_dir: str, on_disk: Callable[[str], str | None]
) -> None:
    """The tree at ``root`` must be as the calls' runs found it, with metadata that owns what it holds.

    Checked when planning, and again under the lock (another accept may have written meanwhile).
    """
    for entry in entries:
        _check_metadata(entry, root, snapshot_dir)
    _check_bases(entries, snapshot_dir, on_disk)


def _check_metadata(entry: PendingEntry, root: Path, snapshot_dir: str) -> None:
    """A call that leaves its folder's metadata as it is needs metadata that reads as pytest-stages writes it:
    accept adds to its manifest, and over a corrupt one the folder's other files would be left unowned."""
    if META_FILE in entry.texts:
        return
    folder = root / entry.folder
    meta = folder / META_FILE
    if meta.is_file() and not meta.is_symlink():
        if read_meta_file(meta) is not None:
            return
        why = "does not read as pytest-stages writes it (corrupt or edited)"
    elif meta.exists() or meta.is_symlink():
        why = "is not a plain file (a folder, a link, a FIFO or a device)"
    elif folder.is_dir() and any(e.is_file(follow_symlinks=False) for e in os.scandir(folder)):
        why = "is gone, though the folder holds files"
    else:
        return
    raise AcceptError(
        f"{entry.source}: {entry.label} would write into {snapshot_dir}/{entry.folder}, whose {META_FILE} {why}: "
        "accept lists the files it writes in it, and the folder's other files would be left unowned (a prune "
        f"refuses a tree with files it did not write). {NOTHING_WRITTEN} Restore {snapshot_dir}/{entry.folder}/"
        f"{META_FILE} from version control (or record the test again with `pytest --stages-update`, which repairs "
        "it), then accept."
    )


def _check_bases(entries: Sequence[PendingEntry], snapshot_dir: str, on_disk: Callable[[str], str | None]) -> None:
    """Every file each call writes must still be as the set's run found it (its digest, or absent).

    A stale call is named before any call already applied (another accept wrote it), and "already
    applied" names every such call.
    """
    applied = []
    for entry in entries:
        changed = next(
            (
                (name, now)
                for name in entry.texts
                if (now := on_disk(f"{entry.folder}/{name}")) != entry.manifest["base"][name]
            ),
            None,
        )
        if changed is None:
            continue
        if all(on_disk(f"{entry.folder}/{file}") == digest for file, digest in entry.manifest["files"].items()):
            applied.append(entry)
            continue
        raise _stale(entry, snapshot_dir, *changed)
    if applied:
        _refuse_applied(applied, len(entries), snapshot_dir)


def _stale(entry: PendingEntry, snapshot_dir: str, name: str, now: str | None) -> AcceptError:
    """The refusal of a call whose file ``name`` changed since its run compared against it (``now``: its digest)."""
    recorded, commit = entry.manifest["base"][name], entry.manifest["commit"]
    then = "absent" if recorded is None else f"SHA-256 {recorded[:12]}"
    found = "is gone" if now is None else "exists now" if recorded is None else f"is now {now[:12]}"
    return AcceptError(
        f"{entry.source}: {entry.label} is stale: {snapshot_dir}/{entry.folder}/{name} changed since the run "
        f"that wrote the set compared against it (it was {then}{f' at commit {commit[:12]}' if commit else ''}, "
        f"and {found}); accepting it would overwrite that change. {NOTHING_WRITTEN} Rerun the compare with "
        "--stages-pending on the current tree (rebase and let CI run again), then accept the new set."
    )


def _refuse_applied(applied: Sequence[PendingEntry], selected: int, snapshot_dir: str) -> None:
    """Refuse calls already applied: some of those selected (leave them out), or all (nothing to accept)."""
    shown = "; ".join(f"{entry.source}: {entry.label}" for entry in applied[:3])
    more = f" and {len(applied) - 3} more" if len(applied) > 3 else ""
    if len(applied) < selected:
        raise AcceptError(
            f"{len(applied)} of the {selected} calls selected are already applied ({shown}{more}): "
            f"{snapshot_dir} holds every file they write, as they write them. {NOTHING_WRITTEN} Leave them out "
            "(select the other calls by node id, -k or --configs), or delete them from the set."
        )
    if len(applied) == 1:
        what = (
            f"{shown} is already applied: {snapshot_dir}/{applied[0].folder} holds every file it writes, as it writes"
        )
    else:
        what = (
            f"every call selected is already applied ({shown}{more}): {snapshot_dir} holds every file they write, "
            "as they write"
        )
    raise AcceptError(
        f"{what} them (an earlier or a concurrent accept wrote them). {NOTHING_WRITTEN} Nothing is left to accept; "
        "delete the set."
    )


def _conflict(first: PendingEntry, second: PendingEntry, path: str, snapshot_dir: str) -> None:
    raise AcceptError(
        f"{first.source} and {second.source} disagree about {snapshot_dir}/{path}: {first.label} and "
        f"{second.label} would write different contents to it. {NOTHING_WRITTEN} Accept the sets one at a time "
        "(or select with --configs / node ids) after deciding which run is right."
    )


# --- applying a plan, all or nothing ------------------------------------------------------------


def apply(plan_: Plan, store: SnapshotStore) -> list[Path]:
    """Write the plan all or nothing: staged copies beside each folder, then swapped in under a journal.

    Returns the files written. Under the tree's lock the bases are checked again, so of concurrent accepts
    of conflicting sets the others are refused as stale; a kill leaves the journal :func:`recover` reads.
    """
    with store.locked():
        recover(store.root)
        _check_tree(plan_.calls, store.root, plan_.snapshot_dir, current_digests(store.root))
        try:
            return _apply(plan_, store)
        except (OSError, SnapshotError) as exc:  # a full disk, a file-size limit, a read-only folder
            raise _not_applied(exc, store.root) from None


def _not_applied(exc: OSError | SnapshotError, root: Path) -> AcceptError:
    """The refusal of an accept the file system stopped: why, what the tree is left as, and the fix."""
    cause = exc if isinstance(exc, OSError) else exc.__context__
    if not isinstance(cause, OSError):
        return AcceptError(str(exc))
    where = Path(cause.filename).parent if isinstance(cause.filename, str) else root
    if (root / ACCEPT_JOURNAL).exists():  # its rollback failed as well: --recover finishes it
        left = (
            "the accept could not be rolled back either; once that is fixed, run `pytest-stages accept --recover`, "
            "which puts the snapshot folders back as they were, then accept again."
        )
        return AcceptError(f"could not write the accepted snapshots in {where} ({cause.strerror or cause}); {left}")
    return AcceptError(
        f"could not write the accepted snapshots in {where} ({cause.strerror or cause}); the accept was rolled back, "
        f"so the snapshot folder is as it was before it. {write_fix(cause, where).replace('run again', 'accept again')}"
    )


def _apply(plan_: Plan, store: SnapshotStore) -> list[Path]:
    root = store.root
    token = secrets.token_hex(4)
    swaps = []
    for folder in plan_.folders:
        path = root / folder
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise AcceptError(f"{path} is not a folder (a link or a file); remove it. {NOTHING_WRITTEN}")
        missing = [p for p in reversed(path.parents) if p.is_relative_to(root) and not p.exists()]
        staged, old = staged_names(folder, token)
        swaps.append(Swap(folder, staged, old, path.exists(), tuple(p.relative_to(root).as_posix() for p in missing)))
    write_journal(root, "staging", swaps)
    try:  # anything that stops it before the commit (a refusal, a full disk) puts the old tree back
        written = _stage(plan_, swaps, store)
        write_journal(root, "swapping", swaps)
        for swap in swaps:
            path = root / swap.folder
            if swap.existed:
                os.rename(path, path.parent / swap.old)
            os.rename(path.parent / swap.staged, path)
    except BaseException:
        recover(root)
        raise
    write_journal(root, "committed", swaps)
    _finish(root, swaps)
    return written


def _stage(plan_: Plan, swaps: Sequence[Swap], store: SnapshotStore) -> list[Path]:
    """Each folder's copy beside it, written with the plan's files; the files as they will be named."""
    written = []
    for swap, files in zip(swaps, plan_.folders.values(), strict=True):
        path = store.root / swap.folder
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.parent / swap.staged
        _copy_folder(path, staged) if swap.existed else staged.mkdir()
        store.write_all([(staged / name, data.decode("utf-8")) for name, data in files.items()])
        written += [path / name for name in files]
    return written


def _copy_folder(source: Path, target: Path) -> None:
    """``target`` made to hold what ``source`` holds: its files hard-linked (copied where links fail), links kept.

    Writes into the copy replace files (a temporary file renamed), so a linked file's content never changes.
    """
    target.mkdir()
    for entry in os.scandir(source):
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(entry.path), target / entry.name)
        elif stat.S_ISREG(mode):
            try:
                os.link(entry.path, target / entry.name)
            except OSError:
                shutil.copy2(entry.path, target / entry.name)
        else:
            raise AcceptError(
                f"{entry.path} is a folder, FIFO or device inside a snapshot folder; accept swaps whole snapshot "
                f"folders and leaves this one alone. Move it out of {source}. {NOTHING_WRITTEN}"
            )


def recover(root: Path) -> str | None:
    """Put back what an interrupted accept left (its journal says how far it got); what was done, or None.

    The journal is checked in full first (a :class:`~pytest_stages.store.errors.JournalError` touches
    nothing); before the swaps the copies are removed, during them swapped back, after them the old folders
    removed. Under the tree's lock. ``root`` is checked by the caller (:func:`snapshot_root`): a link to a folder
    inside the project is followed, as every write follows it.
    """
    if not root.is_dir():
        return None
    with tree_lock(root):
        _remove_torn_journals(root)
        journal = read_journal(root)
        if journal is None:
            return None
        swaps = journal.swaps
        if journal.phase == "committed":
            _finish(root, swaps)
            return f"finished an interrupted accept of {len(swaps)} folder(s) (it had written them all)"
        if journal.phase == "swapping":
            _swap_back(root, swaps)
        _remove_staged(root, swaps)
        (root / ACCEPT_JOURNAL).unlink()
    return f"rolled back an interrupted accept of {len(swaps)} folder(s): the snapshot folder is as it was before it"


def _remove_torn_journals(root: Path) -> None:
    """Remove the temporaries of journal writes killed before their rename."""
    for entry in os.scandir(root):
        if temporary_of(entry.name) == ACCEPT_JOURNAL and entry.is_file(follow_symlinks=False):
            os.unlink(entry.path)


def _swap_back(root: Path, swaps: Sequence[Swap]) -> None:
    """Undo the swaps, last first: each folder swapped in goes back to its staged name, the old one returns."""
    for swap in reversed(swaps):
        path = root / swap.folder
        staged, old = path.parent / swap.staged, path.parent / swap.old
        if swap.existed and old.exists():
            if path.exists() and not staged.exists():
                os.rename(path, staged)
            os.rename(old, path)
        elif not swap.existed and path.exists() and not staged.exists():
            os.rename(path, staged)


def _remove_staged(root: Path, swaps: Sequence[Swap]) -> None:
    """Remove the staged copies and the folders the accept created, unless something else is in them now."""
    for swap in swaps:
        staged = root / swap.folder
        shutil.rmtree(staged.parent / swap.staged, ignore_errors=True)
        for created in reversed(swap.created):
            with contextlib.suppress(OSError):  # a folder it created, unless something else is in it now
                (root / created).rmdir()


def _finish(root: Path, swaps: Sequence[Swap]) -> None:
    for swap in swaps:
        path = root / swap.folder
        shutil.rmtree(path.parent / swap.old, ignore_errors=True)
        shutil.rmtree(path.parent / swap.staged, ignore_errors=True)
    (root / ACCEPT_JOURNAL).unlink(missing_ok=True)


def taken_from(sets: Sequence[PendingSet], plan_: Plan) -> list[tuple[PendingSet, list[PendingEntry]]]:
    """Each set with the calls of ``plan_`` it gave, to drop once written; :class:`AcceptError` (nothing written)
    where a set's folder cannot be written, so that an accept never leaves a set it cannot drop half-dropped."""
    chosen = {id(entry) for entry in plan_.calls}
    taken = [(found, [e for e in found.entries if id(e) in chosen]) for found in sets]
    for found, entries in taken:
        folder = unwritable(found, entries)
        if folder is not None:
            raise AcceptError(
                f"the pending set {found.path} cannot drop the calls accepted: {folder} is not writable. "
                f"{NOTHING_WRITTEN} Make it writable, or pass --keep to leave the set as it is."
            )
    return [(found, entries) for found, entries in taken if entries]


def drop(taken: Sequence[tuple[PendingSet, list[PendingEntry]]]) -> str:
    """Remove the accepted calls from their sets (:func:`~pytest_stages.store.pending.discard`, a set left empty
    with its folder); what was done, in one line ("" when nothing was taken)."""
    gone = []
    for found, entries in taken:
        try:
            discard(found, entries)
        except OSError as exc:
            return (
                f"the snapshots are written, but the accepted calls could not be dropped from {found.path} "
                f"({exc.strerror or exc}): remove that folder yourself once you no longer need it."
            )
        gone.append(f"{found.path}{' (now empty: removed)' if not found.path.exists() else ''}")
    return f"dropped the accepted call(s) from {', '.join(gone)}" if gone else ""


def current_digests(root: Path) -> Callable[[str], str | None]:
    """The digest of a file under the snapshot root as it is now (the ``on_disk`` of :func:`plan`)."""
    return lambda relative: disk_digest(root / PurePosixPath(relative))


def read_sets(paths: Sequence[str]) -> list[PendingSet]:
    """Each pending folder read and checked (:func:`~pytest_stages.store.pending.read_set`)."""
    return [read_set(Path(p)) for p in paths]
