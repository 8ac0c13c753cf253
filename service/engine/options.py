"""Table options: checked against a game's JSON Schema, defaults filled in.

Only the part of JSON Schema that option schemas need is understood: ``type`` (object,
integer, number, boolean, string, array), ``enum``, ``minimum``, ``maximum``,
``minLength``, ``maxLength``, ``items``, ``minItems``, ``maxItems``, ``properties`` and
``default``. An object never takes properties it does not declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "array": (list, tuple),
}


class OptionError(ValueError):
    """Options that do not fit the schema; the message names the option."""


def _check(value: Any, schema: Mapping[str, Any], where: str) -> Any:
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind])
        if kind in ("integer", "number") and isinstance(value, bool):
            ok = False
        if kind == "integer" and isinstance(value, float) and value.is_integer():
            value, ok = int(value), True
        if not ok:
            raise OptionError(f"option {where} must be of type {kind}")
    if "enum" in schema and value not in schema["enum"]:
        raise OptionError(f"option {where} must be one of {list(schema['enum'])}")
    if "minimum" in schema and value < schema["minimum"]:
        raise OptionError(f"option {where} must be at least {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        raise OptionError(f"option {where} must be at most {schema['maximum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 1000):
            raise OptionError(f"option {where} has a length out of range")
    if kind == "array":
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1000):
            raise OptionError(f"option {where} has a number of items out of range")
        items = schema.get("items", {})
        value = [_check(v, items, f"{where}[{i}]") for i, v in enumerate(value)]
    if kind == "object":
        value = resolve(schema, value, prefix=f"{where}.")
    return value


def resolve(
    schema: Mapping[str, Any], given: Mapping[str, Any] | None, prefix: str = ""
) -> dict[str, Any]:
    """The options of a table: ``given`` checked against ``schema``, defaults filled.

    Raises:
        OptionError: an unknown option, or a value of the wrong type or out of range.
    """
    given = dict(given or {})
    props: Mapping[str, Any] = schema.get("properties", {})
    unknown = sorted(set(given) - set(props))
    if unknown:
        raise OptionError(f"unknown option {prefix}{unknown[0]}")
    out: dict[str, Any] = {}
    for key, prop in props.items():
        if key in given:
            out[key] = _check(given[key], prop, prefix + key)
        elif "default" in prop:
            out[key] = prop["default"]
    return out


DAY = 86_400
CORE_OPTIONS: dict[str, dict[str, Any]] = {
    "turnSeconds": {
        "type": "number",
        "minimum": 0,
        "maximum": DAY,
        "default": 0,
        "description": "Seconds per move (0: no clock). When a seat's time and reserve run "
        "out, the game's bot moves for it.",
    },
    "reserveSeconds": {
        "type": "number",
        "minimum": 0,
        "maximum": DAY,
        "default": 0,
        "description": "A reserve per seat, spent once a move takes longer than turnSeconds.",
    },
    "timeoutsBeforeBot": {
        "type": "integer",
        "minimum": 0,
        "maximum": 1000,
        "default": 3,
        "description": "After this many timeouts a bot takes the seat for good (0: never).",
    },
    "undo": {
        "type": "boolean",
        "default": False,
        "description": "Whether a player may take back their own last move (undoMove) when "
        "it gave them nothing new and nobody has moved since.",
    },
    "leaveGraceSeconds": {
        "type": "number",
        "minimum": 0,
        "maximum": DAY,
        "default": 0,
        "description": "When a player leaves a playing table, how long the seat waits for "
        "them to rejoin before a bot takes it (0: a bot takes it at once).",
    },
}
"""The options every table has, whatever its game: clocks, undo, leaving. Games may not
declare options of these names."""


def table_schema(game_options: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a table's options: the game's own and the core ones."""
    props = {**dict(game_options.get("properties", {})), **CORE_OPTIONS}
    return {**dict(game_options), "type": "object", "properties": props}


def core(options: Mapping[str, Any], name: str) -> Any:
    """A core option of a table; tables made before it existed get its default."""
    return options.get(name, CORE_OPTIONS[name]["default"])
