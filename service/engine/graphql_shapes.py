"""The shape of a game's GraphQL types, as plain values, and whether JSON fits it.

``state_shape`` and ``input_shape`` read a game's Strawberry types (its state type and its
``@oneOf`` move input) once, into ``Shape`` values; ``misfit`` then says, with no
Strawberry in sight, why a JSON value (a view, a move) would not pass as that type: the
path of the first field that does not fit and what was expected there. The start-up check
(``engine/contract.py``) and the harness (``tablestate.testing``) ask it.

The view of a state is the JSON ``from_view`` builds the state type from: keys are the
GraphQL field names (camelCase); enum values are their names. The fields the core fills
(``id``, ``gameId``, ``toAct``) and fields with resolvers are not the game's to give.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import strawberry
from strawberry.scalars import JSON
from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition
from strawberry.types.enum import StrawberryEnumDefinition
from strawberry.types.lazy_type import LazyType
from strawberry.utils.str_converters import to_camel_case

CORE_FIELDS: Final = frozenset({"id", "gameId", "toAct"})  # filled by the core, not the view
INT_RANGE: Final = (-(2**31), 2**31 - 1)  # GraphQL's Int is 32-bit signed


@dataclass(eq=False)
class Shape:
    """A GraphQL type as JSON must fit it.

    Args:
        kind: ``"Int"``, ``"Float"``, ``"String"``, ``"Boolean"``, ``"ID"`` (scalars),
            ``"any"`` (JSON and other scalars, unions: anything goes), ``"enum"``, ``"list"``
            or ``"object"``.
        nullable: whether null (or, in an object, no key) is allowed.
        name: the GraphQL name (enums and objects).
        of: a list's item shape.
        values: an enum's value names.
        fields: an object's fields by GraphQL name (filled after creation: types may nest
            themselves).
        required: an input object's fields that must be given (non-null, no default).
        one_of: an input object of which exactly one field is given (``@oneOf``).
    """

    kind: str
    nullable: bool = False
    name: str = ""
    of: Shape | None = None
    values: frozenset[str] = frozenset()
    fields: dict[str, Shape] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    one_of: bool = False

    def label(self) -> str:
        """The type as GraphQL writes it: ``[String!]``, ``Int``, ``FiveCrownsPhase!``."""
        if self.kind == "list":
            assert self.of is not None
            text = f"[{self.of.label()}]"
        else:
            text = self.name or self.kind
        return text if self.nullable else text + "!"


_SCALARS: Final[Mapping[Any, str]] = {
    int: "Int",
    float: "Float",
    str: "String",
    bool: "Boolean",
    strawberry.ID: "ID",
    JSON: "any",
}


def _shape(tp: Any, nullable: bool, seen: dict[tuple[int, bool], Shape], core: bool) -> Shape:
    if isinstance(tp, LazyType):
        tp = tp.resolve_type()
    if isinstance(tp, StrawberryOptional):
        return _shape(tp.of_type, True, seen, core)
    if isinstance(tp, StrawberryList):
        return Shape("list", nullable, of=_shape(tp.of_type, False, seen, core))
    if isinstance(tp, StrawberryEnumDefinition):
        return Shape("enum", nullable, tp.name, values=frozenset(v.name for v in tp.values))
    if tp in _SCALARS:
        return Shape(_SCALARS[tp], nullable)
    definition = get_object_definition(tp) if isinstance(tp, type) else None
    if definition is None:  # a union, a custom scalar: nothing to check against
        return Shape("any", nullable)
    key = (id(tp), nullable)
    if key in seen:
        return seen[key]
    found = seen[key] = Shape("object", nullable, definition.name, one_of=definition.is_one_of)
    required = set()
    for f in definition.fields:
        if f.base_resolver is not None:
            continue
        name = f.graphql_name or to_camel_case(f.python_name)
        if core and name in CORE_FIELDS:
            continue
        found.fields[name] = inner = _shape(f.type, False, seen, False)
        if definition.is_input and not inner.nullable and _no_default(f.default):
            required.add(name)
    found.required = frozenset(required)
    return found


def _no_default(default: Any) -> bool:
    return default is strawberry.UNSET or type(default).__name__ == "_MISSING_TYPE"


def state_shape(state_type: type) -> Shape:
    """The shape a game's view must have to build ``state_type`` (its core fields left out)."""
    return _shape(state_type, False, {}, True)


def input_shape(input_type: type) -> Shape:
    """The shape a move must have to be a value of the input type ``input_type``."""
    return _shape(input_type, False, {}, False)


