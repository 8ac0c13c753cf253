"""The GraphQL types of API.md: thin adapters over the engine's values, by family.

- ``games``: ``Game``, ``HouseRule``, ``Plugin``;
- ``seats``: ``Seat``, ``SeatKind``, ``BotLevel``, ``GameResult``;
- ``nodes``: Relay's ``Node`` interface and ``PageInfo``;
- ``tables``: ``Table``, ``TableEvent``, ``TableStatus`` and their connections;
- ``viewers``: ``Viewer`` and the signed-in ``User``;
- ``payloads``: the mutations' answers and ``LobbyEvent``.
"""

from tablestate.api.types.games import Game, HouseRule, Plugin
from tablestate.api.types.nodes import Node, PageInfo
from tablestate.api.types.payloads import (
    CreateTablePayload,
    JoinTablePayload,
    LobbyEvent,
    MovePayload,
    RematchPayload,
)
from tablestate.api.types.seats import BotLevel, GameResult, Seat, SeatKind
from tablestate.api.types.tables import (
    MAX_EVENTS,
    Table,
    TableConnection,
    TableEdge,
    TableEvent,
    TableEventConnection,
    TableEventEdge,
    TableStatus,
    seats_of,
    table_of,
    visible_events,
)
from tablestate.api.types.viewers import User, Viewer

__all__ = [
    "MAX_EVENTS",
    "BotLevel",
    "CreateTablePayload",
    "Game",
    "GameResult",
    "HouseRule",
    "JoinTablePayload",
    "LobbyEvent",
    "MovePayload",
    "Node",
    "PageInfo",
    "Plugin",
    "RematchPayload",
    "Seat",
    "SeatKind",
    "Table",
    "TableConnection",
    "TableEdge",
    "TableEvent",
    "TableEventConnection",
    "TableEventEdge",
    "TableStatus",
    "User",
    "Viewer",
    "seats_of",
    "table_of",
    "visible_events",
]
