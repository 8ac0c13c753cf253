"""Undo in Five Crowns through the real API: a draw from the stock stands, a discard may
be taken back until the next player moves."""

from __future__ import annotations

from support.server import Client, make_settings, serve

from tablestate.plugins import load

CREATE = """mutation($o: JSON) { createTable(gameId: "five-crowns", options: $o, seats: 2) {
  hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) {
  seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { version } }"
VIEW = """query($t: ID!) { table(id: $t) { version legalMoves
  state { toAct ... on FiveCrownsState { hand } } } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } } }"""
UNDO = "mutation($t: ID!) { undoMove(tableId: $t) { table { version } events { type } } }"


async def _reason(c: Client, token: str, tid: str) -> str:
    body = await c.raw(UNDO, token, t=tid)
    assert body["errors"][0]["extensions"]["code"] == "ILLEGAL_MOVE", body
    return str(body["errors"][0]["extensions"]["reason"])


async def test_a_stock_draw_stands_and_a_discard_is_taken_back():
    async with serve(make_settings(), load()) as c:
        made = (await c.q(CREATE, o={"undo": True, "rounds": 1}))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]
        tokens = {}
        for name in ("Ann", "Bob"):
            joined = (await c.q(JOIN, t=tid, n=name))["joinTable"]
            tokens[joined["seat"]] = joined["playerToken"]
        await c.q(START, host, t=tid)
        seat = (await c.q(VIEW, t=tid))["table"]["state"]["toAct"][0]
        me = tokens[seat]
        await c.q(MOVE, me, t=tid, m={"fiveCrowns": {"draw": {"source": "STOCK"}}})
        assert "new" in await _reason(c, me, tid)
        mine = (await c.q(VIEW, me, t=tid))["table"]
        hand = mine["state"]["hand"]
        discard = next(m for m in mine["legalMoves"] if "discard" in m["fiveCrowns"])
        await c.q(MOVE, me, t=tid, m=discard)
        undone = (await c.q(UNDO, me, t=tid))["undoMove"]
        assert [e["type"] for e in undone["events"]] == ["move.undone"]
        back = (await c.q(VIEW, me, t=tid))["table"]
        assert sorted(back["state"]["hand"]) == sorted(hand)
        assert back["state"]["toAct"] == [seat]
        # Discarded again, and the next player draws: it can no longer be taken back.
        await c.q(MOVE, me, t=tid, m=discard)
        other = tokens[1 - seat]
        await c.q(MOVE, other, t=tid, m={"fiveCrowns": {"draw": {"source": "STOCK"}}})
        assert "someone else" in await _reason(c, me, tid)
