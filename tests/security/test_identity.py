"""Acting for others: every mutation with a missing, malformed, forged, leaked-hash, other
table's, other seat's, left or expired token, over HTTP and over both WebSocket protocols,
and changing identity mid-connection. Each is refused with its code and changes nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.server import Client, make_settings, serve, ws_init, ws_next
from websockets.exceptions import ConnectionClosed

from tablestate.engine import rights as rights_module
from tablestate.store.memory import MemoryStore

CREATE = """mutation($g: ID!, $s: Int) { createTable(gameId: $g, seats: $s) {
  hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int) {
  joinTable(tableId: $t, name: $n, seat: $s) { seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { version } }"
ADD_BOT = "mutation($t: ID!) { addBot(tableId: $t) { version } }"
LEAVE = "mutation($t: ID!) { leaveTable(tableId: $t) { version } }"
RULE = """mutation($t: ID!) {
  setHouseRule(tableId: $t, ruleId: "five-crowns/natural-required", enabled: true) { version } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { version } } }"""
TABLE = "query($t: ID!) { table(id: $t) { version status legalMoves state { toAct } } }"
VIEWER = "{ viewer { tableId seat isHost } }"
UNDO = "mutation($t: ID!) { undoMove(tableId: $t) { table { version } } }"
REJOIN = "mutation($t: ID!) { rejoinTable(tableId: $t) { version } }"
REPLACE = """mutation($t: ID!) { replaceSeat(tableId: $t, seat: 0, name: "New") {
  playerToken } }"""
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type seat data } }"
SET_OPTIONS = "mutation($t: ID!) { setOptions(tableId: $t, options: {}) { version } }"
KICK = "mutation($t: ID!) { kickSeat(tableId: $t, seat: 2) { version } }"
CANCEL = "mutation($t: ID!) { cancelTable(tableId: $t) { version } }"
REMATCH = "mutation($t: ID!) { rematch(tableId: $t) { seat } }"
CHAT = """mutation($t: ID!) { sendChat(tableId: $t, text: "hi", name: "N") { cursor } }"""


@dataclass
class Table:
    id: str
    host: str
    seats: dict[int, str] = field(default_factory=dict)


async def open_table(c: Client, seats: int = 3, start: bool = False) -> Table:
    made = (await c.q(CREATE, g="five-crowns", s=seats))["createTable"]
    t = Table(made["table"]["id"], made["hostToken"])
    for s in range(seats):
        t.seats[s] = (await c.q(JOIN, t=t.id, n=f"P{s}", s=s))["joinTable"]["playerToken"]
    if start:
        await c.q(START, t.host, t=t.id)
    return t


async def version(c: Client, t: Table) -> int:
    return int((await c.q(TABLE, t=t.id))["table"]["version"])


def forged_tokens(t: Table) -> dict[str, str]:
    """Tokens an attacker can make for table ``t`` without holding one of its tokens."""
    stored = hashlib.sha256(t.host.encode()).hexdigest()  # what a Redis reader sees
    return {
        "garbage": "garbage",
        "no-secret": f"{t.id}.",
        "no-table": f".{t.host.split('.', 1)[1]}",
        "long": "x" * 500,
        "random-secret": f"{t.id}.{secrets.token_urlsafe(32)}",
        "stored-hash": f"{t.id}.{stored}",
        "bare-hash": stored,
        "case-changed": t.host.swapcase(),
        "truncated": t.host[:-1],
        "extended": t.host + "A",
        "space-inside": t.host[:10] + " " + t.host[10:],
    }


ODD = ["é", "\x00", "\u202e", "\ud800"]  # over WebSocket, where JSON carries any character


@pytest.fixture
async def api(registry) -> AsyncIterator[Client]:
    async with serve(make_settings(), registry, MemoryStore()) as c:
        yield c


async def test_every_mutation_refuses_tokens_that_give_no_right(api: Client):
    c = api
    t = await open_table(c)
    other = await open_table(c, start=True)
    v = await version(c, t)
    host_ops = [
        (ADD_BOT, {}), (RULE, {}), (START, {}), (REPLACE, {}), (SET_OPTIONS, {}), (KICK, {}),
        (CANCEL, {}),
    ]  # fmt: skip
    seat_ops = [(LEAVE, {}), (UNDO, {}), (REJOIN, {})]
    every = host_ops + seat_ops + [(REMATCH, {})]
    for name, token in forged_tokens(t).items():
        # chat needs no token, but a bad one is no spectator either
        assert await c.code(CHAT, token, t=t.id) == "UNAUTHENTICATED", name
        for query, extra in every:
            assert await c.code(query, token, t=t.id, **extra) == "UNAUTHENTICATED", name
        # a bad token is never a spectator, not even where no token is needed
        assert await c.code(VIEWER, token) == "UNAUTHENTICATED", name
        assert await c.code(JOIN, token, t=t.id, n="x") == "UNAUTHENTICATED", name
        assert await c.code(CREATE, token, g="five-crowns", s=2) == "UNAUTHENTICATED", name
    for query, extra in every:
        assert await c.code(query, None, t=t.id, **extra) == "UNAUTHENTICATED"
        # another table's host and seats have no right here
        assert await c.code(query, other.host, t=t.id, **extra) == "FORBIDDEN"
        assert await c.code(query, other.seats[0], t=t.id, **extra) == "FORBIDDEN"
    for token in (other.host, other.seats[0]):
        assert await c.code(CHAT, token, t=t.id) == "FORBIDDEN"
    for query, extra in host_ops:  # a seat is not the host
        assert await c.code(query, t.seats[1], t=t.id, **extra) == "FORBIDDEN"
    for query in (LEAVE, UNDO, REJOIN):  # the host holds no seat
        assert await c.code(query, t.host, t=t.id) == "FORBIDDEN"
    for raw in (t.host.encode()[:-1] + b"\xe9", b"Bearer", b"Basic " + t.host.encode()):
        header = raw if raw.startswith((b"Bearer", b"Basic")) else b"Bearer " + raw
        r = await c.http.post(
            "/graphql",
            json={"query": START, "variables": {"t": t.id}},
            headers={"Authorization": header},
        )
        assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED", raw
    assert await version(c, t) == v


