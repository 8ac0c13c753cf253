"""The GraphQL types of a game written in its own Python types (``typed.define_game``),
derived from their shapes (``shapes``): the state type ``<Game>State`` (implements
``GameState``) with an object type ``<Game><Class>`` per dataclass inside it, the
``@oneOf`` move input ``<Game>MoveInput`` with one field per move class and an input type
``<Game><Class>Input`` per move class with fields, and an enum ``<Game><Enum>`` per enum.
A dict is a list of entries ``<Game><Class><Field>Entry`` (``key``, ``value``).

Descriptions come from the docstrings (``shapes.docs``). The types are built at run time
from annotation objects, never from strings, so this module may postpone its own.
"""

from __future__ import annotations

import enum
import keyword
import types
from collections.abc import Sequence
from typing import Any, Optional

import strawberry

from tablestate.engine.schema import GameState
from tablestate.engine.shapes import Shape

_SCALAR_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


class _Types:
    """The types of one game, each made once (``prefix``: the game's Pascal-case id)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.named: dict[str, object] = {}  # GraphQL name -> the class it was made from
        self.made: dict[tuple[object, bool], Any] = {}

    def _claim(self, name: str, source: object) -> None:
        if self.named.setdefault(name, source) is not source:
            raise TypeError(f"two types would be named {name}: rename one of the classes")

    def annotation(self, shape: Shape, where: str, is_input: bool) -> Any:
        kind = shape.kind
        if kind in _SCALAR_TYPES:
            return _SCALAR_TYPES[kind]
        if kind == "literal":
            return _SCALAR_TYPES[shape.of[0].kind]
        if kind == "enum":
            return self.enum(shape)
        if kind == "optional":
            return Optional[self.annotation(shape.of[0], where, is_input)]  # noqa: UP045
        if kind == "list":
            # list[...] of a type made at run time (what ``list[t]`` makes, typed)
            return types.GenericAlias(list, (self.annotation(shape.of[0], where, is_input),))
        if kind == "dict":
            if is_input:
                raise TypeError(f"{where}: a move cannot hold a dict; use a list of a dataclass")
            return types.GenericAlias(list, (self.entry(shape, where),))
        return self.object(shape, is_input)

    def enum(self, shape: Shape) -> Any:
        cls = shape.cls
        assert cls is not None and issubclass(cls, enum.Enum)
        if (cls, False) not in self.made:
            name = self.prefix + cls.__name__
            self._claim(name, cls)
            # A copy: the game's own enum stays as it is, whatever other games make of it.
            members = [(m.name, m.value) for m in cls]
            copy = enum.Enum(name, members)  # type: ignore[misc]  # a name made at run time
            self.made[cls, False] = strawberry.enum(copy, description=shape.doc)
        return self.made[cls, False]

    def entry(self, shape: Shape, where: str) -> type:
        name = f"{self.prefix}{where}Entry"
        self._claim(name, (shape, where))
        if (name, False) not in self.made:
            key, value = shape.of
            namespace = {
                "__annotations__": {
                    "key": _SCALAR_TYPES[key.kind],
                    "value": self.annotation(value, f"{where}Value", False),
                },
                "key": strawberry.field(description="The key."),
                "value": strawberry.field(description="Its value."),
            }
            self.made[name, False] = strawberry.type(type(name, (), namespace))
        made: type = self.made[name, False]
        return made

    def object(self, shape: Shape, is_input: bool, name: str = "", root: bool = False) -> type:
        cls = shape.cls
        if (cls, is_input) in self.made and not root:
            made: type = self.made[cls, is_input]
            return made
        assert cls is not None
        name = name or self.prefix + cls.__name__ + ("Input" if is_input else "")
        self._claim(name, (cls, is_input))
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {"__annotations__": annotations, "__module__": cls.__module__}
        for f in shape.fields:
            where = cls.__name__ + _pascal(f.name)
            annotations[f.name] = self.annotation(f.shape, where, is_input)
            if is_input and f.shape.kind == "optional":  # may be left out
                namespace[f.name] = strawberry.field(
                    name=f.key, description=f.doc, default=strawberry.UNSET
                )
            else:
                namespace[f.name] = strawberry.field(name=f.key, description=f.doc)
        bases = (GameState,) if root else ()
        made = type(name, bases, namespace)
        if is_input:
            found = strawberry.input(made, description=shape.doc)
        else:
            found = strawberry.type(made, description=shape.doc)
        self.made[cls, is_input] = found
        return found


def derive(
    game_id: str, game_name: str, view: Shape, moves: Sequence[tuple[str, Shape]]
) -> tuple[type, type]:
    """The game's state type, ``<Game>State``, from the shape of its view, and its
    ``@oneOf`` move input, ``<Game>MoveInput``: a field per move kind, of the kind's input
    type, or ``Boolean`` (taking true) for a move class without fields."""
    types = _Types(_prefix(game_id))
    doc = view.doc or f"{game_name} as the viewer may see it."
    state = types.object(
        Shape("object", cls=view.cls, fields=view.fields, doc=doc),
        is_input=False,
        name=types.prefix + "State",
        root=True,
    )
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__annotations__": annotations}
    for kind, shape in moves:
        attr = kind + "_" if keyword.iskeyword(kind) else kind
        inner: Any = types.object(shape, is_input=True) if shape.fields else bool
        annotations[attr] = Optional[inner]  # noqa: UP045
        assert shape.cls is not None
        doc = shape.doc or f"{shape.cls.__name__}."
        namespace[attr] = strawberry.field(default=strawberry.UNSET, name=kind, description=doc)
    made = type(types.prefix + "MoveInput", (), namespace)
    move_input = strawberry.input(one_of=True, description=f"A move of {game_name}.")(made)
    return state, move_input


def _prefix(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("-"))
