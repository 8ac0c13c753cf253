"""The lobby through the real API, on both stores: private tables and join codes,
setOptions, kickSeat, cancelTable and the lobbyEvents subscription."""

from __future__ import annotations

import json

import pytest
from support.life import LOBBY, SUB, events, next_data, subscribe, until
from support.lucky import JOIN, MOVE, START, TABLE, open_table
from support.server import Client, make_settings, serve, ws_next

CREATE = """mutation($p: Boolean!, $s: Int) {
  createTable(gameId: "lucky-draw", private: $p, seats: $s) {
    hostToken joinCode table { id private joinCode }
  }
}"""
JOIN_CODE = """mutation($t: ID!, $n: String!, $c: String) {
  joinTable(tableId: $t, name: $n, code: $c) { seat playerToken }
}"""
CODE = "query($t: ID!) { table(id: $t) { private joinCode } }"
LIST = 'query { tables(gameId: "lucky-draw", first: 100) { nodes { id } } }'
SET_OPTIONS = """mutation($t: ID!, $o: JSON!) {
  setOptions(tableId: $t, options: $o) { version options }
}"""
KICK = """mutation($t: ID!, $s: Int!) {
  kickSeat(tableId: $t, seat: $s) { version seats { kind name } }
}"""
CANCEL = "mutation($t: ID!) { cancelTable(tableId: $t) { status version shuffleSeed result { winners } } }"
VIEWER = "query { viewer { tableId seat } }"


async def _listed(c: Client) -> list[str]:
    return [n["id"] for n in (await c.q(LIST))["tables"]["nodes"]]


# -- private tables -------------------------------------------------------------------


async def test_a_private_table_needs_its_code(client: Client):
    made = (await client.q(CREATE, p=True, s=3))["createTable"]
    table_id, host, code = made["table"]["id"], made["hostToken"], made["joinCode"]
    assert made["table"]["private"] is True and code and len(code) >= 8
    assert made["table"]["joinCode"] is None  # the payload's table has no viewer yet
    public = (await client.q(CREATE, p=False))["createTable"]
    assert public["joinCode"] is None and public["table"]["private"] is False
    listed = await _listed(client)
    assert public["table"]["id"] in listed and table_id not in listed
    for status in ("OPEN", "PLAYING"):
        found = await client.q(
            "query($s: TableStatus) { tables(status: $s, first: 100) { nodes { id } } }", s=status
        )
        assert table_id not in [n["id"] for n in found["tables"]["nodes"]]
    # the code, and only the code, lets a player in; it never shows in an error
    for wrong in (None, "", "nope", code[:-1], code + "x"):
        body = await client.raw(JOIN_CODE, t=table_id, n="Eve", c=wrong)
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert code not in json.dumps(body)
    joined = (await client.q(JOIN_CODE, t=table_id, n="Ann", c=code))["joinTable"]
    # the host joins without it
    hosted = (await client.q(JOIN_CODE, host, t=table_id, n="Host"))["joinTable"]
    assert {joined["seat"], hosted["seat"]} == {0, 1}
    # the host sees the code on the table; nobody else does
    assert (await client.q(CODE, host, t=table_id))["table"]["joinCode"] == code
    assert (await client.q(CODE, hosted["playerToken"], t=table_id))["table"]["joinCode"] == code
    assert (await client.q(CODE, joined["playerToken"], t=table_id))["table"]["joinCode"] is None
    assert (await client.q(CODE, t=table_id))["table"]["joinCode"] is None
    everything = json.dumps(await events(client, table_id, host, f=1000))
    assert code not in everything
    # once playing and after, still unlisted
    await client.q(START, host, t=table_id)
    assert table_id not in await _listed(client)


# -- setOptions -----------------------------------------------------------------------


async def test_set_options(client: Client):
    t = await open_table(client, humans=2, start=False)
    version = (await client.q(TABLE, t=t.table_id))["table"]["version"]
    wanted = {"handSize": 5, "turnSeconds": 60}
    done = (await client.q(SET_OPTIONS, t.host, t=t.table_id, o=wanted))["setOptions"]
    assert done["version"] == version + 1
    assert {k: done["options"][k] for k in wanted} == wanted
    changed = (await events(client, t.table_id, l=1))["events"][0]
    assert changed["type"] == "options.changed" and changed["data"]["options"] == done["options"]
    # defaults fill what is left out
    reset = (await client.q(SET_OPTIONS, t.host, t=t.table_id, o={}))["setOptions"]["options"]
    assert reset["handSize"] == 3 and reset["turnSeconds"] == 0
    await client.q(START, t.host, t=t.table_id)
    hand = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]["state"]["myHand"]
    assert len(hand) == 3


