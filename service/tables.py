"""The table service: load a table, let the engine decide, commit, retry on conflict.

This is where the pure engine meets the store: every mutation of API.md runs here as
load -> check rights -> engine -> ``store.commit`` at the loaded version. Bots move as
commits of their own, driven by the store's due-index (any replica may claim one).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from service import _json, logs
from service.bots import BotDriver
from service.config import Settings
from service.engine import fairness, seating
from service.engine import table as eng
from service.engine.game import Event, GameDef, Move, Rejected
from service.engine.rights import (
    HELD,
    Credential,
    MalformedToken,
    host_check,
    known_check,
    rights,
    seat_of,
    token_hash,
)
from service.engine.ruleset import RuleSet
from service.errors import ApiError
from service.life import TableLife
from service.metrics import Metrics
from service.plugins import Registry
from service.social import TableSocial
from service.store.base import (
    BadCursor,
    Idempotency,
    NewEvent,
    Page,
    StateStore,
    StoredEvent,
    StoreFull,
    StoreUnavailable,
    TableMeta,
)

log = logging.getLogger("tablestate.tables")

TABLE_ID_BYTES: Final = 9
CACHE_SIZE: Final = 2048
MAX_IDEMPOTENCY_KEY: Final = 200
SEEDS_KEPT: Final = 4096  # game seeds kept (each is two HMACs to make)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table with its game, rule set and decoded game state (None while OPEN)."""

    table: eng.Table
    game: GameDef[Any]
    rules: RuleSet
    state: Any

    @property
    def version(self) -> int:
        return self.table.version

    def view(self, seat: int | None) -> dict[str, Any] | None:
        if self.state is None:
            return None
        return eng.view(self.table, self.game, self.state, seat)

    def to_act(self) -> tuple[int, ...]:
        if self.state is None:
            return ()
        return eng.to_act(self.table, self.game, self.state)

    def legal_moves(self, seat: int | None) -> list[Move]:
        if seat is None or self.state is None or seat not in self.to_act():
            return []
        return list(self.game.legal_moves(self.state, seat, self.rules))


_last_iso: tuple[int, str] = (-1, "")


def now_iso(clock: Callable[[], float]) -> str:
    """The clock's time as ISO 8601 in UTC, to the millisecond (the text of the last
    millisecond asked for is kept: a busy table service asks several times in one)."""
    global _last_iso
    t = clock()
    ms = math.floor(t * 1000)
    if _last_iso[0] != ms:
        seconds, millis = divmod(ms, 1000)
        _last_iso = (
            ms,
            time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z",
        )
    return _last_iso[1]


def new_table_id() -> str:
    """A random table id that starts with a letter or digit (so that no command line takes
    it for an option)."""
    while True:
        found = secrets.token_urlsafe(TABLE_ID_BYTES)
        if found[0].isalnum():
            return found


def move_hash(move: Move) -> str:
    return hashlib.sha256(json.dumps(move, sort_keys=True).encode()).hexdigest()


def _new_events(events: Sequence[Event], at: str) -> list[NewEvent]:
    return [
        NewEvent(
            e.type,
            at,
            dict(e.data),
            e.seat,
            {str(k): dict(v) for k, v in e.private.items()},
        )
        for e in events
    ]


def _raise(rejected: Rejected) -> None:
    reason = rejected.reason if rejected.code == "ILLEGAL_MOVE" else None
    raise ApiError(rejected.code, rejected.reason, reason)


Op = Callable[[Loaded], "tuple[eng.Table, Any, list[Event], Any] | Rejected"]


