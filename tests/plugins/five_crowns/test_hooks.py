"""Five Crowns' own hooks (``plugins/five_crowns/hookspecs.py``): each has a docstring, a
section in ``docs/hooks/five-crowns.md`` that repeats its signature, and a
``test_hook_<name>`` test that plays one position with and without a house rule that
implements it: the hook changes play when that rule is on, and only then."""

from __future__ import annotations

import importlib
import inspect
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from tablestate.engine.game import Outcome, Rejected
from tablestate_five_crowns import hookspecs, rules
from tablestate_five_crowns._house import house
from tablestate_five_crowns.rules import STANDARD, CardPoints, MeldLimits

from .support import (
    BAD_KEY,
    BAD_VALUE,
    DECLARE,
    JOKERS_15,
    JOKERS_25,
    LAY_OFF,
    NATURAL,
    NO_REDISCARD,
    RATIO,
    RULE_MODULES,
    SINGLE_DECK,
    WHOLE_DISCARD,
    discard,
    draw,
    driver,
    go_out,
    lay_off,
    points_ruleset,
    ruleset,
    start,
)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "hooks" / "five-crowns.md"
HOOKS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and name.startswith("five_crowns_")
)


def heading(name: str) -> str:
    """The doc heading of a hook: its name, parameters and return annotation."""
    fn = getattr(hookspecs, name)
    ann = fn.__annotations__
    params = ", ".join(f"{p}: {ann[p]}" for p in inspect.signature(fn).parameters)
    return f"### `{name}({params}) -> {ann['return']}`"


def test_there_are_hooks() -> None:
    assert len(HOOKS) == 7


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_docstring(name: str) -> None:
    fn = getattr(hookspecs, name)
    doc = inspect.getdoc(fn)
    assert doc and len(doc) > 40
    assert "Returns:" in doc
    for param in inspect.signature(fn).parameters:
        assert f"{param}:" in doc, f"{name} documents no {param}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_documented(name: str) -> None:
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    assert heading(name) in lines
    assert any(line.startswith(f"### `{name}(") for line in lines)


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_test(name: str) -> None:
    assert f"test_hook_{name}" in globals()


@pytest.mark.parametrize("module", RULE_MODULES)
def test_every_house_rule_acts_through_a_hook(module: str) -> None:
    plugin = importlib.import_module(f"tablestate_five_crowns.house_rules.{module}")
    assert any(hasattr(plugin, name) for name in HOOKS)


# -- five_crowns_meld_limits ----------------------------------------------------------


@pytest.mark.parametrize(
    "enabled, limits, hand, allowed",
    [
        pytest.param((), [], ["5H", "JK", "JK"], True, id="off-one-natural"),
        pytest.param((), [], ["3H", "3S", "JK"], True, id="off-all-wild"),
        pytest.param((NATURAL,), [MeldLimits(1)], ["5H", "JK", "JK"], True, id="natural-ok"),
        pytest.param((NATURAL,), [MeldLimits(1)], ["3H", "3S", "JK"], False, id="natural-no"),
        pytest.param((RATIO,), [MeldLimits(1, 1)], ["5H", "JK", "JK"], False, id="ratio-2-to-1"),
        pytest.param((RATIO,), [MeldLimits(1, 1)], ["5H", "5S", "JK"], True, id="ratio-ok"),
        pytest.param(
            (NATURAL, RATIO), [MeldLimits(1), MeldLimits(1, 1)], ["5H", "JK", "JK"], False,
            id="both-strictest",
        ),
    ],
)  # fmt: skip
def test_hook_five_crowns_meld_limits(enabled, limits, hand, allowed) -> None:
    """Round 1 (3s wild): going out with ``hand`` as one meld, discarding the drawn KS."""
    rs = ruleset(*enabled)
    assert sorted(rs.hook.five_crowns_meld_limits(), key=repr) == sorted(limits, key=repr)
    d = start([hand, ["9C", "9D", "QS"]], "KD", ["KS"], enabled)
    d.move(1, draw())
    outs = [m["goOut"]["discard"] for m in d.legal(1) if "goOut" in m]
    assert ("KS" in outs) is allowed
    out = d.try_move(1, go_out([hand], "KS"))
    assert isinstance(out, Outcome) is allowed
    if not allowed:
        assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
    # the limits reach the solver: last-turn scoring and the solo piles use them too
    assert rules.can_meld_all(hand, "3", **_kw(house(rs).limits)) is allowed