@pytest.mark.parametrize(
    ("options", "code"),
    [
        pytest.param({"handSize": 9}, "BAD_INPUT", id="out-of-range"),
        pytest.param({"nope": 1}, "BAD_INPUT", id="unknown"),
        pytest.param([1, 2], "BAD_INPUT", id="not-an-object"),
        pytest.param({"x": "y" * 20_000}, "BAD_INPUT", id="too-large"),
    ],
)
async def test_set_options_refuses_bad_options(client: Client, options: object, code: str):
    t = await open_table(client, humans=2, start=False)
    before = (await client.q(TABLE, t=t.table_id))["table"]["version"]
    assert await client.code(SET_OPTIONS, t.host, t=t.table_id, o=options) == code
    assert (await client.q(TABLE, t=t.table_id))["table"]["version"] == before


async def test_host_operations_are_refused_to_others_and_after_the_start(client: Client):
    t = await open_table(client, humans=2, start=False)
    other = await open_table(client, humans=2, start=False)
    for query, extra in ((SET_OPTIONS, {"o": {}}), (KICK, {"s": 1}), (CANCEL, {})):
        assert await client.code(query, None, t=t.table_id, **extra) == "UNAUTHENTICATED"
        assert await client.code(query, "x.y", t=t.table_id, **extra) == "UNAUTHENTICATED"
        assert await client.code(query, t.host, t="no-such-table", **extra) == "NOT_FOUND"
        assert await client.code(query, t.tokens[0], t=t.table_id, **extra) == "FORBIDDEN"
        assert await client.code(query, other.host, t=t.table_id, **extra) == "FORBIDDEN"
    await client.q(START, t.host, t=t.table_id)
    assert await client.code(SET_OPTIONS, t.host, t=t.table_id, o={}) == "TABLE_NOT_OPEN"
    assert await client.code(KICK, t.host, t=t.table_id, s=1) == "TABLE_NOT_OPEN"


# -- kickSeat -------------------------------------------------------------------------


async def test_kick_seat(client: Client):
    t = await open_table(client, humans=2, bots=1, start=False)
    kicked = (await client.q(KICK, t.host, t=t.table_id, s=1))["kickSeat"]
    assert [s["kind"] for s in kicked["seats"]] == ["HUMAN", "EMPTY", "BOT"]
    ev = (await events(client, t.table_id, l=1))["events"][0]
    assert ev["type"] == "seat.kicked" and ev["seat"] == 1 and ev["data"] == {"name": "P1"}
    # the kicked token stops working everywhere
    assert await client.code(VIEWER, t.tokens[1]) == "UNAUTHENTICATED"
    assert await client.code(TABLE, t.tokens[1], t=t.table_id) == "UNAUTHENTICATED"
    # bots can be kicked too; an empty or unknown seat cannot
    assert (await client.q(KICK, t.host, t=t.table_id, s=2))["kickSeat"]["seats"][2]["kind"] == (
        "EMPTY"
    )
    assert await client.code(KICK, t.host, t=t.table_id, s=1) == "NOT_FOUND"
    assert await client.code(KICK, t.host, t=t.table_id, s=7) == "NOT_FOUND"
    assert await client.code(KICK, t.host, t=t.table_id, s=-1) == "NOT_FOUND"
    # the seat is free again
    again = (await client.q(JOIN, t=t.table_id, n="New", s=1))["joinTable"]
    assert (await client.q(VIEWER, again["playerToken"]))["viewer"]["seat"] == 1


# -- cancelTable ----------------------------------------------------------------------


async def test_cancel_an_open_table(client: Client):
    t = await open_table(client, humans=2, start=False)
    async with client.ws() as conn:
        await subscribe(conn, SUB, {"t": t.table_id})
        done = (await client.q(CANCEL, t.host, t=t.table_id))["cancelTable"]
        assert done["status"] == "CANCELLED" and done["result"] is None and done["shuffleSeed"]
        got = await until(conn, lambda e: e["type"] == "table.cancelled")
        assert got[-1]["data"]["from"] == "OPEN" and got[-1]["version"] == done["version"]
    assert await client.code(START, t.host, t=t.table_id) == "TABLE_NOT_OPEN"
    assert await client.code(JOIN, t=t.table_id, n="Late") == "TABLE_NOT_OPEN"
    assert await client.code(CANCEL, t.host, t=t.table_id) == "TABLE_NOT_PLAYING"
    found = await client.q(
        "query { tables(status: CANCELLED, first: 100) { nodes { id status } } }"
    )
    assert {"id": t.table_id, "status": "CANCELLED"} in found["tables"]["nodes"]


async def test_cancel_a_playing_table(client: Client):
    t = await open_table(client, humans=2)
    legal = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]["legalMoves"]
    done = (await client.q(CANCEL, t.host, t=t.table_id))["cancelTable"]
    assert done["status"] == "CANCELLED"
    assert await client.code(MOVE, t.tokens[0], t=t.table_id, m=legal[0]) == "TABLE_NOT_PLAYING"
    view = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
    assert view["legalMoves"] == [] and view["state"]["toAct"] == []


