"""All Fives' own hooks (``plugins/all_fives/hookspecs.py``): each has a docstring, a
section in ``docs/hooks/all-fives.md`` that repeats its signature, and a
``test_hook_<name>`` here that shows it changes play when a house rule implementing it is
on at the table, and does nothing when it is off."""

from __future__ import annotations

import inspect
from dataclasses import replace
from pathlib import Path

import pytest

from tablestate.testing import GameDriver
from tablestate_all_fives import hookspecs
from tablestate_all_fives.game import GAME
from tablestate_all_fives.state import BUNCH as BUNCH_PHASE
from tablestate_all_fives.state import DISCARD, GAME_OVER, PLAY

from .support import (
    BUNCH,
    DISCARD_SIX,
    GIFT_ALL,
    HLJG,
    JACK_BONUS,
    MAY_TRUMP,
    NO_GIFT_WIN,
    PARTNERS,
    PEG_OUT,
    driver,
    play_all,
    ruleset,
    types,
)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "hooks" / "all-fives.md"
HOOKS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and name.startswith("all_fives_")
)

HEARTS = ["AH", "KH", "QH", "JH", "10H", "9H"]
CLUBS = ["AC", "KC", "QC", "JC", "10C", "9C"]
DIAMONDS = ["AD", "KD", "QD", "JD", "10D", "9D"]
SPADE_HONOURS = ["AS", "KS", "QS", "JS", "10S", "5S"]
LOW_HEARTS = ["2H", "3H", "4H", "6H", "7H", "8H"]
RUN_TO_DIAMONDS = ([["2D", "3D", "4D"], ["5D", "6D", "7D"]], "8D")
STAND, BEG, GIVE, RUN = {"stand": True}, {"beg": True}, {"giveOne": True}, {"run": True}
ON_OFF = pytest.mark.parametrize("on", [True, False], ids=["rule-on", "rule-off"])


def play(card: str) -> dict[str, dict[str, str]]:
    return {"play": {"card": card}}


def _signature(name: str) -> str:
    """The hook's signature as written in the source (annotations are postponed)."""
    fn = getattr(hookspecs, name)
    params = ", ".join(
        f"{p.name}: {p.annotation}" for p in inspect.signature(fn).parameters.values()
    )
    return f"{name}({params}) -> {fn.__annotations__['return']}"


# -- the contract --------------------------------------------------------------------------


def test_the_hooks_are_the_ones_documented_here() -> None:
    assert HOOKS == [
        "all_fives_bunch_offered",
        "all_fives_deal_awards",
        "all_fives_gift_sides",
        "all_fives_hand_limit",
        "all_fives_may_give",
        "all_fives_may_trump",
        "all_fives_peg_out",
        "all_fives_sides",
        "all_fives_turn_up_awards",
    ]
    assert GAME.hookspecs is hookspecs


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_docstring_a_doc_section_and_a_test(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name))
    assert doc and "Returns:" in doc and len(doc) > 80
    assert f"### `{_signature(name)}`\n" in DOCS.read_text(encoding="utf-8")
    assert callable(globals().get(f"test_hook_{name}"))


def test_the_doc_has_no_section_for_a_hook_that_is_gone() -> None:
    headings = [x for x in DOCS.read_text(encoding="utf-8").splitlines() if x.startswith("### `")]
    assert sorted(headings) == sorted(f"### `{_signature(name)}`" for name in HOOKS)


# -- one test per hook: play changes with the rule on, and only then -----------------------


@ON_OFF
def test_hook_all_fives_sides(on: bool) -> None:
    hook = ruleset(*([PARTNERS] if on else [])).hook.all_fives_sides
    assert hook(players=4) == ((0, 1, 0, 1) if on else None)
    hands = [HEARTS, CLUBS, DIAMONDS, ["8H", "8C", "8D", "7H", "7C", "7D"]]
    if not on:
        assert GAME.check_setup((0, 1, 2, 3), {}, ruleset()) is not None
        with pytest.raises(ValueError, match="partnerships"):
            driver(hands, "9S", players=4)
        return
    d = driver(hands, "9S", rules=[PARTNERS])
    d.move(0, BEG)
    d.move(3, GIVE)  # the gift to eldest's side: eldest and partner share the point
    assert d.state.sides == (0, 1, 0, 1)
    assert [p["score"] for p in d.view(None)["players"]] == [1, 0, 1, 0]


@ON_OFF
def test_hook_all_fives_may_trump(on: bool) -> None:
    d = driver(
        [["AH", "9C", "8C", "7C", "6C", "2D"], ["KH", "QH", "3S", "4S", "2C", "3D"]],
        "9S",
        rules=[MAY_TRUMP] if on else [],
    )
    d.move(0, STAND)
    d.move(0, play("AH"))
    assert any(d.rules.hook.all_fives_may_trump(state=d.state, position=1)) is on
    listed = {m["play"]["card"] for m in d.legal(1)}
    assert listed == ({"KH", "QH", "3S", "4S"} if on else {"KH", "QH"})
    out = d.try_move(1, play("3S"))
    if on:
        assert d.events[-1].type == "trick.won" and d.events[-1].seat == 1  # trumped
    else:
        assert out.code == "ILLEGAL_MOVE"


