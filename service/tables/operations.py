"""The table operations of API.md besides moves, chat and rematches: creating a table,
seats coming and going, the host's operations, undo.

Each is an ``Operation`` (who may, what it does) run by the committer, which asks the
caller's rights at every version it tries (``service/engine/rights.py``). The pure rules
are the engine's (``engine/table.py``, ``seating.py``, ``lobby.py``, ``undo.py``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final

from tablestate.engine import fairness, opening, seating, undo
from tablestate.engine import lobby as lobby_rules
from tablestate.engine import table as eng
from tablestate.engine.bots import NORMAL
from tablestate.engine.game import Event, Rejected
from tablestate.engine.rights import (
    Caller,
    Rights,
    holding,
    host_check,
    known_check,
    rights,
    seat_of,
    sign_in_check,
    token_hash,
    user_of,
)
from tablestate.errors import ApiError
from tablestate.plugins import Registry
from tablestate.store.base import TableMeta, TableStore
from tablestate.tables.commit import Change, Committer, Operation, new_events, now_iso
from tablestate.tables.loading import Loaded, refuse
from tablestate.tables.notices import LobbyNotices, UserIndex, bound_users
from tablestate.tables.play import Seeds

TABLE_ID_BYTES: Final = 9
JOIN_CODE_BYTES: Final = 6  # 8 URL-safe characters

Step = Callable[[Loaded], "tuple[eng.Table, Sequence[Event]] | Rejected"]


def new_table_id() -> str:
    """A random table id that starts with a letter or digit (so that no command line takes
    it for an option)."""
    while True:
        found = secrets.token_urlsafe(TABLE_ID_BYTES)
        if found[0].isalnum():
            return found


def new_token(table_id: str) -> str:
    """A fresh seat or host token of a table."""
    return f"{table_id}.{secrets.token_urlsafe(32)}"


def changed(out: tuple[eng.Table, Sequence[Event]] | Rejected, state: Any) -> Change | Rejected:
    """An engine step's ``(table, events)`` as a change that keeps ``state``."""
    if isinstance(out, Rejected):
        return out
    return Change(out[0], state, out[1])


