"""How pytest-stages names what it stores: safe path components and the fixed names of its files and folders.

The lowest module of the store: the writer (:mod:`~pytest_stages.store.storage`) and the prune's
rules (:mod:`~pytest_stages.store.prune`) both name files by it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from pytest_stages.core.lazy import lazy_pattern

# A folder's metadata file; its ``"files"`` key is the folder's manifest.
META_FILE = "_stages.json"
# The folder of a stage_compiles block that stages on no config: ``<module>/<test>/_compiles/``.
COMPILES_FOLDER = "_compiles"
# The snapshot module of the registered functions: ``<snapshot_dir>/stages/<name>/<config>/``.
REGISTERED_MODULE = "stages"
# Where the snapshots of a test module outside the rootdir go: ``_outside_rootdir/<file name>/...``.
OUTSIDE_ROOTDIR = "_outside_rootdir"
# The journal of a ``pytest-stages accept`` under way, in the snapshot root (never a name of pytest-stages' own
# files, so a prune is refused while one is left).
ACCEPT_JOURNAL = ".stages-accept.json"
# pytest-stages' own folder in the snapshot root, for what it keeps for itself and never commits: the tree's
# lock, and a ``.gitignore`` of ``*`` (written before the lock), so that ``git status`` shows neither in a
# project that has never heard of pytest-stages (as pytest's ``.pytest_cache``). Never judged by a prune.
OWN_FOLDER = ".pytest-stages"
OWN_GITIGNORE = "# pytest-stages' own files (the snapshot tree's lock): never committed.\n*\n"
# The snapshot tree's inter-process lock, in that folder: held by every writer (an update's writes, a prune, an
# accept, a recovery). Never deleted (a lock file deleted while another process waits on it would let two
# writers in).
LOCK_FILE = "lock"
# Where earlier versions kept that lock (the snapshot root): left by an upgrade, never deleted, and no part of the
# tree either.
LEGACY_LOCK = ".stages.lock"
# What stands for each ``..`` in the path of a module outside the rootdir.
UP = "_up"
MAX_COMPONENT = 96
_SAFE_CHARACTERS = r"A-Za-z0-9_.+=,@\[\]-"
_SAFE = re.compile(f"[^{_SAFE_CHARACTERS}]")
# A name safe_component had to change: its cleaned start (no leading dot), "~" and 10 hex digits
# of the original's hash, ``_lambda_~a15349b880`` for ``<lambda>``.
_HASHED = lazy_pattern(rf"(?!\.)[{_SAFE_CHARACTERS}]{{1,{MAX_COMPONENT - 11}}}~[0-9a-f]{{10}}")


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


def is_safe_component(text: str) -> bool:
    """Whether ``text`` is a name :func:`safe_component` gives.

    ``f``, ``mlp-2`` and ``_lambda_~a15349b880`` are; ``a b``, ``.f`` and ``f~x`` are not.
    """
    return safe_component(text) == text or _HASHED.fullmatch(text) is not None


def safe_path(path: str) -> PurePosixPath:
    """A relative posix path with every component made safe (``tests/test_a`` stays as it is)."""
    return PurePosixPath(*[safe_component(part) for part in PurePosixPath(path).parts])


def snapshot_folder(folder: str) -> bool:
    """Whether ``folder`` is a snapshot folder path as pytest-stages names them: ``<module>/<test>/<config>``.

    Relative, three deep at least, each component one :func:`safe_component` gives, a hashed one
    (``test_s_small_model_~fc169971aa`` for a test id with a space) included; ``../../x/y``,
    ``/etc/a/b`` and ``a//b/c`` are not.
    """
    parts = folder.split("/")
    return len(parts) >= 3 and all(is_safe_component(part) for part in parts)


def _escaped(name: str, reserved: str) -> str:
    """``name``, with one more trailing ``_`` when it is ``reserved`` followed by any number of ``_``.

    A literal name then never equals a name pytest-stages makes (``reserved`` itself), and two
    literal names stay apart: ``_up`` -> ``_up_``, ``_up_`` -> ``_up__``, ``up`` -> ``up``.
    """
    return f"{name}_" if name.rstrip("_") == reserved else name


def _unescaped(name: str, reserved: str) -> str:
    """The literal name that :func:`_escaped` made ``name`` of (``_up_`` -> ``_up``)."""
    return name[:-1] if name.rstrip("_") == reserved and name != reserved else name


def module_folder(steps: Sequence[str]) -> str:
    """The snapshot module of a test module by its path from the rootdir without ``.py`` (``..`` steps allowed).

    Inside the rootdir that path, except where it would be one that pytest-stages gives its own
    folders: a module ``stages.py`` (the registered functions' folder) is ``stages_``, a folder
    ``_outside_rootdir`` is ``_outside_rootdir_`` (each ``_`` more, one more). Outside the
    rootdir: ``_outside_rootdir/`` with ``_up`` for each ``..`` and a literal ``_up`` as ``_up_``
    (``../x/test_a`` -> ``_outside_rootdir/_up/x/test_a``). Distinct modules get distinct folders.
    """
    if steps and steps[0] == "..":
        return "/".join([OUTSIDE_ROOTDIR, *(UP if step == ".." else _escaped(step, UP) for step in steps)])
    parts = [*steps]
    if parts:
        parts[0] = _escaped(parts[0], OUTSIDE_ROOTDIR)
    if len(parts) == 1:
        parts[0] = _escaped(parts[0], REGISTERED_MODULE)
    return "/".join(parts)


def module_source(module: str) -> str | None:
    """The rootdir-relative file of a snapshot module (``tests/test_a`` -> ``tests/test_a.py``): undoes module_folder.

    None for the registered functions' folder and for a module outside the rootdir: neither has
    a module file here.
    """
    if module == REGISTERED_MODULE or module.startswith(f"{OUTSIDE_ROOTDIR}/"):
        return None
    parts = module.split("/")
    if len(parts) == 1:
        parts[0] = _unescaped(parts[0], REGISTERED_MODULE)
    parts[0] = _unescaped(parts[0], OUTSIDE_ROOTDIR)
    return "/".join(parts) + ".py"


# How a suffix word is spelled in an extension's class name (any other word is capitalized).
_SPELLING = {"stablehlo": "StableHLO", "hlo": "HLO"}
# Artifacts whose suffix words another artifact shares (``.kernels.mlir`` beside ``.kernels.json``).
_OWN_NAMES = {"kernel_ir": "KernelIRExtension"}


def extension_name(artifact: str, suffix: str) -> str:
    """The syrupy extension class of an artifact's files: ``.compiled.hlo.txt`` -> ``CompiledHLOExtension``.

    Here, not in :mod:`~pytest_stages.store.syrupy_extensions`, so that the package's ``__all__`` names
    the extensions without importing them.
    """
    if artifact in _OWN_NAMES:
        return _OWN_NAMES[artifact]
    words = suffix.strip(".").split(".")[:-1]
    return "".join(_SPELLING.get(word, word.capitalize()) for word in words) + "Extension"
