"""Bounded work and bounded storage, through real uvicorn on both stores: a seat's event
read costs a few store calls whatever the spectators said, one address creates a bounded
number of tables (on every replica), a discard/undo loop with fresh idempotency keys keeps
a bounded number of records and one undo entry, chat is kept up to its bound while every
game event stays, and a full Redis refuses writes with ``UNAVAILABLE`` and corrupts
nothing."""

from __future__ import annotations

import contextlib
import inspect
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis_server import find_redis_server, redis_server_process
from support.life import CHAT
from support.lucky import MOVE, TABLE, open_table
from support.server import Client, make_settings, serve, ws_init, ws_next

from tablestate.plugins import Registry
from tablestate.store import MemoryStore, NewEvent, RedisStore, StateStore
from tablestate.store.base import SPECTATORS, cursor_key

AT = "2026-01-01T00:00:00.000Z"
EVENTS = """query($t: ID!, $a: String, $f: Int, $l: Int) { table(id: $t) {
  events(after: $a, first: $f, last: $l) { cursor type seat data } } }"""
CURSOR = "query($t: ID!) { table(id: $t) { cursor version } }"
CREATE = """mutation($g: ID!, $o: JSON, $s: Int) { createTable(gameId: $g, options: $o, seats: $s) {
  hostToken table { id } } }"""
SUB = """subscription($t: ID!, $a: String) { tableEvents(tableId: $t, after: $a) {
  cursor type } }"""


class Counted:
    """A store whose calls are counted by name (each is one round trip to Redis)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.store, name)
        if not inspect.iscoroutinefunction(found):
            return found

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return found(*args, **kwargs)

        return counted


KINDS = [
    pytest.param("memory", id="memory"),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_store(kind: str, request: pytest.FixtureRequest) -> Callable[..., StateStore]:
    """Stores of the test's kind (Redis ones share the test's key prefix: replicas)."""

    def make(**bounds: int) -> StateStore:
        if kind == "memory":
            return MemoryStore(**bounds)
        url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        return RedisStore.from_url(url, prefix=prefix, **bounds)

    return make


async def redis_commands(admin: aioredis.Redis) -> int:
    """Commands Redis ran so far, those that scripts call included."""
    stats = await admin.info("commandstats")
    return sum(int(s["calls"]) for s in stats.values())


def key(event: Any) -> tuple[int, int]:
    """An event's (or a cursor's) place in the table's order."""
    return cursor_key(event if isinstance(event, str) else event.cursor)


def spectator_chat(i: int) -> NewEvent:
    """A spectator's message, exactly as ``sendChat`` without a seat stores it."""
    return NewEvent("chat.spectator", AT, {"text": f"m{i}", "name": "Kim"}, None, {}, SPECTATORS)


async def to_act(c: Client, tokens: dict[int, str], table_id: str) -> tuple[str, Any]:
    """The token of the seat to act and its first legal move."""
    for token in tokens.values():
        table = (await c.q(TABLE, token, t=table_id))["table"]
        if table["legalMoves"]:
            return token, table["legalMoves"][0]
    raise AssertionError("nobody may move")


# -- bounded work per event read ---------------------------------------------------------


