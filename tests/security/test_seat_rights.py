"""A seat's rights end the moment it changes hands, on every path.

An old holder keeps a WebSocket open on one replica while the seat changes hands through
the other replica (one server with the memory store): kicked and joined anew, replaced,
left to a bot, left past its grace period, or taken by the bot after timeouts. From that
commit on the old socket gets nothing private: its subscription ends with
``UNAUTHENTICATED`` before any later event, its queries see the public view, its moves
and seat mutations are ``UNAUTHENTICATED``, and a new subscription is refused. Over both
WebSocket protocols (the legacy one runs subscriptions only).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.lucky import JOIN, MOVE, START, TABLE, Seated, open_table
from support.server import Client, make_settings, serve, ws_init, ws_next

from tablestate.plugins import Registry
from tablestate.store.memory import MemoryStore

GRACE = 30.0
TURN = 30.0
SUB = """subscription($t: ID!) {
  tableEvents(tableId: $t) { cursor version type seat data }
}"""
OWN = """query($t: ID!) { viewer { seat isHost } table(id: $t) {
  version legalMoves state { ... on LuckyDrawState { myHand } }
  events(last: 20) { version type data }
} }"""
LEAVE = "mutation($t: ID!) { leaveTable(tableId: $t) { version } }"
REJOIN = "mutation($t: ID!) { rejoinTable(tableId: $t) { version } }"
KICK = "mutation($t: ID!, $s: Int!) { kickSeat(tableId: $t, seat: $s) { version } }"
REPLACE = """mutation($t: ID!, $s: Int!, $n: String!) {
  replaceSeat(tableId: $t, seat: $s, name: $n) { playerToken table { version } }
}"""
WAYS = ["kicked", "replaced", "left", "grace-ended", "timed-out"]
PROTOCOLS = ["graphql-transport-ws", "graphql-ws"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def replicas(
    request: pytest.FixtureRequest, registry: Registry
) -> AsyncIterator[tuple[Client, Client, Clock]]:
    """Two replicas of one store (with the memory store, one server stands for both)."""
    clock = Clock()
    settings = make_settings()
    if request.param == "memory":
        async with serve(settings, registry, MemoryStore(), clock) as one:
            yield one, one, clock
        return
    from tablestate.store.redis import RedisStore

    url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    stores = [RedisStore.from_url(url, prefix=prefix) for _ in range(2)]
    try:
        async with (
            serve(settings, registry, stores[0], clock) as a,
            serve(settings, registry, stores[1], clock) as b,
        ):
            yield a, b, clock
    finally:
        for store in stores:
            await store.close()


class OldSocket:
    """The old holder's WebSocket: its ``tableEvents`` (operation "1") read into
    ``messages`` as they come."""

    def __init__(self, conn: Any, protocol: str) -> None:
        self.conn, self.protocol = conn, protocol
        self.messages: list[dict[str, Any]] = []
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.ended = asyncio.Event()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                msg = json.loads(await self.conn.recv())
                if msg.get("type") in ("ka", "ping", "pong"):
                    continue
                if msg.get("id") == "1":
                    self.messages.append(msg)
                    if msg["type"] in ("complete", "error"):
                        self.ended.set()
                    elif (msg.get("payload") or {}).get("errors"):
                        self.ended.set()
                elif msg.get("id") in self.replies and msg["type"] != "complete":
                    future = self.replies.pop(msg["id"])
                    if not future.done():
                        future.set_result(msg)

    async def send(self, op: str, query: str, **variables: Any) -> dict[str, Any]:
        """Run an operation on this socket; its first answer."""
        kind = "subscribe" if self.protocol == "graphql-transport-ws" else "start"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[op] = future
        payload = {"query": query, "variables": variables}
        await self.conn.send(json.dumps({"id": op, "type": kind, "payload": payload}))
        return await asyncio.wait_for(future, 10)

    def events(self) -> list[dict[str, Any]]:
        return [
            m["payload"]["data"]["tableEvents"]
            for m in self.messages
            if m["type"] in ("next", "data") and (m["payload"].get("data") or {}).get("tableEvents")
        ]

    def error_codes(self) -> list[str]:
        codes = []
        for m in self.messages:
            payload = m.get("payload")
            errors = payload if isinstance(payload, list) else (payload or {}).get("errors") or []
            if isinstance(payload, dict) and m["type"] == "error":
                errors = [payload]
            codes += [str(e.get("extensions", {}).get("code")) for e in errors]
        return codes


def codes_of(msg: dict[str, Any]) -> list[str]:
    payload = msg.get("payload")
    if msg["type"] == "error":
        errors = payload if isinstance(payload, list) else [payload]
    else:
        errors = (payload or {}).get("errors") or []
    return [str(e.get("extensions", {}).get("code")) for e in errors]


async def wait_for(check: Any, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, "the condition never held"
        await asyncio.sleep(0.02)


async def table_of(c: Client, t: Seated, token: str | None = None) -> dict[str, Any]:
    return (await c.q(TABLE, token, t=t.table_id))["table"]  # type: ignore[no-any-return]


async def to_act(c: Client, t: Seated, seat: int) -> None:
    """Play the other seat's moves until ``seat`` is to act."""
    for _ in range(20):
        table = await table_of(c, t)
        acting = table["state"]["toAct"][0]
        if acting == seat:
            return
        mine = await table_of(c, t, t.tokens[acting])
        await c.q(MOVE, t.tokens[acting], t=t.table_id, m=mine["legalMoves"][0])
    raise AssertionError("the seat never came to act")


