"""Table life around the game: chat, presence, rematches, private tables, the host's
lobby operations (options, kicks, cancelling) and the lobby's notices.

``TableService`` inherits these (like ``BotDriver``). Chat and presence are events without
game state: they are appended at the table's current version (``StateStore.append``) and
never change it. Everything else is an ordinary version-checked commit.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from service.engine import chat as chat_rules
from service.engine import fairness
from service.engine import lobby as lobby_rules
from service.engine import table as eng
from service.engine.game import Rejected
from service.engine.rights import ELSEWHERE, Credential, known_check, rights, token_hash
from service.errors import ApiError
from service.store.base import (
    SPECTATORS,
    NewEvent,
    StoredEvent,
    StoreUnavailable,
    TableExists,
    TableMeta,
)

if TYPE_CHECKING:
    from service.tables import Loaded, TableService

log = logging.getLogger("tablestate.social")

JOIN_CODE_BYTES: Final = 6  # 8 URL-safe characters


def _mac(secret: bytes, *parts: str) -> bytes:
    return hmac.new(secret, "|".join(parts).encode(), hashlib.sha256).digest()


def lobby_notice(kind: str, table: eng.Table) -> str:
    """A lobby notice as published: ``table.opened``, ``table.updated`` or
    ``table.closed`` (with the status it left OPEN for)."""
    return json.dumps(
        {"type": kind, "tableId": table.id, "gameId": table.game_id, "status": table.status},
        separators=(",", ":"),
    )


class TableSocial:
    """Chat, presence, rematches and the host's lobby operations of ``TableService``."""

    _replica: str
    _present: dict[tuple[str, int], int]
    _presence_task: asyncio.Task[None] | None

    def _init_social(self) -> None:
        self._replica = uuid.uuid4().hex  # this process's presence entries
        self._present = {}  # (table, seat) -> open subscriptions here
        self._presence_task = None

    # -- appends (chat, presence) -------------------------------------------------

    async def _say(
        self: TableService, table_id: str, event: NewEvent, table: eng.Table | None = None
    ) -> StoredEvent:
        """Append an event at the table's version (``table``: the table as loaded for it,
        handed to the fan-out when the event is at its version)."""
        stored = await self._store_call(self.store.append(table_id, [event]))
        if not stored:
            raise ApiError("NOT_FOUND", "no such table")
        if self.on_commit is not None:
            same = table is not None and table.version == stored[-1].version
            self.on_commit(table_id, stored, table if same else None)
        return stored[0]  # type: ignore[no-any-return]

    async def chat(
        self: TableService,
        caller: Credential | None,
        table_id: str,
        text: str,
        name: str | None,
        address: str,
    ) -> StoredEvent:
        """A chat message: seats' to everyone, others' (spectators, a host without a seat)
        to viewers without a seat only."""
        loaded = await self.must_load(table_id)
        held = rights(caller, loaded.table)
        if held.standing == ELSEWHERE:
            raise ApiError("FORBIDDEN", "this token is for another table")
        refused = known_check(held)
        if refused is not None:
            raise ApiError(refused.code, refused.reason)
        clean = chat_rules.clean_text(text)
        if clean is None:
            raise ApiError(
                "BAD_INPUT",
                f"a message is 1 to {chat_rules.MAX_CHAT} characters, without control characters",
            )
        seat = held.seat
        data: dict[str, Any] = {"text": clean}
        if seat is not None:
            data["name"] = loaded.table.seats[seat].name
            key, kind, audience = f"{seat}", chat_rules.SEAT_MESSAGE, None
        else:
            who = eng.clean_name(name) if name is not None else None
            if who is None:
                raise ApiError(
                    "BAD_INPUT", f"a spectator's message needs a name of 1 to {eng.MAX_NAME} "
                    "printable characters",
                )  # fmt: skip
            data["name"] = who
            if held.host:  # the host, without a seat
                data["host"] = True
                key = "host"
            else:
                key = "a:" + hashlib.sha256(address.encode()).hexdigest()[:24]
            kind, audience = chat_rules.SPECTATOR_MESSAGE, SPECTATORS
        if self.settings.chat_rate > 0:
            wait = await self._store_call(
                self.store.rate_limit(
                    f"chat:{table_id}:{key}", self.settings.chat_rate, self.settings.chat_burst
                )
            )
            if wait > 0:
                raise ApiError("RATE_LIMITED", f"too many messages; retry in {wait:.2f} s")
        event = NewEvent(kind, self._now(), data, seat, {}, audience)
        return await self._say(table_id, event, loaded.table)

    def _now(self: TableService) -> str:
        from service.tables import now_iso

        return now_iso(self.clock)

    # -- presence -----------------------------------------------------------------

    async def connected(self: TableService, table_id: str) -> frozenset[int]:
        """The seats with an open subscription on any replica."""
        return await self._store_call(self.store.connected(table_id))  # type: ignore[no-any-return]

    @contextlib.asynccontextmanager
    async def present(self: TableService, table_id: str, seat: int | None) -> AsyncIterator[None]:
        """While the block runs, ``seat`` counts as connected (nothing for None). Best
        effort: presence never refuses or ends a subscription."""
        if seat is None:
            yield
            return
        key = (table_id, seat)
        self._present[key] = self._present.get(key, 0) + 1
        if self._present[key] == 1:
            await self._mark(table_id, seat, True)
        if self._presence_task is None or self._presence_task.done():
            self._presence_task = asyncio.ensure_future(self._refresh_presence())
        try:
            yield
        finally:
            self._present[key] -= 1
            if self._present[key] == 0:
                del self._present[key]
                await asyncio.shield(self._mark(table_id, seat, False))

    async def _mark(self: TableService, table_id: str, seat: int, on: bool) -> None:
        ttl = self.settings.presence_ttl
        try:
            changed = await self.store.presence(table_id, seat, self._replica, on, ttl)
            loaded = await self.load(table_id) if changed else None
            # A table that has ended records no more comings and goings.
            if loaded is not None and loaded.table.status in (eng.OPEN, eng.PLAYING):
                kind = "seat.connected" if on else "seat.away"
                await self._say(table_id, NewEvent(kind, self._now(), {}, seat), loaded.table)
        except (StoreUnavailable, ApiError) as exc:
            log.warning("presence of a seat not recorded: %s", exc)

    async def _refresh_presence(self: TableService) -> None:
        """Keep this replica's entries alive; a replica that dies lets them lapse."""
        while self._present:
            await asyncio.sleep(self.settings.presence_ttl / 3)
            for table_id, seat in list(self._present):
                await self._mark(table_id, seat, True)

    async def close(self) -> None:
        task, self._presence_task = self._presence_task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await super().close()  # type: ignore[misc]  # BotDriver's, next in the MRO

    # -- the lobby ----------------------------------------------------------------

    async def _lobby_after(self: TableService, before: eng.Table | None, after: eng.Table) -> None:
        """Tell lobbies of a public table opening, changing while open, or closing."""
        if after.private:
            return
        if before is None:
            kind = "table.opened"
        elif before.status != eng.OPEN:
            return
        else:
            kind = "table.updated" if after.status == eng.OPEN else "table.closed"
        try:
            await self.store.publish_lobby(lobby_notice(kind, after))
        except StoreUnavailable as exc:
            log.warning("lobby notice not sent: %s", exc)

    def new_join_code(self) -> str:
        return secrets.token_urlsafe(JOIN_CODE_BYTES)

    # -- host operations ----------------------------------------------------------

    async def set_options(
        self: TableService, caller: Credential | None, table_id: str, options: Any
    ) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            lambda cur: lobby_rules.set_options(
                cur.table, game=cur.game, options=options, now=self._now()
            ),
            "options",
        )

    async def kick(
        self: TableService, caller: Credential | None, table_id: str, seat: int
    ) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            lambda cur: lobby_rules.kick(cur.table, seat=seat, now=self._now()),
            "kick",
        )

    async def cancel(self: TableService, caller: Credential | None, table_id: str) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            lambda cur: lobby_rules.cancel(
                cur.table, seed=self._server_seed(cur.table).hex(), now=self._now()
            ),
            "cancel",
        )

    # -- rematch ------------------------------------------------------------------

    def _rematch_id(self: TableService, old_id: str) -> str:
        """The id of a table's rematch: derived from the secret, so that callers racing
        each other build the same table (and nobody without the secret can guess it)."""
        raw = base64.urlsafe_b64encode(_mac(self.settings.secret, "rematch-id", old_id))
        return "".join(c for c in raw.decode() if c.isalnum())[:12]

    def _rematch_token(self: TableService, table_id: str, who: str) -> str:
        raw = _mac(self.settings.secret, "rematch-token", table_id, who)
        return f"{table_id}.{base64.urlsafe_b64encode(raw).decode().rstrip('=')}"

    async def rematch(
        self: TableService, caller: Credential | None, table_id: str
    ) -> tuple[Loaded, int | None, str | None, str | None]:
        """Open (once) the rematch of a FINISHED table; the new table, the caller's seat at
        it, its seat token and (for the host) the new host token."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "a rematch needs a seat's or the host's token")
        old = await self.must_load(table_id)
        held = rights(caller, old.table)
        if held.standing == ELSEWHERE:
            raise ApiError("FORBIDDEN", "this token is for another table")
        refused = known_check(held)
        if refused is not None:
            raise ApiError(refused.code, refused.reason)
        if old.table.status != eng.FINISHED:
            raise ApiError("BAD_INPUT", "only a finished table can have a rematch")
        new_id = old.table.rematch or self._rematch_id(table_id)
        humans = [s.index for s in old.table.seats if s.kind == eng.HUMAN]
        tokens = {i: self._rematch_token(new_id, f"seat:{i}") for i in humans}
        host_token = self._rematch_token(new_id, "host")
        if old.table.rematch is None:
            await self._open_rematch(old, new_id, tokens, host_token)

            def link(cur: Loaded) -> Any:
                if cur.table.rematch == new_id:  # a racing caller linked it
                    return Rejected("BAD_INPUT", "linked already")
                private: dict[int, dict[str, Any]] = {}
                for i, token in tokens.items():
                    part: dict[str, Any] = {"playerToken": token, "seat": i}
                    if cur.table.seats[i].host:
                        part["hostToken"] = host_token
                    private[i] = part
                out = lobby_rules.link_rematch(
                    cur.table, table_id=new_id, private=private, now=self._now()
                )
                if isinstance(out, Rejected):
                    return out
                return out[0], cur.state, out[1], None

            try:
                await self._mutate(table_id, link, kind="rematch", loaded=old)
            except ApiError:
                if (await self.must_load(table_id)).table.rematch != new_id:
                    raise
        new = await self.must_load(new_id)
        seat = held.seat if held.seat in tokens else None
        return (
            new,
            seat,
            tokens[seat] if seat is not None else None,
            host_token if held.host else None,
        )

    async def _open_rematch(
        self: TableService,
        old: Loaded,
        new_id: str,
        tokens: dict[int, str],
        host_token: str,
    ) -> None:
        """Create the rematch table, unless a racing caller did (it is the same table)."""
        from service.tables import _new_events

        nonce = _mac(self.settings.secret, "rematch-nonce", new_id).hex()[:32]
        seed = fairness.server_seed(self.settings.secret, new_id, nonce)
        now = self._now()
        table, events = lobby_rules.rematch_table(
            old.table,
            table_id=new_id,
            nonce=nonce,
            host_hash=token_hash(host_token),
            commitment=fairness.commitment(seed),
            seat_hashes={i: token_hash(t) for i, t in tokens.items()},
            join_code=old.table.join_code,
            now=now,
        )
        meta = TableMeta(table.game_id, table.status, self.clock(), table.private)
        try:
            await self._store_call(
                self.store.create(
                    new_id, table.encode(), meta, _new_events(events, now), ttl=self._ttl(table)
                )
            )
        except TableExists:
            return
        self.metrics.inc("tablestate_commits_total", kind="create")
        self._remember(replace(table, version=1))
        await self._lobby_after(None, table)
