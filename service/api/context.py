"""Per-request (HTTP) or per-connection (WebSocket) context of the GraphQL layer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from service.config import Settings
from service.engine.rights import Credential, Rights, rights
from service.hub import Hub
from service.lobby import LobbyHub
from service.plugins import Registry
from service.ratelimit import Client, Guard
from service.tables import Loaded, TableService

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
    """The caller's token and the replica's services.

    The token is authenticated once (per HTTP request, or per WebSocket at
    ``connection_init``); what it holds at a table is asked at that table every time
    (``rights``): a connection carries a credential, never a seat."""

    services: Services
    token: str | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    connection_params: dict[str, Any] | None = None
    client: Client | None = None  # who sent it, as the rate limits count (service/ratelimit)
    _credential: Any = _UNRESOLVED

    async def credential(self) -> Credential | None:
        """The caller's credential (None: a spectator), authenticated on first use.

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token.
        """
        if self._credential is _UNRESOLVED:
            self._credential = await self.services.tables.reads.authenticate(self.token)
        return self._credential  # type: ignore[no-any-return]

    async def rights(self, loaded: Loaded | None) -> Rights:
        """What the caller holds at this table as loaded."""
        return rights(await self.credential(), loaded.table if loaded is not None else None)
