"""Five by Five scenarios: setup, every action's legality, turns, forfeits, refills, the end
and every tie-break, house rules at a table, and the move shapes."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tablestate.engine import Outcome, Rejected
from tablestate.testing import FixedRng, GameDriver, MoveRefused
from tablestate_five_by_five import flow
from tablestate_five_by_five.game import GAME
from tablestate_five_by_five.rules import ACTION_COUNTS, REGULAR_IDS
from tablestate_five_by_five.state import ACTED, FINAL, OVER, PLACE, REFILL, TURN, Player

from .helpers import check_conservation, ruleset, sq
from .scenario import EMPTY_BOARD, arrange, driver, types

# --- setup ------------------------------------------------------------------------------


def test_setup_deals_hands_and_splits_the_decks() -> None:
    d = GameDriver(GAME, players=3, seed="setup")
    s = d.state
    assert all(len(p.actions) == 4 and len(p.objectives) == 3 for p in s.players)
    rest = 60 - 12
    assert (len(s.decks[0]), len(s.decks[1])) == ((rest + 1) // 2, rest // 2)
    assert len(s.objective_deck) == 26 - 9
    assert s.supply == (10, 10, 10, 10) and s.phase == TURN and s.turn == 1
    check_conservation(d)
    assert types(d.events)[:1] == ["hand.dealt"]
    assert types(d.events).count("hand.dealt") == 3
    assert types(d.events)[-2:] == ["first.player", "turn.started"]


def test_first_player_rolls_and_ties_roll_again() -> None:
    # Round 1: seats 0, 1, 2 roll 5, 5, 2; round 2: seats 0 and 1 roll 3, 4.
    d = GameDriver(GAME, players=3, seed=FixedRng(ints=[5, 5, 2, 3, 4]))
    rolls = [e.data for e in d.events if e.type == "first.rolled"]
    assert [len(r["rolls"]) for r in rolls] == [3, 2]
    assert d.to_act() == (1,)
    assert d.state.seats == (1, 2, 0)  # play order goes on clockwise from the first player


def test_seats_with_a_gap_keep_their_indices() -> None:
    d = driver(players=[0, 2, 4])
    assert d.to_act() == (0,) and d.state.seats == (0, 2, 4)
    assert {p["seat"] for p in d.view(None)["players"]} == {0, 2, 4}


def test_solo_needs_no_roll() -> None:
    d = GameDriver(GAME, players=1, seed=FixedRng())
    assert "first.rolled" not in types(d.events) and d.to_act() == (0,)


@pytest.mark.parametrize(
    "options, actions, objectives",
    [
        pytest.param({"actionHandSize": 6, "objectiveHandSize": 2}, 6, 2, id="bigger-hands"),
        pytest.param({"actionHandSize": 8, "objectiveHandSize": 5}, 8, 5, id="largest-hands"),
    ],
)
def test_hand_sizes_are_options(options, actions: int, objectives: int) -> None:
    d = GameDriver(GAME, players=5, seed="hands", options=options)
    assert all(len(p.actions) == actions for p in d.state.players)
    assert all(len(p.objectives) == objectives for p in d.state.players)
    check_conservation(d)


def test_objective_counts_and_points_are_options() -> None:
    counts = dict.fromkeys(REGULAR_IDS, 0) | {"line-all-odd": 3, "line-all-even": 3}
    d = GameDriver(
        GAME,
        players=2,
        seed="opts",
        options={"objectiveCounts": counts, "objectivePoints": {"line-all-odd": 9}},
    )
    held = Counter(o for p in d.state.players for o in p.objectives)
    assert held == Counter({"line-all-odd": 3, "line-all-even": 3})
    assert d.state.objective_deck == ()
    assert d.state.config.points_of("line-all-odd") == 9
    assert d.state.config.points_of("line-all-even") == 3  # the default stays
    check_conservation(d)


@pytest.mark.parametrize("count", [0, 1, 12, 24])
def test_prefilled_squares_shorten_the_game(count: int) -> None:
    d = GameDriver(GAME, players=3, seed="prefill", options={"prefilledSquares": count})
    dice = [c for row in d.state.board for c in row if c is not None]
    assert len(dice) == count
    check_conservation(d)
    prefilled = [e for e in d.events if e.type == "board.prefilled"]
    if count == 0:
        assert prefilled == [] and d.state.board == GameDriver(GAME, players=3).state.board
        return
    (event,) = prefilled
    assert sorted(x["die"] for x in event.data["dice"]) == sorted(dice)
    # Seeded: the same seed pre-fills the same squares; the deal is the real game's.
    again = GameDriver(GAME, players=3, seed="prefill", options={"prefilledSquares": count})
    assert again.state == d.state
    real = GameDriver(GAME, players=3, seed="prefill")
    assert {p.seat: p.actions for p in real.state.players} == {
        p.seat: p.actions for p in d.state.players
    }


def test_prefilled_board_with_one_square_left_ends_at_the_first_die() -> None:
    d = arrange(
        GameDriver(
            GAME, players=2, seed=FixedRng(ints=[1] * 24 + [6, 1]), options={"prefilledSquares": 24}
        ),
        actions={0: ["G"]},
        objectives={0: [], 1: []},
    )
    (empty,) = [(r, c) for r in range(5) for c in range(5) if d.state.board[r][c] is None]
    # A scripted generator keeps the order: 10 red, 10 yellow and 4 blue dice, row by row.
    assert empty == (4, 4) and d.state.supply == (0, 0, 6, 10) and d.to_act() == (0,)
    d.move(0, {"playColor": {"card": "G", "color": "G"}})
    events = d.move(0, {"place": {"square": sq(*empty)}})
    assert "board.filled" in types(events) and d.state.phase in (FINAL, OVER)


def test_action_deck_is_the_published_sixty() -> None:
    assert sum(ACTION_COUNTS.values()) == 60
    assert [ACTION_COUNTS[c] for c in "RYBG"] == [10] * 4


# --- every action's legality ------------------------------------------------------------

BOARD = "R1 Y6 . . . / B3 . . . . / . . . . . / . . . . . / . . . . G2"  # 21 empty squares
FULL = " / ".join(["R1 Y2 B3 G4 R5"] * 5)
HAND = ["R", "REROLL", "REMOVE", "SWAP", "PLUS_MINUS", "PAINT"]


def play(kind: str, **arg):
    return {kind: arg}


LEGALITY = [
    pytest.param({}, (), play("playColor", card="R", color="R"), None, id="colour-card"),
    pytest.param(
        {}, (), play("playColor", card="R", color="B"), "wild only once", id="colour-not-wild-yet"
    ),
    pytest.param(
        {}, (), play("playColor", card="Y", color="Y"), "hold no yellow", id="colour-not-held"
    ),
    pytest.param(
        {"supply": {"R": 0}},
        (),
        play("playColor", card="R", color="R"),
        "no red die",
        id="colour-run-out",
    ),
    pytest.param(
        {"supply": {"R": 0}}, (), play("playColor", card="R", color="B"), None, id="colour-wild"
    ),
    pytest.param(
        {"supply": {"R": 0, "B": 0}},
        (),
        play("playColor", card="R", color="B"),
        "no blue die",
        id="wild-needs-supply",
    ),
    pytest.param(
        {"grid": FULL},
        (),
        play("playColor", card="R", color="R"),
        "board is full",
        id="colour-full-board",
    ),
    pytest.param({}, (), play("reroll", square=sq(0, 0)), None, id="reroll"),
    pytest.param({}, (), play("reroll", square=sq(2, 2)), "holds no die", id="reroll-empty"),
    pytest.param(
        {}, (), play("remove", square=sq(0, 0), color="Y"), None, id="remove-other-colour"
    ),
    pytest.param({}, (), play("remove", square=sq(0, 0), color="R"), None, id="remove-same-colour"),
    pytest.param(
        {"supply": {"R": 0}},
        (),
        play("remove", square=sq(0, 0), color="R"),
        None,
        id="remove-same-colour-returns-first",
    ),
    pytest.param(
        {"supply": {"Y": 0}},
        (),
        play("remove", square=sq(0, 0), color="Y"),
        "no yellow die",
        id="remove-colour-run-out",
    ),
    pytest.param(
        {"supply": {"R": 0}},
        ("removed-dice-leave",),
        play("remove", square=sq(0, 0), color="R"),
        "no red die",
        id="remove-leaving-die-not-back",
    ),
    pytest.param(
        {"supply": {"R": 0, "Y": 0, "B": 10, "G": 11}},
        ("removed-dice-leave",),
        play("remove", square=sq(0, 0), color="B"),
        "too few dice",
        id="remove-keeps-board-fillable",
    ),
    pytest.param(
        {"supply": {"R": 0, "Y": 0, "B": 10, "G": 12}},
        ("removed-dice-leave",),
        play("remove", square=sq(0, 0), color="B"),
        None,
        id="remove-supply-enough",
    ),
    pytest.param(
        {"supply": {"R": 0, "Y": 0, "B": 10, "G": 10}},
        (),
        play("remove", square=sq(0, 0), color="B"),
        None,
        id="remove-needs-no-margin-by-default",
    ),
    pytest.param(
        {}, (), play("remove", square=sq(3, 3), color="R"), "holds no die", id="remove-empty"
    ),
    pytest.param({}, (), play("swap", first=sq(0, 0), second=sq(0, 1)), None, id="swap"),
    pytest.param({}, (), play("swap", first=sq(1, 0), second=sq(0, 0)), None, id="swap-vertical"),
    pytest.param(
        {},
        (),
        play("swap", first=sq(0, 0), second=sq(1, 1)),
        "not side by side",
        id="swap-diagonal",
    ),
    pytest.param(
        {}, (), play("swap", first=sq(0, 0), second=sq(0, 2)), "not side by side", id="swap-far"
    ),
    pytest.param(
        {}, (), play("swap", first=sq(0, 1), second=sq(0, 2)), "die on both", id="swap-with-empty"
    ),
    pytest.param(
        {},
        ("swap-into-empty",),
        play("swap", first=sq(0, 1), second=sq(0, 2)),
        None,
        id="swap-into-empty",
    ),
    pytest.param(
        {},
        ("swap-into-empty",),
        play("swap", first=sq(2, 2), second=sq(2, 3)),
        "both squares are empty",
        id="swap-two-empties",
    ),
    pytest.param({}, (), play("plusMinus", square=sq(0, 0), delta=1), None, id="plus-one"),
    pytest.param(
        {}, (), play("plusMinus", square=sq(0, 0), delta=-1), "1 cannot go down", id="minus-on-1"
    ),
    pytest.param(
        {}, (), play("plusMinus", square=sq(0, 1), delta=1), "6 cannot go up", id="plus-on-6"
    ),
    pytest.param(
        {},
        ("plus-minus-wrap",),
        play("plusMinus", square=sq(0, 1), delta=1),
        None,
        id="plus-on-6-wraps",
    ),
    pytest.param(
        {},
        ("plus-minus-wrap",),
        play("plusMinus", square=sq(0, 0), delta=-1),
        None,
        id="minus-on-1-wraps",
    ),
    pytest.param(
        {}, (), play("plusMinus", square=sq(2, 2), delta=1), "holds no die", id="plus-empty"
    ),
    pytest.param({}, (), play("paint", square=sq(0, 0), color="G"), None, id="paint"),
    pytest.param(
        {},
        (),
        play("paint", square=sq(0, 0), color="R"),
        "different colour",
        id="paint-same-colour",
    ),
    pytest.param(
        {"supply": {"G": 0}},
        (),
        play("paint", square=sq(0, 0), color="G"),
        "no green die",
        id="paint-colour-run-out",
    ),
    pytest.param(
        {"supply": {"R": 0, "Y": 0, "B": 10, "G": 11}},
        ("removed-dice-leave",),
        play("paint", square=sq(0, 0), color="B"),
        "too few dice",
        id="paint-keeps-board-fillable",
    ),
]


@pytest.mark.parametrize("setup, rules, move, refused", LEGALITY)
def test_action_legality(setup, rules, move, refused) -> None:
    d = arrange(driver(rules=rules), grid=setup.get("grid", BOARD), actions={0: HAND})
    if "supply" in setup:
        arrange(d, supply=setup["supply"])
    listed = move in d.legal(0)
    out = d.try_move(0, move)
    if refused is None:
        assert listed and isinstance(out, Outcome), out
    else:
        assert not listed
        assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
        assert refused in out.reason


def test_an_action_only_once_per_turn() -> None:
    d = arrange(driver(), grid=BOARD, actions={0: HAND})
    d.move(0, play("reroll", square=sq(0, 0)))
    out = d.try_move(0, play("reroll", square=sq(0, 1)))
    assert isinstance(out, Rejected) and "already played" in out.reason
    assert {next(iter(m)) for m in d.legal(0)} == {"drawAction"}


@pytest.mark.parametrize(
    "rules, move, square, die",
    [
        pytest.param((), play("reroll", square=sq(0, 0)), (0, 0), "R4", id="reroll-rolls"),
        pytest.param((), play("plusMinus", square=sq(0, 0), delta=1), (0, 0), "R2", id="plus"),
        pytest.param(
            ("plus-minus-wrap",),
            play("plusMinus", square=sq(0, 1), delta=1),
            (0, 1),
            "Y1",
            id="wrap-up",
        ),
        pytest.param(
            ("plus-minus-wrap",),
            play("plusMinus", square=sq(0, 0), delta=-1),
            (0, 0),
            "R6",
            id="wrap-down",
        ),
        pytest.param(
            (), play("paint", square=sq(0, 1), color="B"), (0, 1), "B6", id="paint-keeps-value"
        ),
        pytest.param(
            (), play("remove", square=sq(0, 1), color="G"), (0, 1), "G4", id="remove-rolls-new"
        ),
        pytest.param((), play("swap", first=sq(0, 0), second=sq(1, 0)), (1, 0), "R1", id="swap"),
        pytest.param(
            ("swap-into-empty",),
            play("swap", first=sq(1, 0), second=sq(1, 1)),
            (1, 1),
            "B3",
            id="swap-moves-die",
        ),
    ],
)
def test_action_effects(rules, move, square, die: str) -> None:
    d = arrange(driver(rules=rules, ints=[4]), grid=BOARD, actions={0: HAND})
    d.move(0, move)
    assert d.state.board[square[0]][square[1]] == die
    check_conservation_dice(d)


def check_conservation_dice(d: GameDriver) -> None:
    on_board = Counter(c[0] for row in d.state.board for c in row if c)
    for i, color in enumerate("RYBG"):
        assert d.state.supply[i] + d.state.out[i] + on_board[color] == 10


@pytest.mark.parametrize(
    "rules, supply, out",
    [
        pytest.param((), (9, 10, 9, 8), (0, 0, 0, 0), id="die-returns-to-supply"),
        pytest.param(("removed-dice-leave",), (9, 9, 9, 8), (0, 1, 0, 0), id="die-leaves-game"),
    ],
)
def test_painted_over_die_goes_back_or_out(rules, supply, out) -> None:
    d = arrange(driver(rules=rules), grid=BOARD, actions={0: HAND})
    d.move(0, play("paint", square=sq(0, 1), color="G"))
    assert d.state.supply == supply and d.state.out == out


def test_swap_into_empty_leaves_the_square_empty() -> None:
    d = arrange(driver(rules=("swap-into-empty",)), grid=BOARD, actions={0: HAND})
    d.move(0, play("swap", first=sq(0, 1), second=sq(0, 2)))
    assert d.state.board[0][1] is None and d.state.board[0][2] == "Y6"


# --- a turn -----------------------------------------------------------------------------


def test_colour_card_rolls_then_places_then_scores_then_draws() -> None:
    d = arrange(
        driver(ints=[3]),
        grid=EMPTY_BOARD,
        actions={0: ["R", "R", "SWAP", "PAINT"]},
        objectives={0: ["odd-middle-red", "line-all-odd", "square-same-color"]},
    )
    events = d.move(0, play("playColor", card="R", color="R"))
    assert types(events) == ["action.played", "die.rolled"]
    assert d.state.phase == PLACE and d.state.pending == "R3"
    assert d.view(0)["pendingDie"] == "R3"
    places = d.legal(0)
    assert len(places) == 25 and all(next(iter(m)) == "place" for m in places)
    out = d.try_move(0, play("playObjective", objective="odd-middle-red"))
    assert isinstance(out, Rejected) and "place the rolled die" in out.reason
    d.move(0, play("place", square=sq(2, 2)))
    assert d.state.phase == ACTED and d.view(0)["hand"]["satisfied"] == ["odd-middle-red"]
    assert play("playObjective", objective="odd-middle-red") in d.legal(0)
    events = d.move(0, play("playObjective", objective="odd-middle-red"))
    assert events[0].data == {"objective": "odd-middle-red", "points": 2, "score": 2}
    deck_a = d.state.decks[0]
    events = d.move(0, play("drawAction", deck="A"))
    me = d.state.players[0]
    assert len(me.actions) == 4 and deck_a[0] in me.actions
    assert d.state.decks[0] == deck_a[1:]
    assert len(me.objectives) == 3 and me.score == 2
    assert types(events) == ["action.drawn", "objective.drawn", "turn.ended", "turn.started"]
    assert events[0].private == {0: {"card": deck_a[0]}} and "card" not in events[0].data
    assert d.to_act() == (1,) and d.state.turn == 2


def test_objectives_before_and_after_the_action() -> None:
    d = arrange(
        driver(ints=[5]),
        grid="R1 R2 . . . / R3 R4 . . . / . . R5 . . / . . . . . / . . . . .",
        actions={0: ["R", "SWAP"]},
        objectives={0: ["square-same-color", "odd-middle-red", "square-distinct-numbers"]},
    )
    d.move(0, play("playObjective", objective="square-same-color"))
    d.move(0, play("swap", first=sq(0, 0), second=sq(0, 1)))
    d.move(0, play("playObjective", objective="odd-middle-red"))
    d.move(0, play("playObjective", objective="square-distinct-numbers"))
    assert d.state.players[0].score == 2 + 2 + 1
    assert d.state.scored_this_turn


def test_a_scored_objective_stays_scored_when_the_board_changes() -> None:
    d = arrange(
        driver(ints=[4]),
        grid="R1 . . . . / . . . . . / . . R5 . . / . . . . . / . . . . .",
        actions={0: ["REROLL"], 1: ["REROLL"]},
        objectives={0: ["odd-middle-red"]},
    )
    d.move(0, play("playObjective", objective="odd-middle-red"))
    d.move(0, play("reroll", square=sq(2, 2)))
    assert d.state.board[2][2] == "R4" and d.state.players[0].score == 2


def test_unsatisfied_or_unheld_objective_is_refused() -> None:
    d = arrange(driver(), grid=BOARD, actions={0: HAND}, objectives={0: ["odd-middle-red"]})
    out = d.try_move(0, play("playObjective", objective="odd-middle-red"))
    assert isinstance(out, Rejected) and "does not satisfy" in out.reason
    out = d.try_move(0, play("playObjective", objective="line-all-odd"))
    assert isinstance(out, Rejected) and "hold no" in out.reason
    out = d.try_move(0, play("playObjective", objective="special-large-straight"))
    assert isinstance(out, Rejected) and "claimSpecial" in out.reason


def test_special_goes_to_the_first_claimant() -> None:
    grid = "R1 Y3 B5 G2 R4 / . . . . . / . . . . . / . . . . . / . . . . ."
    d = arrange(driver(), grid=grid, actions={0: HAND, 1: HAND})
    claim = play("claimSpecial", objective="special-large-straight")
    assert claim in d.legal(0)
    d.move(0, claim)
    assert d.view(None)["specials"][0]["claimedBy"] == [0]
    out = d.try_move(0, claim)
    assert isinstance(out, Rejected) and "already scored" in out.reason
    d.move(0, play("plusMinus", square=sq(0, 0), delta=1))
    d.move(0, play("drawAction", deck="B"))
    d.state = replace(d.state, board=(("R1", "Y3", "B5", "G2", "R4"), *d.state.board[1:]))
    out = d.try_move(1, claim)
    assert isinstance(out, Rejected) and "already claimed" in out.reason
    assert claim not in d.legal(1)
    out = d.try_move(1, play("claimSpecial", objective="line-all-odd"))
    assert isinstance(out, Rejected) and "not a special" in out.reason


def test_shared_specials_let_everyone_score_once() -> None:
    grid = "R1 Y3 B5 G2 R4 / . . . . . / . . . . . / . . . . . / . . . . ."
    d = arrange(driver(rules=("shared-specials",)), grid=grid, actions={0: HAND, 1: HAND})
    claim = play("claimSpecial", objective="special-large-straight")
    d.move(0, claim)
    d.move(0, play("swap", first=sq(0, 0), second=sq(0, 1)))
    d.move(0, play("drawAction", deck="A"))
    d.move(1, claim)
    assert d.view(None)["specials"][0]["claimedBy"] == [0, 1]
    assert d.try_move(1, claim).reason.startswith("you have already scored")


# --- forfeits ---------------------------------------------------------------------------


def test_forfeit_actions_discards_the_whole_hand_and_draws_four() -> None:
    d = arrange(driver(), grid=EMPTY_BOARD, actions={0: ["SWAP", "SWAP", "PAINT", "REROLL"]})
    forfeits = [m for m in d.legal(0) if "forfeitActions" in m]
    assert forfeits == [{"forfeitActions": {"cards": ["REROLL", "SWAP", "SWAP", "PAINT"]}}]
    out = d.try_move(0, {"forfeitActions": {"cards": ["SWAP"]}})
    assert isinstance(out, Rejected) and "whole action hand" in out.reason
    out = d.try_move(0, {"forfeitActions": {"cards": ["R", "SWAP", "PAINT", "REROLL"]}})
    assert isinstance(out, Rejected) and "do not hold" in out.reason
    d.move(0, {"forfeitActions": {"cards": ["PAINT", "SWAP", "REROLL", "SWAP"]}})
    assert d.state.phase == REFILL and d.state.draws_left == 4
    assert d.legal(0) == [{"drawAction": {"deck": "A"}}, {"drawAction": {"deck": "B"}}]
    a, b = d.state.decks
    for deck in ("A", "B", "A"):
        d.move(0, {"drawAction": {"deck": deck}})
    assert d.to_act() == (0,)
    events = d.move(0, {"drawAction": {"deck": "B"}})
    assert sorted(d.state.players[0].actions) == sorted([a[0], b[0], a[1], b[1]])
    assert "turn.started" in types(events) and d.to_act() == (1,)
    assert sorted(d.state.action_discard) == ["PAINT", "REROLL", "SWAP", "SWAP"]


def test_partial_action_discard() -> None:
    d = arrange(
        driver(rules=("partial-action-discard",)),
        grid=EMPTY_BOARD,
        actions={0: ["SWAP", "SWAP", "PAINT", "R"]},
    )
    forfeits = [m["forfeitActions"]["cards"] for m in d.legal(0) if "forfeitActions" in m]
    assert ["SWAP"] in forfeits and ["R", "SWAP", "SWAP", "PAINT"] in forfeits
    assert len(forfeits) == len({tuple(f) for f in forfeits}) == 11  # multiset parts, once each
    d.move(0, {"forfeitActions": {"cards": ["SWAP"]}})
    assert d.state.draws_left == 1
    d.move(0, {"drawAction": {"deck": "A"}})
    assert d.to_act() == (1,) and len(d.state.players[0].actions) == 4


def test_forfeit_objectives_refills_and_ends_the_turn() -> None:
    d = arrange(
        driver(),
        grid=EMPTY_BOARD,
        objectives={0: ["line-all-odd", "line-all-even", "odd-middle-red"]},
    )
    out = d.try_move(0, {"forfeitObjectives": {"objectives": []}})
    assert isinstance(out, Rejected) and "at least one" in out.reason
    out = d.try_move(0, {"forfeitObjectives": {"objectives": ["six-middle-red"]}})
    assert isinstance(out, Rejected) and "do not hold" in out.reason
    top = d.state.objective_deck[:2]
    events = d.move(0, {"forfeitObjectives": {"objectives": ["line-all-odd", "line-all-even"]}})
    assert sorted(d.state.players[0].objectives) == sorted(["odd-middle-red", *top])
    assert d.state.objective_discard == ("line-all-odd", "line-all-even")
    forfeited = events[0]
    assert forfeited.data == {"count": 2} and forfeited.private[0]["objectives"] == [
        "line-all-odd",
        "line-all-even",
    ]
    assert d.to_act() == (1,)


def test_no_forfeit_after_scoring() -> None:
    d = arrange(
        driver(),
        grid="R1 . . . . / . . . . . / . . R5 . . / . . . . . / . . . . .",
        actions={0: HAND},
        objectives={0: ["odd-middle-red"]},
    )
    d.move(0, play("playObjective", objective="odd-middle-red"))
    assert not [m for m in d.legal(0) if "forfeitActions" in m or "forfeitObjectives" in m]
    out = d.try_move(0, {"forfeitActions": {"cards": sorted(d.state.players[0].actions)}})
    assert isinstance(out, Rejected) and "cannot forfeit" in out.reason


def test_without_a_playable_action_only_forfeits_remain() -> None:
    # Only special cards and an empty board: no action can be played (the FAQ case).
    d = arrange(driver(), grid=EMPTY_BOARD, actions={0: ["SWAP", "PAINT", "REROLL", "REMOVE"]})
    assert {next(iter(m)) for m in d.legal(0)} == {"forfeitActions", "forfeitObjectives"}
    # A satisfied objective cannot be played either: the turn must be forfeited.
    d = arrange(
        driver(),
        grid=". . . . . / . . . . . / . . R5 . . / . . . . . / . . . . .",
        actions={0: ["SWAP", "SWAP", "SWAP", "SWAP"]},
        objectives={0: ["odd-middle-red"]},
    )
    out = d.try_move(0, play("playObjective", objective="odd-middle-red"))
    assert isinstance(out, Rejected) and "must forfeit" in out.reason


# --- decks ------------------------------------------------------------------------------


def test_empty_deck_gives_the_other_and_both_empty_reshuffle_the_discard() -> None:
    d = arrange(driver(), grid=BOARD, actions={0: HAND})
    arrange(d, decks=((), ("PAINT",)), action_discard=("R", "Y", "B"))
    d.move(0, play("reroll", square=sq(0, 0)))
    events = d.move(0, play("drawAction", deck="A"))
    assert events[0].data["deck"] == "B" and "PAINT" in d.state.players[0].actions
    assert d.state.decks == ((), ())
    d.move(1, {"forfeitActions": {"cards": list(d.state.players[1].actions)}})
    events = d.move(1, play("drawAction", deck="B"))
    assert types(events)[:2] == ["actions.reshuffled", "action.drawn"]


def test_objective_deck_reshuffles_the_discards_then_runs_dry() -> None:
    d = arrange(
        driver(),
        grid=EMPTY_BOARD,
        objectives={0: ["line-all-odd", "line-all-even", "odd-middle-red"]},
        objective_deck=("six-middle-red",),
        objective_discard=(),
    )
    events = d.move(0, {"forfeitObjectives": {"objectives": ["line-all-odd", "line-all-even"]}})
    assert "objectives.reshuffled" in types(events)
    assert len(d.state.players[0].objectives) == 3
    arrange(d, objective_deck=(), objective_discard=())
    d.move(1, {"forfeitObjectives": {"objectives": list(d.state.players[1].objectives[:2])}})
    assert len(d.state.players[1].objectives) == 3  # its own discards came back
    arrange(d, objective_deck=(), objective_discard=())
    d.state = d.state.with_player(0, objectives=("line-all-odd",))
    d.move(0, {"forfeitObjectives": {"objectives": ["line-all-odd"]}})
    assert d.state.players[0].objectives == ("line-all-odd",)


# --- the end and the tie-breaks ---------------------------------------------------------

ALMOST_FULL = "R1 Y3 B5 G2 R4 / Y2 B4 G6 R1 Y3 / B5 G1 R3 Y6 B2 / G4 R6 Y1 B3 G5 / R2 Y5 B1 G3 ."


def test_last_square_ends_the_game_with_last_plays_in_order() -> None:
    d = arrange(
        driver(players=3, ints=[6]),
        grid=ALMOST_FULL,
        actions={0: ["G"]},
        objectives={0: ["line-all-odd"], 1: ["square-distinct-numbers"], 2: ["line-all-even"]},
    )
    d.move(0, play("playColor", card="G", color="G"))
    events = d.move(0, play("place", square=sq(4, 4)))
    assert types(events)[:3] == ["die.placed", "board.filled", "final.started"]
    assert d.state.phase == FINAL and d.to_act() == (0,)
    # Seat 0 may claim the large straight of row 0 and has nothing else.
    assert d.legal(0) == [{"claimSpecial": {"objective": "special-large-straight"}}, {"done": True}]
    events = d.move(0, play("claimSpecial", objective="special-large-straight"))
    assert types(events) == ["special.claimed", "player.finished"]
    assert d.to_act() == (1,)
    events = d.move(1, play("playObjective", objective="square-distinct-numbers"))
    # Seat 1 is done, seat 2 has nothing: the game ends at once.
    assert types(events)[-3:] == ["player.finished", "player.finished", "game.scored"]
    assert d.state.phase == OVER and d.to_act() == ()
    r = d.result()
    assert r.winners == (0,) and r.scores == {0: 5, 1: 1, 2: 0}


def test_current_is_the_player_making_the_last_plays() -> None:
    d = arrange(
        driver(players=3, ints=[6]),
        grid=ALMOST_FULL,
        actions={0: ["G"]},
        objectives={0: ["line-all-odd"], 1: ["square-distinct-numbers"], 2: ["line-all-even"]},
    )
    d.move(0, play("playColor", card="G", color="G"))
    d.move(0, play("place", square=sq(4, 4)))
    assert d.state.phase == FINAL
    assert [d.view(s)["current"] for s in (None, 0, 1, 2)] == [0] * 4
    d.move(0, {"done": True})
    assert d.to_act() == (1,) and d.view(None)["finalQueue"] == [1, 2]
    assert [d.view(s)["current"] for s in (None, 0, 1, 2)] == [1] * 4


def test_done_ends_the_last_plays_early() -> None:
    d = arrange(
        driver(ints=[6]),
        grid=ALMOST_FULL,
        actions={0: ["G"]},
        objectives={0: ["line-all-odd"], 1: ["square-distinct-numbers"]},
    )
    d.state = d.state.with_player(1, scored=(("line-all-odd", 3),))
    d.move(0, play("playColor", card="G", color="G"))
    d.move(0, play("place", square=sq(4, 4)))
    d.move(0, {"done": True})  # leaves the large straight unclaimed
    assert d.to_act() == (1,)
    events = d.move(1, {"done": True})
    assert types(events) == ["player.finished", "game.scored"]
    assert d.result().winners == (1,) and d.result().scores == {0: 0, 1: 3}


def seat_scores(*scored: list[int]) -> tuple[Player, ...]:
    return tuple(
        Player(
            seat=i, actions=(), objectives=(), scored=tuple((f"x{j}", p) for j, p in enumerate(pts))
        )
        for i, pts in enumerate(scored)
    )


@pytest.mark.parametrize(
    "scored, dice, winners, rounds",
    [
        pytest.param([[5], [3]], [], (0,), 0, id="most-points"),
        pytest.param([[2, 2], [4]], [], (0,), 0, id="tie-most-objectives"),
        pytest.param([[3, 1], [2, 2]], [], (0,), 0, id="tie-higher-objective"),
        pytest.param(
            [[3, 2, 1], [3, 3, 0], [2, 2, 2]], [], (1,), 0, id="tie-higher-objective-second-card"
        ),
        pytest.param([[2, 2], [2, 2]], [1, 1, 1, 1, 1, 6, 6, 6, 6, 6], (1,), 1, id="tie-roll-off"),
        pytest.param(
            [[2, 2], [2, 2], [1]],
            [3, 3, 3, 3, 3, 5, 2, 2, 2, 4, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            (0,),
            2,
            id="roll-off-again-on-a-tie",
        ),
        pytest.param([[], []], [2, 2, 2, 2, 2, 1, 1, 1, 1, 1], (0,), 1, id="nobody-scored"),
        pytest.param([[4]], [], (0,), 0, id="solo"),
    ],
)
def test_winner_and_tie_breaks(scored, dice, winners, rounds) -> None:
    d = driver()
    state = replace(d.state, players=seat_scores(*scored))
    state, events = flow.finish(state, FixedRng(ints=dice))
    assert state.winners == winners and len(state.rolloffs) == rounds
    assert types(events) == ["rolloff.rolled"] * rounds + ["game.scored"]


PLAIN = "R1 R1 Y2 Y2 B3 / B3 G4 G4 R5 R6 / Y6 Y6 B1 B1 G2 / G2 R3 R3 Y4 Y4 / B5 B5 G6 G6 ."


def test_roll_off_through_the_last_move() -> None:
    # The last die is a G1; both seats have 3 points from one objective each: a roll-off.
    d = arrange(
        driver(ints=[1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]),
        grid=PLAIN,
        actions={0: ["G"]},
        objectives={0: [], 1: []},
        objective_deck=(),
    )
    d.state = d.state.with_player(0, scored=(("line-all-odd", 3),))
    d.state = d.state.with_player(1, scored=(("line-all-even", 3),))
    d.move(0, play("playColor", card="G", color="G"))
    events = d.move(0, play("place", square=sq(4, 4)))
    assert not any(o.startswith("special") for o in d.view(None)["boardSatisfies"])
    assert types(events)[-2:] == ["rolloff.rolled", "game.scored"]
    assert d.result().winners == (1,)
    rolls = d.view(None)["rolloffs"][0]["rolls"]
    assert [(r["seat"], r["total"]) for r in rolls] == [(0, 5), (1, 10)]


def test_equal_turns_finish_the_round() -> None:
    d = arrange(
        driver(players=3, rules=("equal-turns",), ints=[6]),
        grid=ALMOST_FULL,
        actions={0: ["G", "R"], 1: ["R", "Y", "B", "G"], 2: ["REROLL", "R", "R", "R"]},
        objectives={0: [], 1: [], 2: []},
        objective_deck=(),
    )
    d.move(0, play("playColor", card="G", color="G"))
    events = d.move(0, play("place", square=sq(4, 4)))
    assert "board.filled" in types(events) and d.state.phase == ACTED
    d.move(0, play("drawAction", deck="A"))
    # Seat 1 holds only colour cards: with the board full it must forfeit.
    assert {next(iter(m)) for m in d.legal(1)} == {"forfeitActions"}
    d.move(1, {"forfeitActions": {"cards": ["R", "Y", "B", "G"]}})
    for _ in range(4):
        d.move(1, play("drawAction", deck="A"))
    assert d.to_act() == (2,)
    d.move(2, play("reroll", square=sq(0, 0)))
    d.move(2, play("drawAction", deck="A"))
    assert d.state.phase == FINAL and d.to_act() == (0,)
    assert d.view(None)["finalQueue"] == [0, 1, 2]
    assert d.state.turn == 3


def test_open_objectives_show_every_hand_of_objectives() -> None:
    d = driver(rules=("open-objectives",))
    view = d.view(None)
    assert view["objectivesOpen"] is True and view["hand"] is None
    assert [p["objectives"] for p in view["players"]] == [
        list(p.objectives) for p in d.state.players
    ]
    dealt = [e for e in d.events if e.type == "hand.dealt"]
    assert all("objectives" in e.data for e in dealt)
    hidden = driver()
    assert all(p["objectives"] is None for p in hidden.view(0)["players"])


def test_diagonal_lines_count_at_the_table() -> None:
    grid = "R1 . . . . / . Y3 . . . / . . B5 . . / . . . G2 . / . . . . R4"
    assert (
        "special-large-straight"
        in arrange(driver(rules=("diagonal-lines",)), grid=grid).view(None)["boardSatisfies"]
    )
    assert "special-large-straight" not in arrange(driver(), grid=grid).view(None)["boardSatisfies"]


# --- move shapes and turns --------------------------------------------------------------


@pytest.mark.parametrize(
    "move, reason",
    [
        pytest.param({}, "exactly one key", id="no-kind"),
        pytest.param(
            {"reroll": {"square": sq(0, 0)}, "done": True}, "exactly one key", id="two-kinds"
        ),
        pytest.param({"jump": {}}, "unknown kind", id="unknown-kind"),
        pytest.param({"done": False}, "true", id="done-false"),
        pytest.param({"reroll": {}}, "takes exactly square", id="missing-field"),
        pytest.param({"reroll": {"square": sq(0, 0), "x": 1}}, "takes exactly", id="extra-field"),
        pytest.param({"reroll": {"square": sq(5, 0)}}, "0 to 4", id="off-board"),
        pytest.param({"reroll": {"square": {"row": True, "col": 0}}}, "0 to 4", id="bool-row"),
        pytest.param({"reroll": {"square": [0, 0]}}, "{row, col}", id="square-as-list"),
        pytest.param({"playColor": {"card": "X", "color": "R"}}, "colour", id="bad-colour"),
        pytest.param(
            {"playColor": {"card": "REROLL", "color": "R"}}, "colour", id="special-as-colour-card"
        ),
        pytest.param({"plusMinus": {"square": sq(0, 0), "delta": 2}}, "1 or -1", id="bad-delta"),
        pytest.param({"playObjective": {"objective": "nope"}}, "objective id", id="bad-objective"),
        pytest.param({"drawAction": {"deck": "C"}}, "deck", id="bad-deck"),
        pytest.param({"forfeitActions": {"cards": "R"}}, "list", id="cards-not-a-list"),
        pytest.param({"forfeitActions": {"cards": ["JOKER"]}}, "action card", id="bad-card"),
        pytest.param(
            {"forfeitObjectives": {"objectives": [1]}}, "objective id", id="bad-objectives"
        ),
        pytest.param(["reroll"], "exactly one key", id="not-an-object"),
    ],
)
def test_bad_shapes(move, reason: str) -> None:
    found = GAME.check_move(move)
    assert found is not None and reason in found
    d = driver()
    out = d.try_move(0, move)
    assert isinstance(out, Rejected) and out.code == "BAD_INPUT"


def test_not_your_turn() -> None:
    d = arrange(driver(), grid=BOARD, actions={0: HAND, 1: HAND})
    assert d.legal(1) == []
    out = GAME.apply(d.state, 1, play("reroll", square=sq(0, 0)), FixedRng(), d.rules)
    assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
    with pytest.raises(MoveRefused):
        d.move(1, play("reroll", square=sq(0, 0)))


def test_house_rule_definitions() -> None:
    from .helpers import registry

    reg = registry()
    rules = reg.rules_of("five-by-five")
    assert [r.id for r in rules] == sorted(
        f"five-by-five/{r}"
        for r in (
            "diagonal-lines",
            "equal-turns",
            "open-objectives",
            "partial-action-discard",
            "plus-minus-wrap",
            "removed-dice-leave",
            "shared-specials",
            "swap-into-empty",
        )
    )
    assert all(r.description and r.name for r in rules)
    by_id = {r.id: r for r in rules}
    assert by_id["five-by-five/equal-turns"].min_players == 2
    assert all(reg.conflicts(r.id) == () for r in rules)


def test_rule_off_refuses_what_it_adds() -> None:
    d = arrange(driver(rules=()), grid=BOARD, actions={0: HAND})
    out = d.try_move(0, play("swap", first=sq(0, 1), second=sq(0, 2)))
    assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
    d = arrange(driver(rules=("swap-into-empty",)), grid=BOARD, actions={0: HAND})
    assert isinstance(d.try_move(0, play("swap", first=sq(0, 1), second=sq(0, 2))), Outcome)
    assert ruleset().enabled == frozenset()


def test_check_options_counts_the_objective_deck_against_every_seats_hand() -> None:
    counts = dict.fromkeys(REGULAR_IDS, 0) | {"line-all-odd": 3, "line-all-even": 3}
    opts = {"objectiveCounts": counts, "objectiveHandSize": 3}
    assert GAME.check_options(opts, 2) is None  # 6 cards, 6 needed
    reason = GAME.check_options(opts, 3)
    assert reason is not None and "6 cards" in reason and "9 needed" in reason
    assert "objectiveCounts" in reason and "objectiveHandSize" in reason
    default = {"objectiveCounts": dict.fromkeys(REGULAR_IDS, 1), "objectiveHandSize": 5}
    assert GAME.check_options(default, GAME.max_players) is None  # 26 cards, 25 needed
