"""Table options: checked against a game's JSON Schema (with the ``jsonschema`` library),
defaults filled in.

Every keyword of JSON Schema (draft 2020-12) is checked, and a refusal names the option
and the keyword that failed. Three rules are added to every option schema: an object never
takes properties it does not declare, and a string or an array without bounds of its own
is at most 1000 long. An integer sent as ``3.0`` is the integer 3.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match

MAX_LENGTH: Final = 1000  # a string's or an array's bound when its schema gives none


class OptionError(ValueError):
    """Options that do not fit the schema; the message names the option and the keyword."""


def _closed(schema: Any) -> Any:
    """A copy of ``schema`` with the added rules (see the module)."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _closed(v) for k, v in schema.items()}
    kind = out.get("type")
    if kind == "object" or "properties" in out:
        out.setdefault("additionalProperties", False)
    if kind == "string":
        out.setdefault("maxLength", MAX_LENGTH)
    if kind == "array":
        out.setdefault("maxItems", MAX_LENGTH)
    return out


@lru_cache(maxsize=256)
def _validator(text: str) -> Draft202012Validator:
    return Draft202012Validator(_closed(json.loads(text)))


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raises ``OptionError`` unless ``schema`` is a valid JSON Schema."""
    try:
        Draft202012Validator.check_schema(_closed(copy.deepcopy(dict(schema))))
    except SchemaError as exc:
        raise OptionError(f"not a valid JSON Schema: {exc.message}") from None


def _refusal(error: ValidationError, prefix: str) -> OptionError:
    where = prefix + ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        declared = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = sorted(k for k in error.instance if k not in declared)
        name = f"{where}.{extra[0]}" if where else extra[0]
        return OptionError(f"unknown option {name} (additionalProperties)")
    return OptionError(f"option {where or '(all)'} fails {error.validator}: {error.message}")


def _filled(schema: Mapping[str, Any], value: Any) -> Any:
    """``value`` (valid) with the defaults of its schema's properties filled in."""
    kind = schema.get("type")
    if kind == "integer" and isinstance(value, float):
        return int(value)
    if kind == "array" and isinstance(value, list):
        items = schema.get("items", {})
        return [_filled(items, v) if isinstance(items, Mapping) else v for v in value]
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        out = {k: _filled(props.get(k, {}), v) for k, v in value.items()}
        for key, prop in props.items():
            if key not in out and "default" in prop:
                out[key] = copy.deepcopy(prop["default"])
        return out
    return value


def resolve(
    schema: Mapping[str, Any], given: Mapping[str, Any] | None, prefix: str = ""
) -> dict[str, Any]:
    """The options of a table: ``given`` checked against ``schema``, defaults filled.

    Raises:
        OptionError: an unknown option, or a value that fails a keyword of the schema.
    """
    value = dict(given or {})
    validator = _validator(json.dumps(schema, sort_keys=True))
    error = best_match(validator.iter_errors(value))
    if error is not None:
        raise _refusal(error, prefix)
    filled: dict[str, Any] = _filled(schema, value)
    return filled


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
    "spectators": {
        "type": "boolean",
        "default": True,
        "description": "Whether viewers without a seat may watch the table (false: only its "
        "players and its host see it; the server may allow fewer, never more).",
    },
}
"""The options every table has, whatever its game: clocks, undo, leaving, spectators. Games
may not declare options of these names."""


def table_schema(game_options: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a table's options: the game's own and the core ones."""
    props = {**dict(game_options.get("properties", {})), **CORE_OPTIONS}
    return {**dict(game_options), "type": "object", "properties": props}


def core(options: Mapping[str, Any], name: str) -> Any:
    """A core option of a table; tables made before it existed get its default."""
    return options.get(name, CORE_OPTIONS[name]["default"])
