"""What a seat may know of the other hands: the suits a player has shown void in are public,
and a bot's draws of the hidden cards (``determinize``) never deal that player one."""

from __future__ import annotations

import random

import pytest

from tablestate.engine import Rng
from tablestate_all_fives import rules as r
from tablestate_all_fives.game import GAME
from tablestate_all_fives.state import decode, encode
from tablestate_all_fives.views import _deal_around_voids, _dealt_by_matching, _dealt_in_order

from .support import MAY_TRUMP, driver, play_all

EARLY = ["AH", "9C", "8C", "7C", "6C", "2D"]
LATE = ["KH", "QH", "3S", "4S", "2C", "3D"]
STAND = {"stand": True}


def _hearts_led_to_a_void(rules: tuple[str, ...] = ()):
    """Hearts and diamonds played out, then the dealer leads a heart eldest cannot follow."""
    d = driver([EARLY, LATE], "9S", rules=rules)
    d.move(0, STAND)
    play_all(d, "AH", "KH", "2D", "3D", "QH")  # the dealer wins the diamond and leads
    return d


def test_playing_off_suit_shows_a_void_to_everyone():
    d = _hearts_led_to_a_void()
    assert d.state.voids == ("", "")
    play_all(d, "9C")
    assert d.state.voids == ("H", "")


def test_a_void_is_drawn_around_in_every_determinized_deal():
    d = _hearts_led_to_a_void()
    play_all(d, "9C")
    unseen_hearts = {c for c in r.DECK if r.suit(c) == "H"} - {"AH", "KH", "QH"}
    hearts_drawn = 0
    for i in range(200):
        drawn = GAME.determinize(d.state, 1, Rng(b"draw", i))
        assert not [c for c in drawn.hands[0] if r.suit(c) == "H"]
        hearts_drawn += len(unseen_hearts & set(drawn.stock))
        assert sorted(drawn.hands[1]) == sorted(d.state.hands[1])  # its own hand kept
        assert len(drawn.hands[0]) == len(d.state.hands[0])
    assert hearts_drawn == 200 * len(unseen_hearts)  # every unseen heart is in the stock


def test_with_may_trump_a_trump_to_a_plain_suit_shows_no_void():
    d = driver([EARLY, LATE], "9S", rules=[MAY_TRUMP])
    d.move(0, STAND)
    play_all(d, "AH", "3S")  # the dealer holds hearts and trumps
    assert d.state.voids == ("", "")
    play_all(d, "4S", "6C")  # trump led, eldest holds none: void in trumps
    assert d.state.voids == ("S", "")


def test_a_new_deal_forgets_the_voids():
    d = _hearts_led_to_a_void()
    play_all(d, "9C", "2C", "8C", "7C", "3S", "4S", "6C")
    assert d.state.deal_no == 2
    assert d.state.voids == ("", "")


def test_a_snapshot_from_before_voids_reads_as_none_shown():
    d = _hearts_led_to_a_void()
    data = encode(d.state)
    del data["voids"]
    assert decode(data).voids == ("", "")


@pytest.mark.parametrize(
    "pool, wants",
    [
        pytest.param(["2C", "3C", "4S", "5H"], [(2, "H"), (2, "S")], id="greedy-would-fail"),
        pytest.param(["2H", "3H", "4S", "5D", "6D"], [(1, "DS"), (2, "H")], id="stock-left"),
        pytest.param(["2C", "3D", "4S", "5H"], [(4, "")], id="no-voids"),
    ],
)
def test_each_hand_is_dealt_around_its_voids(pool, wants):
    dealt = _deal_around_voids(pool, wants)
    assert [len(h) for h in dealt] == [size for size, _ in wants]
    picked = [i for h in dealt for i in h]
    assert len(set(picked)) == len(picked)
    for hand, (_, voids) in zip(dealt, wants, strict=True):
        assert not [i for i in hand if r.suit(pool[i]) in voids]


def test_no_dealing_at_all_is_an_error():
    with pytest.raises(ValueError, match="voids"):
        _deal_around_voids(["2H", "3H"], [(1, "H")])


def test_the_one_pass_dealing_is_the_matching_s_wherever_it_deals_at_all():
    pick, passes, falls_back = random.Random(5), 0, 0
    for _ in range(500):
        pool = pick.sample(r.DECK, pick.randint(4, 20))
        wants = [(pick.randint(0, 4), "".join(pick.sample("SHCD", pick.randint(0, 3))))
                 for _ in range(pick.randint(1, 3))]  # fmt: skip
        try:
            matched = _dealt_by_matching(pool, wants)
        except ValueError:
            continue
        in_order = _dealt_in_order(pool, wants)
        if in_order is None:
            falls_back += 1
        else:
            passes += 1
            assert in_order == matched
    assert passes > 100 and falls_back > 0
