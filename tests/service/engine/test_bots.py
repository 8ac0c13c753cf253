"""The bot levels over the example game: what a bot is handed, the strong search's budget
and its candidates. (Every installed game's bots are checked blind in the conformance
tests.)"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tablestate.engine import Rng
from tablestate.engine.bots import (
    LEVELS,
    STRONG,
    BotView,
    Budget,
    _pick,
    candidates,
    choose,
    playout,
    strong,
    view_for,
)
from tablestate.plugins import load
from tablestate.testing import GameDriver
from tablestate_example import GAME

REG = load()


def _driver() -> GameDriver:
    return GameDriver(GAME, 2, {"handSize": 5}, REG.ruleset(GAME.id, []), seed="bots")


def test_a_bot_is_handed_its_own_hand_and_guesses_of_the_rest():
    d = _driver()
    view = view_for(GAME, d.state, 0, d.rules, Rng(b"v"))
    assert view.state.hands[0] == d.state.hands[0]
    assert view.view == d.view(0)
    guessed = [view.state.hands[1], view.state.stock]
    assert guessed != [d.state.hands[1], d.state.stock], "the hidden cards were redrawn"
    assert sorted((*view.state.hands[1], *view.state.stock)) == sorted(
        (*d.state.hands[1], *d.state.stock)
    )


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_makes_a_legal_move_the_same_way_twice(level: str):
    d = _driver()
    legal = d.legal(0)
    first = choose(GAME, d.state, 0, level, Rng(b"s", 3), d.rules, Budget(20))
    assert first in legal
    assert choose(GAME, d.state, 0, level, Rng(b"s", 3), d.rules, Budget(20)) == first


def test_the_time_cap_stops_the_search_after_the_draw_in_hand():
    d, draws = _driver(), []

    def counted(state: Any, seat: int, rng: Rng) -> Any:
        draws.append(seat)
        return GAME.determinize(state, seat, rng)

    game = replace(GAME, determinize=counted)
    view = BotView(0, d.state, d.rules, game)
    ticks = iter(range(100))
    strong(view, Rng(b"s"), Budget(600, time_ms=1.0), clock=lambda: next(ticks) / 1000)
    assert len(draws) == 1, "the cap was reached after one draw, of many budgeted"
    draws.clear()
    strong(view, Rng(b"s"), Budget(60), clock=lambda: 0.0)
    assert len(draws) == 60 // len(view.legal)


def test_a_strong_bot_weighs_its_own_bots_move_among_at_most_so_many():
    d = _driver()
    view = BotView(0, d.state, d.rules, GAME)
    some = candidates(view, Rng(b"c"), 2)
    assert len(some) == 2 and some[0] == GAME.bot(view, Rng(b"x"))
    assert set(map(str, some)) <= set(map(str, view.legal))
    every = candidates(view, Rng(b"c"), 99)
    assert every[0] == some[0] and sorted(map(str, every)) == sorted(map(str, view.legal))
    assert choose(GAME, d.state, 0, STRONG, Rng(b"s"), d.rules, Budget(6, moves=1)) == some[0]


def test_a_strong_bot_keeps_its_own_bots_move_unless_another_beats_it_by_a_standard_error():
    own = [1.0, 2.0, 3.0, 4.0]
    assert _pick([own, [1.5, 2.5, 3.5, 4.5]]) == 1, "better on every draw"
    assert _pick([own, [9.0, 0.0, 0.0, 9.0]]) == 0, "better in total, by less than the noise"
    assert _pick([own, [0.0, 0.0, 0.0, 0.0]]) == 0
    assert _pick([[float("-inf")] * 4, own]) == 1, "a move the rules refused is never kept"
    assert _pick([[1.0], [2.0]]) == 1 and _pick([[2.0], [1.0]]) == 0, "one draw: by its sign"


def test_a_playout_ends_with_the_stage_it_started_in():
    d = _driver()
    moves: list[object] = []

    def bot(view: BotView[Any], rng: Rng) -> Any:
        moves.append(view.seat)
        return GAME.bot(view, rng)

    def stage(state: object) -> object:
        return len(moves) >= 3  # the stage changes with the third move

    game = replace(GAME, bot=bot, bot_stage=stage, bot_depth=50)
    playout(game, d.state, 0, d.rules, Rng(b"p"), game.bot_depth)
    assert len(moves) == 3
    moves.clear()
    playout(replace(game, bot_depth=2), d.state, 0, d.rules, Rng(b"p"), 2)
    assert len(moves) == 2, "the depth caps a stage that goes on"
    moves.clear()
    playout(replace(game, bot_stage=None), d.state, 0, d.rules, Rng(b"p"), 5)
    assert len(moves) == 5, "without stages, the depth alone"
