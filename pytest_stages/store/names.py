"""How pytest-stages names what it stores: safe path components and the fixed names of its files and folders.

The lowest module of the store: the writer (:mod:`~pytest_stages.store.storage`) and the prune's
rules (:mod:`~pytest_stages.store.prune`) both name files by it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

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
MAX_COMPONENT = 96
_SAFE_CHARACTERS = r"A-Za-z0-9_.+=,@\[\]-"
_SAFE = re.compile(f"[^{_SAFE_CHARACTERS}]")
# A name safe_component had to change: its cleaned start (no leading dot), "~" and 10 hex digits
# of the original's hash, ``_lambda_~a15349b880`` for ``<lambda>``.
_HASHED = re.compile(rf"(?!\.)[{_SAFE_CHARACTERS}]{{1,{MAX_COMPONENT - 11}}}~[0-9a-f]{{10}}")


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
