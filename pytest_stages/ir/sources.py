"""Source attribution: a stage's debug text in, the source location of each snapshot line out.

The normalizers drop source locations so that moving code never changes a snapshot; this module reads them
back from the same stage's debug text, trusted only where its cleaned lines equal the snapshot's.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar, overload

from pytest_stages.ir import frame_tables as debug_frames
from pytest_stages.ir import hlo
from pytest_stages.ir.literals import shown_value
from pytest_stages.ir.normalize import (
    LOC,
    LOC_DEFINITION,
    METADATA,
    canonical_backend_configs,
    remove_all,
    strip_addresses,
    tidy_kept,
)


@dataclass(frozen=True)
class Location:
    """A source line: the innermost user frame JAX recorded for an op; ``callers``: the frames outside
    installed libraries that called it, innermost first (the project's frame may be one of them)."""

    file: str
    line: int
    function: str | None = None
    callers: tuple[Location, ...] = ()

    def describe(self, root: Path | None = None) -> str:
        """``examples/model.py:42 in attention``, relative to ``root`` when the file is under it."""
        path = self.file if root is None else _shown_path(self.file, Path(self.file).resolve(), root.resolve())
        return self.at(path)

    def at(self, path: str) -> str:
        """``path:line``, then `` in function`` when the function is known."""
        return f"{path}:{self.line}" + (f" in {self.function}" if self.function else "")

    @property
    def in_library(self) -> bool:
        """Whether the file is installed code (site-packages, a folder of installed distributions) or the standard
        library."""
        return _library_relative(self.file) is not None


def _shown_path(file: str, resolved: Path, root: Path) -> str:
    """``file`` (``resolved``) relative to the resolved ``root``, else to its library folder, else as given."""
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return _library_relative(file) or file


@functools.lru_cache(maxsize=4096)
def _library_relative(file: str) -> str | None:
    """``optax/_src/alias.py`` for a file under site-packages or the standard library, else None."""
    if file.startswith("<frozen "):
        return file  # a frozen standard-library module (``<frozen runpy>``)
    posix = file.replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in posix:
            return posix.rsplit(marker, 1)[1]
    try:
        return Path(file).relative_to(_STDLIB).as_posix()
    except ValueError:
        return _installed_relative(Path(posix))


def _installed_relative(path: Path) -> str | None:
    """``optax/_src/alias.py`` for a file of an installed distribution outside any site-packages (``pip install
    --target DIR`` put on PYTHONPATH, a vendored folder): below the nearest folder whose ``*.dist-info`` records
    list its top-level package, else None. A project's own files stay the user's on every host, also in a project
    that holds its dependencies itself (``pip install --target .``): no record lists them."""
    for folder in path.parents:
        relative = path.relative_to(folder)
        if relative.parts[0] in _installed_tops(str(folder)):
            return relative.as_posix()
    return None


@functools.lru_cache(maxsize=1024)
def _installed_tops(folder: str) -> frozenset[str]:
    """The top-level names (``optax``, ``six.py``) that the ``*.dist-info/RECORD`` files in ``folder`` list."""
    tops: set[str] = set()
    try:
        records = [Path(folder, name, "RECORD") for name in os.listdir(folder) if name.endswith(".dist-info")]
    except OSError:
        return frozenset()
    for record in records:
        try:
            lines = record.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        tops.update(line.split(",", 1)[0].split("/", 1)[0] for line in lines if line)
    return frozenset(tops)


def preferred(frames: Iterable[Location | None]) -> Location | None:
    """The innermost frame outside installed libraries (with the others outside them as its
    ``callers``), else the innermost frame (``frames`` innermost first)."""
    chain = [frame for frame in frames if frame is not None]
    for k, frame in enumerate(chain):
        if not frame.in_library:
            callers = tuple(replace(c, callers=()) for c in chain[k + 1 :] if not c.in_library)
            return replace(frame, callers=callers)
    return chain[0] if chain else None


T = TypeVar("T")


class Lazy(Sequence[T]):
    """``item(k)`` for each ``k`` below ``length``, each computed the first time it is read."""

    def __init__(self, length: int, item: Callable[[int], T]) -> None:
        self._length, self._item = length, item
        self._known: dict[int, T] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(self._length))]
        k = index + self._length if index < 0 else index
        if not 0 <= k < self._length:
            raise IndexError(index)
        if k not in self._known:
            self._known[k] = self._item(k)
        return self._known[k]


Located = Sequence[Location | None]
_STDLIB = Path(os.__file__).parent  # the standard library's folder, as sysconfig says, without importing it

