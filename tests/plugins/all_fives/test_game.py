"""All Fives scenarios: stacked deals driven move by move (DECISIONS.md 2.2 and 2.3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablestate.engine import Outcome, Rejected, Rng, RuleSet
from tablestate.testing import FixedRng, GameDriver
from tablestate_all_fives import rules as r
from tablestate_all_fives.game import GAME
from tablestate_all_fives.presets import traditional
from tablestate_all_fives.state import DISCARD, GAME_OVER, GIVE_OR_RUN, PLAY, STAND_OR_BEG

from .support import (
    ALL_RULES,
    BUNCH,
    DISCARD_SIX,
    GIFT_ALL,
    HLJG,
    JACK_BONUS,
    MAY_TRUMP,
    NO_GIFT_WIN,
    PARTNERS,
    PEG_OUT,
    assert_conserved,
    driver,
    play_all,
    ruleset,
    types,
)

SPADE_HONOURS = ["AS", "KS", "QS", "JS", "10S", "5S"]
LOW_HEARTS = ["2H", "3H", "4H", "6H", "7H", "8H"]
HEARTS = ["AH", "KH", "QH", "JH", "10H", "9H"]
CLUBS = ["AC", "KC", "QC", "JC", "10C", "9C"]
DIAMONDS = ["AD", "KD", "QD", "JD", "10D", "9D"]
RUN_TO_DIAMONDS = ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "8D")
STAND = {"stand": True}
BEG = {"beg": True}
GIVE = {"giveOne": True}
RUN = {"run": True}


def play(card: str) -> dict[str, dict[str, str]]:
    return {"play": {"card": card}}


def honours_deal(**kw) -> GameDriver:
    """Eldest (seat 0) holds every spade honour, the dealer low hearts; 9S turned up."""
    return driver([SPADE_HONOURS, LOW_HEARTS], "9S", **kw)


def sweep(d: GameDriver) -> None:
    """Eldest leads the spade honours, the dealer throws hearts: 25 points to eldest."""
    for ace, heart in zip(SPADE_HONOURS, LOW_HEARTS, strict=True):
        play_all(d, ace, heart)


# -- 2.2 rules 1-3: players, dealer, the deal --------------------------------------------


def test_the_deal_in_two_packets_of_three_from_eldest_then_the_turn_up():
    d = driver([SPADE_HONOURS, LOW_HEARTS], "9S", players=(0, 2))
    assert types(d.events) == ["deal.started", "cards.dealt", "cards.dealt", "card.turned"]
    first, second = d.events[1], d.events[2]
    assert first.private == {0: {"cards": ["AS", "KS", "QS"]}, 2: {"cards": ["2H", "3H", "4H"]}}
    assert second.private == {0: {"cards": ["JS", "10S", "5S"]}, 2: {"cards": ["6H", "7H", "8H"]}}
    assert d.events[0].data == {"deal": 1, "dealer": 2, "eldest": 0, "reason": "first"}
    view = d.view(0)
    assert view["hand"] == list(r.sort_cards(SPADE_HONOURS))
    assert d.view(2)["hand"] == list(r.sort_cards(LOW_HEARTS))
    assert d.view(None)["hand"] is None
    assert (view["dealer"], view["eldest"], view["turnUp"], view["proposedSuit"]) == (
        2,
        0,
        "9S",
        "S",
    )
    assert view["stockSize"] == 52 - 13 and view["phase"] == STAND_OR_BEG
    assert d.to_act() == (0,)
    assert d.legal(0) == [STAND, BEG] and d.legal(2) == []


@pytest.mark.parametrize("seats", [(0, 1), (1, 3), (0, 1, 2), (0, 2, 3)])
def test_the_first_dealer_is_random(seats):
    dealers = {GameDriver(GAME, list(seats), seed=f"s{i}").view(None)["dealer"] for i in range(40)}
    assert dealers == set(seats)


def test_four_players_need_the_partnerships_rule():
    with pytest.raises(ValueError, match="partnerships"):
        GameDriver(GAME, 4)


def test_the_deal_passes_clockwise_and_the_trick_winner_leads():
    d = honours_deal()
    d.move(0, STAND)
    assert d.view(0)["leader"] == 0
    play_all(d, "AS", "2H")
    assert d.to_act() == (0,) and d.view(1)["lastTrick"]["winner"] == 0
    for ace, heart in zip(SPADE_HONOURS[1:], LOW_HEARTS[1:], strict=True):
        play_all(d, ace, heart)
    started = [e for e in d.events if e.type == "deal.started"]
    assert started[-1].data["dealer"] == 0 and started[-1].data["eldest"] == 1


# -- 2.2 rule 4: stand, beg, give one, run -----------------------------------------------


def test_stand_fixes_the_turn_up_suit():
    d = honours_deal()
    events = d.move(0, STAND)
    assert types(events) == ["eldest.stood", "trump.fixed"]
    assert events[1].data == {"suit": "S", "card": "9S", "by": "stand"}
    assert d.state.phase == PLAY and d.to_act() == (0,)


def test_beg_then_give_one_scores_eldest_and_keeps_the_suit():
    d = honours_deal()
    d.move(0, BEG)
    assert d.to_act() == (1,) and d.state.phase == GIVE_OR_RUN
    assert d.legal(1) == [GIVE, RUN]
    events = d.move(1, GIVE)
    assert types(events) == ["dealer.gave", "points.scored", "trump.fixed"]
    assert events[1].data == {"seats": [0], "points": 1, "reason": "gift", "total": 1}
    assert d.state.trump == "S" and d.state.phase == PLAY
    assert d.legal(0)[0] == play("AS")  # no second beg: play starts


def test_run_different_suit_becomes_trump():
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS)
    d.move(0, BEG)
    events = d.move(1, RUN)
    assert types(events) == [
        "dealer.ran",
        "card.set-aside",
        "cards.dealt",
        "card.turned",
        "trump.fixed",
    ]
    assert events[2].private == {0: {"cards": ["2D", "3D", "4D"]}, 1: {"cards": ["5D", "6D", "7D"]}}
    st = d.state
    assert (st.trump, st.turn_up, st.set_aside, st.runs) == ("D", "8D", ("9S",), 1)
    assert [len(h) for h in st.hands] == [9, 9] and len(st.stock) == 52 - 20
    assert st.phase == PLAY  # no second beg, all 9 cards kept
    assert_conserved(d)


def test_run_to_the_same_suit_repeats():
    d = driver(
        [HEARTS, CLUBS],
        "9S",
        ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "8S"),
        ([["8D", "JD", "QD"], ["KD", "AD", "2C"]], "2H"),
    )
    d.move(0, BEG)
    d.move(1, RUN)
    st = d.state
    assert (st.trump, st.set_aside, st.runs) == ("H", ("9S", "8S"), 2)
    assert [len(h) for h in st.hands] == [12, 12]


def _spade_turn_ups(players: int) -> list[str]:
    ups = [6 * players + k * (3 * players + 1) for k in range(10)]
    spades = [c for c in r.DECK if r.suit(c) == "S"]
    others = [c for c in r.DECK if r.suit(c) != "S"]
    order = []
    for i in range(52):
        order.append(spades.pop(0) if i in ups or not others else others.pop(0))
    return order


@pytest.mark.parametrize("players, capacity", [(2, 5), (3, 3)])
def test_a_stock_too_short_voids_the_deal_and_the_same_dealer_redeals(players, capacity):
    d = GameDriver(GAME, players, seed=FixedRng([_spade_turn_ups(players)], [players - 1]))
    d.move(0, BEG)
    events = d.move(players - 1, RUN)
    assert types(events).count("cards.dealt") == capacity + 2  # runs, then the redeal
    assert types(events).count("card.set-aside") == capacity + 1
    void = types(events).index("deal.void")
    assert events[void].data == {"reason": "stock"}
    assert events[void + 1].data == {
        "deal": 2,
        "dealer": players - 1,
        "eldest": 0,
        "reason": "redeal",
    }
    assert d.state.phase == STAND_OR_BEG and d.state.scores == (0,) * players
    assert_conserved(d)


# -- 2.2 rules 5-8: play and scoring -----------------------------------------------------

FOLLOW_E = ["AH", "9C", "8C", "7C", "6C", "2D"]
FOLLOW_D = ["KH", "QH", "3S", "4S", "2C", "3D"]


def test_must_follow_suit_when_able():
    d = driver([FOLLOW_E, FOLLOW_D], "9S")
    d.move(0, STAND)
    d.move(0, play("AH"))
    assert d.legal(1) == [play("KH"), play("QH")]
    refused = d.try_move(1, play("3S"))
    assert refused == Rejected("ILLEGAL_MOVE", "you must follow suit (H) while you can")
    assert d.try_move(1, play("AS")) == Rejected("ILLEGAL_MOVE", "you do not hold AS")
    events = d.move(1, play("KH"))
    assert types(events) == ["card.played", "trick.won"]  # no trump honour: no points
    assert events[1].seat == 0 and events[1].data == {"cards": ["AH", "KH"], "points": 0}


def test_unable_to_follow_any_card():
    d = driver([FOLLOW_E, FOLLOW_D], "9S")
    d.move(0, STAND)
    play_all(d, "AH", "KH", "2D", "3D")  # the dealer wins the diamond and leads
    assert d.to_act() == (1,)
    d.move(1, play("QH"))
    assert {m["play"]["card"] for m in d.legal(0)} == {"9C", "8C", "7C", "6C"}


def test_trump_honours_score_to_the_trick_winner_at_once():
    d = driver([FOLLOW_E, FOLLOW_D], "9S")
    d.move(0, STAND)
    play_all(d, "AH", "KH", "2D", "3D", "3S")
    events = d.move(0, play("6C"))
    assert types(events) == ["card.played", "trick.won"]  # the 3 of trumps is worth 0
    d2 = honours_deal()
    d2.move(0, STAND)
    d2.move(0, play("10S"))
    events = d2.move(1, play("2H"))
    assert types(events) == ["card.played", "trick.won", "points.scored"]
    assert events[2].data == {"seats": [0], "points": 10, "reason": "trick", "total": 10}
    assert d2.view(1)["players"][0]["dealPoints"] == 10


def test_may_trump_instead_of_following():
    d = driver([FOLLOW_E, FOLLOW_D], "9S", rules=[MAY_TRUMP])
    d.move(0, STAND)
    d.move(0, play("AH"))
    assert {m["play"]["card"] for m in d.legal(1)} == {"KH", "QH", "3S", "4S"}
    events = d.move(1, play("3S"))
    assert events[1].seat == 1  # the trump wins


# -- 2.2 rule 9: the end of the game -----------------------------------------------------


@pytest.mark.parametrize(
    "scores, winners, final",
    [
        pytest.param((40, 0), (0,), {0: 65, 1: 0}, id="reaches-target"),
        pytest.param((50, 70), (0,), {0: 75, 1: 70}, id="both-over-highest-wins"),
        pytest.param((30, 0), None, None, id="below-target-next-deal"),
        pytest.param((35, 60), None, None, id="tie-at-top-next-deal"),
    ],
)
def test_the_game_is_checked_after_each_deal(scores, winners, final):
    d = honours_deal()
    d.state = replace(d.state, scores=scores)
    d.move(0, STAND)
    play_all(d, "AS", "2H", "KS", "3H")
    assert d.result() is None  # never mid-deal, whatever the scores
    for ace, heart in zip(SPADE_HONOURS[2:], LOW_HEARTS[2:], strict=True):
        play_all(d, ace, heart)
    result = d.result()
    if winners is None:
        assert result is None and d.state.deal_no == 2 and d.state.phase == STAND_OR_BEG
        assert d.events[-1].type == "card.turned"
    else:
        assert result is not None and result.winners == winners and result.scores == final
        assert d.events[-2].type == "deal.scored" and d.events[-1].type == "game.over"
        assert d.to_act() == () and d.legal(0) == []


def test_target_score_is_an_option():
    d = honours_deal(options={"targetScore": 25})
    d.move(0, STAND)
    sweep(d)
    assert d.result() is not None and d.result().winners == (0,)


# -- moves: shape and phase ------------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        pytest.param({}, id="empty"),
        pytest.param({"stand": True, "beg": True}, id="two-kinds"),
        pytest.param({"pass": True}, id="unknown-kind"),
        pytest.param({"stand": False}, id="flag-false"),
        pytest.param({"stand": {}}, id="flag-object"),
        pytest.param({"play": {}}, id="play-no-card"),
        pytest.param({"play": "AS"}, id="play-bare-string"),
        pytest.param({"play": {"card": "ZZ"}}, id="play-not-a-card"),
        pytest.param({"play": {"card": "AS", "also": 1}}, id="play-extra-field"),
        pytest.param({"discard": {"card": "1S"}}, id="discard-not-a-card"),
        pytest.param({"fiveCrowns": {"discard": {"card": "KH"}}}, id="another-game"),
    ],
)
def test_malformed_moves_are_bad_input(move):
    assert GAME.check_move(move) is not None
    d = honours_deal()
    out = d.try_move(0, move)
    assert isinstance(out, Rejected) and out.code == "BAD_INPUT"


@pytest.mark.parametrize(
    "move",
    [
        STAND,
        BEG,
        GIVE,
        RUN,
        play("AS"),
        {"discard": {"card": "AS"}},
        {"bunch": True},
        {"declineBunch": True},
    ],
)
def test_well_formed_moves_pass_the_shape_check(move):
    assert GAME.check_move(move) is None


@pytest.mark.parametrize(
    "moves, move",
    [
        pytest.param([], play("AS"), id="play-before-trump"),
        pytest.param([], GIVE, id="give-before-beg"),
        pytest.param([], RUN, id="run-before-beg"),
        pytest.param([STAND], STAND, id="stand-twice"),
        pytest.param([STAND], BEG, id="beg-after-stand"),
        pytest.param([STAND], {"discard": {"card": "AS"}}, id="discard-rule-off"),
        pytest.param([STAND], {"bunch": True}, id="bunch-rule-off"),
        pytest.param([STAND], {"declineBunch": True}, id="decline-bunch-rule-off"),
    ],
)
def test_moves_out_of_phase_are_illegal_and_change_nothing(moves, move):
    d = honours_deal()
    for m in moves:
        d.move(d.to_act()[0], m)
    before, n_events = d.state, len(d.events)
    out = d.try_move(d.to_act()[0], move)
    assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
    assert d.state == before and len(d.events) == n_events


def test_not_your_turn():
    d = honours_deal()
    assert d.try_move(1, STAND) == Rejected("NOT_YOUR_TURN", "it is not your turn")
    assert isinstance(GAME.apply(d.state, 1, STAND, Rng(b"x"), RuleSet()), Rejected)


# -- house rules -------------------------------------------------------------------------


def test_peg_out_wins_mid_deal():
    d = honours_deal(rules=[PEG_OUT])
    d.state = replace(d.state, scores=(55, 0))
    d.move(0, STAND)
    play_all(d, "AS", "2H")
    assert d.result() is None  # 59
    d.move(0, play("KS"))
    events = d.move(1, play("3H"))
    assert types(events)[-2:] == ["points.scored", "game.over"]
    assert d.result().winners == (0,) and d.state.phase == GAME_OVER
    assert [len(h) for h in d.state.hands] == [4, 4]
    assert_conserved(d)


def test_peg_out_on_the_gift():
    d = honours_deal(rules=[PEG_OUT])
    d.state = replace(d.state, scores=(59, 0))
    d.move(0, BEG)
    events = d.move(1, GIVE)
    assert types(events) == ["dealer.gave", "points.scored", "game.over"]
    assert d.result().winners == (0,)


PEG_E = ["AS", "9H", "8H", "7H", "6H", "4C"]
PEG_D = ["2S", "KD", "QD", "JD", "10D", "9D"]


@pytest.mark.parametrize(
    "rules, final, reasons",
    [
        pytest.param(
            [HLJG, PEG_OUT], {0: 60, 1: 59}, ["trick", "high"], id="peg-out-high-before-low"
        ),
        pytest.param([HLJG], {0: 61, 1: 60}, ["trick", "high", "low", "game"], id="after-the-deal"),
    ],
)
def test_high_low_jack_game_order(rules, final, reasons):
    d = driver([PEG_E, PEG_D], "3S", rules=rules)
    d.state = replace(d.state, scores=(55, 59))
    d.move(0, STAND)
    play_all(d, "AS", "2S", "9H", "KD", "8H", "QD", "7H", "JD", "6H", "10D", "4C", "9D")
    result = d.result()
    assert result is not None and result.winners == (0,) and result.scores == final
    assert [e.data["reason"] for e in d.events if e.type == "points.scored"] == reasons


@pytest.mark.parametrize(
    "turn_up, moves, runs, points",
    [
        pytest.param("JS", [STAND], (), [("turnUpJack", 1)], id="stand-on-jack"),
        pytest.param("JS", [BEG, GIVE], (), [("gift", 0), ("turnUpJack", 1)], id="gift-first"),
        pytest.param(
            "JS",
            [BEG, RUN],
            ([[["2D", "3D", "4D"], ["5D", "6D", "7D"]], "JD"],),
            [("turnUpJack", 1)],
            id="run-to-a-jack-only",
        ),
        pytest.param("9S", [STAND], (), [], id="no-jack-no-point"),
    ],
)
def test_turn_up_jack_bonus(turn_up, moves, runs, points):
    d = driver([HEARTS, CLUBS], turn_up, *runs, rules=[JACK_BONUS])
    for m in moves:
        d.move(d.to_act()[0], m)
    scored = [e for e in d.events if e.type == "points.scored"]
    assert [(e.data["reason"], e.data["seats"][0]) for e in scored] == points
    fixed = types(d.events).index("trump.fixed")
    assert all(d.events.index(e) > fixed for e in scored if e.data["reason"] == "turnUpJack")


def test_turn_up_jack_needs_the_rule():
    d = driver([HEARTS, CLUBS], "JS")
    d.move(0, STAND)
    assert "points.scored" not in types(d.events)


def test_gift_to_both_opponents_with_three_players():
    d = driver([HEARTS, CLUBS, DIAMONDS], "9S", rules=[GIFT_ALL])
    d.move(0, BEG)
    events = d.move(2, GIVE)
    scored = [e.data["seats"] for e in events if e.type == "points.scored"]
    assert scored == [[0], [1]] and d.state.scores == (1, 1, 0)


@pytest.mark.parametrize(
    "players, rules, scores, may_give",
    [
        pytest.param(2, [NO_GIFT_WIN], (59, 0), False, id="gift-would-win"),
        pytest.param(2, [NO_GIFT_WIN], (58, 59), True, id="dealer-near-target-may-give"),
        pytest.param(2, [], (59, 0), True, id="rule-off"),
        pytest.param(3, [NO_GIFT_WIN, GIFT_ALL], (0, 59, 0), False, id="second-recipient"),
        pytest.param(3, [NO_GIFT_WIN], (0, 59, 0), True, id="only-eldest-gets-it"),
    ],
)
def test_dealer_cannot_gift_a_win(players, rules, scores, may_give):
    d = driver([HEARTS, CLUBS, DIAMONDS][:players], "9S", rules=rules)
    d.state = replace(d.state, scores=scores)
    d.move(0, BEG)
    dealer = players - 1
    assert (GIVE in d.legal(dealer)) is may_give and RUN in d.legal(dealer)
    out = d.try_move(dealer, GIVE)
    assert isinstance(out, Outcome) is may_give


def test_discard_to_six_after_a_run():
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS, rules=[DISCARD_SIX])
    d.move(0, BEG)
    d.move(1, RUN)
    assert d.state.phase == DISCARD and d.to_act() == (0,) and d.view(0)["handLimit"] == 6
    assert len(d.legal(0)) == 9
    assert d.try_move(0, {"discard": {"card": "2C"}}) == Rejected(
        "ILLEGAL_MOVE", "you do not hold 2C"
    )
    for card in ("9H", "10H", "JH"):
        (event,) = d.move(0, {"discard": {"card": card}})
        assert event.private == {0: {"card": card}} and "card" not in event.data
    assert d.to_act() == (1,)
    for card in ("9C", "10C", "JC"):
        d.move(1, {"discard": {"card": card}})
    st = d.state
    assert st.phase == PLAY and [len(h) for h in st.hands] == [6, 6] and st.held == st.hands
    assert st.discards == ("9H", "10H", "JH", "9C", "10C", "JC")
    assert d.view(None)["discardedCount"] == 6
    assert_conserved(d)


def test_no_discard_without_a_run():
    d = honours_deal(rules=[DISCARD_SIX])
    d.move(0, STAND)
    assert d.state.phase == PLAY


P4 = [HEARTS, CLUBS, ["AD", "KD", "QD", "JD", "10D", "10S"], ["8H", "8C", "8D", "7H", "7C", "7D"]]


def test_partnerships_score_by_side_and_gift_to_eldests_side():
    d = driver(P4, "9S", rules=[PARTNERS])
    assert d.state.sides == (0, 1, 0, 1)
    d.move(0, BEG)
    d.move(3, GIVE)
    players = d.view(None)["players"]
    assert [p["score"] for p in players] == [1, 0, 1, 0]
    assert [p["side"] for p in players] == [0, 1, 0, 1]


def test_partnerships_partner_wins_for_the_side():
    d = driver(P4, "9S", rules=[PARTNERS, PEG_OUT])
    d.state = replace(d.state, scores=(55, 0))
    d.move(0, STAND)
    play_all(d, "AH", "AC", "10S")
    events = d.move(3, play("8H"))
    assert events[1].seat == 2 and events[2].data["seats"] == [0, 2]
    result = d.result()
    assert result is not None and result.winners == (0, 2)
    assert result.scores == {0: 65, 1: 0, 2: 65, 3: 0}


@pytest.mark.parametrize(
    "votes, redeal",
    [
        pytest.param([(0, "bunch"), (1, "bunch")], True, id="eldest-proposes-dealer-agrees"),
        pytest.param([(0, "bunch"), (1, "declineBunch")], False, id="dealer-refuses"),
        pytest.param([(0, "declineBunch"), (1, "bunch"), (0, "bunch")], True, id="dealer-proposes"),
        pytest.param(
            [(0, "declineBunch"), (1, "bunch"), (0, "declineBunch")], False, id="eldest-refuses"
        ),
        pytest.param([(0, "declineBunch"), (1, "declineBunch")], False, id="nobody-proposes"),
    ],
)
def test_bunch_on_agreement(votes, redeal):
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS, rules=[BUNCH])
    d.move(0, BEG)
    d.move(1, RUN)
    assert d.state.phase == "BUNCH"
    for seat, kind in votes:
        assert d.to_act() == (seat,)
        assert d.legal(seat) == [{"bunch": True}, {"declineBunch": True}]
        d.move(seat, {kind: True})
    if redeal:
        assert d.state.deal_no == 2 and d.state.phase == STAND_OR_BEG
        assert d.events[-1].type == "card.turned" and d.state.dealer == 1
        assert [e.data for e in d.events if e.type == "deal.void"] == [{"reason": "bunch"}]
    else:
        assert d.state.phase == PLAY and [len(h) for h in d.state.hands] == [9, 9]


def test_bunch_voids_the_turn_up_jack_point_and_precedes_discards():
    run = ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "JD")
    d = driver([HEARTS, CLUBS], "9S", run, rules=[BUNCH, JACK_BONUS, DISCARD_SIX])
    d.move(0, BEG)
    d.move(1, RUN)
    assert d.state.scores == (0, 1) and d.state.phase == "BUNCH"
    d.move(0, {"bunch": True})
    events = d.move(1, {"bunch": True})
    assert events[1].data == {"seats": [1], "points": -1, "reason": "voidDeal", "total": 0}
    d2 = driver([HEARTS, CLUBS], "9S", run, rules=[BUNCH, DISCARD_SIX])
    d2.move(0, BEG)
    d2.move(1, RUN)
    d2.move(0, {"declineBunch": True})
    d2.move(1, {"declineBunch": True})
    assert d2.state.phase == DISCARD


def test_bunch_is_not_offered_without_a_run():
    d = honours_deal(rules=[BUNCH])
    d.move(0, STAND)
    assert d.state.phase == PLAY


# -- the house rules as plugins ------------------------------------------------------------


def test_every_house_rule_is_registered_with_its_range_and_conflicts(registry):
    assert {r.id for r in registry.rules_of("all-fives")} == set(ALL_RULES)
    ranges = {r.id: (r.min_players, r.max_players) for r in registry.rules_of("all-fives")}
    assert ranges[PARTNERS] == (4, 4) and ranges[GIFT_ALL] == (3, 3) and ranges[BUNCH] == (2, 2)
    assert all(ranges[i] == (None, None) for i in ALL_RULES if i not in (PARTNERS, GIFT_ALL, BUNCH))
    assert registry.conflicts(PARTNERS) == (GIFT_ALL, BUNCH)
    assert registry.conflicts(PEG_OUT) == ()
    assert registry.games["all-fives"] is GAME


@pytest.mark.parametrize(
    "players, extra",
    [(2, set()), (3, {GIFT_ALL}), (4, {PARTNERS})],
)
def test_traditional_preset(registry, players, extra):
    rules, options = traditional(players)
    assert set(rules) == {PEG_OUT, MAY_TRUMP, HLJG, JACK_BONUS, NO_GIFT_WIN, DISCARD_SIX} | extra
    assert options == {"targetScore": 61}
    for rule in rules:
        assert not set(registry.conflicts(rule)) & set(rules)
    d = GameDriver(GAME, players, options=options, rules=ruleset(*rules), seed="trad")
    assert d.random_playout().winners


def test_options_schema_defaults():
    props = GAME.options["properties"]
    assert {k: v["default"] for k, v in props.items()} == {
        "targetScore": 60,
        "lowGoesTo": "dealt",
        "gameTie": "none",
    }
    assert props["lowGoesTo"]["enum"] == ["dealt", "won"]
    assert props["gameTie"]["enum"] == ["none", "eldest", "dealerOpponents"]
