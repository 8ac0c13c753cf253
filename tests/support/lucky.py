"""Queries and a driver for the test game, Lucky Draw, through the API."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from support.server import Client

CREATE = """mutation($g: ID!, $r: [ID!], $o: JSON, $s: Int) {
  createTable(gameId: $g, houseRules: $r, options: $o, seats: $s) {
    hostToken table { id version status shuffleCommitment }
  }
}"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken table { version } }
}"""
ADD_BOT = "mutation($t: ID!, $s: Int) { addBot(tableId: $t, seat: $s) { version } }"
START = "mutation($t: ID!) { startGame(tableId: $t) { version status } }"
TABLE = """query($t: ID!) { table(id: $t) {
  id version status legalMoves cursor
  result { winners scores }
  shuffleSeed shuffleCommitment
  seats { index kind name score isHost }
  houseRules { id }
  state { gameId toAct ... on LuckyDrawState {
    myHand stockSize played turn players { seat handSize score } } }
} }"""
MOVE = """mutation($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) {
    table { version status } events { cursor version type seat data }
  }
}"""
SET_RULE = """mutation($t: ID!, $r: ID!, $e: Boolean!) {
  setHouseRule(tableId: $t, ruleId: $r, enabled: $e) { version houseRules { id } }
}"""


@dataclass
class Seated:
    table_id: str
    host: str
    tokens: dict[int, str] = field(default_factory=dict)


async def open_table(
    c: Client,
    humans: int = 2,
    bots: int = 0,
    rules: list[str] | None = None,
    options: dict[str, Any] | None = None,
    start: bool = True,
    joiners: list[str] | None = None,
) -> Seated:
    """A table of ``humans`` and ``bots``; ``joiners``: the credentials the humans join
    with, and act with afterwards (JWTs of signed-in players; None: anonymous, each acting
    with the seat token it gets)."""
    seats = humans + bots
    made = (await c.q(CREATE, g="lucky-draw", r=rules or [], o=options, s=seats))["createTable"]
    t = Seated(made["table"]["id"], made["hostToken"])
    for i in range(humans):
        who = joiners[i] if joiners is not None else None
        joined = (await c.q(JOIN, who, t=t.table_id, n=f"P{i}", c=f"seed{i}"))["joinTable"]
        t.tokens[joined["seat"]] = who or joined["playerToken"]
    for _ in range(bots):
        await c.q(ADD_BOT, t.host, t=t.table_id)
    if start:
        await c.q(START, t.host, t=t.table_id)
    return t


async def play_out(c: Client, t: Seated, pick: int = 0, limit: int = 400) -> dict[str, Any]:
    """Play the humans' first (or ``pick``-th) legal move until the game ends."""
    for _ in range(limit):
        table = None
        for _seat, token in t.tokens.items():
            table = (await c.q(TABLE, token, t=t.table_id))["table"]
            if table["status"] == "FINISHED":
                return table  # type: ignore[no-any-return]
            moves = table["legalMoves"]
            if moves:
                await c.q(MOVE, token, t=t.table_id, m=moves[min(pick, len(moves) - 1)])
                break
        else:
            await asyncio.sleep(0.02)  # a bot is to act
    raise AssertionError("the game did not end")