class Operations:
    """Creating tables, seats, the host's operations and undo, for one replica."""

    def __init__(
        self,
        committer: Committer,
        store: TableStore,
        registry: Registry,
        seeds: Seeds,
        lobby: LobbyNotices,
        users: UserIndex,
        *,
        require_sign_in: bool = False,
    ) -> None:
        self.committer = committer
        self.require_sign_in = require_sign_in
        self.tables = committer.tables
        self.store = store
        self.registry = registry
        self.seeds = seeds
        self.lobby = lobby
        self.users = users
        self.clock = committer.clock

    def _now(self) -> str:
        return now_iso(self.clock)

    def check_sign_in(self, caller: Caller | None, what: str) -> None:
        """Refuse a caller whose sign-in ended, or an anonymous one where signing in is
        required (``UNAUTHENTICATED``, before anything else)."""
        refused = sign_in_check(caller, self.require_sign_in, what)
        if refused is not None:
            raise refuse(refused)

    # -- a new table ----------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        house_rules: Sequence[str],
        options: Any,
        seats: int | None,
        private: bool = False,
        caller: Caller | None = None,
    ) -> tuple[Loaded, str]:
        """A new OPEN table and its host token (shown once); a signed-in caller holds the
        host's rights too, from any device."""
        self.check_sign_in(caller, "create a table")
        owner = user_of(caller)
        game = self.registry.games.get(game_id)
        if game is None:
            raise ApiError("NOT_FOUND", f"no game {game_id[:80]!r}")
        table_id = new_table_id()
        host_token = new_token(table_id)
        nonce = secrets.token_hex(16)
        seed = fairness.server_seed(self.seeds.secret, table_id, nonce)
        at = self._now()
        made = opening.create(
            table_id=table_id,
            game=game,
            options=options,
            rule_ids=list(house_rules),
            seats=seats,
            house_rules=self.registry.house_rules,
            conflicts=self.registry.conflicts,
            now=at,
            nonce=nonce,
            host_hash=token_hash(host_token),
            commitment=fairness.commitment(seed),
            host_user=owner.id if owner is not None else None,
        )
        if isinstance(made, Rejected):
            raise refuse(made)
        table, events = made
        if private:
            table = replace(table, private=True, join_code=secrets.token_urlsafe(JOIN_CODE_BYTES))
        await self.add(table, events, at)
        return self.tables.remember(replace(table, version=1)), host_token

    async def add(self, table: eng.Table, events: Sequence[Event], at: str) -> None:
        """Store a new table (version 1) and tell the lobby.

        Raises:
            TableExists: when a table has its id (a racing rematch made it)."""
        meta = TableMeta(table.game_id, table.status, self.clock(), table.private)
        ttl = self.committer.ttl(table)
        created = self.store.create(table.id, table.encode(), meta, new_events(events, at), ttl=ttl)
        await self.tables.call("create", created)
        self.committer.metrics.inc("tablestate_commits_total", kind="create")
        await self.lobby.tell(None, table)
        await self.users.note(table, bound_users(table))

    # -- seats ------------------------------------------------------------------------

    async def join(
        self,
        caller: Caller | None,
        table_id: str,
        name: str,
        seat: int | None,
        client_seed: str | None,
        code: str | None = None,
    ) -> tuple[Loaded, int, str]:
        """Take a seat: the table, the seat's index and its token (shown once). A
        signed-in caller's seat is bound to it too: it acts for the seat from any device,
        and holds one seat of a table at most."""
        self.check_sign_in(caller, "join a table")
        user = user_of(caller)
        token = new_token(table_id)

        def rules(cur: Loaded, held: Rights) -> Change | Rejected:
            wanted = cur.table.join_code
            if cur.table.private and not held.host:
                given = (code or "").encode()
                if wanted is None or not secrets.compare_digest(given, wanted.encode()):
                    return Rejected("FORBIDDEN", "this private table needs its join code")
            out = opening.join(
                cur.table,
                name=name,
                seat=seat,
                token_hash=token_hash(token),
                host=held.host,
                client_seed=client_seed,
                now=self._now(),
                user=user.id if user is not None else None,
            )
            if isinstance(out, Rejected):
                return out
            table, index, events = out
            return Change(table, None, events, extra=index)

        done = await self.committer.commit(table_id, Operation("join", rules, known_check), caller)
        return done.loaded, done.extra, token

    async def seated(self, caller: Caller | None, table_id: str, what: str) -> tuple[Loaded, int]:
        """The table and the seat the caller holds at it, refused in the documented order."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", f"{what} needs a seat token")
        loaded = await self.tables.must_load(table_id)
        found = seat_of(rights(caller, loaded.table), what)
        if isinstance(found, Rejected):
            raise refuse(found)
        return loaded, found

    async def _for_seat(
        self,
        caller: Caller | None,
        table_id: str,
        kind: str,
        what: str,
        step: Callable[[Loaded, int], Change | Rejected],
    ) -> Loaded:
        loaded, seat = await self.seated(caller, table_id, what)
        operation = Operation(kind, lambda cur, _held: step(cur, seat), holding(seat, what))
        return (await self.committer.commit(table_id, operation, caller, loaded=loaded)).loaded

    async def leave(self, caller: Caller | None, table_id: str) -> Loaded:
        """Leave a seat: an OPEN table's seat empties; at a PLAYING table the seat waits
        for the same token to rejoin (``leaveGraceSeconds``), or a bot takes it."""

        def step(cur: Loaded, seat: int) -> Change | Rejected:
            at = self._now()
            return changed(seating.leave(cur.table, seat=seat, now=self.clock(), at=at), cur.state)

        return await self._for_seat(caller, table_id, "leave", "leave", step)

    async def rejoin(self, caller: Caller | None, table_id: str) -> Loaded:
        """Come back to a seat left within its grace period, with the same token."""

        def step(cur: Loaded, seat: int) -> Change | Rejected:
            return changed(seating.rejoin(cur.table, seat=seat, at=self._now()), cur.state)

        return await self._for_seat(caller, table_id, "rejoin", "rejoin", step)

    async def undo(self, caller: Caller | None, table_id: str) -> tuple[Loaded, Any]:
        """Take back the caller's last move (``undoMove``): the table and the events."""
        loaded, seat = await self.seated(caller, table_id, "undo")

        def step(cur: Loaded, _held: Rights) -> Change | Rejected:
            out = undo.take_back(cur.table, seat=seat, at=self._now())
            if isinstance(out, Rejected):
                return out
            table, events = out
            entry = json.dumps({"seat": seat, "undo": True})
            state = eng.decode_state(table, cur.game)
            return Change(table, state, events, movers=(seat,), log=entry)

        operation = Operation("undo", step, holding(seat, "undo"))
        done = await self.committer.commit(table_id, operation, caller, loaded=loaded)
        return done.loaded, done.events

    # -- the host's -----------------------------------------------------------------

    async def host_op(
        self,
        caller: Caller | None,
        table_id: str,
        kind: str,
        step: Callable[[Loaded], Change | Rejected],
    ) -> Loaded:
        """Run ``step`` for the host: its rights are checked at every version it runs on."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "this needs the host's token")
        operation = Operation(kind, lambda cur, _held: step(cur), host_check)
        return (await self.committer.commit(table_id, operation, caller)).loaded

    async def add_bot(
        self, caller: Caller | None, table_id: str, seat: int | None, level: str = NORMAL
    ) -> Loaded:
        def step(cur: Loaded) -> Change | Rejected:
            out = opening.add_bot(cur.table, seat=seat, now=self._now(), level=level)
            return changed(out, cur.state)

        return await self.host_op(caller, table_id, "bot", step)

    async def set_rule(
        self, caller: Caller | None, table_id: str, rule_id: str, enabled: bool
    ) -> Loaded:
        def step(cur: Loaded) -> Change | Rejected:
            out = opening.set_rule(
                cur.table,
                game=cur.game,
                rule_id=rule_id,
                enabled=enabled,
                house_rules=self.registry.house_rules,
                conflicts=self.registry.conflicts,
                now=self._now(),
            )
            return changed(out, cur.state)

        return await self.host_op(caller, table_id, "rule", step)

    async def start(self, caller: Caller | None, table_id: str) -> Loaded:
        def step(cur: Loaded) -> Change | Rejected:
            out = opening.start(
                cur.table,
                game=cur.game,
                rules=self.registry.ruleset(cur.table.game_id, cur.table.house_rules),
                seed=self.seeds.game(cur.table),
                house_rules=self.registry.house_rules,
                now=self._now(),
            )
            if isinstance(out, Rejected):
                return out
            table, events = out
            return Change(table, eng.decode_state(table, cur.game), events)

        return await self.host_op(caller, table_id, "start", step)

    async def set_options(self, caller: Caller | None, table_id: str, options: Any) -> Loaded:
        def step(cur: Loaded) -> Change | Rejected:
            out = lobby_rules.set_options(
                cur.table, game=cur.game, options=options, now=self._now()
            )
            return changed(out, cur.state)

        return await self.host_op(caller, table_id, "options", step)

    async def kick(self, caller: Caller | None, table_id: str, seat: int) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            "kick",
            lambda cur: changed(lobby_rules.kick(cur.table, seat=seat, now=self._now()), cur.state),
        )

    async def cancel(self, caller: Caller | None, table_id: str) -> Loaded:
        def step(cur: Loaded) -> Change | Rejected:
            seed = self.seeds.server(cur.table).hex()
            return changed(lobby_rules.cancel(cur.table, seed=seed, now=self._now()), cur.state)

        return await self.host_op(caller, table_id, "cancel", step)

    async def replace_seat(
        self, caller: Caller | None, table_id: str, seat: int, name: str
    ) -> tuple[Loaded, str]:
        """The host hands ``seat`` to a new player: a fresh token, the old one refused."""
        token = new_token(table_id)
        digest = token_hash(token)

        def step(cur: Loaded) -> Change | Rejected:
            at = self._now()
            out = seating.replace_player(cur.table, seat=seat, name=name, token_hash=digest, at=at)
            return changed(out, cur.state)

        return await self.host_op(caller, table_id, "replace", step), token