# -- lobbyEvents ----------------------------------------------------------------------


def _lobby(ev: dict) -> tuple[str, str | None]:
    return ev["type"], ev["tableId"]


async def test_lobby_events_snapshot_then_live(client: Client):
    before = await open_table(client, humans=2, start=False)
    hidden = (await client.q(CREATE, p=True, s=2))["createTable"]["table"]["id"]
    async with client.ws() as conn:
        await subscribe(conn, LOBBY, {"g": "lucky-draw"})
        snapshot = await until(conn, lambda e: e["type"] == "lobby.live", "lobbyEvents")
        listed = [e["tableId"] for e in snapshot if e["type"] == "table.listed"]
        assert before.table_id in listed and hidden not in listed
        assert all(e["status"] == "OPEN" for e in snapshot[:-1])
        # live: a public table opens, changes, starts; a private one never shows
        await client.q(CREATE, p=True, s=2)
        t = await open_table(client, humans=2, start=False)
        first = await next_data(conn, "lobbyEvents")
        assert _lobby(first) == ("table.opened", t.table_id)
        assert first["table"]["id"] == t.table_id
        joins = [await next_data(conn, "lobbyEvents") for _ in range(2)]
        assert [_lobby(e) for e in joins] == [("table.updated", t.table_id)] * 2
        assert [s["kind"] for s in joins[-1]["table"]["seats"]] == ["HUMAN", "HUMAN"]
        await client.q(START, t.host, t=t.table_id)
        closed = await next_data(conn, "lobbyEvents")
        assert _lobby(closed) == ("table.closed", t.table_id) and closed["status"] == "PLAYING"
        await client.q(CANCEL, before.host, t=before.table_id)
        gone = await next_data(conn, "lobbyEvents")
        assert _lobby(gone) == ("table.closed", before.table_id)
        assert gone["status"] == "CANCELLED"


async def test_lobby_events_of_one_game(client: Client):
    async with client.ws() as conn:
        await subscribe(conn, LOBBY, {"g": "five-by-five"})
        await until(conn, lambda e: e["type"] == "lobby.live", "lobbyEvents")
        await open_table(client, humans=2, start=False)  # lucky-draw: not for this lobby
        made = await client.q('mutation { createTable(gameId: "five-by-five") { table { id } } }')
        ev = await next_data(conn, "lobbyEvents")
        assert _lobby(ev) == ("table.opened", made["createTable"]["table"]["id"])
        assert ev["gameId"] == "five-by-five"


@pytest.mark.redis
async def test_lobby_events_cross_replicas(registry, redis_url, redis_prefix):
    from tablestate.store.redis import RedisStore

    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    try:
        async with serve(make_settings(), registry, stores[0]) as a:
            async with serve(make_settings(), registry, stores[1]) as b:
                async with a.ws() as conn:
                    await subscribe(conn, LOBBY, {})
                    await until(conn, lambda e: e["type"] == "lobby.live", "lobbyEvents")
                    t = await open_table(b, humans=2, start=False)
                    got = [await next_data(conn, "lobbyEvents") for _ in range(3)]
                    assert [_lobby(e) for e in got] == [
                        ("table.opened", t.table_id),
                        ("table.updated", t.table_id),
                        ("table.updated", t.table_id),
                    ]
    finally:
        for store in stores:
            await store.close()


async def test_a_kicked_seat_subscription_ends_and_cannot_restart(client: Client):
    t = await open_table(client, humans=2, start=False)
    # seat 1 was someone else's before: that leaving does not end the new holder's stream
    await client.q("mutation($t: ID!) { leaveTable(tableId: $t) { version } }", t.tokens[1],
                   t=t.table_id)  # fmt: skip
    t.tokens[1] = (await client.q(JOIN, t=t.table_id, n="Next", s=1))["joinTable"]["playerToken"]
    async with client.ws() as conn:
        await subscribe(conn, SUB, {"t": t.table_id}, t.tokens[1])
        await until(conn, lambda e: e["type"] == "seat.connected")
        await client.q(KICK, t.host, t=t.table_id, s=1)
        # nothing more reaches the old holder, not even the kick: its stream ends at once
        msg = await ws_next(conn)
        assert msg["type"] == "next" and "UNAUTHENTICATED" in json.dumps(msg), msg
        # the connection still stands, but a new subscription with the old token does not
        await conn.send(
            json.dumps(
                {"id": "2", "type": "subscribe",
                 "payload": {"query": SUB, "variables": {"t": t.table_id}}}
            )
        )  # fmt: skip
        refused = await ws_next(conn)
        while refused["id"] == "1":  # the first one's completion
            assert refused["type"] == "complete", refused
            refused = await ws_next(conn)
        assert "UNAUTHENTICATED" in json.dumps(refused)