# A jaxpr equation's source comment: ``  # t.py:3:4 (f)`` -> (``t.py``, ``3``, ``f``).
_JAXPR_SOURCE = re.compile(r"\s+# ?(?:(.+):(\d+):\d+ \((.*)\))?\s*$")
# ``%0 = stablehlo.sine %arg0 loc(#loc3)`` -> ``#loc3``.
_MLIR_LOC_USE = re.compile(r" loc\((.*)\)\s*$")
# ``#loc3 = loc("t.py":3:4)`` -> (``#loc3``, ``"t.py":3:4``).
_MLIR_LOC_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
# ``"t.py":3:4`` -> (``t.py``, ``3``).
_MLIR_FILE = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):\d+')
# ``"jit(f)/sin"("t.py":3:4)`` -> (``jit(f)/sin``, ``"t.py":3:4``).
_MLIR_NAMED = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$')


def jaxpr_locations(debug_text: str, normalized: str) -> Located | None:
    """Locations from ``jaxpr.pretty_print(source_info=True)`` (a ``# file:line:col (fn)`` per equation)."""
    lines, wheres = [], []
    for debug_line in strip_addresses(debug_text).splitlines():
        match = _JAXPR_SOURCE.search(debug_line)
        line, where = debug_line, None
        if match:
            line = debug_line[: match.start()]
            if match[1]:
                where = Location(match[1], int(match[2]), match[3] or None)
        lines.append(line)
        wheres.append(where)
    return _aligned(lines, wheres, normalized)


def mlir_locations(debug_text: str, normalized: str) -> Located | None:
    """Locations from ``Lowered.as_text(debug_info=True)``: each op's trailing ``loc(...)``, resolved."""
    definitions = {}
    lines, exprs = [], []
    for line in debug_text.splitlines():
        definition = _MLIR_LOC_DEF.match(line)
        if definition:
            definitions[definition[1]] = definition[2]
            continue
        if LOC_DEFINITION.match(line):
            continue
        use = _MLIR_LOC_USE.search(line)
        lines.append(remove_all(LOC, line))
        exprs.append(use[1] if use else None)
    resolve = _MlirResolver(definitions)
    return _aligned(lines, [resolve(expr) if expr else None for expr in exprs], normalized)


class _MlirResolver:
    """MLIR location expressions (``#loc12``, ``callsite(a at b)``, ``"name"(loc)``, ``"f.py":3:1``)."""

    def __init__(self, definitions: dict[str, str]) -> None:
        self.definitions = definitions
        self.cache: dict[str, tuple[Location, ...]] = {}
        self.chosen: dict[str, Location | None] = {}

    def __call__(self, expr: str) -> Location | None:
        """The preferred frame of the expression's call chain (each expression resolved once)."""
        if expr not in self.chosen:
            self.chosen[expr] = preferred(self.chain(expr))
        return self.chosen[expr]

    def chain(self, expr: str, depth: int = 0) -> tuple[Location, ...]:  # noqa: PLR0911  (one return per form)
        """The frames of an expression, innermost first."""
        expr = expr.strip()
        if depth > 64:
            return ()
        if expr.startswith("#loc"):
            if expr not in self.cache:
                self.cache[expr] = ()
                self.cache[expr] = self.chain(self.definitions.get(expr, "unknown"), depth + 1)
            return self.cache[expr]
        if expr.startswith("callsite("):
            callee, caller = _split_callsite(expr[len("callsite(") : -1])
            return self.chain(callee, depth + 1) + (self.chain(caller, depth + 1) if caller else ())
        if expr.startswith("fused["):
            return self.chain(expr[len("fused[") :].split(",")[0].rstrip("]"), depth + 1)
        file_match = _MLIR_FILE.match(expr)
        if file_match:
            return (Location(file_match[1], int(file_match[2])),)
        named = _MLIR_NAMED.match(expr)
        if named:
            inner = self.chain(named[2], depth + 1)
            if inner and inner[0].function is None and not re.search(r"[/(]", named[1]):
                return (replace(inner[0], function=named[1]), *inner[1:])
            return inner
        return ()


def _split_callsite(body: str) -> tuple[str, str]:
    """``callee at caller`` split at the top-level `` at `` (the callee is the inner frame)."""
    depth = 0
    for k, char in enumerate(body):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if depth == 0 and body.startswith(" at ", k):
            return body[:k], body[k + len(" at ") :]
    return body, ""


