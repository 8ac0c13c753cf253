"""Scenarios: stacked decks (``FixedRng``) or states set up mid-game, then moves."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tablestate.engine.bots import NORMAL, choose
from tablestate.engine.game import Outcome, Rejected
from tablestate.engine.options import OptionError, resolve
from tablestate.testing import FixedRng, MoveRefused
from tablestate_five_crowns import rules
from tablestate_five_crowns.game import GAME, OPTIONS
from tablestate_five_crowns.state import TableMeld

from .support import (
    DECLARE,
    LAY_OFF,
    NATURAL,
    NO_REDISCARD,
    RULE_IDS,
    SINGLE_DECK,
    WHOLE_DISCARD,
    deal_cards,
    discard,
    draw,
    driver,
    go_out,
    registry,
    stacked,
    start,
)


def types(events):
    return [e.type for e in events]


def test_round_one_deal():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"], ["4S", "8T", "JK"]], "KD", ["3C"])
    assert d.to_act() == (1,)  # the dealer is seat 0; seat 1 is on its left
    dealt = d.events[0]
    assert dealt.type == "round.dealt" and dealt.data["wildRank"] == "3"
    assert dealt.private == {
        1: {"hand": ["5H", "6H", "7H"]},
        2: {"hand": ["QS", "9C", "9D"]},
        0: {"hand": ["4S", "8T", "JK"]},
    }
    assert "hand" not in dealt.data
    view = d.view(1)
    assert view["hand"] == ["5H", "6H", "7H"] and view["topDiscard"] == "KD"
    assert view["stockSize"] == 116 - 9 - 1
    assert d.view(None)["hand"] is None
    assert [p["handSize"] for p in view["players"]] == [3, 3, 3]


def test_draw_from_stock_is_private():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["3C"])
    (event,) = d.move(1, draw())
    assert event.data == {"source": "STOCK"} and event.private == {1: {"card": "3C"}}
    assert d.view(1)["drawnCard"] == "3C" and d.view(0)["drawnCard"] is None
    assert d.view(None)["drewFrom"] == "STOCK"


def test_FC_3_turned_up_wild_may_be_taken():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "JK")
    (event,) = d.move(1, draw("DISCARD"))
    assert event.data == {"source": "DISCARD", "card": "JK"}
    assert "JK" in d.view(1)["hand"] and d.view(0)["drawnCard"] == "JK"
    assert d.view(0)["topDiscard"] is None


def test_FC_2_go_out_on_first_turn_then_last_turn_and_next_deal():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS", "9S"])
    d.move(1, draw())
    assert go_out([["5H", "6H", "7H"]], "KS") in d.legal(1)
    events = d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    assert types(events) == ["player.went_out"]
    assert d.to_act() == (0,) and d.view(0)["finalTurns"] and d.view(0)["wentOut"] == 1
    d.move(0, draw())
    events = d.move(0, discard("QS"))
    assert types(events) == [
        "card.discarded",
        "cards.laid_down",
        "hand.scored",
        "round.scored",
        "round.dealt",
    ]
    scored = events[3].data
    assert scored["points"] == {"0": 0, "1": 0} and scored["wentOut"] == 1
    dealt = events[4].data
    assert dealt["round"] == 2 and dealt["cardsDealt"] == 4 and dealt["wildRank"] == "4"
    assert dealt["dealer"] == 1 and d.to_act() == (0,)  # FC dealer rotation


def test_FC_12_last_turn_scores_the_minimum_leftover():
    d = start([["5H", "6H", "7H"], ["3C", "4D", "QS"]], "KD", ["KS", "JK"])
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())  # the joker: 3C is wild too (round 1)
    events = d.move(0, discard("4D"))
    assert events[1].data["byEngine"] == [["QS", "3C", "JK"]]
    assert events[2].data == {"points": 0, "cardsLeft": 0}


def test_declare_final_melds_counts_what_is_kept():
    hands = [["5H", "6H", "7H"], ["9C", "9D", "QS"]]
    d = start(hands, "KD", ["KS", "9S"], enabled=(DECLARE,))
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    events = d.move(0, discard("QS"))
    assert events[1].data == {"points": 27, "cardsLeft": 3}
    assert events[1].private == {0: {"leftover": ["9S", "9C", "9D"]}}


def test_declare_final_melds_lay_down():
    hands = [["5H", "6H", "7H"], ["9C", "9D", "QS"]]
    d = start(hands, "KD", ["KS", "9S"], enabled=(DECLARE,))
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    assert {"layDown": {"melds": [["9S", "9C", "9D"]], "discard": "QS"}} not in d.legal(0)
    assert go_out([["9S", "9C", "9D"]], "QS") in d.legal(0)  # FC-13: all of it
    events = d.move(0, {"layDown": {"melds": [["9C", "9D", "9S"]], "discard": "QS"}})
    assert events[2].data == {"points": 0, "cardsLeft": 0}


def test_lay_down_before_anyone_went_out_is_illegal():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"])
    d.move(1, draw())
    out = d.try_move(1, {"layDown": {"melds": [["5H", "6H", "7H"]], "discard": "KS"}})
    assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"


@pytest.mark.parametrize(
    "move, code",
    [
        pytest.param(go_out([["5H", "6H", "KS"]], "7H"), "ILLEGAL_MOVE", id="not-a-meld"),
        pytest.param(go_out([["5H", "6H", "7H"]], "QC"), "ILLEGAL_MOVE", id="discard-not-held"),
        pytest.param(go_out([["5H", "6H", "7H", "8H"]], "KS"), "ILLEGAL_MOVE", id="card-not-held"),
        pytest.param(
            go_out([["5H", "6H", "7H"], ["KS", "KS", "KS"]], "KS"), "ILLEGAL_MOVE", id="reused"
        ),
        pytest.param(draw(), "ILLEGAL_MOVE", id="draw-twice"),
        pytest.param({"place": {"pile": 0, "discard": "KS"}}, "ILLEGAL_MOVE", id="solo-move"),
        pytest.param({"layOff": {"cards": ["KS"], "meld": 0}}, "ILLEGAL_MOVE", id="lay-off-off"),
        pytest.param(go_out([["5H", "6H", "7Z"]], "KS"), "BAD_INPUT", id="bad-card"),
        pytest.param({"goOut": {"melds": "5H", "discard": "KS"}}, "BAD_INPUT", id="bad-melds"),
        pytest.param({"discard": {"card": "KS", "extra": 1}}, "BAD_INPUT", id="extra-field"),
        pytest.param({"fold": {}}, "BAD_INPUT", id="unknown-kind"),
        pytest.param({"draw": {"source": "DECK"}}, "BAD_INPUT", id="bad-source"),
        pytest.param(
            {"draw": {"source": "STOCK"}, "discard": {"card": "KS"}}, "BAD_INPUT", id="two-kinds"
        ),
        pytest.param({"layOff": {"cards": [], "meld": 0}}, "BAD_INPUT", id="no-cards"),
        pytest.param({"layOff": {"cards": ["KS"], "meld": -1}}, "BAD_INPUT", id="negative-index"),
        pytest.param({"place": {"pile": 11, "discard": "KS"}}, "BAD_INPUT", id="pile-out-of-range"),
        pytest.param({"place": {"pile": True, "discard": "KS"}}, "BAD_INPUT", id="pile-not-int"),
    ],
)
def test_refusals(move, code):
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"])
    d.move(1, draw())
    before = d.state
    out = d.try_move(1, move)
    assert isinstance(out, Rejected) and out.code == code, out
    assert d.state is before  # a refused move changes nothing


def test_not_your_turn_and_draw_first():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD")
    assert d.try_move(0, draw()).code == "NOT_YOUR_TURN"
    assert d.try_move(1, discard("5H")).code == "ILLEGAL_MOVE"
    assert d.legal(0) == []


def test_FC_4_rediscard_allowed_by_default_refused_by_house_rule():
    hands = [["5H", "6H", "7H"], ["9C", "9D", "QS"]]
    d = start(hands, "KD")
    d.move(1, draw("DISCARD"))
    assert discard("KD") in d.legal(1)
    d.move(1, discard("KD"))
    d = start(hands, "KD", enabled=(NO_REDISCARD,))
    d.move(1, draw("DISCARD"))
    assert discard("KD") not in d.legal(1)
    refused = d.try_move(1, discard("KD"))
    assert isinstance(refused, Rejected) and refused.code == "ILLEGAL_MOVE"
    d.move(1, discard("5H"))


def _empty_stock_but_one(d):
    """Move every stock card but the top one under the discard pile (cards conserved)."""
    s = d.state
    d.state = replace(s, stock=s.stock[:1], discard=s.stock[1:] + s.discard)


def test_FC_5_restock_keeps_the_top_discard():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"])
    _empty_stock_but_one(d)
    d.move(1, draw())
    events = d.move(1, discard("QS" if "QS" in d.state.hands[1] else "KS"))
    assert types(events) == ["card.discarded", "stock.reshuffled"]
    assert d.state.discard == ("KS",) and len(d.state.stock) == 116 - 6 - 1
    assert d.legal(0) == [draw("STOCK"), draw("DISCARD")]
    assert Counter(d.state.all_cards()) == Counter(rules.deck())


def test_reshuffle_whole_discard_leaves_only_the_stock():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"], enabled=(WHOLE_DISCARD,))
    _empty_stock_but_one(d)
    d.move(1, draw())
    d.move(1, discard("KS"))
    assert d.state.discard == () and len(d.state.stock) == 116 - 6
    assert d.legal(0) == [draw("STOCK")]
    assert d.try_move(0, draw("DISCARD")).code == "ILLEGAL_MOVE"


def test_FC_14_last_turns_go_clockwise_from_the_one_who_went_out():
    hands = [["9C", "9D", "QS"], ["5H", "6H", "7H"], ["4S", "8T", "10D"], ["4C", "8C", "10C"]]
    d = start(hands, "KD", ["5C", "KS"])
    d.move(1, draw())
    d.move(1, discard("5C"))
    d.move(2, draw())
    d.move(2, go_out([["5H", "6H", "7H"]], "KS"))
    order = []
    while d.state.round == 1:
        seat = d.to_act()[0]
        order.append(seat)
        d.move(seat, draw())
        d.move(seat, {"discard": {"card": d.state.hands[seat][0]}})
    assert order == [3, 0, 1]


def test_FC_13_last_turn_go_out_scores_zero():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS", "9S"], enabled=(DECLARE,))
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    events = d.move(0, go_out([["9C", "9D", "9S"]], "QS"))
    assert [e.data for e in events if e.type == "hand.scored"] == [{"points": 0, "cardsLeft": 0}]
    assert d.state.history[-1].points == (0, 0)


def _both_out(enabled=(), **opts):
    d = start([["5H", "6H", "7H"], ["9C", "9D", "9S"]], "KD", ["KS", "QS"], enabled, **opts)
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    return d, d.move(0, go_out([["9C", "9D", "9S"]], "QS"))


def test_FC_16_tie_means_co_winners():
    d, events = _both_out(rounds=1)
    assert types(events)[-1] == "game.over"
    assert d.result().winners == (0, 1) and d.result().scores == {0: 0, 1: 0}
    assert d.to_act() == () and d.view(None)["phase"] == "GAME_OVER"


def test_FC_16_playoff_round():
    """A tie after the last round: the tied play 6 cards with 6s wild; it decides alone."""
    playoff = stacked(
        deal_cards(
            [["4H", "5H", "JS", "JD", "JC", "QC"], ["3S", "5D", "7C", "9T", "KD", "QH"]],
            "8C",
            ["6S", "10S"],
        )
    )
    first = deal_cards([["5H", "6H", "7H"], ["9C", "9D", "9S"]], "KD", ["KS", "QS"])
    d = driver(
        2, seed=FixedRng(shuffles=[stacked(first), playoff]), rounds=1, tieBreak="playoffRound"
    )
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    events = d.move(0, go_out([["9C", "9D", "9S"]], "QS"))
    dealt = events[-1]
    assert dealt.type == "round.dealt" and dealt.data["playoff"] is True
    assert dealt.data["cardsDealt"] == 6 and dealt.data["wildRank"] == "6"
    assert dealt.data["players"] == [0, 1] and d.result() is None
    assert d.view(0)["round"] == 2 and d.view(0)["playoff"]
    d.move(0, draw())
    d.move(0, go_out([["4H", "5H", "6S"], ["JS", "JD", "JC"]], "QC"))
    d.move(1, draw())
    events = d.move(1, discard("KD"))
    assert events[-2].data["points"] == {"0": 0, "1": 46}
    result = d.result()
    assert result is not None and result.winners == (0,)
    assert result.scores == {0: 0, 1: 0}  # the playoff round adds nothing to the totals


def test_playoff_only_deals_the_tied():
    first = deal_cards(
        [["5H", "6H", "7H"], ["KC", "QD", "10S"], ["9C", "9D", "9S"]], "KD", ["KS", "3H", "QS"]
    )
    d = driver(3, seed=FixedRng(shuffles=[stacked(first)]), rounds=1, tieBreak="playoffRound")
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(2, draw())
    d.move(2, discard("3H"))
    d.move(0, draw())
    events = d.move(0, go_out([["9C", "9D", "9S"]], "QS"))
    dealt = events[-1]
    assert dealt.type == "round.dealt" and dealt.data["players"] == [0, 1]
    assert d.view(None)["players"][2]["dealtIn"] is False and d.state.hands[2] == ()
    assert sorted(dealt.private) == [0, 1]


def test_seats_with_a_gap():
    first = deal_cards([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"])
    d = driver((0, 2), seed=FixedRng(shuffles=[stacked(first)]), rounds=1)
    assert d.to_act() == (2,)
    d.move(2, draw())
    events = d.move(2, go_out([["5H", "6H", "7H"]], "KS"))
    assert events[0].seat == 2 and d.to_act() == (0,)
    assert [p["seat"] for p in d.view(2)["players"]] == [0, 2]
    assert d.legal(1) == []


def test_FC_1_random_first_dealer():
    d = driver(3, seed=FixedRng(ints=[1]), firstDealer="random")
    assert d.events[0].data["dealer"] == 1 and d.to_act() == (2,)


def test_FC_17_one_to_seven_players():
    assert (GAME.min_players, GAME.max_players) == (1, 7)
    assert driver(7).view(None)["stockSize"] == 116 - 21 - 1
    assert driver(1).view(None)["mode"] == "SOLO"


def test_options_schema():
    assert resolve(OPTIONS, {}) == {"rounds": 11, "tieBreak": "shared", "firstDealer": "seat0"}
    with pytest.raises(OptionError):
        resolve(OPTIONS, {"rounds": 12})
    with pytest.raises(OptionError):
        resolve(OPTIONS, {"tieBreak": "coin"})


def test_single_deck_two_players():
    d = driver(2, (SINGLE_DECK,))
    assert Counter(d.state.all_cards()) == Counter(rules.deck(1))
    assert d.view(None)["stockSize"] == 58 - 6 - 1


def test_natural_required_refuses_all_wild_meld():
    hands = [["3H", "3S", "JK"], ["9C", "9D", "QS"]]
    for enabled, ok in (((), True), ((NATURAL,), False)):
        d = start(hands, "KD", ["KS"], enabled=enabled)
        d.move(1, draw())
        assert (go_out([["3H", "3S", "JK"]], "KS") in d.legal(1)) is ok
        out = d.try_move(1, go_out([["3H", "3S", "JK"]], "KS"))
        assert isinstance(out, Outcome) is ok


def _lay_off_game(enabled):
    hands = [["5H", "6H", "7H"], ["9C", "9D", "8H"], ["4S", "QT", "10D"]]
    return start(hands, "KD", ["KS", "3C", "4H"], enabled=enabled)


def test_lay_off_on_others():
    d = _lay_off_game((LAY_OFF,))
    d.move(1, draw())
    assert not any("layOff" in m for m in d.legal(1))  # not before someone went out
    assert d.try_move(1, {"layOff": {"cards": ["KS"], "meld": 0}}).code == "ILLEGAL_MOVE"
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(2, draw())
    assert {"layOff": {"cards": ["8H"], "meld": 0}} in d.legal(2)
    events = d.move(2, {"layOff": {"cards": ["8H"], "meld": 0}})
    assert events[0].data == {"meld": 0, "cards": ["8H"], "result": ["5H", "6H", "7H", "8H"]}
    assert d.try_move(2, {"layOff": {"cards": ["9C"], "meld": 3}}).code == "ILLEGAL_MOVE"
    assert d.try_move(2, {"layOff": {"cards": ["QS"], "meld": 0}}).code == "ILLEGAL_MOVE"
    d.move(2, discard("9C"))
    d.move(0, draw())  # 4H: the engine lays it off on 5H-8H for seat 0
    events = d.move(0, discard("QT"))
    laid = next(e for e in events if e.type == "cards.laid_down")
    assert laid.data["layOffs"] == [{"meld": 0, "cards": ["4H"]}]


def _round_two_last_turn(enabled=()):
    """Round 2 (4s wild): seat 0 goes out with four kings; seat 1 holds 8H 9H 10H JK 3C
    for its last turn. Round 1 ends at once (seat 1 goes out, seat 0 throws a card)."""
    round_two = stacked(deal_cards([["KS", "KD", "KC", "5S"], ["8H", "9H", "JK", "3C"]],
                                   "QD", ["KH", "10H"]))  # fmt: skip
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS", "3C"],
              enabled=enabled, shuffles=[round_two], rounds=2)  # fmt: skip
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    d.move(0, discard("3C"))
    assert d.state.round == 2 and d.state.wild == "4" and d.to_act() == (0,)
    d.move(0, draw())
    d.move(0, go_out([["KS", "KD", "KC", "KH"]], "5S"))
    d.move(1, draw())
    assert sorted(d.state.hands[1]) == sorted(["8H", "9H", "10H", "JK", "3C"])
    return d


@pytest.mark.parametrize("enabled", [(), (LAY_OFF,)], ids=["own-melds", "lay-off-on-others"])
def test_a_laid_run_takes_a_natural_where_its_wild_stood(enabled):
    """The joker of 8H 9H JK is pinned as the 10 when laid, but the rest of the hand, 10H,
    still joins it: 8H 9H 10H JK is a run (the joker as 7 or J), so nothing is left."""
    d = _round_two_last_turn(enabled)
    assert go_out([["8H", "9H", "10H", "JK"]], "3C") in d.legal(1)
    events = d.move(1, {"layDown": {"melds": [["8H", "9H", "JK"]], "discard": "3C"}})
    laid = next(e for e in events if e.type == "cards.laid_down")
    assert laid.data["layOffs"] == [{"meld": 1, "cards": ["10H"]}]
    scored = next(e for e in events if e.type == "round.scored")
    assert scored.data["points"] == {"0": 0, "1": 0}
    meld = d.view(None)["melds"][1]
    assert meld["kind"] == "RUN" and meld["seat"] == 1 and len(meld["cards"]) == 4
    assert sorted(meld["cards"]) == sorted(["8H", "9H", "10H", "JK"])
    assert (meld["low"], meld["high"]) == ("8", "J")
    assert meld["cards"][:3] == ["8H", "9H", "10H"]


def test_lay_off_refused_without_the_house_rule():
    d = _lay_off_game(())
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(2, draw())
    assert not any("layOff" in m for m in d.legal(2))
    assert d.try_move(2, {"layOff": {"cards": ["8H"], "meld": 0}}).code == "ILLEGAL_MOVE"


def test_worked_example_through_the_engine():
    """Round 5, 7s wild: Ana (seat 0) went out; Ben, Cy and Dee declare their melds and
    keep 38, 62 and 25 points: totals 40/31/47/35 become 40/69/109/60."""
    d = driver(4, (DECLARE,))
    s = d.state
    hands = (
        (),
        ("KS", "5H", "7C", "9D", "9S", "9H", "9C"),
        ("JK", "3D", "9S", "4C", "4S", "4H", "4D"),
        ("JH", "10D", "4C", "6T", "6T", "6S", "6D"),
    )
    laid = ("3H", "4H", "5H", "6H", "8C", "8D", "8S")
    d.state = replace(
        s,
        rounds=5,
        round=5,
        cards_dealt=7,
        wild="7",
        hands=hands,
        totals=(40, 31, 47, 35),
        went_out=0,
        turn=1,
        round_points=(0, None, None, None),
        finished=(0,),
        melds=tuple(TableMeld(0, rules.make_meld(m, "7")) for m in (laid[:4], laid[4:])),
        stock=("QD", "QS", "QC"),
        discard=("KD",),
    )
    for seat, meld in (
        (1, ["9D", "9S", "9H", "9C"]),
        (2, ["4C", "4S", "4H", "4D"]),
        (3, ["6T", "6T", "6S", "6D"]),
    ):
        d.move(seat, draw())
        events = d.move(seat, {"layDown": {"melds": [meld], "discard": d.state.drawn}})
    scored = next(e for e in events if e.type == "round.scored")
    assert scored.data["points"] == {"0": 0, "1": 38, "2": 62, "3": 25}
    assert scored.data["totals"] == {"0": 40, "1": 69, "2": 109, "3": 60}


def test_default_scoring_uses_a_wild_left_over():
    """Without declaring, the engine puts Ben's wild 7 into his book of 9s: 18, not 38."""
    d = driver(2, rounds=5)
    d.state = replace(
        d.state,
        round=5,
        cards_dealt=7,
        wild="7",
        hands=((), ("KS", "5H", "7C", "9D", "9S", "9H", "9C")),
        went_out=0,
        turn=1,
        round_points=(0, None),
        finished=(0,),
        stock=("QD",),
        discard=("KD",),
    )
    d.move(1, draw())
    events = d.move(1, discard("QD"))
    assert next(e for e in events if e.type == "hand.scored").data["points"] == 18


