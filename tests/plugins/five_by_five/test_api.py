"""Five by Five through the real API (HTTP, memory store): random full games with random
house-rule sets, humans and bots; each seat sees its own cards only; refusals carry the
stable codes."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.server import Client, make_settings, serve

from service.store.memory import MemoryStore

from .helpers import RULE_MODULES, registry

CREATE = """mutation($o: JSON, $s: Int, $r: [ID!]) {
  createTable(gameId: "five-by-five", options: $o, seats: $s, houseRules: $r) {
    hostToken table { id } } }"""
JOIN = "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { seat playerToken } }"
TABLE = """query($t: ID!) { table(id: $t) { status legalMoves result { winners scores }
  state { gameId toAct ... on FiveByFiveState {
    phase objectivesOpen hand { actions objectives satisfied }
    players { seat actionCount objectiveCount objectives }
    supply { color count } outOfGame { color count } board } } } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  events { type seat data } } }"""
EVENTS = """query($t: ID!) { table(id: $t) { events(first: 1000) { type seat data } } }"""


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with serve(make_settings(), registry(), MemoryStore()) as c:
        yield c


async def _table(
    c: Client, players: int, rules: list[str], bots: int = 0
) -> tuple[str, dict[int, str]]:
    made = (await c.q(CREATE, o=None, s=players, r=rules))["createTable"]
    tid, host = made["table"]["id"], made["hostToken"]
    tokens: dict[int, str] = {}
    for i in range(players - bots):
        joined = (await c.q(JOIN, t=tid, n=f"P{i}"))["joinTable"]
        tokens[joined["seat"]] = joined["playerToken"]
    for _ in range(bots):
        await c.q("mutation($t: ID!) { addBot(tableId: $t) { id } }", host, t=tid)
    await c.q("mutation($t: ID!) { startGame(tableId: $t) { status } }", host, t=tid)
    return tid, tokens


def _check_views(views: dict[int | None, dict[str, Any]]) -> None:
    spectator = views[None]["state"]
    assert spectator["hand"] is None
    for seat, view in views.items():
        state = view["state"]
        dice = sum(x["count"] for x in state["supply"] + state["outOfGame"])
        dice += sum(1 for row in state["board"] for d in row if d)
        assert dice in (39, 40)  # 39 while a rolled die waits for its square
        for p in state["players"]:
            assert (p["objectives"] is not None) == state["objectivesOpen"]
        if seat is not None:
            me = next(p for p in state["players"] if p["seat"] == seat)
            assert len(state["hand"]["actions"]) == me["actionCount"]
            assert len(state["hand"]["objectives"]) == me["objectiveCount"]
            assert {k: v for k, v in state.items() if k != "hand"} == {
                k: v for k, v in spectator.items() if k != "hand"
            }


async def _play(c: Client, tid: str, tokens: dict[int, str], seed: int) -> dict[str, Any]:
    pick = random.Random(seed)
    for step in range(5000):
        table = (await c.q(TABLE, t=tid))["table"]
        if table["status"] == "FINISHED":
            return table  # type: ignore[no-any-return]
        humans = [s for s in table["state"]["toAct"] if s in tokens]
        if not humans:
            continue
        seat = humans[0]
        mine = (await c.q(TABLE, tokens[seat], t=tid))["table"]
        if step % 25 == 0:
            views: dict[int | None, dict[str, Any]] = {None: table, seat: mine}
            for other, token in tokens.items():
                views[other] = (await c.q(TABLE, token, t=tid))["table"]
            _check_views(views)
        moves = mine["legalMoves"]
        assert moves and all(list(m) == ["fiveByFive"] for m in moves)
        # Mostly play on rather than forfeit, so a game through HTTP stays short.
        playing = [m for m in moves if not next(iter(m["fiveByFive"])).startswith("forfeit")]
        chosen = pick.choice(playing if playing and pick.random() < 0.9 else moves)
        await c.q(MOVE, tokens[seat], t=tid, m=chosen)
    raise AssertionError("no end")


@pytest.mark.parametrize("seed", [1, 2])
async def test_random_game_with_random_house_rules(client: Client, seed: int) -> None:
    pick = random.Random(seed)
    rules = [f"five-by-five/{r}" for r in sorted(RULE_MODULES) if pick.random() < 0.5]
    tid, tokens = await _table(client, 3, rules)
    final = await _play(client, tid, tokens, seed)
    assert final["result"]["winners"] and final["legalMoves"] == []
    assert final["state"]["phase"] == "OVER" and final["state"]["toAct"] == []
    # Events as a seat sees them: its own private parts only.
    for seat, token in tokens.items():
        events = (await client.q(EVENTS, token, t=tid))["table"]["events"]
        for e in events:
            private = e["data"].get("private")
            if private is not None:
                assert e["seat"] == seat, e


async def test_bots_and_a_human(client: Client) -> None:
    tid, tokens = await _table(client, 3, ["five-by-five/equal-turns"], bots=2)
    final = await _play(client, tid, tokens, 3)
    assert final["status"] == "FINISHED"


async def test_refusals_carry_stable_codes(client: Client) -> None:
    tid, tokens = await _table(client, 2, [])
    table = (await client.q(TABLE, t=tid))["table"]
    (seat,) = table["state"]["toAct"]
    other = next(s for s in tokens if s != seat)
    bad = {"fiveByFive": {"plusMinus": {"square": {"row": 0, "col": 0}, "delta": 3}}}
    assert await client.code(MOVE, tokens[seat], t=tid, m=bad) == "BAD_INPUT"
    swap = {"fiveByFive": {"swap": {"first": {"row": 0, "col": 0}, "second": {"row": 0, "col": 1}}}}
    assert await client.code(MOVE, tokens[other], t=tid, m=swap) == "NOT_YOUR_TURN"
    assert await client.code(MOVE, tokens[seat], t=tid, m=swap) == "ILLEGAL_MOVE"
    both = {"fiveByFive": {"done": True, "swap": swap["fiveByFive"]["swap"]}}
    assert await client.code(MOVE, tokens[seat], t=tid, m=both) == "BAD_INPUT"
