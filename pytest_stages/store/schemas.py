"""What each JSON snapshot holds: the one description the writer and the reader of a snapshot share.

A schema is plain data: a type or tuple of types for a scalar, ``[item]`` for a list, ``{"*": value}`` for
an object of any keys, an object of (optional) named keys for a record, ``(type(None), schema)`` for null
or that, ``ANY`` for whatever JSON holds. ``{"opcodes": {"*": int}}`` accepts ``{"opcodes": {"add": 2}}``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_stages.core.inputs import UNPARSED, parse_json

# The largest snapshot file pytest-stages writes or reads back: a stage text this long takes minutes to compare
# (the largest of the examples is 0.3 MiB), so one larger is refused before it is read, never half-compared.
MAX_SNAPSHOT_BYTES = 64 << 20


def oversize(size: int) -> str | None:
    """Why a snapshot file of ``size`` bytes is refused (None: it is not too large)."""
    if size <= MAX_SNAPSHOT_BYTES:
        return None
    return f"{size / (1 << 20):,.0f} MiB, over the {MAX_SNAPSHOT_BYTES >> 20} MiB a snapshot file may hold"


ANY = object()
NUMBER = (int, float)
SCALAR = (int, float, str, bool, type(None))
_COLLECTIVES = [{"op": str, "*": ANY}]
_PLACED = {"*": {"*": ANY}}
# A leaf's sharding: null at an input jit dropped as unused (``def f(x, y): return x``).
_SHARDING = (type(None), {"*": ANY})

# Per artifact file suffix: what pytest-stages writes there (docs/snapshots.md describes the fields).
SCHEMAS: dict[str, object] = {
    ".cost.json": {"unknown": {"custom_calls": int, "kernels": [str]}, "*": {"*": SCALAR}},
    ".memory.json": {"*": SCALAR},
    ".ops.json": {
        "opcodes": {"*": NUMBER},
        "fusions": {"*": NUMBER},
        "custom_calls": {"*": ANY},
        "fusion_count": (int, type(None)),
        "collectives": _COLLECTIVES,
        "loops": [{"collectives": _COLLECTIVES, "trip_count": (int, type(None)), "*": ANY}],
        "entry": {"*": ANY},
    },
    ".sharding.json": {
        "inputs": {"*": {"sharding": _SHARDING, "*": ANY}},
        "outputs": {"*": {"sharding": {"*": ANY}, "*": ANY}},
        "collectives": [ANY],
    },
    ".layout.json": {"inputs": _PLACED, "outputs": _PLACED},
    ".compiles.json": {"functions": {"*": {"*": ANY}}},
    ".kernels.json": {
        "kernels": {
            "*": {"grid": [ANY], "blocks": [{"block": [(int, type(None))], "*": ANY}], "vmem_estimate_bytes": int}
        },
        "*": ANY,
    },
}


def invalid_snapshot(name: str, text: str) -> str | None:
    """What is wrong with the JSON snapshot file ``name`` holding ``text``, or None when it is well formed.

    Text artifacts, and JSON that does not parse (the comparison reports that with its own
    message), are not judged here.
    """
    return judge_snapshot(name, text)[1]


def judge_snapshot(name: str, text: str) -> tuple[object, str | None]:
    """:func:`invalid_snapshot`'s verdict, with the data it parsed (:data:`UNPARSED` where it parsed none).

    The reader keeps the data, so that comparing a JSON snapshot does not parse its text again.
    """
    schema = next((schema for suffix, schema in SCHEMAS.items() if name.endswith(suffix)), None)
    if schema is None:
        return UNPARSED, None
    try:
        data = parse_json(text)
    except ValueError:
        return UNPARSED, None
    return data, mismatch(data, schema, "the file")


def mismatch(data: object, schema: object, where: str) -> str | None:
    """The first place where ``data`` differs from ``schema`` (``the file['opcodes'] is null, not an object``).

    Judged first by :func:`_conforms`, which names nothing: the place of a mismatch, a path
    formatted at each step, is worked out only for data that has one.
    """
    return None if _conforms(data, schema) else _mismatch(data, schema, where)


def _conforms(data: object, schema: object) -> bool:
    """Whether ``data`` fits ``schema``: the same rules as :func:`_mismatch`, with no message made on the way."""
    if isinstance(schema, list):
        return isinstance(data, list) and _values_conform(data, schema[0])
    if isinstance(schema, dict):
        return isinstance(data, dict) and _items_conform(data, schema)
    if isinstance(schema, tuple) and not isinstance(schema[-1], type):  # (type(None), {...}): null or that
        return data is None or _conforms(data, schema[-1])
    kinds = schema if isinstance(schema, tuple) else (schema,)
    return isinstance(data, kinds) and (bool in kinds or not isinstance(data, bool))


# Loops, not all() over a generator: these run for every value of every JSON snapshot read, and a
# generator would add a frame and its resumptions to each.


def _values_conform(values: list[object], schema: object) -> bool:
    """Whether every item of a list fits ``schema`` (a list of no schema, or of ``ANY``, always does)."""
    if schema is None or schema is ANY:
        return True
    for value in values:  # noqa: SIM110
        if not _conforms(value, schema):
            return False
    return True


def _items_conform(data: dict[str, object], schema: dict[str, object]) -> bool:
    """Whether every value of an object fits its key's schema, else the ``"*"`` one (none, or ``ANY``: not judged)."""
    other = schema.get("*")
    for key, value in data.items():
        part = schema.get(key, other)
        if part is not None and part is not ANY and not _conforms(value, part):
            return False
    return True