async def hand_over(
    way: str, a: Client, t: Seated, clock: Clock, victim: int
) -> tuple[str | None, int]:
    """Take ``victim``'s seat from its token through replica ``a``: the seat's new token
    (None: a bot holds it now) and the version of the commit that took it."""
    taken_at = (await table_of(a, t))["version"] + 1
    if way == "kicked":
        await a.q(KICK, t.host, t=t.table_id, s=victim)
        joined = (await a.q(JOIN, t=t.table_id, n="Newcomer", s=victim))["joinTable"]
        await a.q(START, t.host, t=t.table_id)
        return str(joined["playerToken"]), taken_at
    if way == "replaced":
        made = await a.q(REPLACE, t.host, t=t.table_id, s=victim, n="Newcomer")
        return str(made["replaceSeat"]["playerToken"]), taken_at
    if way == "left":
        await a.q(LEAVE, t.tokens[victim], t=t.table_id)
        return None, taken_at
    if way == "grace-ended":
        await a.q(LEAVE, t.tokens[victim], t=t.table_id)  # the seat waits for its token
        taken_at += 1
        clock.now += GRACE + 1
    else:  # timed-out: the victim's clock runs out, the bot plays for it and keeps it
        clock.now += TURN + 1

    async def bot_holds_it() -> bool:
        return (await table_of(a, t))["seats"][victim]["kind"] == "BOT"

    await wait_for(bot_holds_it)
    return None, taken_at


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("way", WAYS)
async def test_the_old_socket_loses_the_seat_at_once(
    replicas: tuple[Client, Client, Clock], way: str, protocol: str
):
    a, b, clock = replicas
    options: dict[str, Any] = {}
    if way == "grace-ended":
        options["leaveGraceSeconds"] = GRACE
    if way == "timed-out":
        options.update(turnSeconds=TURN, timeoutsBeforeBot=1)
    t = await open_table(a, humans=2, options=options, start=way != "kicked")
    victim = 1
    if way == "timed-out":
        await to_act(a, t, victim)
    async with b.ws(protocol) as conn:
        assert (await ws_init(conn, t.tokens[victim]))["type"] == "connection_ack"
        old = OldSocket(conn, protocol)
        kind = "subscribe" if protocol == "graphql-transport-ws" else "start"
        payload = {"query": SUB, "variables": {"t": t.table_id}}
        await conn.send(json.dumps({"id": "1", "type": kind, "payload": payload}))

        async def live() -> bool:
            return any(e["type"] == "seat.connected" for e in old.events())

        await wait_for(live)
        new_token, taken_at = await hand_over(way, a, t, clock, victim)

        # The new holder (or the bot) goes on playing: private parts of the seat follow.
        if new_token is not None:
            await to_act(a, t, victim)
            mine = await table_of(a, t, new_token)
            assert mine["state"]["myHand"], "the new holder sees its hand"
            await a.q(MOVE, new_token, t=t.table_id, m=mine["legalMoves"][0])
        await asyncio.wait_for(old.ended.wait(), 10)
        assert "UNAUTHENTICATED" in old.error_codes(), old.messages
        late = [e for e in old.events() if e["version"] >= taken_at]
        assert late == [], "nothing reaches the old token from the commit that took the seat"
        assert all("private" not in e["data"] for e in late)

        if protocol == "graphql-transport-ws":  # queries and mutations over the socket
            seen = (await old.send("2", OWN, t=t.table_id))["payload"]["data"]
            assert seen["viewer"] is None
            assert seen["table"]["legalMoves"] == []
            assert not seen["table"]["state"]["myHand"]
            assert all("private" not in e["data"] for e in seen["table"]["events"])
            move = {"luckyDraw": {"draw": True}}
            moved = await old.send("3", MOVE, t=t.table_id, m=move)
            assert codes_of(moved) == ["UNAUTHENTICATED"], moved
            for op, query in (("4", LEAVE), ("5", REJOIN)):
                refused = await old.send(op, query, t=t.table_id)
                assert codes_of(refused) == ["UNAUTHENTICATED"], refused
        again = await old.send("6", SUB, t=t.table_id)
        assert codes_of(again) == ["UNAUTHENTICATED"], again
        old.task.cancel()
    # over HTTP the old token is simply unknown now
    assert await a.code(OWN, t.tokens[victim], t=t.table_id) == "UNAUTHENTICATED"


