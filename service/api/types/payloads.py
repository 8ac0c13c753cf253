"""GraphQL types of the mutations' answers and of the lobby's events.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import strawberry

from tablestate.api.context import Context
from tablestate.api.types.tables import Table, TableEvent, TableStatus, table_of
from tablestate.engine.rights import SPECTATOR
from tablestate.engine.schema import resolver

Info = strawberry.Info[Context, None]


@strawberry.type(description="A new table and the host's token (shown once).")
class CreateTablePayload:
    table: Table = strawberry.field(description="The table.")
    host_token: str = strawberry.field(description="The host's token; keep it secret.")
    join_code: str | None = strawberry.field(
        default=None, description="A private table's join code (null: a public table)."
    )


@strawberry.type(description="The rematch table and your tokens for it.")
class RematchPayload:
    table: Table = strawberry.field(description="The new table (OPEN).")
    seat: int | None = strawberry.field(description="Your seat at it (null: not seated).")
    player_token: str | None = strawberry.field(
        description="Your seat's new token (also in your private part of `table.rematch`)."
    )
    host_token: str | None = strawberry.field(
        description="The new table's host token, for the host only."
    )


@strawberry.type(description="Your seat and its token (shown once).")
class JoinTablePayload:
    table: Table = strawberry.field(description="The table.")
    seat: int = strawberry.field(description="Your seat index.")
    player_token: str = strawberry.field(description="Your seat's token; keep it secret.")


@strawberry.type(description="The table after a move and the events the move made.")
class MovePayload:
    table: Table = strawberry.field(description="The table after the move.")
    events: list[TableEvent] = strawberry.field(description="The move's events, redacted.")


@strawberry.type(description="A change in the list of open public tables.")
class LobbyEvent:
    type: str = strawberry.field(
        description="`table.listed` (the snapshot), `lobby.live` (the snapshot is complete), "
        "then `table.opened`, `table.updated` or `table.closed`."
    )
    table_id: strawberry.ID | None = strawberry.field(description="The table (null: lobby.live).")
    game_id: strawberry.ID | None = strawberry.field(description="Its game.")
    status: TableStatus | None = strawberry.field(description="Its status at the change.")

    @resolver(
        description="The table now, as a spectator sees it (null: gone, or not yours to see)."
    )
    async def table(self, info: Info) -> Table | None:
        if self.table_id is None:
            return None
        loaded = await info.context.services.tables.reads.load(str(self.table_id))
        if loaded is None or await info.context.watches(loaded) is None:
            return None
        return table_of(loaded, SPECTATOR)
