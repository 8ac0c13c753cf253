"""``makeMove``: one implementation (``make_move_payload``), which the schema's field and
``api/direct.py`` both run.

The field's resolver receives the move as Strawberry's input objects; the direct path, as
graphql-core coerced it. Both hand ``make_move_payload`` the JSON a client would send.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import enum
from collections.abc import Callable
from typing import Any

import strawberry
from strawberry.types.base import get_object_definition

from tablestate.api.context import Context
from tablestate.api.types import MovePayload, TableEvent, table_of
from tablestate.engine.rights import rights

Info = strawberry.Info[Context, None]
DESCRIPTION = "Make a move as your seat."


def move_to_json(value: Any, schema: strawberry.Schema) -> Any:
    """A Strawberry input value as the JSON a client would send (GraphQL field names)."""
    definition = get_object_definition(value) if not isinstance(value, type) else None
    if definition is not None:
        out: dict[str, Any] = {}
        for f in definition.fields:
            v = getattr(value, f.python_name, strawberry.UNSET)
            if v is strawberry.UNSET or v is None:
                continue
            out[schema.config.name_converter.get_graphql_name(f)] = move_to_json(v, schema)
        return out
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [move_to_json(v, schema) for v in value]
    return value


def plain_input(value: Any) -> Any:
    """An input value as graphql-core coerced it (GraphQL field names already) as the JSON
    a client would send: what ``move_to_json`` makes of Strawberry's objects."""
    if isinstance(value, dict):
        return {
            k: plain_input(v)
            for k, v in value.items()
            if v is not None and v is not strawberry.UNSET
        }
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list | tuple):
        return [plain_input(v) for v in value]
    return value


async def make_move_payload(
    context: Context,
    table_id: str,
    as_json: dict[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
) -> MovePayload:
    """``makeMove`` with its move as JSON (``{"<game field>": <that game's move>}``)."""
    caller = await context.credential()
    game_field, inner = next(iter(as_json.items()), (None, None))
    game_id = context.services.registry.game_of_field(game_field)
    loaded, events = await context.services.tables.moves.make(
        caller,
        table_id,
        game_id,
        inner or {},
        expected_version=expected_version,
        idempotency_key=idempotency_key,
    )
    held = rights(caller, loaded.table)
    return MovePayload(
        table=table_of(loaded, held),
        events=[TableEvent.of(e, loaded.table.id, held.seat) for e in events],
    )


def make_move_resolver(move_input: type) -> Callable[..., Any]:
    """The ``makeMove`` field's resolver, for the ``MoveInput`` of the installed games."""

    async def make_move(
        info: Info,
        table_id: strawberry.ID,
        move: Any,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> MovePayload:
        as_json = move_to_json(move, info.schema)
        return await make_move_payload(
            info.context, str(table_id), as_json, expected_version, idempotency_key
        )

    make_move.__annotations__["move"] = move_input
    return make_move