def hlo_locations(debug_text: str, normalized: str) -> Located | None:
    """Locations from HLO text: ``stack_frame_id`` through its tables, or ``source_file``/``source_line``.

    Lazy: a line is located when read, and only if the debug line, cleaned, is that line of
    ``normalized``; None for all when the two do not have the same lines.
    """
    body, tables = hlo.split_tables(debug_text.splitlines())
    lines = normalized.splitlines()
    kept = tidy_kept(list(map(str.rstrip, body)))
    if len(kept) != len(lines):
        return None
    frames = debug_frames.StackFrames.parse(tables)
    found: dict[int, Location | None] = {}

    def where(k: int) -> Location | None:
        """The preferred frame of the line's ``stack_frame_id`` (each id resolved once), else its source position."""
        line = body[kept[k]]
        if canonical_backend_configs(remove_all(METADATA, line)).rstrip() != lines[k]:
            return None
        frame_id = debug_frames.stack_frame_id(line)
        if frame_id is None:
            return _location(debug_frames.source_position(line))
        if frame_id not in found:
            found[frame_id] = preferred(_location(frame) for frame in frames.chain(frame_id))
        return found[frame_id]

    return Lazy(len(lines), where)


def loop_locations(debug_text: str) -> Located:
    """Where each while loop of an HLO text was written, in the order of :func:`hlo.loops` (None where unknown)."""
    body, tables = hlo.split_tables(debug_text.splitlines())
    frames = debug_frames.StackFrames.parse(tables)
    found = []
    for line in body:
        instruction = hlo.parse_instruction(line) if " while(" in line else None
        if instruction is None or instruction.opcode != "while":
            continue
        frame_id = debug_frames.stack_frame_id(line)
        if frame_id is None:
            found.append(_location(debug_frames.source_position(line)))
        else:
            found.append(preferred(_location(frame) for frame in frames.chain(frame_id)))
    return found


def _location(frame: debug_frames.Frame | None) -> Location | None:
    return None if frame is None else Location(frame.file, frame.line, frame.function)


def _aligned(lines: Sequence[str], wheres: Sequence[Location | None], normalized: str) -> Located | None:
    """The locations of the lines that survive tidying, if those are ``normalized``; ``wheres[k]`` is ``lines[k]``'s."""
    stripped = [line.rstrip() for line in lines]
    kept = tidy_kept(stripped)
    text = "\n".join(stripped[k] for k in kept)
    if (text + "\n" if kept else "") != normalized:
        return None
    return [wheres[k] for k in kept]


_PACKAGE = Path(__file__).resolve().parents[1]  # pytest_stages/, this file being pytest_stages/ir/sources.py


class Place(str):
    """A source line as text (``model.py:12 in block``), with ``rank``: how much of the user's own code it is.

    :data:`PROJECT` a file of the project (``root``) that is no test file, :data:`TEST_FILE` a test
    file there, :data:`ELSEWHERE` anything else (an installed library such as flax or optax, a file
    outside the project): a headline names the first two only, the project's own lines first.
    """

    rank: int
    file: str  # the file as the debug info names it ("" where unknown)
    path: str  # the file as the text shows it (relative to the project)

    def __new__(cls, text: str, rank: int, file: str = "", path: str = "") -> Place:
        place = super().__new__(cls, text)
        place.rank, place.file, place.path = rank, file, path
        return place


PROJECT, TEST_FILE, ELSEWHERE = 0, 1, 2


def rank(place: str) -> int:
    """A place's :attr:`Place.rank`; :data:`PROJECT` for plain text (nothing says it is not the user's)."""
    return getattr(place, "rank", PROJECT)  # (read by name: a test session may import this module twice)


def describe_all(locations: Located, root: Path | None) -> Sequence[Place | None]:
    """Each location as text relative to ``root`` (a :class:`Place`); None where unknown or inside pytest-stages.

    The frame named is the innermost one of the project that is no test file, else the innermost test
    file there, else the location itself. Lazy: each location is described when a line naming it is read.
    """
    resolved_root = None if root is None else root.resolve()
    described: dict[Location, Place | None] = {}

    @functools.cache
    def path_of(file: str) -> Path:
        return Path(file).resolve()

    def shown(frame: Location) -> str | None:
        path = path_of(frame.file)
        if path.is_relative_to(_PACKAGE):
            return None
        return frame.at(frame.file if resolved_root is None else _shown_path(frame.file, path, resolved_root))

    def ranked(frame: Location, ours: bool) -> int:
        if ours:
            return TEST_FILE if _is_test_file(frame.file) else PROJECT
        return ELSEWHERE if resolved_root is not None or frame.in_library else PROJECT

    def describe(k: int) -> Place | None:
        where = locations[k]
        if where is None:
            return None
        if where not in described:
            if path_of(where.file).is_relative_to(_PACKAGE):
                described[where] = None
                return None
            frames = [(frame, False) for frame in (where, *where.callers)]
            if resolved_root is not None:
                # A pseudo-file (``<string>``: code run by exec) is no file of the project, wherever it resolves.
                ours = [
                    (f, True)
                    for f, _ in frames
                    if not f.file.startswith("<") and path_of(f.file).is_relative_to(resolved_root)
                ]
                frames = sorted(ours, key=lambda pair: _is_test_file(pair[0].file)) + frames
            described[where] = next(
                (
                    Place(text, ranked(frame, ours), frame.file, text.rsplit(f":{frame.line}", 1)[0])
                    for frame, ours in frames
                    if (text := shown(frame)) is not None
                ),
                None,
            )
        return described[where]

    return Lazy(len(locations), describe)


