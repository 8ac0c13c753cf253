"""Per-request (HTTP) or per-connection (WebSocket) context of the GraphQL layer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from service.config import Settings
from service.hub import Hub
from service.lobby import LobbyHub
from service.plugins import Registry
from service.ratelimit import Client, Guard
from service.tables import TableService, Viewer

_UNRESOLVED: Any = object()


@dataclass
class Services:
    """What every request of one replica shares."""

    settings: Settings
    registry: Registry
    tables: TableService
    hub: Hub
    guard: Guard | None = None  # rate limits and connection caps (None: none)
    lobby: LobbyHub | None = None  # lobbyEvents' fan-out (made on first use when None)


@dataclass
class Context:
    """The caller's token and the replica's services; the viewer is resolved lazily."""

    services: Services
    token: str | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    connection_params: dict[str, Any] | None = None
    client: Client | None = None  # who sent it, as the rate limits count (service/ratelimit)
    _viewer: Any = _UNRESOLVED

    async def viewer(self) -> Viewer | None:
        """Who the token says the caller is (None: a spectator).

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token.
        """
        if self._viewer is _UNRESOLVED:
            self._viewer = await self.services.tables.resolve_token(self.token)
        return self._viewer  # type: ignore[no-any-return]

    async def seat_at(self, table_id: str) -> int | None:
        """The caller's seat at this table, if any."""
        viewer = await self.viewer()
        if viewer is None or viewer.table_id != table_id:
            return None
        return viewer.seat
