"""The GraphQL side of a game's types: the ``GameState`` interface a state view
implements, and ``from_view``, which builds a Strawberry object from a view's JSON.

A game's ``schema.py`` imports from here; nothing else in the engine imports Strawberry.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import strawberry
from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition
from strawberry.types.enum import StrawberryEnumDefinition
from strawberry.utils.str_converters import to_camel_case


@strawberry.interface(description="A game's state as the viewer may see it.")
class GameState:
    game_id: strawberry.ID = strawberry.field(description="The game's id, e.g. five-crowns.")
    to_act: list[int] = strawberry.field(description="Seats whose move is awaited.")


def _build(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(tp, StrawberryOptional):
        return _build(tp.of_type, value)
    if isinstance(tp, StrawberryList):
        return [_build(tp.of_type, v) for v in value]
    if isinstance(tp, StrawberryEnumDefinition):
        tp = tp.wrapped_cls
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return value if isinstance(value, tp) else tp[value]
    if get_object_definition(tp) is not None:
        return from_view(tp, value)
    return value


def from_view(cls: type, view: Mapping[str, Any]) -> Any:
    """An instance of the Strawberry type ``cls`` from JSON keyed by its GraphQL field
    names (camelCase), nested types and lists included. Missing optional fields are None."""
    definition = get_object_definition(cls, strict=True)
    kwargs: dict[str, Any] = {}
    for f in definition.fields:
        if f.base_resolver is not None:
            continue
        key = f.graphql_name or to_camel_case(f.python_name)
        kwargs[f.python_name] = _build(f.type, view.get(key))
    return cls(**kwargs)
