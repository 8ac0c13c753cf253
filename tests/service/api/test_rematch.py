"""rematch through the real API, on both stores: once only, the same game at a new OPEN
table, and each seat's new token in its own private part and nobody else's."""

from __future__ import annotations

import asyncio
import json

from support.life import SUB, events, subscribe, until
from support.lucky import TABLE, Seated, open_table, play_out
from support.server import Client

REMATCH = """mutation($t: ID!) { rematch(tableId: $t) {
  seat playerToken hostToken
  table { id status version rematchOf rematch options private
          houseRules { id } seats { index kind name isHost } game { id } }
} }"""
LINKS = "query($t: ID!) { table(id: $t) { rematch rematchOf status version } }"
VIEWER = "query { viewer { tableId seat isHost } }"


async def _finished(c: Client, bots: int = 0) -> Seated:
    t = await open_table(
        c, humans=2, bots=bots, rules=["lucky-draw/odd-bonus"], options={"handSize": 2}
    )
    await play_out(c, t)
    return t


async def test_rematch_opens_the_same_game_once(client: Client):
    t = await _finished(client, bots=1)
    old = (await client.q(LINKS, t=t.table_id))["table"]
    made = (await client.q(REMATCH, t.tokens[1], t=t.table_id))["rematch"]
    new = made["table"]
    assert new["status"] == "OPEN" and new["rematchOf"] == t.table_id and new["rematch"] is None
    options = await client.q("query($t: ID!) { table(id: $t) { options } }", t=t.table_id)
    assert new["game"]["id"] == "lucky-draw" and new["options"] == options["table"]["options"]
    assert new["options"]["handSize"] == 2
    assert [r["id"] for r in new["houseRules"]] == ["lucky-draw/odd-bonus"]
    assert [(s["kind"], s["name"]) for s in new["seats"]] == [
        ("HUMAN", "P0"),
        ("HUMAN", "P1"),
        ("BOT", "Bot 3"),
    ]
    assert made["seat"] == 1 and made["hostToken"] is None
    linked = (await client.q(LINKS, t=t.table_id))["table"]
    assert linked["rematch"] == new["id"] and linked["version"] == old["version"] + 1
    # the caller's new token is its seat at the new table
    me = (await client.q(VIEWER, made["playerToken"]))["viewer"]
    assert me == {"tableId": new["id"], "seat": 1, "isHost": False}
    # every later call gives the same table and the same token
    again = (await client.q(REMATCH, t.tokens[1], t=t.table_id))["rematch"]
    assert again["table"]["id"] == new["id"] and again["playerToken"] == made["playerToken"]
    host = (await client.q(REMATCH, t.host, t=t.table_id))["rematch"]
    assert host["table"]["id"] == new["id"] and host["seat"] is None
    assert (await client.q(VIEWER, host["hostToken"]))["viewer"] == {
        "tableId": new["id"],
        "seat": None,
        "isHost": True,
    }
    assert (await client.q(LINKS, t=t.table_id))["table"]["version"] == linked["version"]
    # the rematch plays like any table
    p0 = (await client.q(REMATCH, t.tokens[0], t=t.table_id))["rematch"]["playerToken"]
    await client.q("mutation($t: ID!) { startGame(tableId: $t) { status } }", host["hostToken"],
                   t=new["id"])  # fmt: skip
    assert (await client.q(TABLE, p0, t=new["id"]))["table"]["status"] == "PLAYING"
    # the old tokens are the old table's only
    assert (await client.q(VIEWER, t.tokens[0]))["viewer"]["tableId"] == t.table_id


async def test_two_players_clicking_at_once_make_one_rematch(client: Client):
    t = await _finished(client)
    both = await asyncio.gather(
        *(client.q(REMATCH, t.tokens[s], t=t.table_id) for s in (0, 1, 0, 1)),
    )
    ids = {b["rematch"]["table"]["id"] for b in both}
    assert len(ids) == 1
    log = (await events(client, t.table_id, None, f=1000))["events"]
    assert [e["type"] for e in log].count("table.rematch") == 1
    listed = await client.q(
        'query { tables(gameId: "lucky-draw", status: OPEN, first: 100) { nodes { id } } }'
    )
    assert [n["id"] for n in listed["tables"]["nodes"]].count(ids.pop()) == 1


