"""The GraphQL types of API.md: thin adapters over the engine's values, by family.

- ``games``: ``Game``, ``HouseRule``, ``Plugin``;
- ``seats``: ``Seat``, ``SeatKind``, ``GameResult``;
- ``tables``: ``Table``, ``TableEvent``, ``TableStatus``, ``TableConnection``;
- ``viewers``: ``Viewer`` and the signed-in ``User``;
- ``payloads``: the mutations' answers and ``LobbyEvent``.
"""

from service.api.types.games import Game, HouseRule, Plugin
from service.api.types.payloads import (
    CreateTablePayload,
    JoinTablePayload,
    LobbyEvent,
    MovePayload,
    RematchPayload,
)
from service.api.types.seats import GameResult, Seat, SeatKind
from service.api.types.tables import (
    MAX_EVENTS,
    PageInfo,
    Table,
    TableConnection,
    TableEvent,
    TableStatus,
    table_of,
    visible_events,
)
from service.api.types.viewers import User, Viewer

__all__ = [
    "MAX_EVENTS",
    "CreateTablePayload",
    "Game",
    "GameResult",
    "HouseRule",
    "JoinTablePayload",
    "LobbyEvent",
    "MovePayload",
    "PageInfo",
    "Plugin",
    "RematchPayload",
    "Seat",
    "SeatKind",
    "Table",
    "TableConnection",
    "TableEvent",
    "TableStatus",
    "User",
    "Viewer",
    "table_of",
    "visible_events",
]
