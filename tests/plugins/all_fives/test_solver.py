"""The solver of a deal's play with every card in sight (the strong bot's judge of a draw)
agrees with minimax over the game's own moves, and declines what it does not model."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from plugins.all_fives import rules as r
from plugins.all_fives import solver
from plugins.all_fives.bot import standing
from plugins.all_fives.game import GAME
from plugins.all_fives.state import PLAY, State
from service.engine import Rng, RuleSet

from .support import HLJG, MAY_TRUMP, PEG_OUT, driver, ruleset

STAND = {"stand": True}


def _minimax(state: State, seat: int, rules: RuleSet) -> float:
    """The seat's standing once the deal is scored, both players at their best: every
    legal move tried through the game's own ``apply``."""
    if state.phase != PLAY:
        return standing(state, seat, rules)
    mover = GAME.to_act(state)[0]
    values = []
    for move in GAME.legal_moves(state, mover, rules):
        out = GAME.apply(state, mover, move, Rng(b"deal"), rules)
        values.append(_minimax(out.state, seat, rules))
    return max(values) if mover == seat else min(values)


def _deal_in_play(case: int, rule_ids: tuple[str, ...], left: int) -> tuple[State, RuleSet]:
    """A random deal stood on and played at random until ``left`` cards are in the hands;
    every third case to a target of 10, so that the deal may end the game."""
    rnd = random.Random(case)
    deck = list(r.DECK)
    rnd.shuffle(deck)
    options = {"targetScore": 10} if case % 3 == 0 else None
    d = driver([deck[:6], deck[6:12]], deck[12], rules=rule_ids, options=options)
    d.move(0, STAND)
    rules = ruleset(*rule_ids)
    while sum(map(len, d.state.hands)) > left:
        seat = d.to_act()[0]
        d.move(seat, rnd.choice(list(GAME.legal_moves(d.state, seat, rules))))
    return d.state, rules


@pytest.mark.parametrize("rule_ids", [(), (MAY_TRUMP,)], ids=["follow", "may-trump"])
@pytest.mark.parametrize("left", [5, 6, 7])
def test_the_solver_agrees_with_minimax_over_the_games_moves(rule_ids, left):
    for case in range(40):
        state, rules = _deal_in_play(case, rule_ids, left)
        if state.phase != PLAY:
            continue
        for seat in state.seats:
            assert solver.solve(state, seat, rules) == _minimax(state, seat, rules), case


def test_cards_that_play_alike_are_tried_once_and_not_when_a_card_between_them_is_led():
    s = solver._Solver("S", False)
    hand = solver._bits(("7H", "9H", "8H"))
    assert bin(s.distinct(hand, hand)).count("1") == 1
    # The eight led lies between the follower's seven and nine: they no longer play alike.
    follower, lead = solver._bits(("7H", "9H")), solver._bits(("8H",))
    assert s.distinct(follower, follower | lead) == follower
    # A trump honour never plays like the plain trump next to it.
    trumps = solver._bits(("4S", "5S"))
    assert s.distinct(trumps, trumps) == trumps


def test_a_known_end_position_is_valued_exactly():
    s = solver._Solver("S", False)
    # The ace of trumps led draws the ten: 14 to the leader; the last trick holds nothing.
    assert s.value(solver._bits(("AS", "2H")), solver._bits(("10S", "3H"))) == 14
    # On a heart led, a follower with none trumps with the ten (10) and leads the club the
    # ace must take (4): 6 to the follower, better than keeping the ten back for 14 lost.
    led = r.DECK.index("2H")
    assert s.reply_value(led, solver._bits(("AS",)), solver._bits(("10S", "4C"))) == -6


@pytest.mark.parametrize("rule_ids", [(PEG_OUT,), (HLJG,)], ids=["peg-out", "high-low-jack"])
def test_rules_it_does_not_model_leave_the_deal_to_the_playout(rule_ids):
    state, rules = _deal_in_play(1, rule_ids, 8)
    assert state.phase == PLAY
    assert solver.solve(state, state.seats[0], rules) is None


def test_three_hands_and_large_hands_are_left_to_the_playout():
    rnd = random.Random(3)
    deck = list(r.DECK)
    rnd.shuffle(deck)
    d = driver([deck[:6], deck[6:12], deck[12:18]], deck[18])
    d.move(0, STAND)
    assert d.state.phase == PLAY
    assert solver.solve(d.state, 0, ruleset()) is None
    state, rules = _deal_in_play(2, (), 12)
    spare = [c for c in state.stock if c != state.turn_up][:6]
    big = replace(
        state, hands=(state.hands[0] + tuple(spare[:3]), state.hands[1] + tuple(spare[3:]))
    )
    assert sum(map(len, big.hands)) > solver.MOST_CARDS
    assert solver.solve(big, 0, rules) is None