class TableService(TableSocial, BotDriver, TableLife):
    """Every table operation of the API, on one store, for one replica. Bots move through
    ``BotDriver`` (``service/bots.py``); chat, presence, rematches and the host's lobby
    operations are ``TableSocial``'s (``service/social.py``)."""

    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        store: StateStore,
        metrics: Metrics | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.store = store
        self.metrics = metrics or Metrics()
        self.clock = clock
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._seeds: dict[tuple[str, str, tuple[str, ...]], bytes] = {}  # game seeds
        # Admission: a move's store timeout runs while it waits for Redis, and an event
        # loop behind on hundreds of moves makes every one of them late. Moves beyond this
        # many wait here instead, where waiting costs no timeout.
        self._moving = asyncio.Semaphore(settings.moves_in_flight)
        self._init_bots()
        self._init_social()
        # Told of every commit this replica makes (the hub delivers it to local
        # subscribers at once, without reading it back from the store).
        # The table as committed comes along: the fan-out asks every subscriber's rights
        # at it (None: not known at the events' version; the hub then reads it).
        self.on_commit: Callable[[str, tuple[StoredEvent, ...], eng.Table | None], None] | None = (
            None
        )

    # -- loading -----------------------------------------------------------------

    async def _store_call(self, call: Coroutine[Any, Any, Any]) -> Any:
        start = time.perf_counter()
        try:
            return await call
        except StoreFull as exc:
            raise ApiError("UNAVAILABLE", "the store is full; retry later") from exc
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc
        finally:
            op = call.cr_code.co_name
            self.metrics.observe("tablestate_store_seconds", time.perf_counter() - start, op=op)

    async def load(self, table_id: str) -> Loaded | None:
        """The table now, or None. Decoding is cached per (table, version)."""
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 64:
            return None
        logs.table_id.set(table_id)
        found = await self._store_call(self.store.load(table_id))
        if found is None:
            self._cache.pop(table_id, None)
            return None
        snapshot, version = found
        cached = self._cache.get(table_id)
        if cached is not None and cached.version == version:
            self._cache.move_to_end(table_id)
            return cached
        return self._remember(eng.Table.decode(snapshot, version))

    def _remember(self, table: eng.Table, state: Any = None) -> Loaded:
        game = self.registry.games.get(table.game_id)
        if game is None:
            raise ApiError("UNAVAILABLE", f"game {table.game_id!r} is not installed here")
        rules = self.registry.ruleset(table.game_id, table.house_rules)
        if state is None and table.game is not None:
            state = eng.decode_state(table, game)
        loaded = Loaded(table, game, rules, state)
        self._cache[table.id] = loaded
        self._cache.move_to_end(table.id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return loaded

    async def load_table(self, table_id: str) -> eng.Table | None:
        """The table now as stored (None: no such table)."""
        loaded = await self.load(table_id)
        return loaded.table if loaded is not None else None

    async def must_load(self, table_id: str) -> Loaded:
        loaded = await self.load(table_id)
        if loaded is None:
            raise ApiError("NOT_FOUND", "no such table")
        return loaded

    async def authenticate(self, token: str | None) -> Credential | None:
        """The credential of a token that its table knows now; None for no token. A
        connection authenticates once; what the credential holds is asked again at every
        operation and delivery (``service/engine/rights.py``).

        Raises:
            ApiError: ``UNAUTHENTICATED`` for a malformed or unknown token.
        """
        try:
            credential = Credential.of_token(token)
        except MalformedToken as exc:
            raise ApiError("UNAUTHENTICATED", str(exc)) from None
        if credential is None:
            return None
        loaded = await self.load(credential.table_id)
        if loaded is None or rights(credential, loaded.table).standing != HELD:
            raise ApiError("UNAUTHENTICATED", "unknown token")
        return credential

    # -- seeds -------------------------------------------------------------------

    def _server_seed(self, table: eng.Table) -> bytes:
        return fairness.server_seed(self.settings.secret, table.id, table.nonce)

    def game_seed(self, table: eng.Table) -> bytes:
        seeds = tuple(table.seats[i].client_seed or "" for i in table.play_order or table.seated())
        key = (table.id, table.nonce, seeds)
        found = self._seeds.get(key)
        if found is None:
            if len(self._seeds) >= SEEDS_KEPT:
                self._seeds.clear()
            found = self._seeds[key] = fairness.game_seed(self._server_seed(table), list(seeds))
        return found

    # -- committing --------------------------------------------------------------

    def _ttl(self, table: eng.Table) -> float:
        if table.status in (eng.FINISHED, eng.CANCELLED):
            return float(self.settings.finished_ttl)
        return float(self.settings.idle_ttl)

    async def _mutate(
        self,
        table_id: str,
        op: Op,
        *,
        kind: str,
        expected: int | None = None,
        idempotency: Idempotency | None = None,
        log_entry: Callable[[Loaded], str | None] | None = None,
        loaded: Loaded | None = None,
        movers: tuple[int, ...] = (),
        timed_out: int | None = None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...], Any]:
        """Load, run ``op``, commit; on a lost race reload and run ``op`` again.

        ``movers`` are the seats that moved (their clocks restart); ``timed_out`` the seat
        whose clock ran out (its reserve is spent)."""
        attempts = 1 if expected is not None else self.settings.move_retries + 1
        for _ in range(attempts):
            if loaded is None:
                loaded = await self.must_load(table_id)
            if expected is not None and loaded.version != expected:
                raise ApiError(
                    "VERSION_CONFLICT", f"the table is at version {loaded.version}, not {expected}"
                )
            out = op(loaded)
            if isinstance(out, Rejected):
                _raise(out)
                raise AssertionError  # unreachable: _raise raises
            new_table, new_state, events, extra = out
            new_table, events = self._settle(
                loaded, new_table, new_state, events, movers, timed_out
            )
            waiting_bot = False
            if new_state is not None and new_table.bots():
                waiting = eng.to_act(new_table, loaded.game, new_state)
                if any(s in new_table.bots() for s in waiting):
                    waiting_bot = True
                    await self._expect_bot(table_id, loaded.version + 1)
            if not waiting_bot:
                await self._expect_deadline(table_id, loaded.version + 1, new_table)
            at = now_iso(self.clock)
            meta = TableMeta(
                new_table.game_id, new_table.status, _created(new_table), new_table.private
            )
            result = await self._store_call(
                self.store.commit(
                    table_id,
                    loaded.version,
                    new_table.encode(),
                    meta,
                    _new_events(events, at),
                    ttl=self._ttl(new_table),
                    idempotency=idempotency,
                    log=log_entry(loaded) if log_entry else None,
                )
            )
            if result.ok:
                self.metrics.inc("tablestate_commits_total", kind=kind)
                done = self._remember(replace(new_table, version=result.version), new_state)
                self._after_commit(done)
                if self.on_commit is not None:
                    self.on_commit(table_id, result.events, done.table)
                await self._lobby_after(loaded.table, done.table)
                return done, result.events, extra
            if result.record is not None:
                current = await self.must_load(table_id)
                return current, result.record.events, None
            self.metrics.inc("tablestate_commit_conflicts_total")
            loaded = None
        raise ApiError("VERSION_CONFLICT", "the table kept changing; retry")

    # -- operations --------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        house_rules: Sequence[str],
        options: Any,
        seats: int | None,
        private: bool = False,
    ) -> tuple[Loaded, str]:
        game = self.registry.games.get(game_id)
        if game is None:
            raise ApiError("NOT_FOUND", f"no game {game_id[:80]!r}")
        table_id = new_table_id()
        host_token = f"{table_id}.{secrets.token_urlsafe(32)}"
        nonce = secrets.token_hex(16)
        seed = fairness.server_seed(self.settings.secret, table_id, nonce)
        at = now_iso(self.clock)
        made = eng.create(
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
        )
        if isinstance(made, Rejected):
            _raise(made)
            raise AssertionError
        table, events = made
        if private:
            table = replace(table, private=True, join_code=self.new_join_code())
        meta = TableMeta(game.id, table.status, self.clock(), table.private)
        await self._store_call(
            self.store.create(
                table_id, table.encode(), meta, _new_events(events, at), ttl=self._ttl(table)
            )
        )
        self.metrics.inc("tablestate_commits_total", kind="create")
        await self._lobby_after(None, table)
        return self._remember(replace(table, version=1)), host_token

    async def join(
        self,
        caller: Credential | None,
        table_id: str,
        name: str,
        seat: int | None,
        client_seed: str | None,
        code: str | None = None,
    ) -> tuple[Loaded, int, str]:
        token = f"{table_id}.{secrets.token_urlsafe(32)}"

        def op(loaded: Loaded) -> Any:
            held = rights(caller, loaded.table)
            refused = known_check(held)
            if refused is not None:
                return refused
            wanted = loaded.table.join_code
            if loaded.table.private and not held.host:
                given = (code or "").encode()
                if wanted is None or not secrets.compare_digest(given, wanted.encode()):
                    return Rejected("FORBIDDEN", "this private table needs its join code")
            out = eng.join(
                loaded.table,
                name=name,
                seat=seat,
                token_hash=token_hash(token),
                host=held.host,
                client_seed=client_seed,
                now=now_iso(self.clock),
            )
            if isinstance(out, Rejected):
                return out
            table, index, events = out
            return table, None, events, index

        loaded, _, index = await self._mutate(table_id, op, kind="join")
        return loaded, index, token

    async def host_op(
        self, caller: Credential | None, table_id: str, step: Callable[[Loaded], Any], kind: str
    ) -> Loaded:
        """Run ``step`` (``Loaded -> (table, events[, state]) | Rejected``) for the host:
        its rights are checked at every version the step runs on."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "this needs the host's token")

        def op(current: Loaded) -> Any:
            refused = host_check(rights(caller, current.table))
            if refused is not None:
                return refused
            out = step(current)
            if isinstance(out, Rejected):
                return out
            table, events = out[0], out[1]
            state = out[2] if len(out) > 2 else current.state
            return table, state, events, None

        done, _, _ = await self._mutate(table_id, op, kind=kind)
        return done

    async def seated(
        self, caller: Credential | None, table_id: str, what: str
    ) -> tuple[Loaded, int]:
        """The table and the seat the caller holds at it, refused in DESIGN.md's order."""
        if caller is None:
            raise ApiError("UNAUTHENTICATED", f"{what} needs a seat token")
        loaded = await self.must_load(table_id)
        seat = seat_of(rights(caller, loaded.table), what)
        if isinstance(seat, Rejected):
            _raise(seat)
            raise AssertionError  # unreachable: _raise raises
        return loaded, seat

    def seat_op(
        self, caller: Credential | None, seat: int, what: str, step: Callable[[Loaded, int], Any]
    ) -> Op:
        """``step(loaded, seat)`` for the caller's ``seat``, refused at any version at which
        the caller no longer holds it."""

        def op(current: Loaded) -> Any:
            now = seat_of(rights(caller, current.table), what)
            if isinstance(now, Rejected):
                return now
            if now != seat:
                return Rejected("UNAUTHENTICATED", "this token no longer holds its seat")
            return step(current, seat)

        return op

    async def add_bot(self, caller: Credential | None, table_id: str, seat: int | None) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            lambda cur: eng.add_bot(cur.table, seat=seat, now=now_iso(self.clock)),
            "bot",
        )

    async def set_rule(
        self, caller: Credential | None, table_id: str, rule_id: str, enabled: bool
    ) -> Loaded:
        return await self.host_op(
            caller,
            table_id,
            lambda cur: eng.set_rule(
                cur.table,
                game=cur.game,
                rule_id=rule_id,
                enabled=enabled,
                house_rules=self.registry.house_rules,
                conflicts=self.registry.conflicts,
                now=now_iso(self.clock),
            ),
            "rule",
        )

    async def start(self, caller: Credential | None, table_id: str) -> Loaded:
        def step(cur: Loaded) -> Any:
            order = cur.table.seated()
            seeds = [cur.table.seats[i].client_seed or "" for i in order]
            seed = fairness.game_seed(self._server_seed(cur.table), seeds)
            rules = self.registry.ruleset(cur.table.game_id, cur.table.house_rules)
            out = eng.start(
                cur.table,
                game=cur.game,
                rules=rules,
                seed=seed,
                house_rules=self.registry.house_rules,
                now=now_iso(self.clock),
            )
            if isinstance(out, Rejected):
                return out
            table, events = out
            return table, events, eng.decode_state(table, cur.game)

        return await self.host_op(caller, table_id, step, "start")

    async def leave(self, caller: Credential | None, table_id: str) -> Loaded:
        """Leave a seat: an OPEN table's seat empties; at a PLAYING table the seat waits
        for the same token to rejoin (``leaveGraceSeconds``), or a bot takes it."""
        loaded, seat = await self.seated(caller, table_id, "leave")

        def step(cur: Loaded, seat: int) -> Any:
            out = seating.leave(cur.table, seat=seat, now=self.clock(), at=now_iso(self.clock))
            if isinstance(out, Rejected):
                return out
            return out[0], cur.state, out[1], None

        op = self.seat_op(caller, seat, "leave", step)
        done, _, _ = await self._mutate(table_id, op, kind="leave", loaded=loaded)
        return done

    async def move(
        self,
        caller: Credential | None,
        table_id: str,
        game_id: str | None,
        move: Move,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        """A player's move, refused in DESIGN.md's order.

        The table this replica last saw is tried first, without reading it again: the
        commit's version check catches a stale copy, and a refusal met on a cached copy is
        checked again on a fresh one before it is given. So a move costs one round trip
        to the store on a replica that saw the table's last commit.
        """
        if caller is None:
            raise ApiError("UNAUTHENTICATED", "a move needs a seat token")
        async with self._moving:
            return await self._admitted_move(
                caller, table_id, game_id, move, expected_version, idempotency_key
            )

    async def _admitted_move(
        self,
        caller: Credential,
        table_id: str,
        game_id: str | None,
        move: Move,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        cached = self._cache.get(table_id)
        if cached is not None:
            try:
                return await self._move(caller, cached, game_id, move, expected_version,
                                        idempotency_key)  # fmt: skip
            except ApiError as exc:
                if exc.code == "UNAVAILABLE":
                    raise
        loaded = await self.must_load(table_id)
        return await self._move(caller, loaded, game_id, move, expected_version, idempotency_key)

    async def _move(
        self,
        caller: Credential,
        loaded: Loaded,
        game_id: str | None,
        move: Move,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> tuple[Loaded, tuple[StoredEvent, ...]]:
        table_id = loaded.table.id
        seat = seat_of(rights(caller, loaded.table), "move")
        if isinstance(seat, Rejected):
            _raise(seat)
            raise AssertionError  # unreachable: _raise raises
        idem = None
        if idempotency_key is not None:
            if not 0 < len(idempotency_key) <= MAX_IDEMPOTENCY_KEY:
                raise ApiError(
                    "BAD_INPUT", f"an idempotency key is 1 to {MAX_IDEMPOTENCY_KEY} characters"
                )
            idem = Idempotency(seat, idempotency_key, move_hash({game_id or "": move}))
            record = await self._store_call(self.store.idempotency(table_id, seat, idempotency_key))
            if record is not None:
                if record.move_hash != idem.move_hash:
                    raise ApiError("BAD_INPUT", "this idempotency key was used for another move")
                return await self.must_load(table_id), record.events
        if loaded.table.status != eng.PLAYING:
            raise ApiError("TABLE_NOT_PLAYING", "the table is not playing")
        if game_id != loaded.game.id:
            raise ApiError("BAD_INPUT", f"this table plays {loaded.game.id}; send that game's move")

        done, events, _ = await self._mutate(
            table_id,
            self.seat_op(caller, seat, "move", lambda cur, s: self._human_move(cur, s, move)),
            kind="move",
            expected=expected_version,
            idempotency=idem,
            log_entry=lambda cur: _json.dumps({"seat": seat, "move": move}),
            loaded=loaded,
            movers=(seat,),
        )
        return done, events

    def _apply(self, cur: Loaded, seat: int, move: Move) -> Any:
        out = eng.apply_move(
            cur.table,
            game=cur.game,
            state=cur.state,
            rules=cur.rules,
            seat=seat,
            move=move,
            seed=self.game_seed(cur.table),
            reveal=lambda: self._server_seed(cur.table).hex(),
            now=now_iso(self.clock),
        )
        if isinstance(out, Rejected):
            return out
        table, state, events = out
        return table, state, events, None

    async def events(
        self,
        table_id: str,
        after: str | None,
        first: int,
        last: int | None,
        *,
        seated: bool = False,
    ) -> tuple[StoredEvent, ...]:
        """Events after a cursor, or the newest ``last``; ``seated``: for a reader with a
        seat (the store leaves out, and never reads, events it may not see)."""
        try:
            if last is not None:
                found = self.store.last_events(table_id, last, seated=seated)
                return await self._store_call(found)
            return await self._store_call(self.store.events(table_id, after, first, seated=seated))
        except BadCursor as exc:
            raise ApiError("BAD_INPUT", str(exc)) from exc

    async def list(
        self, game_id: str | None, status: str | None, first: int, after: str | None
    ) -> tuple[list[Loaded], Page]:
        page = await self._store_call(self.store.list(game_id, status, first, after))
        found = await asyncio.gather(*(self.load(t) for t in page.table_ids))
        return [f for f in found if f is not None], page

    async def moves(self, table_id: str) -> list[dict[str, Any]]:
        return [json.loads(m) for m in await self._store_call(self.store.moves(table_id))]


def _created(table: eng.Table) -> float:
    try:
        return datetime.fromisoformat(table.created_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
