"""Every installed game, played to the end through the API with random legal moves, by
humans and by bots; with secrets checked on the way."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from support.server import Client

from tablestate.plugins import camel, load

# Options that keep a full game short enough for the test suite.
SHORT: dict[str, dict[str, Any]] = {
    "all-fives": {"targetScore": 15},
    "five-crowns": {"rounds": 2},
}
GAMES = sorted(load().games)

CREATE = """mutation($g: ID!, $o: JSON, $s: Int, $r: [ID!]) {
  createTable(gameId: $g, options: $o, seats: $s, houseRules: $r) { hostToken table { id } } }"""
JOIN = "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { seat playerToken } }"
TABLE = """query($t: ID!) { table(id: $t) { version status legalMoves result { winners scores }
  state { gameId toAct } } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } events { type } } }"""


async def _game(c: Client, game_id: str, players: int, bots: int, seed: int) -> dict[str, Any]:
    made = (await c.q(CREATE, g=game_id, o=SHORT.get(game_id), s=players, r=[]))["createTable"]
    tid, host = made["table"]["id"], made["hostToken"]
    tokens: dict[int, str] = {}
    for i in range(players - bots):
        joined = (await c.q(JOIN, t=tid, n=f"P{i}"))["joinTable"]
        tokens[joined["seat"]] = joined["playerToken"]
    for _ in range(bots):
        await c.q("mutation($t: ID!) { addBot(tableId: $t) { id } }", host, t=tid)
    await c.q("mutation($t: ID!) { startGame(tableId: $t) { status } }", host, t=tid)
    pick = random.Random(seed)
    for _ in range(5000):
        table = (await c.q(TABLE, t=tid))["table"]
        if table["status"] == "FINISHED":
            return table  # type: ignore[no-any-return]
        assert table["state"]["gameId"] == game_id
        humans = [s for s in table["state"]["toAct"] if s in tokens]
        if not humans:
            await asyncio.sleep(0.01)
            continue
        seat = pick.choice(humans)
        mine = (await c.q(TABLE, tokens[seat], t=tid))["table"]
        moves = mine["legalMoves"]
        assert moves, f"seat {seat} is to act but has no legal move"
        assert all(list(m) == [camel(game_id)] for m in moves)
        await c.q(MOVE, tokens[seat], t=tid, m=pick.choice(moves))
    raise AssertionError("no end")


@pytest.mark.parametrize("game_id", GAMES)
async def test_random_game_through_the_api(client: Client, game_id: str):
    game = load().games[game_id]
    players = max(2, game.min_players)
    final = await _game(client, game_id, players, bots=0, seed=1)
    assert len(final["result"]["scores"]) == players  # winners may be none: a draw
    assert set(final["result"]["winners"]) <= set(range(players))
    assert final["legalMoves"] == [] and final["state"]["toAct"] == []


@pytest.mark.parametrize("game_id", GAMES)
async def test_bots_finish_a_game(client: Client, game_id: str):
    game = load().games[game_id]
    players = max(2, game.min_players)
    final = await _game(client, game_id, players, bots=players - 1, seed=2)
    assert final["status"] == "FINISHED"


async def test_all_fives_refuses_four_without_partnerships(client: Client):
    made = (await client.q(CREATE, g="all-fives", o=None, s=4, r=[]))["createTable"]
    for i in range(4):
        await client.q(JOIN, t=made["table"]["id"], n=f"P{i}")
    code = await client.code(
        "mutation($t: ID!) { startGame(tableId: $t) { status } }",
        made["hostToken"],
        t=made["table"]["id"],
    )
    assert code == "BAD_INPUT"
