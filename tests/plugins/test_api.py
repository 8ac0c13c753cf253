"""Every installed game through the real API, as its facts' ``api_games`` say: a uvicorn
server, HTTP and WebSocket subscriptions, the memory store; random full games with bots,
empty seats and random house-rule sets (``support.api_play`` says what is checked)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from support.api_play import play_through, server, table_rules
from support.games import cases, facts, installed, registry


@pytest.mark.parametrize("game_id, case", cases("api_games"))
async def test_random_full_game_through_the_api(game_id: str, case: dict[str, Any]) -> None:
    async with server() as srv:
        await play_through(srv, game_id, dict(case))


@pytest.mark.parametrize("game_id", installed())
def test_the_api_games_draw_every_house_rule(game_id: str) -> None:
    """Between them, a game's API games play every house rule of the game."""
    drawn: set[str] = set()
    for case in facts(game_id).api_games:
        drawn |= set(table_rules(game_id, dict(case), random.Random(case["seed"])))
    assert drawn == {r.id for r in registry().rules_of(game_id)}


def _strong_case(game_id: str) -> dict[str, Any]:
    """Two strong bots and nobody else, no house rules, the game's shortest options."""
    case = next(c for c in facts(game_id).api_games if c["seats"] == 2)
    return {**case, "seated": [0, 1], "bots": [0, 1], "bot_level": "STRONG", "rules": []}


@pytest.mark.parametrize("game_id", installed())
async def test_strong_bots_in_every_seat_play_a_game_through_the_api(game_id: str) -> None:
    """Bots think in the server's pool, from their seats' information sets, and commit
    through the due-index like any bot; a small budget keeps the game short."""
    async with server(bot_iterations=3) as srv:
        t = await play_through(srv, game_id, _strong_case(game_id))
        moves = await srv.service.reads.moves(t.table_id)
    assert {m["seat"] for m in moves} == {0, 1}
