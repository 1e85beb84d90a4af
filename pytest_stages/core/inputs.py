"""Reading what a user or another run hands in: regular files of bounded size, and JSON as pytest-stages writes it.

So that no file handed in can make the plugin raise, hang or run out of memory: a FIFO or device is refused
unopened, a file is read up to :data:`MAX_BYTES`, and JSON pytest-stages never writes (nested deeper than
:data:`MAX_DEPTH`, a number that is not finite, a string that is no text) is refused.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from pytest_stages.core.errors import InputError
from pytest_stages.core.lazy import lazy_pattern

# Deeper JSON than any file pytest-stages writes (a report nests about 6 levels) is refused.
MAX_DEPTH = 100
# The largest file read: far above any snapshot or report pytest-stages writes.
MAX_BYTES = 1 << 30
# An integer beyond a float's largest value cannot be compared as a figure; that value has 309 digits.
_FLOAT_MAX = int(sys.float_info.max)
_FLOAT_DIGITS = 309
# A JSON string (in text that parsed), and a run of characters that are no brackets.
_STRING = lazy_pattern(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = lazy_pattern(r"[^\[\]{}]+")
# The data of a snapshot that was not parsed: a text artifact, or JSON that does not parse.
UNPARSED = object()


def read_bytes(path: Path | str, limit: int = MAX_BYTES, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; raises :class:`InputError` or ``OSError``.

    The file is opened without blocking and checked before the first read: a FIFO (whose open
    or read would wait for a writer), a device (``/dev/zero``: a read without end), a socket or
    a folder is refused. Without ``follow_links`` a symlink is refused too (``OSError`` ``ELOOP``):
    for the plugin's own files, which are never links.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    handle = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise InputError("not a regular file (a folder, FIFO, socket or device)")
        chunks, size = [], 0
        while chunk := os.read(handle, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise InputError(f"larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(handle)


def read_text(path: Path | str, limit: int = MAX_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (text that is not UTF-8 is an :class:`InputError`)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})") from None


def read_json(path: Path | str, limit: int = MAX_BYTES) -> Any:
    """:func:`parse_json` of :func:`read_text`; an :class:`InputError` says what is wrong, the caller names the file."""
    text = read_text(path, limit)
    try:
        return parse_json(text)
    except InputError as exc:
        raise InputError(f"not valid JSON: {exc}") from None


def parse_json(text: str) -> Any:
    """``json.loads(text)`` for JSON as pytest-stages writes it; anything else raises :class:`InputError`.

    Refused: text that is no JSON (``Expecting value, line 1``), nesting deeper than
    :data:`MAX_DEPTH`, ``NaN``/``Infinity``, numbers beyond a float's range and lone surrogates.
    The depth and the strings are checked only where a count of the text finds what could fail
    them (more than :data:`MAX_DEPTH` brackets, a ``\\ud`` escape).
    """
    try:
        data = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"{exc.msg}, line {exc.lineno}") from None
    except RecursionError:
        raise InputError(f"nested deeper than {MAX_DEPTH} levels") from None
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(text)
    if "\\ud" in text or "\\uD" in text:
        _check_strings(data)
    return data


def _constant(name: str) -> object:
    raise InputError(f"{name} is not a number JSON holds")


def _float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise InputError(f"the number {text[:40]} is beyond a float's range")
    return number


def _int(text: str) -> int:
    number = int(text) if len(text) <= _FLOAT_DIGITS + 1 else None  # a longer one is beyond a float anyway
    if number is None or abs(number) > _FLOAT_MAX:
        raise InputError(f"the number {text[:40]}... is beyond a float's range")
    return number


def _check_depth(text: str) -> None:
    """Refuse valid JSON ``text`` nested deeper than :data:`MAX_DEPTH` (brackets outside strings, peeled by pairs)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(MAX_DEPTH):
        brackets = brackets.replace("[]", "").replace("{}", "")
        if not brackets:
            return
    raise InputError(f"nested deeper than {MAX_DEPTH} levels")


def _check_strings(data: object) -> None:
    """Refuse a key or string that holds a lone surrogate (a walk without recursion)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            _text(value)
        elif isinstance(value, dict):
            for key in value:
                _text(key)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _text(value: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"the string {value[:40]!r} holds a lone surrogate, which is no text") from None
