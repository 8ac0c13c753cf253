"""Spectators' chat tells a seat nothing, through real uvicorn on both stores: a seat's
``Table.cursor`` stays at the newest event the seat may see, and the cursors of what a seat
sees are numbered with no gap at each version, so that spectators cannot signal to a player
by chatting (or not) between two of its reads. A spectator still sees and pages its chat."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from support.life import CHAT
from support.lucky import MOVE, open_table
from support.server import Client, make_settings, serve
from support.sockets import opened

from tablestate.plugins import Registry
from tablestate.store import MemoryStore, RedisStore, StateStore, StoredEvent
from tablestate.store.base import SPECTATOR_BASE, SPECTATOR_STEP, SPECTATORS

AT = "2026-01-01T00:00:00.000Z"
CURSOR = "query($t: ID!) { table(id: $t) { cursor version legalMoves } }"
EVENTS = """query($t: ID!, $a: String, $f: Int) { table(id: $t) {
  events(after: $a, first: $f) { cursor version type seat } } }"""
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor version type seat } }"
KINDS = [
    pytest.param("memory", id="memory"),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
]


@pytest.fixture(params=KINDS)
async def served(
    request: pytest.FixtureRequest, registry: Registry
) -> AsyncIterator[tuple[Client, StateStore]]:
    store: StateStore
    if request.param == "memory":
        store = MemoryStore()
    else:
        url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        store = RedisStore.from_url(url, prefix=prefix)
    try:
        async with serve(make_settings(chat_rate=100.0, chat_burst=100), registry, store) as c:
            yield c, store
    finally:
        await store.close()


def numbers(events: list[dict[str, Any]]) -> dict[int, list[int]]:
    """The numbers of the cursors of ``events`` by version."""
    found: dict[int, list[int]] = {}
    for e in events:
        version, _, n = e["cursor"].partition("-")
        found.setdefault(int(version), []).append(int(n))
    return found


def without_gaps(events: list[dict[str, Any]]) -> bool:
    return all(n == list(range(len(n))) for n in numbers(events).values())


async def events(c: Client, token: str | None, t: str, after: str | None = None) -> list[Any]:
    return (await c.q(EVENTS, token, t=t, a=after, f=1000))["table"]["events"]  # type: ignore[no-any-return]


async def away(c: Client, token: str, t: str) -> list[Any]:
    """The seat's events once its closed subscription has been recorded (``seat.away``)."""
    deadline = asyncio.get_running_loop().time() + 10
    while (found := await events(c, token, t))[-1]["type"] != "seat.away":
        assert asyncio.get_running_loop().time() < deadline, "the seat was never away"
        await asyncio.sleep(0.02)
    return found


async def move(c: Client, tokens: dict[int, str], t: str) -> None:
    for token in tokens.values():
        legal = (await c.q(CURSOR, token, t=t))["table"]["legalMoves"]
        if legal:
            await c.q(MOVE, token, t=t, m=legal[0])
            return
    raise AssertionError("nobody may move")


async def test_a_seat_learns_nothing_of_spectators_chat(
    served: tuple[Client, StateStore],
) -> None:
    c, _ = served
    table = await open_table(c)
    t, seat = table.table_id, table.tokens[0]
    before = (await c.q(CURSOR, seat, t=t))["table"]["cursor"]
    said = (await c.q(CHAT, t=t, x="psst", n="Kim"))["sendChat"]
    assert said["type"] == "chat.spectator"
    # the seat's cursor is where it was; the spectator's is its message's
    assert (await c.q(CURSOR, seat, t=t))["table"]["cursor"] == before
    assert (await c.q(CURSOR, t=t))["table"]["cursor"] == said["cursor"]
    # what the seat sees next is numbered right after what it saw
    mine = (await c.q(CHAT, seat, t=t, x="hello"))["sendChat"]
    version, _, n = before.partition("-")
    assert mine["cursor"] == f"{version}-{int(n) + 1}"
    async with opened(c, seat) as socket:
        await socket.start("sub", SUB, t=t)
        for i in range(3):  # spectators talk between the seats' events, live too
            await c.q(CHAT, t=t, x=f"psst {i}", n="Kim")
            await move(c, table.tokens, t)
            await c.q(CHAT, t=t, x=f"again {i}", n="Kim")
            await c.q(CHAT, table.tokens[1], t=t, x=f"seat {i}")
        seen = await events(c, seat, t)
        await socket.wait(lambda: len(socket.events("sub")) == len(seen))
        live = socket.events("sub")
        assert (await c.q(CURSOR, seat, t=t))["table"]["cursor"] == seen[-1]["cursor"]
    assert live == seen
    seen = await away(c, seat, t)  # the seat's leaving is an event too: the log is still now
    assert all(e["type"] != "chat.spectator" for e in seen)
    assert without_gaps(seen), numbers(seen)
    # a spectator sees every message, and pages through all of it one event at a time
    everything = await events(c, None, t)
    assert [e for e in everything if e["type"] != "chat.spectator"] == seen
    assert sum(e["type"] == "chat.spectator" for e in everything) == 7
    paged: list[Any] = []
    after = None
    while page := (await c.q(EVENTS, t=t, a=after, f=1))["table"]["events"]:
        paged += page
        after = page[-1]["cursor"]
    assert paged == everything
    # and a seat resumes from any cursor, a spectator's one too, with what it may see
    for i, e in enumerate(everything):
        rest = [x for x in everything[i + 1 :] if x["type"] != "chat.spectator"]
        assert await events(c, seat, t, e["cursor"]) == rest


@pytest.mark.redis
async def test_spectators_chat_past_its_numbers_at_a_version_is_rate_limited(
    registry: Registry, redis_url: str, redis_prefix: str
) -> None:
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    admin = aioredis.from_url(redis_url)
    try:
        async with serve(make_settings(), registry, store) as c:
            table = await open_table(c)
            t, seat = table.table_id, table.tokens[0]
            now = (await c.q(CURSOR, seat, t=t))["table"]
            version, n = now["version"], int(now["cursor"].partition("-")[2])
            # the spectators' numbers after the seats' last event at this version, all used
            last = f"{version}-{SPECTATOR_BASE + (n + 1) * SPECTATOR_STEP + SPECTATOR_STEP - 1}"
            said = StoredEvent(last, version, "chat.spectator", AT, {}, None, {}, SPECTATORS)
            key = f"{redis_prefix}{{t:{t}}}:x"
            await admin.xadd(key, {"e": said.to_json()}, id=last)
            assert await c.code(CHAT, t=t, x="one too many", n="Kim") == "RATE_LIMITED"
            assert (await c.q(CURSOR, t=t))["table"]["cursor"] == last  # nothing was added
            await c.q(CHAT, seat, t=t, x="a seat may")  # ... and spectators after it
            assert (await c.q(CHAT, t=t, x="now again", n="Kim"))["sendChat"]["cursor"]
    finally:
        with contextlib.suppress(Exception):
            await admin.aclose()
        await store.close()
