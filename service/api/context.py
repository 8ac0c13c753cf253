"""Per-request (HTTP) or per-connection (WebSocket) context of the GraphQL layer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from tablestate.config import Settings
from tablestate.engine.rights import Caller, Rights, may_watch, rights, watch_refusal
from tablestate.errors import ApiError
from tablestate.hub import Hub
from tablestate.identity import Identity, looks_like_jwt
from tablestate.lobby import LobbyHub
from tablestate.plugins import Registry
from tablestate.ratelimit import Client, Guard
from tablestate.tables import Loaded, TableService
from tablestate.tables.loading import refuse

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
    identity: Identity | None = None  # verifies JWTs (None: signing in is not configured)

    async def authenticate(self, token: str | None) -> Caller | None:
        """The credential of a bearer token: a signed-in user for a JWT, else a table token
        its table knows; None for no token.

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token, or a JWT that
            fails a check (the reason names it); ``UNAVAILABLE`` when neither the store nor
            the issuer's keys can be read.
        """
        if token is not None and looks_like_jwt(token):
            if self.identity is None:
                raise ApiError("UNAUTHENTICATED", "signing in is not configured on this server")
            return await self.identity.verify(token)
        return await self.tables.reads.authenticate(token)


@dataclass
class Context:
    """The caller's token and the replica's services.

    The token is authenticated once (per HTTP request, or per WebSocket at
    ``connection_init``): a table token, or a signed-in user whose sign-in ends at its
    JWT's expiry; what it holds at a table is asked at that table every time (``rights``):
    a connection carries a credential, never a seat."""

    services: Services
    token: str | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    connection_params: dict[str, Any] | None = None
    client: Client | None = None  # who sent it, as the rate limits count (service/ratelimit)
    _credential: Any = _UNRESOLVED

    async def credential(self) -> Caller | None:
        """The caller's credential (None: a spectator), authenticated on first use.

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token.
        """
        if self._credential is _UNRESOLVED:
            self._credential = await self.services.authenticate(self.token)
        return self._credential  # type: ignore[no-any-return]  # a Caller or None by now

    async def rights(self, loaded: Loaded | None) -> Rights:
        """What the caller holds at this table as loaded."""
        return rights(await self.credential(), loaded.table if loaded is not None else None)

    async def viewing(self, loaded: Loaded) -> Rights:
        """What the caller holds at this table, to be shown it.

        Raises:
            ApiError: ``FORBIDDEN`` for a spectator who may not watch it (``may_watch``).
        """
        held = await self.watches(loaded)
        if held is None:
            raise refuse(watch_refusal(loaded.table, self.services.settings.spectators))
        return held

    async def watches(self, loaded: Loaded) -> Rights | None:
        """What the caller holds at this table, or None when it may not watch it."""
        held = await self.rights(loaded)
        return held if may_watch(held, loaded.table, self.services.settings.spectators) else None
