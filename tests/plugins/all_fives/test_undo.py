"""Which All Fives moves may be taken back (undoMove): a card that completes no trick and
a discard down to the hand limit that does not start play (DECISIONS.md 4.4); declarations
and a completed trick stand. Every case is played through the game's own flow."""

from __future__ import annotations

import pytest
from support.undo_playout import playout

from tablestate.engine import Move, Outcome
from tablestate.testing import GameDriver
from tablestate_all_fives.game import GAME, undoable
from tablestate_all_fives.state import DISCARD, PLAY

from .support import BUNCH, DISCARD_SIX, driver, registry

HEARTS = ["AH", "KH", "QH", "JH", "10H", "9H"]
CLUBS = ["AC", "KC", "QC", "JC", "10C", "9C"]
RUN_TO_DIAMONDS = ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "8D")


def take(d: GameDriver, seat: int, move: Move) -> bool:
    """Make the move; whether the game says the mover may take it back."""
    before = d.state
    out = d.try_move(seat, move)
    assert isinstance(out, Outcome), out
    return undoable(before, seat, move, out)


def ran(*rules: str) -> GameDriver:
    """Eldest (seat 0) begs and the dealer runs the cards: diamonds are trump and both
    players hold 9 cards."""
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS, rules=rules)
    assert take(d, 0, {"beg": True}) is False
    assert take(d, 1, {"run": True}) is False
    return d


def test_the_discard_that_starts_play_stands():
    d = ran(DISCARD_SIX)
    assert d.state.phase == DISCARD
    for seat, card in [(0, "9H"), (0, "10H"), (0, "JH"), (1, "9C"), (1, "10C")]:
        assert take(d, seat, {"discard": {"card": card}}) is True, card
        assert d.state.phase == DISCARD
    assert take(d, 1, {"discard": {"card": "JC"}}) is False
    assert d.state.phase == PLAY


def test_only_a_card_that_completes_no_trick_comes_back():
    d = ran()
    assert d.state.phase == PLAY
    assert take(d, 0, {"play": {"card": "AH"}}) is True
    assert take(d, 1, {"play": {"card": "AC"}}) is False
    assert d.state.trick == () and d.state.tricks == (1, 0)


def test_stand_and_give_one_stand():
    d = driver([HEARTS, CLUBS], "9S")
    assert take(d, 0, {"stand": True}) is False
    d = driver([HEARTS, CLUBS], "9S")
    assert take(d, 0, {"beg": True}) is False
    assert take(d, 1, {"giveOne": True}) is False


def test_bunch_answers_stand():
    d = ran(BUNCH)
    assert take(d, 0, {"bunch": True}) is False
    assert take(d, 1, {"declineBunch": True}) is False


@pytest.mark.parametrize("seed", [1, 2])
def test_random_games_take_back_only_what_may_be_taken_back(seed: int):
    seen = playout(GAME, registry(), 2, seed)
    assert seen[("play", True)] > 0 and seen[("play", False)] > 0
    assert not any(ok for (kind, ok) in seen if kind not in ("play", "discard"))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_with_discards_keep_the_last_one(seed: int):
    seen = playout(GAME, registry(), 2, seed, rules=(DISCARD_SIX,))
    assert seen[("discard", True)] > 0 and seen[("discard", False)] > 0
    # each deal that discards makes at least 6 discards, and only its last one stands
    assert seen[("discard", True)] >= 5 * seen[("discard", False)]