async def test_moves_only_as_your_own_seat(api: Client):
    c = api
    t = await open_table(c, start=True)
    other = await open_table(c, start=True)
    view = (await c.q(TABLE, t=t.id))["table"]
    (actor,) = view["state"]["toAct"]
    move = (await c.q(TABLE, t.seats[actor], t=t.id))["table"]["legalMoves"][0]
    v = view["version"]
    for name, token in forged_tokens(t).items():
        assert await c.code(MOVE, token, t=t.id, m=move) == "UNAUTHENTICATED", name
    assert await c.code(MOVE, None, t=t.id, m=move) == "UNAUTHENTICATED"
    assert await c.code(MOVE, t.host, t=t.id, m=move) == "FORBIDDEN"
    assert await c.code(MOVE, other.host, t=t.id, m=move) == "FORBIDDEN"
    other_actor = (await c.q(TABLE, t=other.id))["table"]["state"]["toAct"][0]
    assert await c.code(MOVE, other.seats[other_actor], t=t.id, m=move) == "FORBIDDEN"
    for seat, token in t.seats.items():
        if seat != actor:  # another seat's token moves as that seat, never as the actor
            assert await c.code(MOVE, token, t=t.id, m=move) == "NOT_YOUR_TURN"
    assert await version(c, t) == v
    await c.q(MOVE, t.seats[actor], t=t.id, m=move)
    assert await version(c, t) == v + 1


async def test_a_seat_that_left_has_no_token(api: Client):
    c = api
    t = await open_table(c)
    assert (await c.q(VIEWER, t.seats[2]))["viewer"]["seat"] == 2
    await c.q(LEAVE, t.seats[2], t=t.id)
    v = await version(c, t)
    for query in (LEAVE, ADD_BOT, START, VIEWER):
        assert await c.code(query, t.seats[2], t=t.id) == "UNAUTHENTICATED"
    # whoever takes the seat next gets a token of its own; the old one stays dead
    token = (await c.q(JOIN, t=t.id, n="new", s=2))["joinTable"]["playerToken"]
    assert token != t.seats[2]
    assert await c.code(VIEWER, t.seats[2]) == "UNAUTHENTICATED"
    assert await version(c, t) == v + 1


async def test_a_seat_handed_over_or_taken_by_a_bot_has_no_token(api: Client):
    c = api
    t = await open_table(c, start=True)
    new = (await c.q(REPLACE, t.host, t=t.id))["replaceSeat"]["playerToken"]
    await c.q(LEAVE, t.seats[1], t=t.id)  # no grace: a bot takes the seat (and may move)
    move = {"fiveCrowns": {"draw": {"source": "STOCK"}}}
    for old in (t.seats[0], t.seats[1]):
        for query in (LEAVE, UNDO, REJOIN, VIEWER):
            assert await c.code(query, old, t=t.id) == "UNAUTHENTICATED"
        assert await c.code(MOVE, old, t=t.id, m=move) == "UNAUTHENTICATED"
    assert (await c.q(VIEWER, new))["viewer"]["seat"] == 0


async def test_an_expired_table_takes_its_tokens_along(registry):
    async with serve(make_settings(idle_ttl=1), registry, MemoryStore()) as c:
        t = await open_table(c, seats=2)
        await asyncio.sleep(1.2)
        for token in (t.host, *t.seats.values()):
            assert await c.code(VIEWER, token) == "UNAUTHENTICATED"
            assert await c.code(START, token, t=t.id) == "UNAUTHENTICATED"


async def test_tokens_are_stored_hashed_and_compared_in_constant_time(registry, monkeypatch):
    store = MemoryStore()
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(rights_module.hmac, "compare_digest", spy)
    async with serve(make_settings(), registry, store) as c:
        t = await open_table(c, seats=2)
        snapshot, _ = await store.load(t.id)  # type: ignore[misc]
        for token in (t.host, *t.seats.values()):
            assert token.split(".", 1)[1] not in snapshot
            assert hashlib.sha256(token.encode()).hexdigest() in snapshot
        calls.clear()
        assert (await c.q(VIEWER, t.seats[1]))["viewer"]["seat"] == 1
        digest = hashlib.sha256(t.seats[1].encode()).hexdigest()
        assert any(digest in pair for pair in calls), "tokens must be compared with compare_digest"