def _mismatch(data: object, schema: object, where: str) -> str | None:
    """The first place where ``data`` differs from ``schema``, with the path to it."""
    if isinstance(schema, list):
        if not isinstance(data, list):
            return f"{where} is {_kind(data)}, not a list"
        return _first((item, schema[0], f"{where}[{i}]") for i, item in enumerate(data))
    if isinstance(schema, dict):
        if not isinstance(data, dict):
            return f"{where} is {_kind(data)}, not an object"
        return _first((value, schema.get(key, schema.get("*")), f"{where}[{key!r}]") for key, value in data.items())
    if isinstance(schema, tuple) and not isinstance(schema[-1], type):  # (type(None), {...}): null or that
        return None if data is None else _mismatch(data, schema[-1], where)
    return _scalar(data, schema if isinstance(schema, tuple) else (schema,), where)


def _scalar(data: object, kinds: tuple[type, ...], where: str) -> str | None:
    """A scalar of one of ``kinds`` (``True`` is no number here, though Python's bool is an int)."""
    wrong = not isinstance(data, kinds) or (isinstance(data, bool) and bool not in kinds)
    return f"{where} is {_kind(data)}" if wrong else None


def _first(parts: Iterable[tuple[object, object, str]]) -> str | None:
    """The first mismatch among ``(data, schema, where)`` parts (a part of no schema, or ``ANY``, is not judged)."""
    return next(
        (
            found
            for data, schema, where in parts
            if schema not in (None, ANY) and (found := _mismatch(data, schema, where))
        ),
        None,
    )


def _kind(data: object) -> str:
    """``null``, ``a list``, ``the number 7``, ... as a message names a JSON value."""
    if data is None:
        return "null"
    if isinstance(data, bool):
        return f"{str(data).lower()}"
    if isinstance(data, (int, float)):
        return f"the number {data}"
    if isinstance(data, str):
        return "a string"
    return "a list" if isinstance(data, list) else "an object"


# --- JSON Schema ----------------------------------------------------------------------------------
# The JSON report's schema (pytest_stages/report.schema.json) is the one description of a report and
# of a call record: the merge reads shard reports by it, --stages-baseline an earlier report's calls,
# and a pending manifest's record is one of its calls. These keywords of JSON Schema 2020-12 are all
# it uses; :func:`schema_mismatch` judges them (a test checks that the file uses no other).
JSON_SCHEMA_KEYWORDS = frozenset(
    {
        "$schema",
        "title",
        "description",
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "anyOf",
    }
)
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
# The types of JSON's scalars as parsed: hashable, and exact (a bool is of type bool, not int).
_SCALARS = frozenset({str, int, float, bool, type(None)})
_A = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
REPORT_SCHEMA_FILE = Path(__file__).resolve().parents[1] / "report.schema.json"


