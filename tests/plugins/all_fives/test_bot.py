"""The All Fives bot, decision by decision: it stands on a fair trump holding, follows suit,
wins the tricks that hold honours when it safely can, feeds its partner, and throws its
cheapest card otherwise."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablestate.engine import Rng, RuleSet
from tablestate.engine.bots import NORMAL, choose
from tablestate_all_fives.bot import standing
from tablestate_all_fives.game import GAME
from tablestate_all_fives.state import BUNCH, DISCARD, GAME_OVER, GIVE_OR_RUN, PLAY, STAND_OR_BEG

from .support import BUNCH as BUNCH_RULE
from .support import DISCARD_SIX, PARTNERS, driver

REST = ["2C", "3C", "4C", "5C", "6C", "7C"]
OTHER = ["2D", "3D", "4D", "5D", "6D", "7D"]


def _choose(phase, hand, trick=(), trump="S", proposed="S", players=2, rules=()):
    """The bot's move as position 1 (the dealer with 2 players) holding ``hand``."""
    hands = [
        OTHER,
        REST,
        ["8D", "9D", "10D", "JD", "QD", "KD"],
        ["8C", "9C", "10C", "JC", "QC", "KC"],
    ]
    hands = hands[:players]
    d = driver(hands, "9S", rules=[*rules, PARTNERS] if players == 4 else rules)
    hands_now = list(d.state.hands)
    hands_now[1] = tuple(hand)
    state = replace(
        d.state,
        phase=phase,
        turn=1,
        dealer=0 if phase in (STAND_OR_BEG, DISCARD) else 1,
        hands=tuple(hands_now),
        trick=tuple(trick),
        trump=None if phase in (STAND_OR_BEG, GIVE_OR_RUN) else trump,
        proposed=proposed,
        hand_limit=6 if phase == DISCARD else None,
    )
    move = choose(GAME, state, state.seats[1], NORMAL, Rng(b"bot"), d.rules)
    assert move in GAME.legal_moves(state, state.seats[1], d.rules)
    return move


def play(card):
    return {"play": {"card": card}}


@pytest.mark.parametrize(
    "hand, expected",
    [
        pytest.param(["2S", "3S", "4H", "5H", "6H", "7H"], {"stand": True}, id="two-trumps-stand"),
        pytest.param(["AS", "3H", "4H", "5H", "6H", "7H"], {"stand": True}, id="trump-ace-stand"),
        pytest.param(["10S", "3H", "4H", "5H", "6H", "7H"], {"stand": True}, id="trump-ten-stand"),
        pytest.param(["2S", "3H", "4H", "5H", "6H", "7H"], {"beg": True}, id="one-low-trump-beg"),
        pytest.param(["AH", "KH", "4H", "5H", "6D", "7D"], {"beg": True}, id="no-trump-beg"),
    ],
)
def test_stand_or_beg(hand, expected):
    assert _choose(STAND_OR_BEG, hand) == expected


@pytest.mark.parametrize(
    "hand, expected",
    [
        pytest.param(["AS", "KS", "4H", "5H", "6H", "7H"], {"giveOne": True}, id="strong-gives"),
        pytest.param(["2H", "3H", "4H", "5H", "6H", "7H"], {"run": True}, id="weak-runs"),
    ],
)
def test_give_or_run(hand, expected):
    assert _choose(GIVE_OR_RUN, hand) == expected


@pytest.mark.parametrize(
    "hand, trick, expected",
    [
        pytest.param(
            ["AS", "2S", "3H", "4H", "5D", "6D"],
            [(0, "10S")],
            "AS",
            id="last-to-play-captures-the-trump-ten",
        ),
        pytest.param(
            ["KH", "2H", "AS", "4D", "5D", "6D"],
            [(0, "4H")],
            "KH",
            id="follows-suit-and-wins-when-last",
        ),
        pytest.param(
            ["2H", "3H", "AS", "4D", "5D", "6D"],
            [(0, "KH")],
            "2H",
            id="cannot-win-the-suit-throws-its-lowest",
        ),
        pytest.param(
            ["10S", "2C", "3D", "4D", "5D", "6D"],
            [(0, "AH")],
            "10S",
            id="void-trumps-in-with-the-most-points-when-last",
        ),
        pytest.param(
            ["7C", "2C", "3D", "4D", "5D", "6D"],
            [(0, "AH")],
            "2C",
            id="void-no-trump-throws-the-cheapest",
        ),
    ],
)
def test_plays_to_a_trick(hand, trick, expected):
    assert _choose(PLAY, hand, trick) == play(expected)


@pytest.mark.parametrize(
    "hand, expected",
    [
        pytest.param(["AS", "KS", "3H", "4H", "5D", "6D"], "AS", id="leads-the-trump-ace"),
        pytest.param(["AS", "3H", "4H", "5D", "6D", "9C"], "3H", id="lone-ace-kept-leads-low"),
        pytest.param(["10S", "5S", "2S", "KS", "QS", "JS"], "2S", id="all-trumps-leads-lowest"),
    ],
)
def test_leads(hand, expected):
    assert _choose(PLAY, hand) == play(expected)


def test_partner_winning_last_to_play_feeds_honours():
    # 4 players: position 2 led, 3 and 0 followed; position 3, the bot's partner, holds
    # the trick with the trump ace, so the bot, last to play, gives it the ten of trumps.
    hand = ["10S", "5S", "2S", "3D", "4D", "6D"]
    trick = [(2, "4H"), (3, "AS"), (0, "5H")]
    assert _choose(PLAY, hand, trick, players=4) == play("10S")


def test_discards_its_cheapest_card():
    hand = ["AS", "10S", "KH", "2H", "3C", "4D", "9D"]
    assert _choose(DISCARD, hand, rules=[DISCARD_SIX]) == {"discard": {"card": "2H"}}


@pytest.mark.parametrize(
    "hand, expected",
    [
        pytest.param(
            ["2S", "3H", "4H", "5D", "6D", "7D"], {"declineBunch": True}, id="trumps-keep"
        ),
        pytest.param(["2H", "3H", "4H", "5D", "6D", "7D"], {"bunch": True}, id="no-trump-redeal"),
    ],
)
def test_bunch(hand, expected):
    assert _choose(BUNCH, hand, rules=[BUNCH_RULE]) == expected


def test_the_strong_bots_judge_counts_a_finished_games_last_deal_once():
    """A finished game's standing is 100 for the win and the lead in scores: the points of
    its last deal's tricks are in the scores already, not counted again at a tenth."""
    d = driver([["AS", "KS", "QS", "2H", "3H", "4H"], REST], "10S", options={"targetScore": 5})
    d.move(0, {"stand": True})
    over = replace(d.state, phase=GAME_OVER, won=(("AS", "2C"), ()), scores=(7, 2), winners=(0,))
    assert standing(over, 0, RuleSet()) == 105.0
    assert standing(over, 1, RuleSet()) == -5.0
    # In play, the tricks of the deal count in again at a tenth: AS is 4 points.
    playing = replace(over, phase=PLAY, winners=())
    assert standing(playing, 0, RuleSet()) == pytest.approx(5.4)