# -- WebSocket ---------------------------------------------------------------------------


async def _closed_with(conn: Any) -> int:
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(10):
            await asyncio.wait_for(conn.recv(), 5)
    assert info.value.rcvd is not None
    return int(info.value.rcvd.code)


async def _ws_op(
    conn: Any, query: str, protocol: str, op: str = "1", **variables: Any
) -> dict[str, Any]:
    kind = "subscribe" if protocol == "graphql-transport-ws" else "start"
    payload = {"query": query, "variables": variables}
    await conn.send(json.dumps({"id": op, "type": kind, "payload": payload}))
    while True:
        msg = await ws_next(conn)
        if msg.get("id") == op and msg["type"] != "complete":
            return msg


def _ws_code(msg: dict[str, Any]) -> str:
    if msg["type"] == "error":
        errors = msg["payload"] if isinstance(msg["payload"], list) else [msg["payload"]]
    else:
        errors = msg["payload"]["errors"]
    return str(errors[0]["extensions"]["code"])


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_websocket_refuses_bad_tokens_at_connection_init(api: Client, protocol: str):
    c = api
    t = await open_table(c)
    odd = [t.host[:-1] + ch for ch in ODD]
    bad: list[Any] = [*forged_tokens(t).values(), *odd, 5, {"token": t.host}, [t.host]]
    for token in bad:
        async with c.ws(protocol) as conn:
            init = {"type": "connection_init", "payload": {"authToken": token}}
            await conn.send(json.dumps(init))
            invalid = isinstance(token, str) and "\ud800" in token  # not even valid JSON text
            if protocol == "graphql-transport-ws":
                assert await _closed_with(conn) == (4400 if invalid else 4403), token
            elif invalid:  # the legacy protocol ignores what it cannot read: never acknowledged
                await conn.send(
                    json.dumps({"id": "1", "type": "start", "payload": {"query": VIEWER}})
                )
                assert await _closed_with(conn) == 4401
            else:
                assert (await ws_next(conn))["type"] == "connection_error", token


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_websocket_mutations_only_with_their_rights(api: Client, protocol: str):
    c = api
    t = await open_table(c)
    other = await open_table(c, start=True)
    v = await version(c, t)
    cases = [
        (None, START, "UNAUTHENTICATED"),
        (other.host, START, "FORBIDDEN"),
        (other.seats[0], ADD_BOT, "FORBIDDEN"),
        (t.seats[0], RULE, "FORBIDDEN"),
        (t.host, LEAVE, "FORBIDDEN"),
        (other.host, LEAVE, "FORBIDDEN"),
    ]
    for token, query, code in cases:
        async with c.ws(protocol) as conn:
            assert (await ws_init(conn, token))["type"] == "connection_ack"
            if protocol == "graphql-ws":  # the legacy protocol runs subscriptions only
                code = "BAD_INPUT"
            assert _ws_code(await _ws_op(conn, query, protocol, t=t.id)) == code, (query, code)
    assert await version(c, t) == v


@pytest.mark.parametrize("protocol", ["graphql-transport-ws", "graphql-ws"])
async def test_no_change_of_identity_mid_connection(api: Client, protocol: str):
    """A second connection_init closes the connection (4429): a spectator cannot become a
    seat, nor a seat another seat, on a connection already open."""
    c = api
    t = await open_table(c, start=True)
    for first, second in [(None, t.seats[0]), (t.seats[1], t.seats[0]), (t.seats[0], t.host)]:
        async with c.ws(protocol) as conn:
            assert (await ws_init(conn, first))["type"] == "connection_ack"
            again = {"type": "connection_init", "payload": {"authToken": second}}
            await conn.send(json.dumps(again))
            assert await _closed_with(conn) == 4429
    # and the identity of a connection stays its first one: seat 1 sees seat 1's cards only
    async with c.ws(protocol) as conn:
        assert (await ws_init(conn, t.seats[1]))["type"] == "connection_ack"
        if protocol == "graphql-transport-ws":  # (the legacy protocol runs no queries)
            msg = await _ws_op(conn, VIEWER, protocol)
            assert msg["payload"]["data"]["viewer"]["seat"] == 1
        sub = await _ws_op(conn, SUB, protocol, op="2", t=t.id)
        events = [sub["payload"]["data"]["tableEvents"]]
        while events[-1]["type"] != "round.dealt":
            events.append((await ws_next(conn))["payload"]["data"]["tableEvents"])
        hand_q = "query($t: ID!) { table(id: $t) { state { ... on FiveCrownsState { hand } } } }"
        mine = (await c.q(hand_q, t.seats[1], t=t.id))["table"]["state"]["hand"]
        assert sorted(events[-1]["data"]["private"]["hand"]) == sorted(mine)
