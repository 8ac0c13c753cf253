"""The GraphQL side of a game's types: the ``GameState`` interface a state view
implements, and ``from_view``, which builds a Strawberry object from a view's JSON.

Every object a client may cache has an ``id`` (docs/clients.md), the game's too, without
the game declaring one: a state's id names the table, the version and the seat it was
seen as (a new id at every version), and each object inside it (a player, a meld, a
trick) gets the state's id and its path in the view. A game's own state types declare no
``id``: ``GameState`` gives one to each object type its state holds, when the game's
``schema.py`` defines the state type (``_give_ids``).

A game's ``schema.py`` imports from here; nothing else in the engine imports Strawberry.
"""

from __future__ import annotations

import base64
import enum
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar, cast

import strawberry
from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition
from strawberry.types.enum import StrawberryEnumDefinition
from strawberry.types.field import StrawberryField
from strawberry.utils.str_converters import to_camel_case

_KEY: Final = "_tablestate_id"  # where ``from_view`` leaves an object's id
_F = TypeVar("_F", bound=Callable[..., Any])


def global_id(type_name: str, *key: object) -> str:
    """The id of an object that no other object of any type has: base64 of
    ``Type:key...`` (an opaque string to clients)."""
    text = ":".join((type_name, *(str(k) for k in key)))
    return base64.b64encode(text.encode()).decode()


def parse_global_id(text: str) -> tuple[str, list[str]] | None:
    """``global_id``'s type name and key parts, or None for a string it did not make."""
    try:
        decoded = base64.b64decode(text.encode(), validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    name, sep, rest = decoded.partition(":")
    if not sep or not name.isidentifier():
        return None
    return name, rest.split(":")


def resolver(*, description: str) -> Callable[[_F], _F]:
    """``@strawberry.field(description=...)`` on a resolver method, typed as what the class
    keeps: Strawberry's own signature says ``Any`` for this call (the same call also makes
    plain fields), while the type it makes holds the method itself again (Strawberry puts
    it back once the dataclass is made)."""
    return cast("Callable[[_F], _F]", strawberry.field(description=description))


def _own_id(self: Any) -> strawberry.ID:
    key, path = self.__dict__.get(_KEY) or ("", "")
    if not key:
        return strawberry.ID(global_id(type(self).__name__))
    return strawberry.ID(global_id(type(self).__name__, key, path) if path else key)


def _id_field(owner: type, text: str) -> StrawberryField:
    found = strawberry.field(_own_id, description=text)
    found.python_name = "id"
    found.origin = owner
    return found


_PART_ID: Final = (
    "This part of the game state, as its state was seen: the state's id and where it sits in it."
)


def _inner_types(annotation: Any) -> list[type]:
    """The Strawberry object types an annotation names (inside lists and optionals)."""
    if isinstance(annotation, StrawberryOptional | StrawberryList):
        return _inner_types(annotation.of_type)
    args = typing.get_args(annotation)
    if args and (typing.get_origin(annotation) in (list, typing.Union, types.UnionType)):
        return [t for a in args for t in _inner_types(a)]
    if isinstance(annotation, type) and get_object_definition(annotation) is not None:
        return [annotation]
    return []


_GIVEN: set[type] = set()  # the object types ``_give_ids`` gave an id to


def _give_ids(annotations: Mapping[str, Any]) -> None:
    """Give an ``id`` to every object type these annotations reach (a game state type's:
    its players, melds, tricks...), once.

    Raises:
        ValueError: for a game's object type that declares an ``id`` of its own.
    """
    for annotation in annotations.values():
        for tp in _inner_types(annotation):
            definition = get_object_definition(tp, strict=True)
            if tp in _GIVEN or definition.is_interface or definition.is_input:
                continue
            if any(f.python_name == "id" for f in definition.fields):
                raise ValueError(
                    f"{definition.name} declares an `id`: the core gives one to every object "
                    "type of a game state (docs/plugins.md)"
                )
            definition.fields.insert(0, _id_field(tp, _PART_ID))
            _GIVEN.add(tp)
            _give_ids({f.python_name: f.type for f in definition.fields if f.base_resolver is None})


@strawberry.interface(description="A game's state as the viewer may see it.")
class GameState:
    @resolver(
        description="This state as you see it at this version: a new id at every version "
        "and for every seat, so that a client's cache keeps each state whole."
    )
    def id(self) -> strawberry.ID:
        return _own_id(self)

    game_id: strawberry.ID = strawberry.field(description="The game's id, e.g. five-crowns.")
    to_act: list[int] = strawberry.field(description="Seats whose move is awaited.")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        try:
            annotations = inspect.get_annotations(cls, eval_str=True)
        except NameError:  # a name defined later: Strawberry resolves it, we cannot yet
            annotations = inspect.get_annotations(cls)
        _give_ids(annotations)


def state_id(type_name: str, table_id: str, version: int, seat: int | None) -> str:
    """The id of a game state: of this table at this version, as ``seat`` sees it (None: a
    spectator)."""
    return global_id(type_name, table_id, version, "-" if seat is None else seat)


def _build(tp: Any, value: Any, key: str, path: str) -> Any:
    if value is None:
        return None
    if isinstance(tp, StrawberryOptional):
        return _build(tp.of_type, value, key, path)
    if isinstance(tp, StrawberryList):
        return [_build(tp.of_type, v, key, f"{path}.{i}") for i, v in enumerate(value)]
    if isinstance(tp, StrawberryEnumDefinition):
        tp = tp.wrapped_cls
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return value if isinstance(value, tp) else tp[value]
    if get_object_definition(tp) is not None:
        return from_view(tp, value, key, path)
    return value


def from_view(cls: type, view: Mapping[str, Any], key: str = "", path: str = "") -> Any:
    """An instance of the Strawberry type ``cls`` from JSON keyed by its GraphQL field
    names (camelCase), nested types and lists included. Missing optional fields are None.

    ``key``: the state's id (``state_id``); each object inside gets an id of its own from
    it and its ``path`` in the view (``players.2``), unique across types, tables, versions
    and seats."""
    definition = get_object_definition(cls, strict=True)
    kwargs: dict[str, Any] = {}
    for f in definition.fields:
        if f.base_resolver is not None:
            continue
        name = f.graphql_name or to_camel_case(f.python_name)
        inner = f"{path}.{name}" if path else name
        kwargs[f.python_name] = _build(f.type, view.get(name), key, inner)
    found = cls(**kwargs)
    if key:  # the id itself is made only if it is asked for (``_own_id``)
        found.__dict__[_KEY] = (key, path)
    return found
