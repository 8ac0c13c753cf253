"""Live events are executed and encoded once per audience and document, and shared: each
subscriber still gets exactly what it would get alone (its own private part, its own
selection, its own operation id)."""

from __future__ import annotations

import contextlib
import json

from graphql import ExecutionResult
from support.lucky import TABLE, open_table, play_out
from support.server import Client, ws_init, ws_next

from tablestate.api import fanout
from tablestate.api.types import TableEvent
from tablestate.engine.views import SPECTATING, Sight
from tablestate.hub import Delivery
from tablestate.store.base import StoredEvent

SUB = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { cursor version type seat data }
}"""
SUB_WIDER = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) {
    cursor type data table { version state { ... on LuckyDrawState { myHand } } }
  }
}"""


async def _subscribe(client: Client, stack, token: str | None, op_id: str, query: str, t, after):
    conn = await stack.enter_async_context(client.ws())
    assert (await ws_init(conn, token))["type"] == "connection_ack"
    payload = {"query": query, "variables": {"t": t, "a": after}}
    await conn.send(json.dumps({"id": op_id, "type": "subscribe", "payload": payload}))
    return conn


async def _until_finished(conn, op_id: str) -> list[dict]:
    out = []
    while True:
        msg = await ws_next(conn, 10)
        assert msg["type"] == "next", msg
        assert msg["id"] == op_id
        event = msg["payload"]["data"]["tableEvents"]
        out.append(event)
        if event["type"] == "game.finished":
            return out


async def test_shared_results_stay_per_audience_and_document(client: Client):
    t = await open_table(client, humans=2)
    after = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]["cursor"]
    async with contextlib.AsyncExitStack() as stack:
        subs = {
            "seat0-a": await _subscribe(client, stack, t.tokens[0], "a", SUB, t.table_id, after),
            "seat0-b": await _subscribe(client, stack, t.tokens[0], "b", SUB, t.table_id, after),
            "seat0-wide": await _subscribe(
                client, stack, t.tokens[0], "w", SUB_WIDER, t.table_id, after
            ),
            "seat1": await _subscribe(client, stack, t.tokens[1], "c", SUB, t.table_id, after),
            "seat1-wide": await _subscribe(
                client, stack, t.tokens[1], "x", SUB_WIDER, t.table_id, after
            ),
            "spectator": await _subscribe(client, stack, None, "d", SUB, t.table_id, after),
            "spectator-wide": await _subscribe(
                client, stack, None, "y", SUB_WIDER, t.table_id, after
            ),
        }
        ids = {
            **{"seat0-a": "a", "seat0-b": "b", "seat0-wide": "w", "seat1": "c"},
            **{"seat1-wide": "x", "spectator": "d", "spectator-wide": "y"},
        }
        await play_out(client, t)
        got = {name: await _until_finished(conn, ids[name]) for name, conn in subs.items()}

    assert got["seat0-a"] == got["seat0-b"]
    cursors = [e["cursor"] for e in got["seat0-a"]]
    for name in subs:
        assert [e["cursor"] for e in got[name]] == cursors, name
    drawn = [i for i, e in enumerate(got["seat0-a"]) if e["type"] == "card.drawn"]
    assert drawn
    for i in drawn:
        mover = got["seat0-a"][i]["seat"]
        assert ("private" in got["seat0-a"][i]["data"]) == (mover == 0)
        assert ("private" in got["seat0-wide"][i]["data"]) == (mover == 0)
        assert ("private" in got["seat1"][i]["data"]) == (mover == 1)
        assert "private" not in got["spectator"][i]["data"]
        assert "private" not in got["spectator-wide"][i]["data"]
    # the wider document got its own selection, not the narrower one's result
    assert all("table" in e and "version" not in e for e in got["seat0-wide"])
    assert all("table" not in e for e in got["seat0-a"])
    # and the table in it as each viewer sees it: two seats never hold the same card, a
    # spectator holds none
    for mine, theirs, nobody in zip(
        got["seat0-wide"], got["seat1-wide"], got["spectator-wide"], strict=True
    ):
        hand0 = mine["table"]["state"]["myHand"] or []
        hand1 = theirs["table"]["state"]["myHand"] or []
        assert not set(hand0) & set(hand1)
        assert not nobody["table"]["state"]["myHand"]
    assert any(e["table"]["state"]["myHand"] for e in got["seat0-wide"])
    assert any(e["table"]["state"]["myHand"] for e in got["seat1-wide"])