async def test_a_seats_event_read_after_3000_spectator_messages_costs_a_few_store_calls(
    kind: str,
    make_store: Callable[..., StateStore],
    registry: Registry,
    request: pytest.FixtureRequest,
) -> None:
    store = Counted(make_store(chat_kept=5000))  # all 3000 are kept: the read must skip them
    admin = aioredis.from_url(request.getfixturevalue("redis_url")) if kind == "redis" else None
    try:
        async with serve(make_settings(), registry, store) as c:  # type: ignore[arg-type]
            t = await open_table(c)
            before = (await c.q(CURSOR, t=t.table_id))["table"]["cursor"]
            said = await c.q(CHAT, t=t.table_id, x="hello", n="Kim")  # the API's own kind
            assert said["sendChat"]["type"] == "chat.spectator"
            for start in range(0, 3000, 100):
                await store.append(
                    t.table_id, [spectator_chat(i) for i in range(start, start + 100)]
                )
            newest = (await c.q(CURSOR, t=t.table_id))["table"]["cursor"]
            token, move = await to_act(c, t.tokens, t.table_id)
            moved = (await c.q(MOVE, token, t=t.table_id, m=move))["makeMove"]["events"]

            async def cost(query: str, token: str | None, **variables: Any) -> tuple[Any, int, int]:
                store.calls.clear()
                commands = await redis_commands(admin) if admin is not None else 0
                data = await c.q(query, token, **variables)
                if admin is not None:
                    commands = await redis_commands(admin) - commands - 1  # the INFO itself
                return data["table"]["events"], sum(store.calls.values()), commands

            seat = t.tokens[0]
            # a seat: the move, right after the 3001 messages it may not see
            found, calls, commands = await cost(EVENTS, seat, t=t.table_id, a=before, f=1)
            assert [e["cursor"] for e in found] == [moved[0]["cursor"]]
            assert calls <= 4, store.calls  # token, table, events (was 3,000 and more)
            # 5 here; the rest is room for a replica's own background calls (a bot check)
            assert commands <= 12, commands  # (was 3,013)
            # ... from a spectator's cursor, and the newest
            found, calls, commands = await cost(EVENTS, seat, t=t.table_id, a=newest, f=5)
            assert [e["cursor"] for e in found] == [e["cursor"] for e in moved]
            assert calls <= 4 and commands <= 12, (store.calls, commands)
            found, calls, commands = await cost(EVENTS, seat, t=t.table_id, l=1)
            assert [e["cursor"] for e in found] == [moved[-1]["cursor"]]
            assert calls <= 4 and commands <= 12, (store.calls, commands)
            # a spectator sees the messages, as before
            found, calls, _ = await cost(EVENTS, None, t=t.table_id, a=before, f=2)
            assert [e["type"] for e in found] == ["chat.spectator"] * 2
            assert found[0]["data"]["text"] == "hello"
            # a seat's subscription replays from the old cursor without a gap
            async with c.ws() as ws:
                await ws_init(ws, seat)
                payload = {"query": SUB, "variables": {"t": t.table_id, "a": before}}
                await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
                first = (await ws_next(ws))["payload"]["data"]["tableEvents"]
                assert first["cursor"] == moved[0]["cursor"]
    finally:
        if admin is not None:
            await admin.aclose()
        await store.store.close()


# -- tables per address ------------------------------------------------------------------


async def test_one_address_creates_a_bounded_number_of_tables_on_every_replica(
    kind: str, make_store: Callable[..., StateStore], registry: Registry
) -> None:
    settings = make_settings(tables_per_address=3)
    here = {"X-Forwarded-For": "198.51.100.7"}  # through the proxy in front (loopback)
    elsewhere = {"X-Forwarded-For": "198.51.100.8"}
    body = {"query": CREATE, "variables": {"g": "lucky-draw", "s": 2}}
    first = make_store()
    second = make_store() if kind == "redis" else first  # a replica of its own on Redis
    async with contextlib.AsyncExitStack() as stack:
        a = await stack.enter_async_context(serve(settings, registry, first))
        b = (
            await stack.enter_async_context(serve(settings, registry, second))
            if kind == "redis"
            else a
        )

        async def create(c: Client, headers: dict[str, str]) -> dict[str, Any]:
            return (await c.http.post("/graphql", json=body, headers=headers)).json()  # type: ignore[no-any-return]

        made = [await create(a, here), await create(b, here), await create(a, here)]
        assert all(not m.get("errors") for m in made), made
        for c in (b, a):  # the bucket is the same on every replica
            refused = await create(c, here)
            assert refused["errors"][0]["extensions"]["code"] == "RATE_LIMITED", refused
            assert "tables" in refused["errors"][0]["message"]
        assert not (await create(b, elsewhere)).get("errors")  # another address is not held
        assert not (await create(a, {})).get("errors")  # nor the host itself (exempt)
    await first.close()
    if second is not first:
        await second.close()


# -- idempotency records and undo history --------------------------------------------------

FC_CREATE = """mutation { createTable(gameId: "five-crowns", seats: 2,
  options: {undo: true, rounds: 1}) { hostToken table { id } } }"""
FC_JOIN = """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) {
  seat playerToken } }"""