@functools.cache
def report_schema() -> dict[str, Any]:
    """The JSON report's schema, as shipped in the package."""
    data: dict[str, Any] = json.loads(REPORT_SCHEMA_FILE.read_text(encoding="utf-8"))
    return data


def call_schema() -> dict[str, object]:
    """The schema of one call record (a report's ``calls`` item, a pending manifest's ``record``)."""
    calls: dict[str, object] = report_schema()["properties"]["calls"]["items"]
    return calls


def schema_mismatch(data: object, schema: Mapping[str, object], where: str) -> str | None:
    """The first place where ``data`` breaks the JSON Schema ``schema`` (``the report['calls'][0] has no 'name'``).

    Judged first by the schema's compiled check (:func:`_compiled`), which names nothing: the walk that
    names the place runs only for data that breaks it (a merge reads every value of every call).
    """
    key = id(schema)
    if key not in _CHECKS:
        _CHECKS[key] = (schema, _compiled(schema))
    return None if _CHECKS[key][1](data) else _breaks(data, schema, (where,))


Check = Callable[[object], bool]
# Each schema judged, by id, with its check (the schema kept, so that its id is not reused).
_CHECKS: dict[int, tuple[Mapping[str, object], Check]] = {}


def _compiled(schema: Mapping[str, Any]) -> Check:
    """Whether data fits ``schema``, as one closure per schema node: the rules of :func:`_breaks`, no messages."""
    checks = [_value_check(schema)]
    if "anyOf" in schema:
        forms = [_compiled(part) for part in schema["anyOf"]]
        checks.append(lambda data: any(form(data) for form in forms))
    checks.append(_object_check(schema))
    checks.append(_array_check(schema))
    used = [check for check in checks if check is not None]

    def fits(data: object) -> bool:
        for check in used:  # noqa: SIM110 (a loop: this runs for every value a report holds)
            if not check(data):
                return False
        return True

    return used[0] if len(used) == 1 else fits


def _value_check(schema: Mapping[str, Any]) -> Check | None:
    """``type``, ``enum``, ``const``, ``minimum`` of one node, on parsed JSON (whose values are of exact types)."""
    kinds = schema.get("type")
    names = [kinds] if isinstance(kinds, str) else kinds or []
    types = frozenset(kind for name in names for kind in _JSON_TYPES[name])
    allowed = {(type(value), value) for value in schema.get("enum", ())}
    has_const, const = "const" in schema, schema.get("const")
    low = schema.get("minimum")
    given = (bool(types), bool(allowed), has_const, low is not None)
    if given == (True, False, False, False):
        return lambda data: type(data) in types
    if given == (False, True, False, False):
        return lambda data: type(data) in _SCALARS and (type(data), data) in allowed
    if not any(given):
        return None
    return _ValueRule(types, frozenset(allowed), has_const, const, low)


@dataclass(frozen=True)
class _ValueRule:
    """``type``, ``enum``, ``const`` and ``minimum`` of one node together (the single ones have quicker checks)."""

    types: frozenset[type]
    allowed: frozenset[tuple[type, object]]
    has_const: bool
    const: object
    low: Any

    def __call__(self, data: object) -> bool:
        if self.types and type(data) not in self.types:
            return False
        if self.allowed and (type(data) not in _SCALARS or (type(data), data) not in self.allowed):
            return False
        if self.has_const and data != self.const:
            return False
        return self.low is None or type(data) not in (int, float) or data >= self.low


