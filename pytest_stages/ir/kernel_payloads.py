"""Custom-kernel payloads: a stage text's opaque kernel blobs in, readable kernel IR and stable references out.

A payload (a Pallas TPU kernel's base64 Mosaic bytecode) changes wholesale on a one-constant edit and
carries the host's paths, so it is decoded into MLIR text and replaced by ``kernel:<name>#<digest>``, the
same on every host (docs/kernels.md).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_stages import jax_compat
from pytest_stages.core.lazy import lazy_pattern

if TYPE_CHECKING:  # only a difference loads the diff machinery (tests/test_lazy_imports.py)
    from pytest_stages.ir.textdiff import EditScript

# Mosaic TPU: ``\22body\22: \22TUzvUgFN...\22`` in StableHLO's escaped attribute, ``"body":"TUzvUgFN..."`` in HLO.
PAYLOAD = lazy_pattern(r'(?P<head>(?P<q>\\22|")body(?P=q):\s?(?P=q))(?P<body>[A-Za-z0-9+/]{16,}={0,2})(?P=q)')
# Pallas on GPU: Mosaic GPU's ``module = "ML\EFR\01MLIR..."`` (beside ``kernel_hash = "..."``, a hash of
# that bytecode, locations included) or Triton's ``ir = "ML\EFR..."``: bytecode in MLIR's string escapes.
GPU_PAYLOAD = lazy_pattern(r'(?P<head>\b(?P<key>module|ir) = ")(?P<body>ML\\EFR(?:[^"\\\n]|\\.)*)"')
GPU_HASH = lazy_pattern(r'\bkernel_hash = "(?:[^"\\\n]|\\.)*"')
# What every text holding a payload contains: cheap tests before the patterns run.
MARKERS = ("body", "ML\\EFR")
# A kernel's name: its module's (Mosaic GPU), else its first function's: ``func.func @add_kernel(``.
_NAME = lazy_pattern(r"\Amodule @([\w$.-]+)|^\s*func\.func (?:\w+ )?@([\w$.-]+)\(", re.MULTILINE)
DIGEST_CHARS = 12
_RESULTS = lazy_pattern(r"^%[^=]*= ")
_TOKEN = lazy_pattern(r"[\w.+%-]")
# The Mosaic serialization version a payload was written in: JAX picks it from the libtpu it can see
# (15 compile-only or on a chip, 11 lowering for TPU on a host without either), not from the kernel.
_VERSION = lazy_pattern(r"stable_mosaic(?:_gpu)?\.version = \d+ : i64(?:, )?")
_EMPTY_ATTRIBUTES = lazy_pattern(r" attributes \{\}")
_ESCAPE = lazy_pattern(r"\\([0-9A-Fa-f]{2}|.)")
_ESCAPED = {"n": 10, "t": 9, '"': 34, "\\": 92}
REFERENCE = "kernel:"
SECTION = "// kernel "
TPU, GPU, TRITON = "Mosaic TPU", "Mosaic GPU", "Triton"
_GPU_KEYS = {"module": GPU, "ir": TRITON}


@dataclass(frozen=True)
class Kernel:
    """One decoded payload: its name, digest, compiler, text with locations (``debug``) and without;
    ``error`` says why a payload could not be decoded (then ``name`` is ``payload``)."""

    name: str
    digest: str
    debug: str
    plain: str
    compiler: str = TPU
    error: str = ""

    @property
    def reference(self) -> str:
        """``kernel:add_kernel#1a2b3c4d5e6f``: what the stage texts hold in place of the payload."""
        return f"{REFERENCE}{self.name}#{self.digest}"

    def section(self) -> str:
        """The kernel's section of ``<name>.kernels.mlir``: a header line, then its MLIR text."""
        if self.error:
            return f"{SECTION}{self.name}#{self.digest}: {self.compiler}, not decoded ({self.error})\n"
        return f"{SECTION}{self.name}#{self.digest}: {self.compiler}\n{self.debug.rstrip()}\n"


@functools.lru_cache(maxsize=256)
def decode(body: str, compiler: str = TPU) -> Kernel:
    """A payload decoded: base64 (Mosaic TPU) or MLIR-escaped (Mosaic GPU, Triton) bytecode; cached, as the
    same payload sits in StableHLO, compiled HLO and the kernel section."""
    try:
        if compiler == TPU:
            debug, plain = jax_compat.decode_mosaic(base64.b64decode(body, validate=True))
        else:
            debug, plain = jax_compat.decode_gpu_kernel(unescape(body), mosaic=compiler == GPU)
    except (ValueError, binascii.Error) as exc:
        return Kernel("payload", _digest(body), "", "", compiler, error=str(exc) or "unreadable")
    debug, plain = (_EMPTY_ATTRIBUTES.sub("", _VERSION.sub("", text)) for text in (debug, plain))
    plain = "\n".join(line.rstrip() for line in plain.splitlines()).strip() + "\n"
    found = _NAME.search(plain)
    name = (found[1] or found[2]) if found else "kernel"
    return Kernel(name, _digest(plain), debug, plain, compiler)


def unescape(text: str) -> bytes:
    """An MLIR string attribute's bytes: ``\\EF`` is the byte 0xEF, ``\\n``, ``\\t``, ``\\"`` and ``\\\\`` as in C."""
    out, last = bytearray(), 0
    for match in _ESCAPE.finditer(text):
        out += text[last : match.start()].encode()
        code = match[1]
        if len(code) > 1:  # two hex digits
            out.append(int(code, 16))
        elif code in _ESCAPED:
            out.append(_ESCAPED[code])
        else:
            raise ValueError(f"unknown escape \\{code}")
        last = match.end()
    return bytes(out + text[last:].encode())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def payloads(text: str) -> Iterator[tuple[re.Match[str], Kernel]]:
    """Every kernel payload of a stage text with its kernel, in order."""
    if not any(marker in text for marker in MARKERS):
        return
    for match in PAYLOAD.finditer(text):
        yield match, decode(match["body"], TPU)
    for match in GPU_PAYLOAD.finditer(text):
        yield match, decode(match["body"], _GPU_KEYS[match["key"]])


def reference_payloads(text: str) -> str:
    """Each payload replaced by its kernel's reference (``kernel:add_kernel#1a2b3c4d5e6f``); other text as it was.

    A Mosaic GPU kernel's ``kernel_hash`` (of its bytecode, which holds the host's paths) goes too.
    """
    if not any(marker in text for marker in MARKERS):
        return text
    text = PAYLOAD.sub(lambda m: f"{m['head']}{decode(m['body'], TPU).reference}{m['q']}", text)
    if "ML\\EFR" not in text:
        return text
    text = GPU_PAYLOAD.sub(lambda m: f'{m["head"]}{decode(m["body"], _GPU_KEYS[m["key"]]).reference}"', text)
    return GPU_HASH.sub('kernel_hash = "(the module\'s)"', text)


def kernels(text: str) -> list[Kernel]:
    """The distinct kernels of a stage text, in order of first appearance (Mosaic TPU ones first)."""
    found: dict[str, Kernel] = {}
    for _, kernel in payloads(text):
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