FC_START = "mutation($t: ID!) { startGame(tableId: $t) { version } }"
FC_VIEW = """query($t: ID!) { table(id: $t) { version legalMoves state { toAct } } }"""
FC_MOVE = """mutation($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) {
  table { version } } }"""
UNDO = "mutation($t: ID!) { undoMove(tableId: $t) { table { version } } }"


async def test_a_discard_undo_loop_with_fresh_keys_keeps_bounded_records(
    make_store: Callable[..., StateStore], registry: Registry
) -> None:
    kept, cycles = 20, 50
    store = make_store(idempotency_kept=kept)
    async with serve(make_settings(), registry, store) as c:
        made = (await c.q(FC_CREATE))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]
        tokens = {}
        for name in ("Ann", "Bob"):
            joined = (await c.q(FC_JOIN, t=tid, n=name))["joinTable"]
            tokens[joined["seat"]] = joined["playerToken"]
        await c.q(FC_START, host, t=tid)
        seat = (await c.q(FC_VIEW, t=tid))["table"]["state"]["toAct"][0]
        me = tokens[seat]
        await c.q(FC_MOVE, me, t=tid, m={"fiveCrowns": {"draw": {"source": "STOCK"}}})
        view = (await c.q(FC_VIEW, me, t=tid))["table"]
        discard = next(m for m in view["legalMoves"] if "discard" in m["fiveCrowns"])
        sent_at = view["version"]  # where the client saw the table when it sent key-0
        sizes = set()
        for i in range(cycles):
            await c.q(FC_MOVE, me, t=tid, m=discard, k=f"key-{i}")
            await c.q(UNDO, me, t=tid)
            snapshot, version = await store.load(tid) or ("", 0)
            sizes.add(len(snapshot))
        # one undo entry at most: the snapshot does not grow with the loop
        assert len(sizes) == 1, sizes
        # the newest records only, and at most a tenth more than kept
        found = [await store.idempotency(tid, seat, f"key-{i}") is not None for i in range(cycles)]
        held = sum(found)
        assert kept <= held <= kept + kept // 10
        assert found == [False] * (cycles - held) + [True] * held
        # a kept key still applies nothing: the first outcome comes back
        again = await c.q(FC_MOVE, me, t=tid, m=discard, k=f"key-{cycles - 1}")
        assert again["makeMove"]["table"]["version"] == version
        # a dropped key is a new key: retried with the expectedVersion it was sent with,
        # it is refused instead of applied again
        body = await c.raw(FC_MOVE, me, t=tid, m=discard, k="key-0", v=sent_at)
        assert body["errors"][0]["extensions"]["code"] == "VERSION_CONFLICT", body
        # the game's own record is whole: every move and every event stays
        moves = await store.moves(tid)
        assert len(moves) == 1 + 2 * cycles
        events = await store.events(tid, None, 1000)
        assert {e.version for e in events} == set(range(1, version + 1))
    await store.close()


# -- chat kept per table --------------------------------------------------------------------


async def test_chat_is_kept_up_to_its_bound_and_every_game_event_stays(
    make_store: Callable[..., StateStore], registry: Registry
) -> None:
    store = make_store(chat_kept=10)
    async with serve(make_settings(chat_rate=0), registry, store) as c:
        t = await open_table(c)
        start = (await c.q(CURSOR, t=t.table_id))["table"]["cursor"]
        game_before = [e.cursor for e in await store.events(t.table_id, None, 1000)]
        first: str | None = None
        for i in range(25):
            said = await c.q(CHAT, t=t.table_id, x=f"spectator {i}", n="Kim")
            first = first or said["sendChat"]["cursor"]
            await c.q(CHAT, t.tokens[0], t=t.table_id, x=f"seat {i}")
        token, move = await to_act(c, t.tokens, t.table_id)
        moved = (await c.q(MOVE, token, t=t.table_id, m=move))["makeMove"]["events"]
        kept = await store.events(t.table_id, None, 1000)
        texts = [e.data.get("text") for e in kept if e.type.startswith("chat.")]
        # the newest ten of each audience
        assert texts == [x for i in range(15, 25) for x in (f"spectator {i}", f"seat {i}")]
        game = [e.cursor for e in kept if not e.type.startswith("chat.")]
        assert game == game_before + [e["cursor"] for e in moved]  # none dropped
        # a cursor of a dropped message still resumes, with what is kept after it
        spectator = (await c.q(EVENTS, t=t.table_id, a=first, f=100))["table"]["events"]
        assert [e["cursor"] for e in spectator] == [e.cursor for e in kept if key(e) > key(first)]
        assert [e["data"].get("text") for e in spectator][:2] == ["spectator 15", "seat 15"]
        # and an old game cursor gives a seat every game event after it
        seat = (await c.q(EVENTS, t.tokens[1], t=t.table_id, a=start, f=100))["table"]["events"]
        assert [e["cursor"] for e in seat] == [
            e.cursor for e in kept if key(e) > key(start) and e.audience is None
        ]
        # so does a subscription
        async with c.ws() as ws:
            await ws_init(ws)
            payload = {"query": SUB, "variables": {"t": t.table_id, "a": first}}
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
            replayed = [(await ws_next(ws))["payload"]["data"]["tableEvents"] for _ in spectator]
            assert [e["cursor"] for e in replayed] == [e["cursor"] for e in spectator]
    await store.close()