def test_solo_game():
    deck = rules.deck()
    d = driver(1, seed=FixedRng(shuffles=[list(deck)]))
    solo = d.view(0)["solo"]
    assert [p["size"] for p in solo["piles"]] == list(range(3, 14))
    assert [p["wildRank"] for p in solo["piles"]][:3] == ["3", "4", "5"]
    assert d.view(0)["mode"] == "SOLO" and d.view(0)["phase"] == "PLACE"
    assert solo["current"] == deck[88] and d.view(None)["stockSize"] == 27
    assert solo["piles"][0]["cards"] == ["3S", "4S", "5S"] and solo["piles"][0]["closed"]
    assert d.try_move(0, {"place": {"pile": 0, "discard": "3S"}}).code == "ILLEGAL_MOVE"
    assert d.try_move(0, draw()).code == "ILLEGAL_MOVE"
    assert d.try_move(0, {"place": {"pile": 1, "discard": "KH"}}).code == "ILLEGAL_MOVE"
    moves = d.legal(0)
    assert all(m["place"]["pile"] != 0 for m in moves)
    turns = 0
    while d.result() is None:
        d.move(0, choose(GAME, d.state, 0, NORMAL, d.rng, d.rules))
        turns += 1
    assert turns <= 28
    result = d.result()
    score = d.view(0)["solo"]["score"]
    assert result.scores == {0: score} and result.winners == ((0,) if score == 0 else ())
    assert Counter(d.state.all_cards()) == Counter(deck)