def _object_check(schema: Mapping[str, Any]) -> Check | None:
    if not {"properties", "additionalProperties", "required"} & set(schema):
        return None
    properties = {key: _compiled(part) for key, part in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties", True)
    other: Check | bool = extra if isinstance(extra, bool) else _compiled(extra)
    required = tuple(schema.get("required", ()))

    def fits(data: object) -> bool:
        if not isinstance(data, dict):
            return True
        for key, value in data.items():
            check = properties.get(key, other)
            if check is False or (check is not True and not check(value)):
                return False
        for key in required:  # noqa: SIM110
            if key not in data:
                return False
        return True

    return fits


def _array_check(schema: Mapping[str, Any]) -> Check | None:
    if not {"items", "prefixItems", "minItems", "maxItems"} & set(schema):
        return None
    prefix = [_compiled(part) for part in schema.get("prefixItems", ())]
    items = _compiled(schema["items"]) if "items" in schema else None
    low, high = schema.get("minItems", 0), schema.get("maxItems")

    def fits(data: object) -> bool:
        if not isinstance(data, list):
            return True
        if len(data) < low or (high is not None and len(data) > high):
            return False
        for index, value in enumerate(data):
            check = prefix[index] if index < len(prefix) else items
            if check is not None and not check(value):
                return False
        return True

    return fits


def _breaks(data: object, schema: Mapping[str, object], path: tuple[str, ...]) -> str | None:
    found = _value_breaks(data, schema, path)
    if found is None and isinstance(data, dict):
        return _object_breaks(data, schema, path)
    if found is None and isinstance(data, list):
        return _array_breaks(data, schema, path)
    return found


def _value_breaks(data: object, schema: Mapping[str, Any], path: tuple[str, ...]) -> str | None:
    """What ``type``, ``const``, ``enum``, ``minimum`` and ``anyOf`` say of ``data`` itself."""
    found = _kind_breaks(data, schema, path)
    if found is not None:
        return found
    if "minimum" in schema and _is(data, "number") and data < schema["minimum"]:
        return f"{_where(path)} is below {schema['minimum']}"
    if "anyOf" in schema and all(_breaks(data, part, path) for part in schema["anyOf"]):
        return f"{_where(path)} fits none of the forms it may take"
    return None


def _kind_breaks(data: object, schema: Mapping[str, Any], path: tuple[str, ...]) -> str | None:
    """What ``type``, ``const`` and ``enum`` say of ``data``."""
    kinds = schema.get("type")
    names = [kinds] if isinstance(kinds, str) else kinds
    if names is not None and not any(_is(data, name) for name in names):
        return f"{_where(path)} is {_kind(data)}, not {' or '.join(_A[name] for name in names)}"
    if "const" in schema and data != schema["const"]:
        return f"{_where(path)} is not {schema['const']!r}"
    if "enum" in schema and not any(data == v and type(data) is type(v) for v in schema["enum"]):
        return (
            f"{_where(path)} is {data!r}, not one of {schema['enum']}"
            if isinstance(data, str)
            else f"{_where(path)} is {_kind(data)}, not one of {schema['enum']}"
        )
    return None


def _object_breaks(data: dict[str, object], schema: Mapping[str, Any], path: tuple[str, ...]) -> str | None:
    properties, other = schema.get("properties", {}), schema.get("additionalProperties", True)
    for key, value in data.items():
        part = properties.get(key, other)
        if part is False:
            return f"{_where(path)} has {key!r}, which a report never holds there"
        if part is not True and (found := _breaks(value, part, (*path, f"[{key!r}]"))):
            return found
    missing = next((key for key in schema.get("required", ()) if key not in data), None)
    return None if missing is None else f"{_where(path)} has no {missing!r}"


def _array_breaks(data: list[object], schema: Mapping[str, Any], path: tuple[str, ...]) -> str | None:
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if len(data) < low or (high is not None and len(data) > high):
        return f"{_where(path)} has {len(data)} item(s), not {low if high == low else f'{low} to {high}'}"
    prefix, items = schema.get("prefixItems", []), schema.get("items")
    for index, value in enumerate(data):
        part = prefix[index] if index < len(prefix) else items
        if part is not None and (found := _breaks(value, part, (*path, f"[{index}]"))):
            return found
    return None


def _is(data: object, name: str) -> bool:
    """Whether ``data`` is of the JSON type ``name`` (a bool is no integer or number, as in JSON)."""
    return isinstance(data, _JSON_TYPES[name]) and (name == "boolean" or not isinstance(data, bool))


def _where(path: tuple[str, ...]) -> str:
    return "".join(path)
