"""GraphQL types of quick play (docs/clients.md, "Quick play"): a ticket, what its holder is
told while it waits, and how it ends.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import enum
from datetime import UTC, datetime

import strawberry

from tablestate.engine.matching import Ticket


@strawberry.enum(description="Where a quick play ticket is.")
class QuickPlayStatus(enum.Enum):
    WAITING = "WAITING"
    MATCHED = "MATCHED"
    CANCELLED = "CANCELLED"
    EXPIRED = "EXPIRED"


@strawberry.input(description="How many players the table may have (null: the game's own).")
class QuickPlayPlayers:
    min: int | None = strawberry.field(default=None, description="At least this many.")
    max: int | None = strawberry.field(default=None, description="At most this many.")


@strawberry.input(description="Whether bots fill the seats left once the wait is over.")
class QuickPlayBots:
    allowed: bool = strawberry.field(default=True, description="Bots may fill seats.")
    after_seconds: int = strawberry.field(
        default=30,
        description="The wait (0 to 300 s): after it the table starts with at least the "
        "minimum, bots filling the seats left up to the maximum where allowed.",
    )


@strawberry.type(description="A wish to play now, waiting to be matched.")
class QuickPlayTicket:
    id: strawberry.ID = strawberry.field(
        description="The ticket: pass it to quickPlayEvents and cancelQuickPlay. Keep it "
        "secret: an anonymous player's seat token is told to whoever listens with it."
    )
    game_id: strawberry.ID = strawberry.field(description="The game.")
    house_rules: list[strawberry.ID] = strawberry.field(description="The house rules asked.")
    min_players: int = strawberry.field(description="The fewest players it plays with.")
    max_players: int = strawberry.field(description="The most players it plays with.")
    created_at: datetime = strawberry.field(description="When it was made.")

    @classmethod
    def of(cls, ticket: Ticket) -> "QuickPlayTicket":
        return cls(
            id=strawberry.ID(ticket.id),
            game_id=strawberry.ID(ticket.game_id),
            house_rules=[strawberry.ID(r) for r in ticket.house_rules],
            min_players=ticket.min,
            max_players=ticket.max,
            created_at=datetime.fromtimestamp(ticket.at, UTC),
        )


@strawberry.type(
    description="What a ticket's holder is told: WAITING (with its place) whenever that "
    "changes, then once MATCHED, CANCELLED or EXPIRED, after which the stream ends."
)
class QuickPlayEvent:
    status: QuickPlayStatus = strawberry.field(description="Where the ticket is.")
    ticket: QuickPlayTicket = strawberry.field(description="The ticket.")
    ahead: int | None = strawberry.field(
        default=None, description="WAITING: tickets of the same wish made before it."
    )
    estimated_wait_seconds: int | None = strawberry.field(
        default=None,
        description="WAITING: seconds until it starts at the latest, with bots (null: "
        "without bots, it waits for players).",
    )
    table_id: strawberry.ID | None = strawberry.field(
        default=None, description="MATCHED: the table, started."
    )
    seat: int | None = strawberry.field(default=None, description="MATCHED: your seat.")
    player_token: str | None = strawberry.field(
        default=None,
        description="MATCHED, for an anonymous player: the seat's token (shown once per "
        "listener, as joinTable's). A signed-in user's seat is bound to the user: null.",
    )