def test_solo_win_when_every_pile_closes():
    """Ten piles closed, the last one closes with the turned card: a win, score 0."""
    d = driver(1)
    solo = d.state.solo
    last = solo.piles[10]
    pool = Counter((*last.cards, solo.current, *d.state.stock))
    run = next(
        [rules.RANKS[i + k] + suit for k in range(3)]
        for suit in rules.SUITS
        for i in range(8)
        if all(pool[rules.RANKS[i + k] + suit] for k in range(3))
    )
    pool.subtract(run)
    extra = next(c for c in sorted(pool) if pool[c] and c != "JK" and c[:-1] not in ("K", "3"))
    pool[extra] -= 1
    kept = (run[0], run[1], extra)
    piles = (
        *(replace(p, closed=True, points=0) for p in solo.piles[:10]),
        replace(last, cards=kept, closed=False, points=99),
    )
    d.state = replace(
        d.state,
        solo=replace(solo, piles=piles, current=run[2]),
        stock=tuple(sorted(pool.elements(), key=rules.sort_key)),
    )
    assert Counter(d.state.all_cards()) == Counter(rules.deck())
    events = d.move(0, {"place": {"pile": 10, "discard": extra}})
    assert types(events)[-3:] == ["pile.closed", "round.scored", "game.over"]
    assert d.result().winners == (0,) and d.result().scores == {0: 0}