def _delivery() -> Delivery:
    event = StoredEvent(
        cursor="5-0",
        version=5,
        type="card.drawn",
        at="2026-01-01T00:00:00.000Z",
        data={"n": 1},
        seat=0,
        private={"0": {"card": "7H"}},
    )
    return Delivery(event)


def test_one_event_object_per_sight_of_a_delivery():
    item = _delivery()
    seat0 = TableEvent.delivered(item, "t1", Sight(0))
    assert TableEvent.delivered(item, "t1", Sight(0)) is seat0
    seat1 = TableEvent.delivered(item, "t1", Sight(1))
    spectator = TableEvent.delivered(item, "t1", SPECTATING)
    assert seat1 is not seat0 and spectator is not seat0
    assert seat0.data["private"] == {"card": "7H"}
    assert "private" not in seat1.data and "private" not in spectator.data
    assert seat0.shared == {} and seat0.shared is not seat1.shared
    # seat 1 sees what the spectators see: their results are shared (for the operations
    # that select the event's own fields only; see api/fanout.py)
    assert seat1.shared is spectator.shared
    assert (seat0.sight, seat1.sight, spectator.sight) == (Sight(0), Sight(1), SPECTATING)
    # a host watching without a seat is a sight of its own (its Table.joinCode)
    host = TableEvent.delivered(item, "t1", Sight(None, True))
    assert host is not spectator and host.sight == Sight(None, True)
    assert host.shared is spectator.shared  # ... but shown the event's data as they are


def test_only_spectators_share_results_that_reach_past_the_event():
    item = _delivery()
    seat0 = TableEvent.delivered(item, "t1", Sight(0))
    seat1 = TableEvent.delivered(item, "t1", Sight(1))
    spectator = TableEvent.delivered(item, "t1", SPECTATING)
    host = TableEvent.delivered(item, "t1", Sight(None, True))
    op = object()
    assert fanout.result_key(op, False, seat1) is op
    assert fanout.result_key(op, True, spectator) == (op, SPECTATING)
    # a seat's or a host's table is asked with the viewer's own rights: never shared
    assert [fanout.result_key(op, True, e) for e in (seat0, seat1, host)] == [None] * 3


def test_a_shared_result_is_encoded_once_and_spliced_per_operation():
    data = fanout.SharedData({"tableEvents": {"cursor": "5-0", "data": {"n": "é"}}})
    result = ExecutionResult(data, None)
    first = {"id": "op-1", "type": "next", "payload": {"data": result.data}}
    second = {"type": "data", "id": 'x"2', "payload": {"data": result.data}}
    assert fanout.shared_payload(first) is data
    assert json.loads(fanout.encode_message(first, data)) == json.loads(json.dumps(first))
    text = data.text
    assert text is not None
    assert json.loads(fanout.encode_message(second, data)) == json.loads(json.dumps(second))
    assert data.text is text
    # anything else in the payload (errors, extensions) is encoded the ordinary way
    assert (
        fanout.shared_payload({"id": "1", "type": "next", "payload": {"data": data, "errors": []}})
        is None
    )
    assert (
        fanout.shared_payload({"id": "1", "type": "next", "payload": {"data": dict(data)}}) is None
    )


PRIVATE = """mutation { createTable(gameId: "lucky-draw", private: true, seats: 2) {
  hostToken joinCode table { id } } }"""
SUB_CODE = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { type table { joinCode } }
}"""
ADD_BOT = "mutation($t: ID!) { addBot(tableId: $t) { version } }"


async def test_the_host_without_a_seat_and_a_spectator_share_no_result(client: Client):
    """Both watch with no seat, but only the host may see the join code: a result made for
    one must never reach the other, whichever subscribed first."""
    made = (await client.q(PRIVATE))["createTable"]
    t, host, code = made["table"]["id"], made["hostToken"], made["joinCode"]
    order = [("s1", None), ("h1", host), ("s2", None), ("h2", host)]
    async with contextlib.AsyncExitStack() as stack:
        conns = {
            op: await _subscribe(client, stack, token, op, SUB_CODE, t, None) for op, token in order
        }
        await client.q(ADD_BOT, host, t=t)
        await client.q(ADD_BOT, host, t=t)
        for op, token in order:
            seen = []
            while len(seen) < 3:  # table.created and the two bots
                msg = await ws_next(conns[op], 10)
                assert msg["type"] == "next" and msg["id"] == op, msg
                seen.append(msg["payload"]["data"]["tableEvents"])
            want = code if token is not None else None
            assert [e["table"]["joinCode"] for e in seen] == [want] * 3, op