def _kw(limits: MeldLimits) -> dict[str, int | None]:
    return {
        "min_naturals": limits.min_naturals,
        "max_wilds_per_natural": limits.max_wilds_per_natural,
    }


# -- five_crowns_card_points ----------------------------------------------------------


@pytest.mark.parametrize("enabled", [(), (JOKERS_25,)], ids=["off", "jokers-count-25"])
def test_hook_five_crowns_card_points(enabled) -> None:
    """Round 1 (3s wild): seat 1 goes out; seat 0 keeps JK 5H 9C, which do not meld, and
    scores its joker at 25 where the (test-only) rule is on."""
    on = bool(enabled)
    rs = points_ruleset(*enabled)
    assert rs.hook.five_crowns_card_points() == ([{"JK": 25}] if on else [])
    assert house(rs).points == (CardPoints(joker=25) if on else STANDARD)
    d = start([["5S", "6S", "7S"], ["JK", "5H", "9C"]], "KD", ["KS", "QS"], rules=rs)
    d.move(1, draw())
    d.move(1, go_out([["5S", "6S", "7S"]], "KS"))
    d.move(0, draw())
    events = d.move(0, discard("QS"))
    scored = next(e for e in events if e.type == "hand.scored")
    assert scored.data == {"points": (25 if on else 50) + 5 + 9, "cardsLeft": 3}
    round_scored = next(e for e in events if e.type == "round.scored")
    assert round_scored.data["points"] == {"0": scored.data["points"], "1": 0}
    assert round_scored.data["totals"] == round_scored.data["points"]


def test_card_points_answers_combine_to_the_highest() -> None:
    """Two rules that set the joker: the highest counts, in either order; other keys keep
    the standard points."""
    for enabled in ((JOKERS_25, JOKERS_15), (JOKERS_15, JOKERS_25)):
        assert house(points_ruleset(*enabled)).points == CardPoints(joker=25)
    assert house(points_ruleset(JOKERS_15)).points.of("KS", "3") == 13


@pytest.mark.parametrize(
    "rule, message",
    [(BAD_KEY, "unknown card points key 'A'"), (BAD_VALUE, "'JK' must be an int from 0")],
)
def test_a_bad_card_points_answer_raises(rule, message) -> None:
    with pytest.raises(ValueError, match=message):
        house(points_ruleset(rule))


# -- five_crowns_may_lay_off ----------------------------------------------------------


def _lay_off_game(enabled):
    """Seat 1 goes out with 5H 6H 7H; seat 2 holds 8H, seat 0 will draw 4H."""
    hands = [["5H", "6H", "7H"], ["9C", "9D", "8H"], ["4S", "QT", "10D"]]
    d = start(hands, "KD", ["KS", "3C", "4H"], enabled)
    d.move(1, draw())
    assert d.try_move(1, lay_off(["KS"], 0)).code == "ILLEGAL_MOVE"  # no meld, no last turn
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(2, draw())
    return d


@pytest.mark.parametrize("enabled", [(), (LAY_OFF,)], ids=["off", "lay-off-on-others"])
def test_hook_five_crowns_may_lay_off(enabled) -> None:
    on = bool(enabled)
    hook = ruleset(*enabled).hook.five_crowns_may_lay_off
    assert hook(final_turn=True) == ([True] if on else [])
    assert hook(final_turn=False) == ([False] if on else [])
    d = _lay_off_game(enabled)
    assert (lay_off(["8H"], 0) in d.legal(2)) is on
    out = d.try_move(2, lay_off(["8H"], 0))  # applied when it stands
    if on:
        assert isinstance(out, Outcome)
        assert d.view(None)["melds"][0]["cards"] == ["5H", "6H", "7H", "8H"]
        d.move(2, discard("9C"))
    else:
        assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
        d.move(2, discard("8H"))
    # the engine's last-turn scoring lays seat 0's 4H off on the run only where allowed
    d.move(0, draw())
    events = d.move(0, discard("QT"))
    scored = next(e for e in events if e.type == "hand.scored" and e.seat == 0)
    assert scored.data["points"] == (4 + 10 if on else 4 + 10 + 4)


