"""DECISIONS.md section 2, point by point, where a table of cases says more than one
scenario: who deals next, how many tricks a deal has, what a deal can score, and the order
of the moments with peg-out."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import pairwise

import pytest

from tablestate.testing import GameDriver
from tablestate_all_fives import rules as r
from tablestate_all_fives.game import GAME
from tablestate_all_fives.state import GAME_OVER, PLAY

from .support import GIFT_ALL, JACK_BONUS, PARTNERS, PEG_OUT, driver, ruleset, types

HEARTS = ["AH", "KH", "QH", "JH", "10H", "9H"]
CLUBS = ["AC", "KC", "QC", "JC", "10C", "9C"]
DIAMONDS = ["AD", "KD", "QD", "JD", "10D", "9D"]
RUN_TO_DIAMONDS = ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "8D")
STAND, BEG, GIVE, RUN = {"stand": True}, {"beg": True}, {"giveOne": True}, {"run": True}


def _play_out_deal(d: GameDriver, pick: random.Random) -> list[str]:
    """Random legal moves until the deal in progress ends; the events' types."""
    deal, seen = d.state.deal_no, []
    while d.state.deal_no == deal and d.result() is None:
        (seat,) = d.to_act()
        seen += types(d.move(seat, pick.choice(d.legal(seat))))
    return seen


# -- 2.2 rule 1: the deal passes clockwise, eldest is the dealer's left ---------------------


@pytest.mark.parametrize(
    "seats, rules",
    [
        pytest.param((0, 1), (), id="2p"),
        pytest.param((0, 1, 2), (), id="3p"),
        pytest.param((1, 2, 3), (), id="3p-seat-0-empty"),
        pytest.param((0, 2, 3), (), id="3p-seat-1-empty"),
        pytest.param((0, 1, 2, 3), (PARTNERS,), id="4p-partnerships"),
    ],
)
def test_the_deal_passes_clockwise_in_play_order(seats, rules):
    for k in range(4):
        d = GameDriver(GAME, list(seats), rules=ruleset(*rules), seed=f"rotate-{k}")
        pick = random.Random(k)
        for _ in range(3):
            before = d.view(None)
            assert before["eldest"] == seats[(seats.index(before["dealer"]) + 1) % len(seats)]
            events = _play_out_deal(d, pick)
            if d.result() is not None:
                break
            after = d.view(None)
            same = "deal.void" in events  # a void deal is redealt by the same dealer
            step = 0 if same else 1
            assert after["dealer"] == seats[(seats.index(before["dealer"]) + step) % len(seats)]


# -- 2.2 rule 5: after a run, every card is kept and there is a trick per card -------------


@pytest.mark.parametrize(
    "hands, run, cards",
    [
        pytest.param([HEARTS, CLUBS], RUN_TO_DIAMONDS, 9, id="2p-one-run-9-tricks"),
        pytest.param(
            [HEARTS, CLUBS, DIAMONDS],
            ([["2S", "3S", "4S"], ["5S", "6S", "7S"], ["8S", "2C", "3C"]], "2H"),
            9,
            id="3p-one-run-9-tricks",
        ),
        pytest.param([HEARTS, CLUBS], None, 6, id="2p-stand-6-tricks"),
    ],
)
def test_one_trick_per_card_held(hands, run, cards):
    d = driver(hands, "9S", *([run] if run else []), options={"targetScore": 500})
    if run:
        d.move(0, BEG)
        d.move(len(hands) - 1, RUN)
    else:
        d.move(0, STAND)
    assert d.state.phase == PLAY and {len(h) for h in d.state.hands} == {cards}
    events = _play_out_deal(d, random.Random(1))
    assert events.count("trick.won") == cards


# -- 2.2 rule 8: a deal scores exactly the trump honours dealt (+1 for a gift) -------------


@pytest.mark.parametrize("players", [2, 3])
def test_a_deal_scores_the_trump_honours_in_play_and_the_gift(players):
    scored = 0
    for k in range(6):
        d = GameDriver(GAME, players, options={"targetScore": 500}, seed=f"honours-{k}")
        pick = random.Random(k)
        for _ in range(4):
            _play_out_deal(d, pick)
        starts = [i for i, e in enumerate(d.events) if e.type == "deal.started"]
        for a, b in pairwise(starts):
            deal = d.events[a:b]
            if "deal.scored" not in types(deal):
                continue  # void: the stock ran out
            trump = next(e.data["suit"] for e in deal if e.type == "trump.fixed")
            dealt = [
                c
                for e in deal
                if e.type == "cards.dealt"
                for part in e.private.values()
                for c in part["cards"]
            ]
            gift = "dealer.gave" in types(deal)
            points = sum(e.data["points"] for e in deal if e.type == "points.scored")
            assert points == r.trick_points(dealt, trump) + gift <= 26
            scored += 1
    assert scored >= 20


# -- 2.3 peg-out: the order of the moments -----------------------------------------------


@pytest.mark.parametrize(
    "hands, turn_up, rules, scores, moves, winner, reasons",
    [
        pytest.param(
            [HEARTS, CLUBS],
            "JS",
            [PEG_OUT, JACK_BONUS],
            (59, 59),
            [BEG, GIVE],
            0,
            ["gift"],
            id="gift-before-turn-up-jack",
        ),
        pytest.param(
            [HEARTS, CLUBS],
            "JS",
            [PEG_OUT, JACK_BONUS],
            (0, 59),
            [STAND],
            1,
            ["turnUpJack"],
            id="turn-up-jack-before-any-trick",
        ),
        pytest.param(
            [HEARTS, CLUBS, DIAMONDS],
            "9S",
            [PEG_OUT, GIFT_ALL],
            (59, 59, 0),
            [BEG, GIVE],
            0,
            ["gift"],
            id="gift-to-both-eldest-first",
        ),
        pytest.param(
            [HEARTS, CLUBS, DIAMONDS],
            "9S",
            [PEG_OUT, GIFT_ALL],
            (0, 59, 0),
            [BEG, GIVE],
            1,
            ["gift", "gift"],
            id="gift-to-both-second-pegs-out",
        ),
        pytest.param(
            [HEARTS, CLUBS],
            "JS",
            [JACK_BONUS],
            (59, 59),
            [BEG, GIVE],
            None,
            ["gift", "turnUpJack"],
            id="without-peg-out-play-goes-on",
        ),
    ],
)
def test_peg_out_order(hands, turn_up, rules, scores, moves, winner, reasons):
    d = driver(hands, turn_up, rules=rules)
    d.state = replace(d.state, scores=scores)
    for move in moves:
        d.move(d.to_act()[0], move)
    assert [e.data["reason"] for e in d.events if e.type == "points.scored"] == reasons
    if winner is None:
        assert d.result() is None and d.state.phase == PLAY
    else:
        assert d.state.phase == GAME_OVER and d.result().winners == (winner,)
        assert d.events[-1].type == "game.over" and d.to_act() == ()