def _is_test_file(file: str) -> bool:
    """Whether pytest's default patterns collect ``file`` (``test_*.py``, ``*_test.py``) or it is a conftest."""
    name = Path(file).name
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


@dataclass(frozen=True)
class Setting:
    """A module-level constant of the user's code: ``RMS_EPS = 1e-5`` (``value`` as a stage text shows
    it, ``1e-05``), at ``place`` (``lm.py:22``)."""

    name: str
    value: str
    place: str

    def describe(self) -> str:
        """``1e-05 is RMS_EPS at lm.py:22``."""
        return f"{self.value} is {self.name} at {self.place}"


def setting_holding(places: Iterable[str], values: Iterable[str]) -> Setting | None:
    """The one module-level numeric constant, in the project's own files among ``places`` (test files
    aside), whose value is one of ``values``; None where none or several are. Such a value reaches the
    program through library code, so the traced call stack never holds its line."""
    files: dict[tuple[str, str], None] = {}
    for place in places:
        file, path = str(getattr(place, "file", "")), str(getattr(place, "path", ""))
        if file and rank(place) == PROJECT:  # (read by name, as :func:`rank` reads it)
            files[file, path] = None
    wanted = set(values)
    found = [
        Setting(name, value, f"{path}:{line}")
        for file, path in files
        for name, number, line in _module_numbers(file)
        if (value := shown_value(repr(number))) in wanted
    ]
    return found[0] if len(found) == 1 else None


def _module_numbers(file: str) -> list[tuple[str, int | float, int]]:
    """``(name, value, line)`` of each ``NAME = <number>`` at the top level of a Python file (none if unreadable)."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    found = []
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        target = statement.target if isinstance(statement, ast.AnnAssign) else target
        number = getattr(statement, "value", None)
        if (
            isinstance(target, ast.Name)
            and isinstance(number, ast.Constant)
            and isinstance(number.value, int | float)
            and not isinstance(number.value, bool)
        ):
            found.append((target.id, number.value, statement.lineno))
    return found


def jit_site(file: str, line: int, function: str) -> Location | None:
    """Where the function ``function`` defined at ``file:line`` is jitted: the one call ``jit(function, ...)``
    (``jax.jit``, ``nnx.jit``, ``eqx.filter_jit``, ...) that names it in its file, or a ``jit`` decorator of its
    definition; None where there is not exactly one (JAX keeps no record of the line that called ``jax.jit``,
    and that line is where ``donate_argnums`` is set)."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    found: list[Location] = []
    scopes: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while scopes:
        node, scope = scopes.pop()
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else scope
            scopes.append((child, inner))
            at = _jit_line(child, line, function)
            if at is not None:
                found.append(Location(file, at, scope))
    return found[0] if len(found) == 1 else None


def _jit_line(node: ast.AST, line: int, function: str) -> int | None:
    """The line where ``node`` jits the function ``function`` defined at ``line``: a call of a ``*jit`` callable
    whose first argument is that name (or that lambda), or, that function's definition, its ``jit`` decorator
    (``@jax.jit``, ``@partial(jax.jit, donate_argnums=...)``)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return _jit_decorator(node) if node.name == function else None
    if not isinstance(node, ast.Call) or not _is_jit(node.func) or not node.args:
        return None
    first = node.args[0]
    named = isinstance(first, ast.Name) and first.id == function and node.lineno > line  # jitted after it is defined
    inline = isinstance(first, ast.Lambda) and function == "<lambda>" and first.lineno == line
    return node.lineno if named or inline else None


def _jit_decorator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """The line of a definition's first ``jit`` decorator (``@jax.jit``, ``@partial(jax.jit, ...)``), if any."""
    return next((d.lineno for d in node.decorator_list if _is_jit(d) or _is_jit_call(d)), None)


def _is_jit_call(node: ast.expr) -> bool:
    """Whether ``node`` is ``jax.jit(...)`` or ``partial(jax.jit, ...)`` (a decorator that jits)."""
    return isinstance(node, ast.Call) and (_is_jit(node.func) or (bool(node.args) and _is_jit(node.args[0])))


def _is_jit(callee: ast.expr) -> bool:
    """Whether ``callee`` reads as a jit: ``jit``, ``jax.jit``, ``nnx.jit``, ``eqx.filter_jit``."""
    name = callee.attr if isinstance(callee, ast.Attribute) else callee.id if isinstance(callee, ast.Name) else ""
    return name == "jit" or name.endswith("_jit")