@ON_OFF
def test_hook_all_fives_gift_sides(on: bool) -> None:
    d = driver([HEARTS, CLUBS, DIAMONDS], "9S", rules=[GIFT_ALL] if on else [])
    d.move(0, BEG)
    events = d.move(2, GIVE)
    scored = [e.data["seats"] for e in events if e.type == "points.scored"]
    assert scored == ([[0], [1]] if on else [[0]])
    assert d.state.scores == ((1, 1, 0) if on else (1, 0, 0))


@ON_OFF
def test_hook_all_fives_may_give(on: bool) -> None:
    d = driver([HEARTS, CLUBS], "9S", rules=[NO_GIFT_WIN] if on else [])
    d.state = replace(d.state, scores=(59, 0))
    d.move(0, BEG)
    assert (GIVE in d.legal(1)) is not on and RUN in d.legal(1)
    out = d.try_move(1, GIVE)
    if on:
        assert out.code == "ILLEGAL_MOVE" and d.state.scores == (59, 0)
    else:
        assert d.state.scores == (60, 0) and d.state.phase == PLAY


@ON_OFF
def test_hook_all_fives_turn_up_awards(on: bool) -> None:
    d = driver([HEARTS, CLUBS], "JS", rules=[JACK_BONUS] if on else [])
    events = d.move(0, STAND)
    if on:
        assert types(events) == ["eldest.stood", "trump.fixed", "points.scored"]
        assert events[-1].data == {"seats": [1], "points": 1, "reason": "turnUpJack", "total": 1}
    else:
        assert types(events) == ["eldest.stood", "trump.fixed"]
    assert d.state.scores == ((0, 1) if on else (0, 0))


@ON_OFF
def test_hook_all_fives_deal_awards(on: bool) -> None:
    d = driver([SPADE_HONOURS, LOW_HEARTS], "9S", rules=[HLJG] if on else [])
    d.move(0, STAND)
    for honour, heart in zip(SPADE_HONOURS, LOW_HEARTS, strict=True):
        play_all(d, honour, heart)
    reasons = [e.data["reason"] for e in d.events if e.type == "points.scored"]
    trick_points = ["trick"] * 6
    assert reasons == ([*trick_points, "high", "low", "jack", "game"] if on else trick_points)
    assert d.state.scores == ((29, 0) if on else (25, 0))


@ON_OFF
def test_hook_all_fives_peg_out(on: bool) -> None:
    d = driver([SPADE_HONOURS, LOW_HEARTS], "9S", rules=[PEG_OUT] if on else [])
    d.state = replace(d.state, scores=(55, 0))
    d.move(0, STAND)
    play_all(d, "AS", "2H", "KS", "3H")  # 62: at the target mid-deal
    assert d.state.scores == (62, 0)
    if on:
        assert d.state.phase == GAME_OVER and d.result().winners == (0,)
    else:
        assert d.result() is None and d.to_act() == (0,)  # the deal goes on
        play_all(d, "QS", "4H", "JS", "6H", "10S", "7H", "5S", "8H")
        assert d.result().winners == (0,)


@ON_OFF
def test_hook_all_fives_hand_limit(on: bool) -> None:
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS, rules=[DISCARD_SIX] if on else [])
    assert d.rules.hook.all_fives_hand_limit(state=d.state) == (6 if on else None)
    d.move(0, BEG)
    d.move(1, RUN)
    assert d.state.phase == (DISCARD if on else PLAY)
    assert [len(h) for h in d.state.hands] == [9, 9]
    if on:
        assert d.legal(0) == [{"discard": {"card": c}} for c in d.state.hands[0]]
        for seat, cards in ((0, ("9H", "10H", "JH")), (1, ("9C", "10C", "JC"))):
            for card in cards:
                d.move(seat, {"discard": {"card": card}})
        assert d.state.phase == PLAY and [len(h) for h in d.state.hands] == [6, 6]


@ON_OFF
def test_hook_all_fives_bunch_offered(on: bool) -> None:
    d = driver([HEARTS, CLUBS], "9S", RUN_TO_DIAMONDS, rules=[BUNCH] if on else [])
    d.move(0, BEG)
    d.move(1, RUN)
    assert any(d.rules.hook.all_fives_bunch_offered(state=d.state)) is on
    assert d.state.phase == (BUNCH_PHASE if on else PLAY)
    if on:
        d.move(0, {"bunch": True})
        d.move(1, {"bunch": True})
        assert d.state.deal_no == 2 and d.state.dealer == 1  # the same dealer redeals
    else:
        assert d.try_move(0, {"bunch": True}).code == "ILLEGAL_MOVE"


def test_hooks_of_rules_enabled_at_another_table_are_not_called() -> None:
    on, off = ruleset(JACK_BONUS, PEG_OUT), ruleset(MAY_TRUMP)
    d = GameDriver(GAME, 2, rules=off, seed="hooks")
    assert on.hook.all_fives_peg_out(state=d.state) == [True]
    assert off.hook.all_fives_peg_out(state=d.state) == []
    assert off.hook.all_fives_turn_up_awards(state=d.state, turn_up="JS") == []
