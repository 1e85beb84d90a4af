"""The stack-frame tables of HLO's debug info: where each instruction was written.

The ``FileNames``/``FunctionNames``/``FileLocations``/``StackFrames`` tables that ``stack_frame_id=N``
points into; apart from :mod:`~pytest_stages.ir.hlo` so that a passing compare never builds these classes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pytest_stages.core.lazy import lazy_pattern
from pytest_stages.ir.hlo import TABLES

# "3 {file_location_id=2 parent_frame_id=1}" -> id 3, the rest
_TABLE_ROW = lazy_pattern(r"^(\d+) (.*)$")
# "file_location_id=2" -> file_location_id, 2
_FIELD = lazy_pattern(r"(\w+)=(\d+)")
_FRAME_ID = lazy_pattern(r"stack_frame_id=(\d+)")
# source_file="/x/model.py" source_line=42 (older JAX's metadata, no tables)
_SOURCE = lazy_pattern(r'source_file="((?:[^"\\]|\\.)*)" source_line=(\d+)')
_METADATA = ", metadata={"


@dataclass(frozen=True)
class Frame:
    """A source position of the debug info; ``function`` is None where not recorded."""

    file: str
    line: int
    function: str | None = None


@dataclass(frozen=True)
class StackFrames:
    """The debug info's tables, each row by id.

    A frame names a file location and its parent frame; a file location names a file, a
    function and a line.
    """

    files: Mapping[int, str]
    functions: Mapping[int, str]
    locations: Mapping[int, str]
    frames: Mapping[int, str]

    @classmethod
    def parse(cls, tables: Mapping[str, list[str]]) -> StackFrames:
        """From :func:`split_tables`' rows (``1 "model.py"``, ``2 {file_location_id=2 parent_frame_id=1}``)."""
        rows = {
            name: {int(match[1]): match[2] for match in map(_TABLE_ROW.match, tables.get(name, [])) if match}
            for name in TABLES
        }
        return cls(rows["FileNames"], rows["FunctionNames"], rows["FileLocations"], rows["StackFrames"])

    def chain(self, frame_id: int) -> Iterator[Frame | None]:
        """The frame ``frame_id`` and its callers, innermost first (None where a location is incomplete)."""
        seen = set()
        while frame_id in self.frames and frame_id not in seen:
            seen.add(frame_id)
            frame = _fields(self.frames[frame_id])
            yield self._frame(frame.get("file_location_id", -1))
            # The table prints each parent as its id + 1 (1 for a frame without parent).
            frame_id = frame.get("parent_frame_id", 1) - 1

    def _frame(self, location_id: int) -> Frame | None:
        place = _fields(self.locations.get(location_id, ""))
        if "file_name_id" not in place or "line" not in place:
            return None
        function = self.functions.get(place.get("function_name_id", -1))
        file = _unquote(self.files.get(place["file_name_id"], '"?"'))
        return Frame(file, place["line"], _unquote(function) if function else None)


def _fields(row: str) -> dict[str, int]:
    """``{file_location_id=2 parent_frame_id=1}`` -> ``{"file_location_id": 2, "parent_frame_id": 1}``."""
    return {key: int(value) for key, value in _FIELD.findall(row)}


def stack_frame_id(line: str) -> int | None:
    """The ``stack_frame_id`` in a line's ``metadata={...}``, None without one."""
    frame = _FRAME_ID.search(line) if _METADATA in line else None
    return int(frame[1]) if frame else None


def source_position(line: str) -> Frame | None:
    """The ``source_file``/``source_line`` in a line's ``metadata={...}`` (no function), None without."""
    source = _SOURCE.search(line) if _METADATA in line else None
    return Frame(_unquote(source[1]), int(source[2])) if source else None


def _unquote(text: str) -> str:
    """``"a \\"b\\""`` -> ``a "b"``: a table's quoted string; other text only stripped."""
    text = text.strip()
    return text[1:-1].replace('\\"', '"') if len(text) >= 2 and text[0] == text[-1] == '"' else text