def test_encode_decode_round_trip_mid_game():
    d = driver(3, (LAY_OFF,), rounds=2)
    for _ in range(10):
        seat = d.to_act()[0]
        d.move(seat, choose(GAME, d.state, seat, NORMAL, d.rng, d.rules))
        d.check_roundtrip()
    assert GAME.decode(GAME.encode(d.state)) == d.state


def test_bot_goes_out_and_takes_wilds():
    d = start([["5H", "6H", "QS"], ["9C", "9D", "QS"]], "JK", ["KS"])
    assert choose(GAME, d.state, 1, NORMAL, d.rng, d.rules) == draw("DISCARD")
    d.move(1, draw("DISCARD"))
    move = choose(GAME, d.state, 1, NORMAL, d.rng, d.rules)
    assert move == go_out([["5H", "6H", "JK"]], "QS") and move in d.legal(1)


def test_bot_leaves_a_discard_it_would_throw_back():
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"])
    assert choose(GAME, d.state, 1, NORMAL, d.rng, d.rules) == draw("STOCK")


def test_house_rule_definitions():
    reg = registry()
    assert sorted(r.id for r in reg.rules_of("five-crowns")) == sorted(RULE_IDS)
    single = reg.house_rules[SINGLE_DECK]
    assert (single.min_players, single.max_players) == (2, 2)
    assert reg.house_rules[LAY_OFF].min_players == 2
    assert reg.house_rules[NATURAL].min_players is None
    for rule in reg.rules_of("five-crowns"):
        assert rule.description and rule.name and not reg.conflicts(rule.id)


def test_result_is_none_while_playing():
    d = driver(2)
    assert d.result() is None and d.to_act() == (1,)


def test_move_refused_raises_in_driver():
    d = driver(2)
    with pytest.raises(MoveRefused):
        d.move(1, discard("KS"))
