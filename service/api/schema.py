"""Assembles the schema: the core types of API.md plus what the installed games bring
(their state types, and one field each in ``MoveInput``). The root fields are the
module-level resolvers of ``api/resolvers``, composed here in their SDL order.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

from collections.abc import Callable, Sequence
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, QueryDepthLimiter
from strawberry.schema.config import StrawberryConfig
from strawberry.types.base import get_object_definition
from strawberry.types.execution import ExecutionContext

from tablestate.api.checks import Checks
from tablestate.api.errors import classify_all
from tablestate.api.fanout import SharingExecutor
from tablestate.api.resolvers import events, moves, queries, quickplay, tables
from tablestate.config import Settings
from tablestate.metrics import Metrics
from tablestate.plugins import Registry, camel, pascal

Fields = Sequence[tuple[Callable[..., Any], str]]


class TablestateSchema(strawberry.Schema):
    """The schema; every error gets its ``extensions.code`` here (see ``api.errors``)."""

    metrics: Metrics | None = None

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        classify_all(errors, self.metrics)


def _move_input(registry: Registry) -> type:
    games = sorted(registry.games.values(), key=lambda g: g.id)
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for g in games:
        if g.move_input_type is None:
            continue
        name = camel(g.id)
        annotations[name] = g.move_input_type | None
        namespace[name] = strawberry.field(
            default=strawberry.UNSET, description=f"A move of {g.name}."
        )
    if not annotations:
        annotations["noGame"] = bool | None
        namespace["noGame"] = strawberry.field(
            default=strawberry.UNSET, description="Present only while no game is installed."
        )
    namespace["__annotations__"] = annotations
    cls = type("MoveInput", (), namespace)
    return strawberry.input(one_of=True, description="A move: one field per installed game.")(cls)


def _check_names(registry: Registry) -> None:
    for g in registry.games.values():
        for kind, tp in (("State", g.state_type), ("MoveInput", g.move_input_type)):
            if tp is None:
                continue
            definition = get_object_definition(tp, strict=True)
            want = pascal(g.id) + kind
            if definition.name != want:
                raise ValueError(f"game {g.id!r}: its {kind} type must be named {want!r}")


def _root(name: str, kind: Callable[..., Any], fields: Fields) -> type:
    """A root type of these resolvers, in this order (``kind``: ``strawberry.field``,
    ``mutation`` or ``subscription``)."""
    namespace = {fn.__name__: kind(resolver=fn, description=text) for fn, text in fields}
    return strawberry.type(type(name, (), namespace))


def build_schema(
    registry: Registry, settings: Settings | None = None, metrics: Metrics | None = None
) -> TablestateSchema:
    """The schema of the installed plugins."""
    limits = settings or Settings()
    _check_names(registry)
    make_move = moves.make_move_resolver(_move_input(registry))
    mutations = (
        *tables.BEFORE_MOVES,
        (make_move, moves.DESCRIPTION),
        *tables.AFTER_MOVES,
        *quickplay.MUTATIONS,
    )
    state_types: Sequence[type] = sorted(
        (g.state_type for g in registry.games.values() if g.state_type is not None),
        key=lambda t: t.__name__,
    )

    class _Checks(Checks):
        max_tokens = limits.max_tokens
        # The limiters build their validation rules as classes per instance; build them
        # once, so that every request validates with the same rules.
        rules = (
            *QueryDepthLimiter(max_depth=limits.max_depth).validation_rules,
            *MaxAliasesLimiter(max_alias_count=limits.max_aliases).validation_rules,
        )
        max_aliases = limits.max_aliases
        max_cost = limits.max_cost
        max_mutations = limits.max_mutations

    _Checks.metrics = metrics = metrics or Metrics()
    schema = TablestateSchema(
        query=_root("Query", strawberry.field, queries.FIELDS),
        mutation=_root("Mutation", strawberry.mutation, mutations),
        subscription=_root(
            "Subscription", strawberry.subscription, (*events.FIELDS, *quickplay.SUBSCRIPTIONS)
        ),
        types=list(state_types),
        config=StrawberryConfig(auto_camel_case=True),
        execution_context_class=SharingExecutor,
        extensions=[_Checks],
    )
    schema.metrics = metrics
    return schema
