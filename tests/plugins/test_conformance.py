"""One conformance test for every installed game, as open_spiel's random-simulation test is
for every registered game: seeded random full games (bots now and then, as each game's
cases say) with the invariants of docs/architecture.md checked at every step by ``tablestate.testing``:
conservation, secrecy of every view and every event, progress (a seat to act with a legal
move, every listed move accepted, a move refused if and only if it is not listed), and
determinism (the same seed, options, rules and moves replay to the same game). A game
joins by shipping ``testing.FACTS`` in its plugin package."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from support.games import cases, driver, facts, installed

from tablestate.testing import check_bots_blind, play_checked

BUNDLED = {"five-crowns", "all-fives", "five-by-five", "lucky-draw"}


def test_every_installed_game_has_facts_and_cases() -> None:
    assert set(installed()) >= BUNDLED
    for game_id in installed():
        found = facts(game_id)
        assert found.playouts and found.api_games, game_id
        for cases_ in (found.playouts, found.api_games):
            ids = [c["id"] for c in cases_]
            assert len(ids) == len(set(ids)), f"{game_id}: two cases share an id"


@pytest.mark.parametrize("game_id, case", cases("playouts"))
def test_random_game_keeps_the_invariants(game_id: str, case: dict[str, Any]) -> None:
    for k in range(case.get("repeat", 1)):
        game = {**case, "seed": f"{case['seed']}-{k}"} if k else case
        d = driver(game_id, game)
        moves = play_checked(d, facts(game_id), game)
        seen = Counter(e.type for e in d.events)
        for kind, least in case.get("expect", {}).items():
            assert seen[kind] >= least, f"fewer than {least} {kind} events: the case misses"
        again = driver(game_id, game)
        for seat, move in moves:
            again.move(seat, move)
        assert again.events == d.events, "the same seed and moves gave other events"
        assert again.game.encode(again.state) == d.game.encode(d.state)


@pytest.mark.parametrize("game_id", installed())
def test_another_seed_deals_another_game(game_id: str) -> None:
    case = facts(game_id).playouts[0]
    first, other = driver(game_id, case), driver(game_id, {**case, "seed": f"{case['seed']}-2"})
    if first.rng.counter == 0:  # a game without chance at its start (tic-tac-toe) deals alike
        assert first.events == other.events and first.state == other.state
        return
    assert first.events != other.events or first.state != other.state


@pytest.mark.parametrize(
    "game_id, case",
    [p for p in cases("playouts") if p.values[1] in facts(p.values[0]).playouts[:2]],
)
def test_the_driver_plays_random_games_to_the_end(game_id: str, case: dict[str, Any]) -> None:
    """``GameDriver.random_playout``, the plugin author's quick check, ends every game."""
    d = driver(game_id, case)
    result = d.random_playout(chooser=random.Random(1))
    assert set(result.scores) == set(d.seats) >= set(result.winners)


@pytest.mark.parametrize("game_id", installed())
def test_bots_choose_alike_whatever_they_may_not_see(game_id: str) -> None:
    """Every level of every game's bot decides from its seat's information set alone: the
    same choice when every card it may not see is moved about (``check_bots_blind``), at
    states spread over a random game."""
    case = next(c for c in facts(game_id).playouts if _players(c) == 2)
    d, pick, shuffle = driver(game_id, case), random.Random(3), random.Random(4)
    checked = 0
    for step in range(2_000):
        if d.result() is not None or checked == 8:
            break
        if step % 4 == 0:
            check_bots_blind(d, facts(game_id), shuffle)
            checked += 1
        seat = pick.choice(d.to_act())
        d.move(seat, pick.choice(d.legal(seat)))
    assert checked >= 4 or d.result() is not None, "too short a game to check the bots"


def _players(case: dict[str, Any]) -> int:
    return len(case["seats"]) if "seats" in case else int(case["players"])
