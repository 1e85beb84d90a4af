"""Custom-kernel payloads: a stage text's opaque kernel blobs in, readable kernel IR and stable references out.

A Pallas TPU kernel reaches StableHLO and HLO as one ``tpu_custom_call`` whose JSON backend config
holds ``custom_call_config.body``: base64 of the kernel's serialized MLIR bytecode (Mosaic). That
blob changes wholesale on a one-constant edit and carries the host's paths in its locations.
Here each payload is decoded into MLIR text (``tpu``/``vector``/``arith``/``memref`` dialects, via
:func:`pytest_stages.jax_compat.decode_mosaic`) and named ``kernel:<name>#<digest>``: the kernel's
function name and a digest of its text without locations, so the same kernel gets the same
reference on every host, in StableHLO and compiled HLO alike. :func:`reference_payloads` puts
the reference in place of the blob (the stage texts' normalizers call it); :func:`kernel_sections`
gives one section per distinct kernel, the ``<name>.kernels.mlir`` snapshot.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from pytest_stages import jax_compat
from pytest_stages.ir.textdiff import EditScript

# ``\22body\22: \22TUzvUgFN...\22`` in StableHLO's escaped attribute, ``"body":"TUzvUgFN..."`` in HLO.
PAYLOAD = re.compile(r'(?P<head>(?P<q>\\22|")body(?P=q):\s?(?P=q))(?P<body>[A-Za-z0-9+/]{16,}={0,2})(?P=q)')
# What every text holding a payload contains: a cheap test before the regex runs.
MARKER = "body"
# A kernel's function: ``func.func @add_kernel(``.
_FUNC = re.compile(r"^\s*func\.func (?:\w+ )?@([\w$.-]+)\(", re.MULTILINE)
DIGEST_CHARS = 12
_RESULTS = re.compile(r"^%[^=]*= ")
_TOKEN = re.compile(r"[\w.+%-]")
REFERENCE = "kernel:"
SECTION = "// kernel "


@dataclass(frozen=True)
class Kernel:
    """One decoded payload: its function name, digest, text with locations (``debug``) and without.

    ``error`` says why a payload could not be decoded (then ``name`` is ``payload`` and the
    digest is that of the payload's bytes).
    """

    name: str
    digest: str
    debug: str
    plain: str
    error: str = ""

    @property
    def reference(self) -> str:
        """``kernel:add_kernel#1a2b3c4d5e6f``: what the stage texts hold in place of the payload."""
        return f"{REFERENCE}{self.name}#{self.digest}"

    def section(self) -> str:
        """The kernel's section of ``<name>.kernels.mlir``: a header line, then its MLIR text."""
        if self.error:
            return f"{SECTION}{self.name}#{self.digest}: not decoded ({self.error})\n"
        return f"{SECTION}{self.name}#{self.digest}: Mosaic TPU\n{self.debug.rstrip()}\n"


@functools.lru_cache(maxsize=256)
def decode(body: str) -> Kernel:
    """A base64 payload decoded (cached: the same body sits in StableHLO, compiled HLO and the kernel section)."""
    try:
        raw = base64.b64decode(body, validate=True)
        debug, plain = jax_compat.decode_mosaic(raw)
    except (ValueError, binascii.Error) as exc:
        return Kernel("payload", _digest(body), "", "", error=str(exc) or "unreadable")
    plain = "\n".join(line.rstrip() for line in plain.splitlines()).strip() + "\n"
    found = _FUNC.search(plain)
    return Kernel(found[1] if found else "kernel", _digest(plain), debug, plain)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def payloads(text: str) -> Iterator[re.Match[str]]:
    """Every kernel payload of a stage text, in order."""
    if MARKER in text:
        yield from PAYLOAD.finditer(text)


def reference_payloads(text: str) -> str:
    """Each payload replaced by its kernel's reference (``kernel:add_kernel#1a2b3c4d5e6f``); other text as it was."""
    if MARKER not in text:
        return text
    return PAYLOAD.sub(lambda m: f"{m['head']}{decode(m['body']).reference}{m['q']}", text)


def kernels(text: str) -> list[Kernel]:
    """The distinct kernels of a stage text, in order of first appearance."""
    found: dict[str, Kernel] = {}
    for match in payloads(text):
        kernel = decode(match["body"])
        found.setdefault(kernel.reference, kernel)
    return list(found.values())


def kernel_sections(text: str) -> str | None:
    """The ``kernels.mlir`` text of a stage text, locations kept (the normalizer drops them); None without kernels."""
    found = kernels(text)
    return "\n".join(kernel.section() for kernel in found) if found else None


def changed_lines(script: EditScript) -> list[str]:
    """Per kernel of a ``kernels.mlir`` diff, its first changed line as a headline names it.

    ``kernel add_kernel: %cst = arith.constant {2.000000e+00 -> 3.000000e+00} : f32``; a line only
    added or removed is shown with ``+``/``-``. Empty for any other text (it opens with no section).
    The section headers (their digests follow every change) are not lines of a kernel.
    """
    if not (script.new[:1] or script.old[:1] or [""])[0].startswith(SECTION):
        return []
    found: dict[str, str] = {}
    for row in script.rows:
        if row.tag == "=":
            continue
        lines, index = (script.new, row.new) if row.new is not None else (script.old, row.old)
        if index is None or lines[index].startswith(SECTION):
            continue
        name = _section_of(lines, index)
        if name in found:
            continue
        if row.tag == "~" and row.old is not None and row.new is not None:
            found[name] = _inline_change(_op(script.old[row.old]), _op(script.new[row.new]))
        else:
            found[name] = f"{'+' if row.tag == '+' else '-'} {_op(lines[index])}"
    return [f"kernel {name}: {change}" for name, change in found.items()]


def _op(line: str) -> str:
    """A line without its results' names: ``%cst = arith.constant 2.0 : f32`` -> ``arith.constant 2.0 : f32``."""
    return _RESULTS.sub("", line.strip(), count=1)


def _section_of(lines: list[str], index: int) -> str:
    """The kernel whose section holds line ``index``: the name in the nearest header above it."""
    for k in range(index, -1, -1):
        if lines[k].startswith(SECTION):
            return lines[k][len(SECTION) :].split("#", 1)[0]
    return "?"


def _common(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _inline_change(old: str, new: str) -> str:
    """``a {x -> y} b``: the two lines' common head and tail once, what differs between braces."""
    head = _common(old, new)
    tail = _common(old[head:][::-1], new[head:][::-1])
    # Whole tokens (``2.000000e+00``, ``%arg1``) between the braces, not their differing digits alone.
    while head and _TOKEN.match(old[head - 1]):
        head -= 1
    while tail and _TOKEN.match(old[len(old) - tail]):
        tail -= 1
    middle = f"{{{old[head : len(old) - tail]} -> {new[head : len(new) - tail]}}}"
    return f"{old[:head]}{middle}{old[len(old) - tail :]}"
