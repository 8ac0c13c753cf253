"""The pure rules of All Fives, table by table (DECISIONS.md 2.2 rules 2, 6, 7, 8 and the
house rules may-trump-instead-of-following and high-low-jack-game)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablestate_all_fives import rules as r
from tablestate_all_fives.house_rules.high_low_jack_game import deal_awards
from tablestate_all_fives.state import Award

from .support import PARTNERS, driver


def test_deck_has_52_distinct_cards_ace_high():
    assert len(r.DECK) == 52 == len(set(r.DECK))
    assert r.rank_order("AS") > r.rank_order("KS") > r.rank_order("10S") > r.rank_order("2S")


@pytest.mark.parametrize(
    "text, ok",
    [
        pytest.param("AS", True, id="ace"),
        pytest.param("10D", True, id="ten"),
        pytest.param("1D", False, id="no-one"),
        pytest.param("TD", False, id="no-T-for-ten"),
        pytest.param("as", False, id="lower-case"),
        pytest.param("JK", False, id="no-joker"),
        pytest.param("7T", False, id="no-stars"),
        pytest.param(7, False, id="not-a-string"),
    ],
)
def test_is_card(text, ok):
    assert r.is_card(text) is ok


@pytest.mark.parametrize(
    "plays, trump, winner",
    [
        pytest.param(["5H", "9H"], "S", 1, id="higher-of-suit-led"),
        pytest.param(["9H", "AC"], "S", 0, id="off-suit-ace-loses"),
        pytest.param(["AH", "2S"], "S", 1, id="any-trump-beats-plain"),
        pytest.param(["AH", "2S", "3S"], "S", 2, id="highest-trump"),
        pytest.param(["3S", "AH", "2S"], "S", 0, id="trump-led-holds"),
        pytest.param(["10D", "KC", "QD"], "H", 2, id="three-players-plain"),
        pytest.param(["10D", "KC", "QD", "2H"], "H", 3, id="four-players-trumped"),
        pytest.param(["4C"], "D", 0, id="single-card"),
        pytest.param(["QC", "KD", "AD"], "S", 0, id="off-suit-sequence-ignored"),
    ],
)
def test_trick_winner(plays, trump, winner):
    assert r.trick_winner(plays, trump) == winner


def test_trick_winner_needs_a_card():
    with pytest.raises(ValueError):
        r.trick_winner([], "S")


HAND = ["AS", "5S", "KH", "2H", "10D"]


@pytest.mark.parametrize(
    "hand, led, trump, may_trump, legal",
    [
        pytest.param(HAND, None, "D", False, set(HAND), id="leader-plays-anything"),
        pytest.param(HAND, "9H", "D", False, {"KH", "2H"}, id="must-follow-suit"),
        pytest.param(HAND, "9C", "D", False, set(HAND), id="void-plays-anything"),
        pytest.param(HAND, "9D", "D", False, {"10D"}, id="must-follow-trump"),
        pytest.param(HAND, "9H", "D", True, {"KH", "2H", "10D"}, id="may-trump-instead"),
        pytest.param(HAND, "9S", "D", True, {"AS", "5S", "10D"}, id="may-trump-spades-led"),
        pytest.param(HAND, "9D", "D", True, {"10D"}, id="may-trump-trump-led-follows"),
        pytest.param(HAND, "9C", "D", True, set(HAND), id="may-trump-void-anything"),
        pytest.param(["KH", "2H"], "9H", "D", True, {"KH", "2H"}, id="may-trump-no-trump"),
        pytest.param(["AS", "2H"], "9D", "D", True, {"AS", "2H"}, id="trump-led-void"),
    ],
)
def test_legal_plays(hand, led, trump, may_trump, legal):
    assert r.legal_plays(hand, led, trump, may_trump=may_trump) == legal


@pytest.mark.parametrize(
    "cards, trump, points",
    [
        pytest.param(["AS", "KS", "QS", "JS", "10S", "5S"], "S", 25, id="all-honours-25"),
        pytest.param(["AH", "KH", "10H", "5H"], "S", 0, id="plain-honours-score-nothing"),
        pytest.param(["10D", "5D"], "D", 15, id="ten-and-five"),
        pytest.param(["9C", "4C", "2C"], "C", 0, id="low-trumps-nothing"),
        pytest.param(["AC", "AS"], "C", 4, id="ace-4"),
        pytest.param(["KC"], "C", 3, id="king-3"),
        pytest.param(["QC"], "C", 2, id="queen-2"),
        pytest.param(["JC"], "C", 1, id="jack-1"),
        pytest.param([], "C", 0, id="empty"),
    ],
)
def test_trick_points(cards, trump, points):
    assert r.trick_points(cards, trump) == points


@pytest.mark.parametrize(
    "cards, trump, points",
    [
        pytest.param(["AH", "KD", "QC", "JS", "10H"], "S", 20, id="every-suit-counts"),
        pytest.param(["5S", "5H"], "S", 5, id="only-five-of-trumps-counts-5"),
        pytest.param(["9S", "2H"], "S", 0, id="no-count"),
        pytest.param(["10S", "5S", "AS"], "S", 19, id="trump-ten-five-ace"),
    ],
)
def test_game_points(cards, trump, points):
    assert r.game_points(cards, trump) == points


def test_sort_cards_groups_suits_highest_first():
    assert r.sort_cards(["2H", "AS", "10H", "3D", "KS"]) == ("AS", "KS", "10H", "2H", "3D")


# -- high-low-jack-game: the end-of-deal points -------------------------------------


def _played_out(held, won, trump="S", dealer=1, low_goes_to="dealt", game_tie="none", sides=None):
    n = len(held)
    rules = [PARTNERS] if n == 4 else []
    base = driver([r.DECK[i * 6 : i * 6 + 6] for i in range(n)], "AD", rules=rules)
    sides = sides or tuple(range(n))
    return replace(
        base.state,
        sides=tuple(sides),
        dealer=dealer,
        trump=trump,
        held=tuple(tuple(h) for h in held),
        won=tuple(tuple(w) for w in won),
        hands=((),) * n,
        low_goes_to=low_goes_to,
        game_tie=game_tie,
        deal_points=(0,) * (max(sides) + 1),
        scores=(0,) * (max(sides) + 1),
    )


@pytest.mark.parametrize(
    "held, won, options, awards",
    [
        pytest.param(
            [["AS", "2S"], ["JS", "9H"]],
            [["AS", "JS"], ["2S", "9H"]],
            {},
            [Award(0, 1, "high"), Award(0, 1, "low"), Award(0, 1, "jack"), Award(0, 1, "game")],
            id="high-low-jack-game-to-one",
        ),
        pytest.param(
            [["AS", "2S"], ["JS", "9H"]],
            [["JS", "9H"], ["AS", "2S"]],
            {"low_goes_to": "won"},
            [Award(0, 1, "high"), Award(1, 1, "low"), Award(0, 1, "jack"), Award(1, 1, "game")],
            id="low-goes-to-the-trick-winner",
        ),
        pytest.param(
            [["KS", "3H"], ["4H", "5H"]],
            [["KS", "3H"], ["4H", "5H"]],
            {},
            [Award(0, 1, "high"), Award(0, 1, "low"), Award(0, 1, "game")],
            id="one-trump-is-high-and-low-no-jack",
        ),
        pytest.param(
            [["2H", "3H"], ["4H", "6H"]],
            [["2H", "3H"], ["4H", "6H"]],
            {},
            [],
            id="no-trump-no-count-nothing",
        ),
        pytest.param(
            [["AH", "3H"], ["AD", "6H"]],
            [["AH", "3H"], ["AD", "6H"]],
            {},
            [],
            id="game-tie-none",
        ),
        pytest.param(
            [["AH", "3H"], ["AD", "6H"]],
            [["AH", "3H"], ["AD", "6H"]],
            {"game_tie": "eldest"},
            [Award(0, 1, "game")],
            id="game-tie-eldest",
        ),
        pytest.param(
            [["AH", "3H"], ["AD", "6H"]],
            [["AH", "3H"], ["AD", "6H"]],
            {"game_tie": "dealerOpponents"},
            [Award(0, 1, "game")],
            id="game-tie-dealer-opponents",
        ),
        pytest.param(
            [["AH"], ["AD"], ["AC"]],
            [["AH"], ["AD"], ["AC"]],
            {"game_tie": "dealerOpponents", "dealer": 0},
            [Award(1, 1, "game"), Award(2, 1, "game")],
            id="three-way-tie-both-dealer-opponents",
        ),
        pytest.param(
            [["AH"], ["AD"], ["2C"]],
            [["AH"], ["AD"], ["2C"]],
            {"game_tie": "eldest", "dealer": 1},
            [],
            id="tie-without-eldest-nobody",
        ),
        pytest.param(
            [["10S", "2H"], ["5S", "AH", "KH"]],
            [["10S", "2H"], ["5S", "AH", "KH"]],
            {},
            [Award(0, 1, "high"), Award(1, 1, "low"), Award(1, 1, "game")],
            id="five-of-trumps-counts-5-for-game",
        ),
        pytest.param(
            [["AS"], ["2S"], ["JS"], ["3S"]],
            [["AS", "2S"], [], ["JS", "3S"], []],
            {"sides": (0, 1, 0, 1), "dealer": 3},
            [Award(0, 1, "high"), Award(1, 1, "low"), Award(0, 1, "jack"), Award(0, 1, "game")],
            id="partnerships-score-by-side",
        ),
    ],
)
def test_high_low_jack_game(held, won, options, awards):
    assert deal_awards(_played_out(held, won, **options)) == awards
