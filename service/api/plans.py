"""Plans of the documents ``api/direct.py`` runs: which fields a selection reads, how each
is read off the object its parent's resolver returned (as the schema declares it), and how
the result is completed, as graphql-core would.

What an operation must be to have a plan (``plan_of``): one operation, without directives,
whose one root field is ``makeMove`` or ``tableEvents`` (aliases are fine); below it fields
only (no fragments, directives or arguments, no response key twice), each read as the
schema declares it: the object's attribute, or the field's own resolver when it needs
nothing but the object (``reader``). A field whose resolver is async or takes ``info`` or
arguments needs the executor; there is no second list of fields here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Final

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
)

from tablestate.api.upstream import graphql_schema

ROOTS: Final = {OperationType.MUTATION: "makeMove", OperationType.SUBSCRIPTION: "tableEvents"}
SLOW: Final = object()  # a document the executor runs


def reader(
    schema: Any, type_name: str, field_name: str
) -> tuple[Callable[[Any], Any], bool] | None:
    """How the executor reads a field of a type off the object its parent's resolver
    returned, as the schema declares it, and whether it is plain data (no resolver); None
    when only the executor can (an async resolver, or one that takes arguments, ``info``
    or the root)."""
    definition = schema.get_type_by_name(type_name)
    fields = getattr(definition, "fields", None) or ()
    names = schema.config.name_converter
    for f in fields:
        if names.get_graphql_name(f) != field_name:
            continue
        resolver = f.base_resolver
        if resolver is None:
            return attrgetter(f.python_name), True
        takes = resolver.arguments or resolver.info_parameter or resolver.root_parameter
        if resolver.is_async or takes or resolver.parent_parameter:
            return None
        return resolver.wrapped_func, False
    return None


@dataclass(frozen=True, slots=True)
class Field:
    """One selected field: its response key, how to read it, and either how to serialize
    it (a leaf) or the plan of its selection (an object, or a list of objects)."""

    key: str
    read: Callable[[Any], Any]
    serialize: Callable[[Any], Any] | None
    inner: tuple[Field, ...] | None
    is_list: bool
    non_null: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """A document that runs here."""

    document: DocumentNode
    operation: OperationDefinitionNode
    root: FieldNode
    root_key: str
    fields: tuple[Field, ...]
    # Whether the selection reads nothing but the event's own fields (its results are
    # then the same for every viewer who sees the same redacted data: api/fanout.py).
    events_only: bool
    # Coerced arguments and cost by variables (all plain values): coercion depends on
    # nothing else, and a game's moves repeat.
    prepared: dict[Any, tuple[dict[str, Any], int]] = field(default_factory=dict)
    share: object = field(default_factory=object)  # its results' key on a delivery


def _unwrap(tp: Any) -> tuple[Any, bool, bool]:
    """The named type of an output type, whether it is non-null, whether a list (of a
    non-null or nullable named type)."""
    non_null = isinstance(tp, GraphQLNonNull)
    if non_null:
        tp = tp.of_type
    is_list = isinstance(tp, GraphQLList)
    if is_list:
        tp = tp.of_type
        if isinstance(tp, GraphQLNonNull):
            tp = tp.of_type
    return tp, non_null, is_list


def _selection(
    schema: Any, parent: GraphQLObjectType, node: FieldNode
) -> tuple[tuple[Field, ...], bool] | None:
    """The plan of a field's selection on ``parent`` and whether it reads plain data only,
    or None when it has anything that only the full executor handles."""
    if node.selection_set is None:
        return None
    fields: list[Field] = []
    keys: set[str] = set()
    data_only = True
    for selection in node.selection_set.selections:
        if not isinstance(selection, FieldNode) or selection.directives or selection.arguments:
            return None
        name = selection.name.value
        key = selection.alias.value if selection.alias else name
        if key in keys:
            return None
        keys.add(key)
        if name == "__typename":
            fields.append(Field(key, _constant(parent.name), str, None, False, True))
            continue
        definition = parent.fields.get(name)
        found = reader(schema, parent.name, name) if definition is not None else None
        if definition is None or found is None:
            return None
        read, data = found
        data_only = data_only and data
        named, non_null, is_list = _unwrap(definition.type)
        if selection.selection_set is None:
            if is_list or isinstance(named, GraphQLObjectType):
                return None
            fields.append(Field(key, read, named.serialize, None, False, non_null))
            continue
        if not isinstance(named, GraphQLObjectType):
            return None
        inner = _selection(schema, named, selection)
        if inner is None:
            return None
        fields.append(Field(key, read, None, inner[0], is_list, non_null))
        data_only = data_only and inner[1]
    return tuple(fields), data_only


def _constant(value: str) -> Callable[[Any], str]:
    return lambda _obj: value


def plan_of(schema: Any, document: DocumentNode, operation_name: str | None) -> Any:
    """The plan of a document that passed the checks, or ``SLOW``."""
    graphql: GraphQLSchema = graphql_schema(schema)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) != len(document.definitions):
        return SLOW  # fragments defined (even unused ones go the slow path)
    if operation_name is None:
        chosen = operations if len(operations) == 1 else []
    else:
        chosen = [o for o in operations if o.name and o.name.value == operation_name]
    if len(chosen) != 1:
        return SLOW
    operation = chosen[0]
    root_name = ROOTS.get(operation.operation)
    roots = operation.selection_set.selections
    if root_name is None or operation.directives or len(roots) != 1:
        return SLOW
    root = roots[0]
    if not isinstance(root, FieldNode) or root.directives or root.name.value != root_name:
        return SLOW
    parent = graphql.get_root_type(operation.operation)
    if parent is None or root_name not in parent.fields:
        return SLOW
    named, _, _ = _unwrap(parent.fields[root_name].type)
    found = _selection(schema, named, root) if isinstance(named, GraphQLObjectType) else None
    if found is None:
        return SLOW
    fields, data_only = found
    events_only = named.name == "TableEvent" and data_only
    key = root.alias.value if root.alias else root_name
    return Plan(document, operation, root, key, fields, events_only)


def render(fields: tuple[Field, ...], value: Any) -> dict[str, Any]:
    """The result of a selection on an object, as graphql-core would complete it."""
    out: dict[str, Any] = {}
    for f in fields:
        v = f.read(value)
        if v is None:
            if f.non_null:
                raise TypeError(f"non-null field {f.key!r} resolved to null")
            out[f.key] = None
        elif f.inner is None:
            out[f.key] = f.serialize(v)  # type: ignore[misc]  # a leaf has one
        elif f.is_list:
            out[f.key] = [render(f.inner, item) for item in v]
        else:
            out[f.key] = render(f.inner, v)
    return out
