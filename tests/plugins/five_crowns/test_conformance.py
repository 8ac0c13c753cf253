"""Seeded random full games with the invariants of DESIGN.md checked at every step:
conservation of the table's deck, secrecy, determinism, every legal move accepted,
progress. ``GameDriver.random_playout`` plays them; its chooser checks each state before
picking a move, and sometimes lets the bot pick (random play alone rarely goes out once
hands are big)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from plugins.five_crowns.game import GAME
from service.testing import GameDriver

from .support import (
    DECLARE,
    LAY_OFF,
    NATURAL,
    NO_REDISCARD,
    RATIO,
    RULE_IDS,
    SINGLE_DECK,
    WHOLE_DISCARD,
    check_conservation,
    check_legal_moves_accepted,
    check_secrecy,
    check_turn,
    driver,
    registry,
    table_deck,
)


class Checker(random.Random):
    """A chooser for ``random_playout`` that checks the invariants before every move."""

    def __init__(self, seed: int, d: GameDriver, enabled: tuple[str, ...], bot_share: float):
        super().__init__(seed)
        self.d = d
        self.deck = table_deck(enabled, len(d.seats))
        self.bot_share = bot_share
        self.seen = 0
        self.steps = 0
        self.probe = random.Random(seed + 1)

    def check(self) -> None:
        d = self.d
        check_conservation(d.state, self.deck)
        check_turn(d.state)
        check_secrecy(d, self.probe, d.events[self.seen :])
        self.seen = len(d.events)
        if self.steps % 3 == 0:
            check_legal_moves_accepted(d)

    def choice(self, seq: Any) -> Any:
        items = list(seq)
        if not items or not isinstance(items[0], dict):
            return super().choice(items)
        self.check()
        self.steps += 1
        if self.random() < self.bot_share:
            seat = self.d.to_act()[0]
            return GAME.bot(self.d.state, seat, self.d.rng, self.d.rules)
        return super().choice(items)


def play(players: Any, enabled: tuple[str, ...], seed: int, bot_share: float = 0.6, **opts: Any):
    d = driver(players, enabled, seed=f"conformance-{seed}", **opts)
    chooser = Checker(seed, d, enabled, bot_share)
    result = d.random_playout(chooser=chooser)
    chooser.check()
    assert d.to_act() == ()
    assert set(result.scores) == set(d.seats)
    assert set(result.winners) <= set(d.seats)
    return d, result


GAMES = [
    pytest.param(1, (), 3, {}, id="solo"),
    pytest.param(1, (NATURAL,), 4, {}, id="solo-natural-required"),
    pytest.param(1, (RATIO,), 5, {}, id="solo-wilds-not-exceed"),
    pytest.param(2, (), 6, {"rounds": 3}, id="2p"),
    pytest.param(2, (SINGLE_DECK,), 7, {"rounds": 4}, id="2p-single-deck"),
    pytest.param(2, (SINGLE_DECK, WHOLE_DISCARD, NO_REDISCARD), 8, {"rounds": 3}, id="2p-combo"),
    pytest.param(4, (), 9, {"rounds": 3}, id="4p"),
    pytest.param(4, (NATURAL,), 10, {"rounds": 3}, id="4p-natural-required"),
    pytest.param(4, (RATIO,), 11, {"rounds": 3}, id="4p-wilds-not-exceed"),
    pytest.param(4, (LAY_OFF,), 12, {"rounds": 4}, id="4p-lay-off"),
    pytest.param(3, (LAY_OFF, DECLARE), 13, {"rounds": 4}, id="3p-lay-off-declare"),
    pytest.param(3, (DECLARE,), 14, {"rounds": 3}, id="3p-declare"),
    pytest.param(4, (NO_REDISCARD,), 15, {"rounds": 3}, id="4p-no-rediscard"),
    pytest.param(5, (WHOLE_DISCARD,), 16, {"rounds": 3}, id="5p-whole-discard"),
    pytest.param(7, (), 17, {"rounds": 2}, id="7p"),
    pytest.param(7, (NATURAL, LAY_OFF, NO_REDISCARD), 18, {"rounds": 2}, id="7p-combo"),
    pytest.param((0, 2), (), 19, {"rounds": 3, "firstDealer": "random"}, id="seats-with-gap"),
    pytest.param((1, 3, 6), (RATIO, LAY_OFF), 20, {"rounds": 2}, id="gap-ratio-lay-off"),
    pytest.param(3, (), 21, {"rounds": 2, "tieBreak": "playoffRound"}, id="3p-playoff-option"),
]


@pytest.mark.parametrize("players, enabled, seed, opts", GAMES)
def test_random_game(players, enabled, seed, opts):
    play(players, enabled, seed, **opts)


RANDOM_ONLY = [
    pytest.param(2, (), {"rounds": 3}, id="2p"),
    pytest.param(2, (WHOLE_DISCARD,), {"rounds": 3}, id="2p-whole-discard"),
    pytest.param(2, (SINGLE_DECK, WHOLE_DISCARD), {"rounds": 3}, id="2p-single-deck-whole-discard"),
    pytest.param(2, (NO_REDISCARD,), {"rounds": 3}, id="2p-no-rediscard"),
]


@pytest.mark.parametrize("players, enabled, opts", RANDOM_ONLY)
def test_random_play_only_restocks(players, enabled, opts):
    """Purely random play draws long enough to empty the stock."""
    d, _ = play(players, enabled, 5, bot_share=0.0, **opts)
    assert any(e.type == "stock.reshuffled" for e in d.events)


def test_full_eleven_rounds_with_bots():
    d, _ = play(4, (), 31, bot_share=0.9)
    assert d.state.round == 11 and len(d.state.history) == 11


def test_full_game_random_house_rules():
    rng = random.Random(99)
    enabled = tuple(r for r in RULE_IDS if r != SINGLE_DECK and rng.random() < 0.5)
    assert not registry().conflicts(NATURAL)
    play(6, enabled, 32, bot_share=0.9, rounds=11)


@pytest.mark.parametrize("players", [1, 3, 7])
def test_determinism(players):
    first, _ = play(players, (LAY_OFF,) if players > 1 else (), 40, rounds=2)
    second, _ = play(players, (LAY_OFF,) if players > 1 else (), 40, rounds=2)
    assert first.events == second.events
    assert GAME.encode(first.state) == GAME.encode(second.state)


def test_different_seeds_deal_differently():
    a = driver(3, seed="a")
    b = driver(3, seed="b")
    assert a.events[0].private != b.events[0].private


def test_tie_break_playoff_reached():
    """Random 2-player one-round games with the playoff option: some tie, and the tied
    players then play a 6-card round with 6s wild."""
    seen = False
    for seed in range(200):
        d = driver(2, seed=f"tie-{seed}", rounds=1, tieBreak="playoffRound")
        chooser = Checker(seed, d, (), 0.9)
        d.random_playout(chooser=chooser)
        if any(h.playoff for h in d.state.history):
            seen = True
            playoff = d.state.history[-1]
            assert playoff.round == 2
            assert d.result().scores == dict(zip(d.seats, d.state.totals, strict=True))
            break
    assert seen