# -- five_crowns_may_discard ----------------------------------------------------------


@pytest.mark.parametrize("enabled", [(), (NO_REDISCARD,)], ids=["off", "no-immediate-rediscard"])
def test_hook_five_crowns_may_discard(enabled) -> None:
    on = bool(enabled)
    hook = ruleset(*enabled).hook.five_crowns_may_discard
    assert hook(card="KD", taken="KD") == ([False] if on else [])
    assert hook(card="5H", taken="KD") == []  # None answers are dropped
    assert hook(card="KD", taken=None) == []
    # seat 1 takes the top discard KD: throwing it back, or going out with it as the discard
    for move in (discard("KD"), go_out([["5H", "6H", "7H"]], "KD")):
        d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", [], enabled)
        d.move(1, draw("DISCARD"))
        assert (move in d.legal(1)) is not on
        out = d.try_move(1, move)
        assert isinstance(out, Outcome) is not on
        if on:
            assert isinstance(out, Rejected) and out.code == "ILLEGAL_MOVE"
            d.move(1, discard("5H"))  # any other card may go


# -- five_crowns_deck -----------------------------------------------------------------


@pytest.mark.parametrize(
    "enabled, players, size",
    [
        pytest.param((), 2, 116, id="off"),
        pytest.param((SINGLE_DECK,), 2, 58, id="single-deck-two-players"),
        pytest.param((SINGLE_DECK,), 3, 116, id="single-deck-three-players"),
    ],
)
def test_hook_five_crowns_deck(enabled, players, size) -> None:
    answers = ruleset(*enabled).hook.five_crowns_deck(players=players)
    assert answers == ([rules.deck(1)] if size == 58 else [])  # None answers are dropped
    d = driver(players, enabled)
    assert Counter(d.state.all_cards()) == Counter(rules.deck(size // 58))
    assert d.view(None)["stockSize"] == size - 3 * players - 1


# -- five_crowns_restock --------------------------------------------------------------


@pytest.mark.parametrize("enabled", [(), (WHOLE_DISCARD,)], ids=["off", "reshuffle-whole-discard"])
def test_hook_five_crowns_restock(enabled) -> None:
    on = bool(enabled)
    answers = ruleset(*enabled).hook.five_crowns_restock(discard=("3S", "4S"))
    assert answers == ([((), ("3S", "4S"))] if on else [])
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS"], enabled)
    s = d.state
    d.state = replace(s, stock=s.stock[:1], discard=s.stock[1:] + s.discard)  # one card left
    d.move(1, draw())
    events = d.move(1, discard("KS"))
    assert [e.type for e in events] == ["card.discarded", "stock.reshuffled"]
    assert d.state.discard == (() if on else ("KS",))
    assert len(d.state.stock) == 116 - 6 - (0 if on else 1)
    sources = [m["draw"]["source"] for m in d.legal(0)]
    assert sources == (["STOCK"] if on else ["STOCK", "DISCARD"])
    assert Counter(d.state.all_cards()) == Counter(rules.deck())


# -- five_crowns_declares_final_melds -------------------------------------------------


@pytest.mark.parametrize("enabled", [(), (DECLARE,)], ids=["off", "declare-final-melds"])
def test_hook_five_crowns_declares_final_melds(enabled) -> None:
    on = bool(enabled)
    assert ruleset(*enabled).hook.five_crowns_declares_final_melds() == ([True] if on else [])
    d = start([["5H", "6H", "7H"], ["9C", "9D", "QS"]], "KD", ["KS", "9S"], enabled)
    d.move(1, draw())
    d.move(1, go_out([["5H", "6H", "7H"]], "KS"))
    d.move(0, draw())
    events = d.move(0, discard("QS"))  # keeps 9S 9C 9D, a book, without laying it down
    scored = next(e for e in events if e.type == "hand.scored")
    assert scored.data == ({"points": 27, "cardsLeft": 3} if on else {"points": 0, "cardsLeft": 0})
    assert any(e.type == "cards.laid_down" for e in events) is not on