def _show(value: Any) -> str:
    """A value as a message shows it: JSON for a scalar, its kind for the rest."""
    if isinstance(value, dict | Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _scalar(kind: str, value: Any) -> bool:
    if kind == "any":
        return True
    if kind == "Boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "Int":
        return isinstance(value, int) and INT_RANGE[0] <= value <= INT_RANGE[1]
    if kind == "Float":
        return isinstance(value, int | float) and math.isfinite(value)
    if kind == "String":
        return isinstance(value, str)
    return isinstance(value, str | int)  # ID


_PLAIN: Final[Mapping[str, type]] = {"String": str, "Int": int, "Boolean": bool, "ID": str}


def _fits(shape: Shape, value: Any, is_input: bool, top: bool) -> bool:
    """Whether ``value`` fits ``shape``: ``misfit``'s answer, fast, with no message."""
    if value is None:
        return shape.nullable
    kind = shape.kind
    if kind == "object":
        if not isinstance(value, dict) and not isinstance(value, Mapping):
            return False
        fields = shape.fields
        for key in value:
            if key not in fields and not (top and not is_input and key in CORE_FIELDS):
                return False
        if shape.one_of and sum(v is not None for v in value.values()) != 1:
            return False
        for key, inner in fields.items():
            if key in value:
                if not _fits(inner, value[key], is_input, False):
                    return False
            elif key in shape.required if is_input else not inner.nullable:
                return False
        return True
    if kind == "list":
        of = shape.of
        assert of is not None
        if not isinstance(value, list | tuple):
            return False
        plain = _PLAIN.get(of.kind)  # a list of strings or of numbers: no call per item
        if plain is not None and all(type(item) is plain for item in value):
            return of.kind != "Int" or all(INT_RANGE[0] <= item <= INT_RANGE[1] for item in value)
        return all(_fits(of, item, is_input, False) for item in value)
    if kind == "enum":
        name = value.name if isinstance(value, enum.Enum) else value
        return isinstance(name, str) and name in shape.values
    return _scalar(kind, value)


def misfit(shape: Shape, value: Any, path: str = "", is_input: bool = False) -> str | None:
    """Why ``value`` does not fit ``shape`` (``field "a.0.b": expected Int!, got 'x'``), or
    None when it fits. ``is_input``: a move (unknown keys, missing required fields and a
    ``@oneOf`` with other than one field are refused as the API refuses them)."""
    if not path and _fits(shape, value, is_input, True):
        return None
    where = f'field "{path}"' if path else "the value"
    if value is None:
        return None if shape.nullable else f"{where}: expected {shape.label()}, got null"
    if shape.kind == "list":
        if not isinstance(value, list | tuple):
            return f"{where}: expected {shape.label()}, got {_show(value)}"
        assert shape.of is not None
        for i, item in enumerate(value):
            bad = misfit(shape.of, item, f"{path}.{i}" if path else str(i), is_input)
            if bad is not None:
                return bad
        return None
    if shape.kind == "enum":
        name = value.name if isinstance(value, enum.Enum) else value
        if isinstance(name, str) and name in shape.values:
            return None
        names = ", ".join(sorted(shape.values))
        return f"{where}: expected {shape.label()} (one of {names}), got {_show(value)}"
    if shape.kind == "object":
        return _object_misfit(shape, value, path, where, is_input)
    if _scalar(shape.kind, value):
        return None
    return f"{where}: expected {shape.label()}, got {_show(value)}"


def _object_misfit(shape: Shape, value: Any, path: str, where: str, is_input: bool) -> str | None:
    if not isinstance(value, dict) and not isinstance(value, Mapping):
        return f"{where}: expected {shape.label()} (an object), got {_show(value)}"
    for key in value:
        if key not in shape.fields and not (not path and key in CORE_FIELDS and not is_input):
            known = ", ".join(sorted(shape.fields)) or "none"
            inner = f"{path}.{key}" if path else str(key)
            return f'field "{inner}": {shape.name} has no field "{key}" (its fields: {known})'
    if shape.one_of:
        given = [k for k, v in value.items() if v is not None]
        if len(given) != 1:
            return (
                f"{where}: {shape.name} is @oneOf: exactly one of its fields is given, "
                f"got {len(given)}"
            )
    for key, inner_shape in shape.fields.items():
        inner = f"{path}.{key}" if path else key
        if key not in value:
            if key not in shape.required if is_input else inner_shape.nullable:
                continue
            return f'field "{inner}": expected {inner_shape.label()}, got nothing'
        bad = misfit(inner_shape, value[key], inner, is_input)
        if bad is not None:
            return bad
    return None


def type_problems(state_type: type | None, move_input_type: type | None, prefix: str) -> list[str]:
    """What is wrong with a game's declared types (``prefix``: the game id's PascalCase):
    each must be there, the state a Strawberry type that implements ``GameState`` named
    ``<Prefix>State``, the move input a ``@oneOf`` input named ``<Prefix>MoveInput``."""
    from tablestate.engine.schema import GameState

    out = []
    if state_type is None:
        out.append("declares no state_type: every query of its state would fail")
    else:
        definition = get_object_definition(state_type)
        if definition is None or definition.is_input or definition.is_interface:
            out.append(f"state_type {state_type!r} is not a Strawberry object type")
        elif not issubclass(state_type, GameState):
            out.append(f"state_type {definition.name} does not implement GameState")
        elif definition.name != f"{prefix}State":
            out.append(f"state_type {definition.name} must be named {prefix}State")
    if move_input_type is None:
        out.append("declares no move_input_type: no move of it could be sent")
    else:
        definition = get_object_definition(move_input_type)
        if definition is None or not definition.is_input:
            out.append(f"move_input_type {move_input_type!r} is not a Strawberry input type")
        elif not definition.is_one_of:
            out.append(f"move_input_type {definition.name} is not a @oneOf input")
        elif definition.name != f"{prefix}MoveInput":
            out.append(f"move_input_type {definition.name} must be named {prefix}MoveInput")
    return out