async def test_a_rematch_token_never_reaches_a_replaced_seat(
    replicas: tuple[Client, Client, Clock],
):
    """The rematch event carries each seat's new token in its private part: a socket whose
    seat was replaced before the game ended never sees it."""
    a, b, _ = replicas
    t = await open_table(a, humans=2)
    async with b.ws() as conn:
        assert (await ws_init(conn, t.tokens[1]))["type"] == "connection_ack"
        old = OldSocket(conn, "graphql-transport-ws")
        payload = {"query": SUB, "variables": {"t": t.table_id}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        made = await a.q(REPLACE, t.host, t=t.table_id, s=1, n="Newcomer")
        t.tokens[1] = made["replaceSeat"]["playerToken"]
        for _ in range(400):
            table = await table_of(a, t)
            if table["status"] == "FINISHED":
                break
            acting = table["state"]["toAct"][0]
            mine = await table_of(a, t, t.tokens[acting])
            await a.q(MOVE, t.tokens[acting], t=t.table_id, m=mine["legalMoves"][0])
        rematch = "mutation($t: ID!) { rematch(tableId: $t) { playerToken } }"
        fresh = (await a.q(rematch, t.tokens[1], t=t.table_id))["rematch"]["playerToken"]
        await asyncio.wait_for(old.ended.wait(), 10)
        seen = (await old.send("2", OWN, t=t.table_id))["payload"]["data"]
        text = json.dumps([old.messages, seen])
        assert fresh not in text and "playerToken" not in text
        old.task.cancel()


async def test_a_replaced_seat_answer_shows_the_host_no_hand(
    replicas: tuple[Client, Client, Clock],
):
    """``replaceSeat`` answers with the table as the host sees it, not as the new player."""
    a, _, _ = replicas
    t = await open_table(a, humans=2)
    query = """mutation($t: ID!, $s: Int!, $n: String!) { replaceSeat(tableId: $t, seat: $s,
      name: $n) { table { legalMoves state { ... on LuckyDrawState { myHand } } } } }"""
    made = (await a.q(query, t.host, t=t.table_id, s=0, n="Zed"))["replaceSeat"]
    assert not made["table"]["state"]["myHand"] and made["table"]["legalMoves"] == []


async def test_a_move_on_a_stale_replica_checks_the_seat_at_the_version_it_commits(
    replicas: tuple[Client, Client, Clock],
):
    """Replica B last saw the table before the seat was replaced on A: the old token's move
    through B is refused (the commit's version check makes B read the table again)."""
    a, b, _ = replicas
    t = await open_table(a, humans=2)
    await to_act(a, t, 1)
    async with b.ws() as conn:
        assert (await ws_init(conn, t.tokens[1]))["type"] == "connection_ack"
        await table_of(b, t, t.tokens[1])  # B caches the table with the old holder seated
        await a.q(REPLACE, t.host, t=t.table_id, s=1, n="Newcomer")
        before = (await table_of(a, t))["version"]
        payload = {
            "query": MOVE,
            "variables": {"t": t.table_id, "m": {"luckyDraw": {"draw": True}}},
        }
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        answer = await ws_next(conn)
        assert codes_of(answer) == ["UNAUTHENTICATED"], answer
    assert (await table_of(a, t))["version"] == before
