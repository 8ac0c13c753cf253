"""Subscriptions over both WebSocket protocols, with token auth, replay and resume."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.lucky import MOVE, TABLE, open_table, play_out
from support.server import Client, ws_init, ws_next
from websockets.exceptions import ConnectionClosed

SUB = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { cursor version type seat data }
}"""


async def _collect_until(conn, done: str, id_: str = "1", timeout: float = 10) -> list[dict]:
    out = []
    while True:
        msg = await ws_next(conn, timeout)
        if msg["type"] in ("next", "data"):
            assert msg["id"] == id_
            ev = msg["payload"]["data"]["tableEvents"]
            out.append(ev)
            if ev["type"] == done:
                return out
        else:
            raise AssertionError(f"unexpected message {msg}")


async def test_transport_ws_replays_then_streams_live(client: Client):
    t = await open_table(client, humans=2)
    async with client.ws() as conn:
        assert (await ws_init(conn, t.tokens[0]))["type"] == "connection_ack"
        start = {
            "id": "1",
            "type": "subscribe",
            "payload": {"query": SUB, "variables": {"t": t.table_id}},
        }
        await conn.send(json.dumps(start))
        replayed = await _collect_until(conn, "cards.dealt")
        assert next(e["type"] for e in replayed) == "table.created"
        # seat 0's own private part is there, nobody else's
        dealt = replayed[-1]
        assert len(dealt["data"]["private"]["hand"]) == 3
        player = asyncio.ensure_future(play_out(client, t))
        live = await _collect_until(conn, "game.finished")
        await player
    everything = replayed + live
    cursors = [e["cursor"] for e in everything]
    assert len(cursors) == len(set(cursors))
    stored = (
        await client.q(
            "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor } } }", t=t.table_id
        )
    )["table"]["events"]
    assert cursors == [e["cursor"] for e in stored]
    for e in everything:
        if e["type"] == "card.drawn":
            assert ("private" in e["data"]) == (e["seat"] == 0)


async def test_legacy_graphql_ws_protocol(client: Client):
    t = await open_table(client, humans=2)
    async with client.ws("graphql-ws") as conn:
        assert (await ws_init(conn, t.tokens[1]))["type"] == "connection_ack"
        await conn.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "start",
                    "payload": {"query": SUB, "variables": {"t": t.table_id}},
                }
            )
        )
        replayed = await _collect_until(conn, "cards.dealt")
        assert len(replayed[-1]["data"]["private"]["hand"]) == 3
        table = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
        await client.q(MOVE, t.tokens[0], t=t.table_id, m=table["legalMoves"][0])
        msg = await ws_next(conn)
        while msg["payload"]["data"]["tableEvents"]["type"] == "seat.connected":
            msg = await ws_next(conn)  # this subscription's own seat coming online
        assert msg["type"] == "data" and msg["payload"]["data"]["tableEvents"]["seat"] == 0


async def test_resume_after_cursor_no_gap_no_duplicate(client: Client):
    t = await open_table(client, humans=2)
    await play_out(client, t)
    stored = (
        await client.q(
            "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor } } }", t=t.table_id
        )
    )["table"]["events"]
    cursors = [e["cursor"] for e in stored]
    for cut in (0, len(cursors) // 2, len(cursors) - 2):
        async with client.ws() as conn:
            await ws_init(conn)
            sub = {
                "id": "1",
                "type": "subscribe",
                "payload": {"query": SUB, "variables": {"t": t.table_id, "a": cursors[cut]}},
            }
            await conn.send(json.dumps(sub))
            got = await _collect_until(conn, "game.finished")
            assert [e["cursor"] for e in got] == cursors[cut + 1 :]


async def test_spectator_sees_no_private_part(client: Client):
    t = await open_table(client, humans=2)
    async with client.ws() as conn:
        await ws_init(conn)
        await conn.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": SUB, "variables": {"t": t.table_id}},
                }
            )
        )
        player = asyncio.ensure_future(play_out(client, t))
        got = await _collect_until(conn, "game.finished")
        await player
    assert all("private" not in e["data"] for e in got)


async def test_bad_token_refused_on_websocket(client: Client):
    t = await open_table(client, humans=2, start=False)
    for token in ("not-a-token", f"{t.table_id}.forged", "unknown.table"):
        async with client.ws() as conn:
            await ws_init_no_reply(conn, token)
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(conn.recv(), 5)
            assert info.value.rcvd is not None and info.value.rcvd.code == 4403
    async with client.ws("graphql-ws") as conn:
        reply = await ws_init(conn, "nope.nope")
        assert reply["type"] == "connection_error"


async def ws_init_no_reply(conn, token: str) -> None:
    await conn.send(json.dumps({"type": "connection_init", "payload": {"authToken": token}}))


async def test_subscription_errors_have_codes(client: Client):
    t = await open_table(client, humans=2, start=False)
    async with client.ws() as conn:
        await ws_init(conn)
        for i, (variables, code) in enumerate(
            [
                ({"t": "no-such-table"}, "NOT_FOUND"),
                ({"t": t.table_id, "a": "garbage"}, "BAD_INPUT"),
                ({"t": t.table_id, "a": "999-0"}, "BAD_INPUT"),
            ]
        ):
            await conn.send(
                json.dumps(
                    {
                        "id": str(i),
                        "type": "subscribe",
                        "payload": {"query": SUB, "variables": variables},
                    }
                )
            )
            msg = await ws_next(conn)
            errors = msg["payload"] if msg["type"] == "error" else msg["payload"]["errors"]
            assert errors[0]["extensions"]["code"] == code, msg
            if msg["type"] == "next":
                assert (await ws_next(conn)) == {"id": str(i), "type": "complete"}


async def test_mutation_over_websocket_with_token(client: Client):
    t = await open_table(client, humans=2)
    table = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
    async with client.ws() as conn:
        await ws_init(conn, t.tokens[0])
        payload = {"query": MOVE, "variables": {"t": t.table_id, "m": table["legalMoves"][0]}}
        await conn.send(json.dumps({"id": "m", "type": "subscribe", "payload": payload}))
        msg = await ws_next(conn)
        assert msg["type"] == "next", msg
        assert msg["payload"]["data"]["makeMove"]["table"]["version"] == table["version"] + 1
