"""A game's own Python types read as data: the shape of a dataclass (its fields, their
types and their documentation), and from it the JSON of its values, both ways, and the
check of JSON that a client sent.

The JSON of a value is what a frontend sees and sends: a dataclass is an object keyed by
its fields' GraphQL names (camelCase), a tuple or list a list, an enum its member's name,
a dict a list of ``{"key", "value"}`` entries (GraphQL has no maps). The store keeps the
same JSON. Supported types: ``str``, ``int``, ``float``, ``bool``, ``Literal`` of one of
these, ``Enum``, ``X | None``, ``tuple[X, ...]``, ``list[X]``, ``Sequence[X]``, ``dict``
and ``Mapping`` with ``str`` or ``int`` keys, and dataclasses of these (not recursive).

Pure: no Strawberry here; ``typed_schema`` derives the GraphQL types from the same shapes.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal, TypeAlias

JSON: TypeAlias = Any
Kind: TypeAlias = Literal[
    "str", "int", "float", "bool", "literal", "enum", "optional", "list", "dict", "object"
]
_SCALARS: Final[dict[object, Kind]] = {str: "str", int: "int", float: "float", bool: "bool"}
_LISTS: Final = (tuple, list, collections.abc.Sequence)
_DICTS: Final = (dict, collections.abc.Mapping)
_HEADERS: Final = ("Args:", "Attributes:", "Fields:")


def camel(name: str) -> str:
    """A Python name as its GraphQL name: ``my_hand`` -> ``myHand`` (as Strawberry does)."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() if part else "_" for part in rest)


def kind_name(cls: type) -> str:
    """The move kind of a move class: its name with a lower-case first letter
    (``PlayCard`` -> ``playCard``)."""
    return cls.__name__[:1].lower() + cls.__name__[1:]


@dataclass(frozen=True, slots=True)
class FieldShape:
    """One field of a dataclass: its Python ``name``, its JSON and GraphQL ``key``, its
    shape, its documentation, and its default (``dataclasses.MISSING``: none)."""

    name: str
    key: str
    shape: Shape
    doc: str | None
    default: Any = dataclasses.field(default_factory=lambda: dataclasses.MISSING, compare=False)


@dataclass(frozen=True, slots=True)
class Shape:
    """A type as data. ``of``: the inner shapes (an optional's, a list's item, a dict's key
    and value); ``cls``: the enum or dataclass; ``values``: a ``Literal``'s values;
    ``fields``: a dataclass's; ``doc``: a dataclass's or an enum's summary."""

    kind: Kind
    of: tuple[Shape, ...] = ()
    cls: type | None = None
    values: tuple[Any, ...] = ()
    fields: tuple[FieldShape, ...] = ()
    doc: str | None = None
    as_tuple: bool = True


def docs(cls: type) -> tuple[str | None, dict[str, str]]:
    """A class's summary and its fields' descriptions, from its Google-style docstring
    (the ``Args:`` or ``Attributes:`` section; ``a, b: text`` documents both)."""
    doc = cls.__doc__
    if not doc or doc.startswith(f"{cls.__name__}("):  # dataclass's made-up docstring
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or line.strip() in _HEADERS:
            break
        summary.append(line.strip())
    found: dict[str, str] = {}
    inside, base, current = False, -1, list[str]()
    for line in lines:
        text, indent = line.strip(), len(line) - len(line.lstrip())
        if text in _HEADERS:
            inside, base, current = True, -1, []
        elif not inside or not text:
            continue
        elif indent == 0:
            inside = False
        elif (base < 0 or indent == base) and ":" in text:
            base = indent
            names, _, said = text.partition(":")
            current = [n.strip() for n in names.split(",")]
            for n in current:
                found[n] = said.strip()
        else:
            for n in current:
                found[n] = f"{found[n]} {text}".strip()
    described = {n: text[:1].upper() + text[1:] for n, text in found.items()}
    return (" ".join(summary) or None), described


def shape_of(tp: Any, where: str = "") -> Shape:
    """The shape of a type annotation (``where``: what names it, for the error).

    Raises:
        TypeError: a type the derivation does not support, naming where it is.
    """
    return _shape(tp, where or getattr(tp, "__name__", repr(tp)), ())


def _shape(tp: Any, where: str, seen: tuple[type, ...]) -> Shape:
    if tp in _SCALARS:
        return Shape(_SCALARS[tp])
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        kinds = {type(v) for v in args}
        if len(kinds) != 1 or next(iter(kinds)) not in _SCALARS:
            raise TypeError(f"{where}: a Literal's values are all str, all int or all bool")
        return Shape("literal", (Shape(_SCALARS[next(iter(kinds))]),), values=args)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return Shape("enum", cls=tp, doc=docs(tp)[0])
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            raise TypeError(f"{where}: a union is only `X | None`")
        return Shape("optional", (_shape(rest[0], where, seen),))
    if origin in _LISTS:
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if not args or len(set(args)) != 1:
                raise TypeError(f"{where}: a tuple is `tuple[X, ...]` or of one type")
        inner = _shape(args[0], f"{where}[]", seen)
        return Shape("list", (inner,), as_tuple=origin is not list)
    if origin in _DICTS:
        if args[0] not in (str, int):
            raise TypeError(f"{where}: a dict's keys are str or int")
        key, value = _shape(args[0], where, seen), _shape(args[1], f"{where}[]", seen)
        return Shape("dict", (key, value))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if tp in seen:
            raise TypeError(f"{where}: {tp.__name__} contains itself; not supported")
        return _object(tp, (*seen, tp))
    raise TypeError(f"{where}: {tp!r} is not a supported type (module docstring of shapes)")