async def test_each_seat_sees_its_own_new_token_only(client: Client):
    t = await _finished(client)
    async with client.ws() as s0, client.ws() as s1, client.ws() as watcher:
        await subscribe(s0, SUB, {"t": t.table_id}, t.tokens[0])
        await subscribe(s1, SUB, {"t": t.table_id}, t.tokens[1])
        await subscribe(watcher, SUB, {"t": t.table_id})
        for conn in (s0, s1, watcher):
            await until(conn, lambda e: e["type"] == "game.finished")
        made = (await client.q(REMATCH, t.host, t=t.table_id))["rematch"]
        new_id = made["table"]["id"]
        got = {}
        for name, conn in (("0", s0), ("1", s1), ("watcher", watcher)):
            got[name] = (await until(conn, lambda e: e["type"] == "table.rematch"))[-1]
    tokens = {}
    for seat in (0, 1):
        data = got[str(seat)]["data"]
        assert data["tableId"] == new_id and data["private"]["seat"] == seat
        tokens[seat] = data["private"]["playerToken"]
        me = (await client.q(VIEWER, tokens[seat]))["viewer"]
        assert me == {"tableId": new_id, "seat": seat, "isHost": False}
    assert got["watcher"]["data"] == {"tableId": new_id}
    # the query path agrees: each seat's own part, nobody else's
    for seat, token in t.tokens.items():
        mine = [
            e for e in (await events(client, t.table_id, token, l=5))["events"]
            if e["type"] == "table.rematch"
        ]  # fmt: skip
        text = json.dumps(mine)
        assert tokens[seat] in text and tokens[1 - seat] not in text
    spectated = json.dumps((await events(client, t.table_id, None, f=1000))["events"])
    assert tokens[0] not in spectated and tokens[1] not in spectated
    assert made["hostToken"] not in spectated


async def test_a_seated_host_gets_the_new_host_rights_on_its_seat(client: Client):
    made = (
        await client.q(
            """mutation { createTable(gameId: "lucky-draw", seats: 2) {
                 hostToken table { id } } }"""
        )
    )["createTable"]
    table_id, host = made["table"]["id"], made["hostToken"]
    join = "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { playerToken } }"
    seat0 = (await client.q(join, host, t=table_id, n="Host"))["joinTable"]["playerToken"]
    seat1 = (await client.q(join, t=table_id, n="Guest"))["joinTable"]["playerToken"]
    await client.q("mutation($t: ID!) { startGame(tableId: $t) { status } }", host, t=table_id)
    await play_out(client, Seated(table_id, host, {0: seat0, 1: seat1}))
    again = (await client.q(REMATCH, seat1, t=table_id))["rematch"]
    mine = [
        e for e in (await events(client, table_id, seat0, l=5))["events"]
        if e["type"] == "table.rematch"
    ]  # fmt: skip
    part = mine[0]["data"]["private"]
    assert (await client.q(VIEWER, part["playerToken"]))["viewer"]["isHost"] is True
    assert (await client.q(VIEWER, part["hostToken"]))["viewer"] == {
        "tableId": again["table"]["id"],
        "seat": None,
        "isHost": True,
    }


async def test_rematch_refusals(client: Client):
    t = await open_table(client, humans=2)
    other = await open_table(client, humans=2, start=False)
    assert await client.code(REMATCH, None, t=t.table_id) == "UNAUTHENTICATED"
    assert await client.code(REMATCH, "bad.token", t=t.table_id) == "UNAUTHENTICATED"
    assert await client.code(REMATCH, t.tokens[0], t="no-such-table") == "NOT_FOUND"
    assert await client.code(REMATCH, other.tokens[0], t=t.table_id) == "FORBIDDEN"
    # a table still playing (or still open) has no rematch yet
    assert await client.code(REMATCH, t.tokens[0], t=t.table_id) == "BAD_INPUT"
    assert await client.code(REMATCH, other.host, t=other.table_id) == "BAD_INPUT"
    assert (await client.q(LINKS, t=t.table_id))["table"]["rematch"] is None