# -- a full Redis ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def own_redis() -> AsyncIterator[tuple[str, aioredis.Redis]]:
    """A redis-server of this test's own (its memory limit is changed), with no eviction
    as deploy/compose.yaml and the chart run it."""
    binary = find_redis_server()
    if binary is None:
        pytest.skip("needs a redis-server of the test's own")
    with redis_server_process(binary) as url:
        admin = aioredis.from_url(url)
        try:
            await admin.config_set("maxmemory-policy", "noeviction")
            yield url, admin
        finally:
            await admin.aclose()


async def leave_room(admin: aioredis.Redis, room: int) -> None:
    """A small maxmemory: ``room`` bytes more than Redis uses now."""
    used = int((await admin.info("memory"))["used_memory"])
    await admin.config_set("maxmemory", used + room)


@pytest.mark.redis
async def test_a_full_redis_refuses_writes_with_unavailable_and_corrupts_nothing(
    registry: Registry,
) -> None:
    async with own_redis() as (url, admin):
        store = RedisStore.from_url(url, prefix="full:")
        try:
            async with serve(make_settings(), registry, store) as c:
                t = await open_table(c)
                before = (await c.q(TABLE, t=t.table_id))["table"]
                await leave_room(admin, 300_000)
                made, refused = 0, None
                for _ in range(2000):  # each table is a few kilobytes: full long before
                    body = await c.raw(CREATE, g="lucky-draw", s=2)
                    if body.get("errors"):
                        refused = body["errors"][0]
                        break
                    made += 1
                assert refused is not None and made > 0
                assert refused["extensions"]["code"] == "UNAVAILABLE", refused
                assert "full" in refused["message"]
                # Redis refuses a write while its use is over the limit; what it uses moves a
                # little (client buffers), so the limit is pinned below it: full, whatever
                # was freed since the refusal
                await leave_room(admin, -64_000)
                # every write is refused the same way, and changes nothing
                token, move = await to_act(c, t.tokens, t.table_id)
                assert await c.code(MOVE, token, t=t.table_id, m=move) == "UNAVAILABLE"
                assert await c.code(CHAT, token, t=t.table_id, x="hi") == "UNAVAILABLE"
                # reads go on
                now = (await c.q(TABLE, t=t.table_id))["table"]
                assert now["version"] == before["version"] and now["cursor"] == before["cursor"]
                assert (await c.http.get("/readyz")).status_code == 200
                # room again (tables expire, or the operator raises the limit): all is whole
                await admin.config_set("maxmemory", 0)
                done = (await c.q(MOVE, token, t=t.table_id, m=move))["makeMove"]
                assert done["table"]["version"] == before["version"] + 1
                assert {e["version"] for e in done["events"]} == {before["version"] + 1}
                tags: dict[str, set[str]] = {}
                async for raw in admin.scan_iter(match="full:{t:*", count=500):
                    tag, _, suffix = raw.decode().rpartition(":")
                    tags.setdefault(tag, set()).add(suffix)
                assert len(tags) == made + 1
                assert all({"s", "e"} <= suffixes for suffixes in tags.values()), tags
        finally:
            await store.close()