def _object(cls: type, seen: tuple[type, ...]) -> Shape:
    hints = typing.get_type_hints(cls)
    summary, described = docs(cls)
    fields = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        default = f.default
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        doc = f.metadata.get("description", described.get(f.name))
        where = f"{cls.__name__}.{f.name}"
        fields.append(FieldShape(f.name, camel(f.name), _shape(hints[f.name], where, seen), doc,
                                 default))  # fmt: skip
    return Shape("object", cls=cls, fields=tuple(fields), doc=summary)


# The JSON of values, both ways, compiled once per shape.

Encode: TypeAlias = Callable[[Any], JSON]
Check: TypeAlias = Callable[[JSON, str], str | None]


def _same(value: Any) -> Any:
    return value


@cache
def encoder(shape: Shape) -> Encode:
    """A function from a value of ``shape`` to its JSON."""
    kind = shape.kind
    if kind == "enum":
        return lambda v: v.name
    if kind == "optional":
        inner = encoder(shape.of[0])
        return lambda v: None if v is None else inner(v)
    if kind == "list":
        inner = encoder(shape.of[0])
        return list if inner is _same else (lambda v: [inner(x) for x in v])
    if kind == "dict":
        key, value = encoder(shape.of[0]), encoder(shape.of[1])
        return lambda v: [{"key": key(k), "value": value(x)} for k, x in v.items()]
    if kind == "object":
        parts = [(f.name, f.key, encoder(f.shape)) for f in shape.fields]
        return lambda v: {key: enc(getattr(v, name)) for name, key, enc in parts}
    return _same


@cache
def decoder(shape: Shape) -> Encode:
    """A function from JSON ``encoder`` wrote (or ``checker`` passed) to the value."""
    kind = shape.kind
    if kind == "float":
        return float
    if kind == "enum":
        cls = shape.cls
        assert cls is not None and issubclass(cls, enum.Enum)  # what an enum's shape holds
        members = cls.__members__
        return lambda v: members[v]
    if kind == "optional":
        inner = decoder(shape.of[0])
        return lambda v: None if v is None else inner(v)
    if kind == "list":
        inner, seq = decoder(shape.of[0]), tuple if shape.as_tuple else list
        return lambda v: seq(inner(x) for x in v)
    if kind == "dict":
        key, value = decoder(shape.of[0]), decoder(shape.of[1])
        return lambda v: {key(e["key"]): value(e["value"]) for e in v}
    if kind == "object":
        parts = [(f.name, f.key, decoder(f.shape), f.default) for f in shape.fields]
        cls = shape.cls
        assert cls is not None

        def obj(v: Mapping[str, Any]) -> Any:
            given = {n: dec(v[k]) if k in v else d for n, k, dec, d in parts}
            return cls(**{n: x for n, x in given.items() if x is not dataclasses.MISSING})

        return obj
    return _same


_JSON_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "str": (str,), "int": (int,), "float": (int, float), "bool": (bool,),
}  # fmt: skip


@cache
def checker(shape: Shape) -> Check:
    """A function ``(json, path) -> reason or None``: whether JSON from a client is a value
    of ``shape``: every field there (an optional one may be left out), none unknown, each
    of its type, a ``Literal``'s or an enum's value one of its own."""
    kind = shape.kind
    if kind in _JSON_TYPES:
        ok, word = _JSON_TYPES[kind], {"str": "a string", "bool": "true or false"}
        name = word.get(kind, "a number" if kind == "float" else "a whole number")

        def scalar(v: JSON, p: str) -> str | None:
            if isinstance(v, ok) and (kind == "bool" or not isinstance(v, bool)):
                return None
            return f"{p} must be {name}"

        return scalar
    if kind == "literal":
        values, said = shape.values, ", ".join(repr(x) for x in shape.values)
        return lambda v, p: (
            None
            if any(type(v) is type(x) and v == x for x in values)
            else f"{p} must be one of {said}"
        )
    if kind == "enum":
        cls = shape.cls
        assert cls is not None and issubclass(cls, enum.Enum)  # what an enum's shape holds
        members = cls.__members__
        said = ", ".join(members)
        return lambda v, p: None if v in members else f"{p} must be one of {said}"
    if kind == "optional":
        inner = checker(shape.of[0])
        return lambda v, p: None if v is None else inner(v, p)
    if kind == "list":
        inner = checker(shape.of[0])
        return lambda v, p: (
            f"{p} must be a list"
            if not isinstance(v, list | tuple)
            else next((r for i, x in enumerate(v) if (r := inner(x, f"{p}[{i}]"))), None)
        )
    if kind == "dict":
        key, value = (
            FieldShape("key", "key", shape.of[0], None),
            FieldShape("value", "value", shape.of[1], None),
        )
        return checker(Shape("list", (Shape("object", fields=(key, value)),)))
    return _object_checker(shape)


def _may_lack(f: FieldShape) -> bool:
    return f.shape.kind == "optional" or f.default is not dataclasses.MISSING


def _object_checker(shape: Shape) -> Check:
    parts = [(f.key, checker(f.shape), _may_lack(f)) for f in shape.fields]
    known = {f.key for f in shape.fields}

    def check(v: JSON, p: str) -> str | None:
        if not isinstance(v, Mapping):
            return f"{p} must be an object"
        unknown = sorted(str(k) for k in v if k not in known)
        if unknown:
            return f"{p} has no field {unknown[0]!r}"
        for key, inner, optional in parts:
            if key not in v:
                if optional:
                    continue
                return f"{p}.{key} is missing"
            reason = inner(v[key], f"{p}.{key}")
            if reason is not None:
                return reason
        return None

    return check
