"""Every decision of DECISIONS.md section 1 (Five Crowns), as tables.

Each row carries the labels of the decisions it shows: ``1.1-<topic>`` for the confirmed
facts of 1.1, ``1.2`` the solo game, ``FC-<n>`` the gaps of 1.3, ``1.4`` the partition
method, ``1.5-<rule>`` and ``1.5-option-<key>`` the house rules and options. One table
holds the pure library's answers; the other plays positions through the game (a stacked
deck, or a state set up mid-game), then checks the refusal, the events, the views, the
legal moves or the result. ``test_every_decision_has_a_row`` keeps the tables complete,
and checks the list of labels against DECISIONS.md itself when it is at hand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from tablestate.engine.game import Event, Rejected
from tablestate.testing import FixedRng, GameDriver
from tablestate_five_crowns import rules
from tablestate_five_crowns.rules import MeldLimits
from tablestate_five_crowns.state import State, TableMeld

from .support import (
    DECLARE,
    LAY_OFF,
    NATURAL,
    NO_REDISCARD,
    RATIO,
    SINGLE_DECK,
    WHOLE_DISCARD,
    discard,
    draw,
    driver,
    go_out,
    lay_down,
    lay_off,
    start,
)

DECISIONS_MD = Path(__file__).resolve().parents[4] / "shared" / "rules" / "DECISIONS.md"
TOPICS = (  # DECISIONS.md 1.1, in its order
    "deck",
    "players",
    "rounds",
    "wild-rank",
    "start",
    "first-player",
    "turn",
    "melds",
    "book",
    "run",
    "wilds",
    "going-out",
    "after-going-out",
    "scoring",
    "unusable-wild",
    "empty-draw-pile",
    "winner",
    "dealer-rotation",
)
HOUSE_RULES = (
    "natural-required",
    "wilds-not-exceed-naturals",
    "lay-off-on-others",
    "no-immediate-rediscard",
    "single-deck-two-players",
    "reshuffle-whole-discard",
    "declare-final-melds",
)
OPTIONS = ("tieBreak", "rounds", "firstDealer")
LABELS = (
    *(f"1.1-{t}" for t in TOPICS),
    "1.2",
    *(f"FC-{n}" for n in range(1, 20)),
    "1.4",
    *(f"1.5-{r}" for r in HOUSE_RULES),
    *(f"1.5-option-{o}" for o in OPTIONS),
)


# -- the library ------------------------------------------------------------------------


def deck_facts() -> dict[str, Any]:
    deck = rules.deck()
    naturals = [c for c in deck if c != rules.JOKER]
    parsed = [rules.parse(c) for c in naturals]
    return {
        "cards": len(deck),
        "jokers": deck.count(rules.JOKER),
        "copies": set(Counter(naturals).values()),
        "suits": len({p[1] for p in parsed if p}),
        "ranks": sorted({p[0] for p in parsed if p}),
    }


def wild_ranks() -> list[str]:
    """Round r deals r + 2 cards; the wild rank is the number of cards dealt."""
    return [rules.wild_rank(r + 2) for r in range(1, 12)]


def meld_kind(cards: Sequence[str], wild: str, **limits: Any) -> str | None:
    meld = rules.make_meld(cards, wild, MeldLimits(**limits))
    return None if meld is None else meld.kind


def run_interval(cards: Sequence[str], wild: str) -> tuple[int | None, int | None]:
    meld = rules.make_meld(cards, wild)
    assert meld is not None and meld.kind == rules.RUN
    return meld.lo, meld.hi


def grown_interval(
    cards: Sequence[str], add: Sequence[str], wild: str
) -> tuple[int | None, int | None] | None:
    """The ranks of a run after ``add`` is laid on it, or None if it cannot go there."""
    meld = rules.make_meld(cards, wild)
    assert meld is not None
    grown = rules.extend_meld(meld, add, wild)
    return None if grown is None else (grown.lo, grown.hi)


def leftover(cards: Sequence[str], wild: str, **limits: Any) -> int:
    return rules.min_leftover(cards, wild, **limits)


def go_out_discards(hand: Sequence[str], wild: str) -> tuple[str, ...]:
    return rules.go_out_discards(hand, wild)


FN: dict[str, Callable[..., Any]] = {
    "deck": deck_facts,
    "wild_ranks": wild_ranks,
    "kind": meld_kind,
    "is_meld": rules.is_meld,
    "run": run_interval,
    "grow": grown_interval,
    "points": rules.card_points,
    "leftover": leftover,
    "meld_all": rules.can_meld_all,
    "can_go_out": rules.can_go_out,
    "out_discards": go_out_discards,
}
NOTHING: dict[str, Any] = {}


def lib(labels: tuple[str, ...], fn: str, args: tuple[Any, ...], expected: Any, **kw: Any) -> Any:
    return pytest.param(labels, fn, args, kw, expected, id=f"{labels[0]}-{fn}-{_short(args)}")


def _short(args: tuple[Any, ...]) -> str:
    out = []
    for a in args:
        out.append("_".join(a) if isinstance(a, list) else str(a))
    return "-".join(out) or "all"


LIBRARY = [
    lib(
        ("1.1-deck",),
        "deck",
        (),
        {"cards": 116, "jokers": 6, "copies": {2}, "suits": 5, "ranks": list(range(3, 14))},
    ),
    lib(("1.1-rounds", "1.1-wild-rank"), "wild_ranks", (), list(rules.RANKS)),
    lib(("1.1-book",), "kind", (["8H", "8S", "8C"], "K"), rules.BOOK),
    lib(("1.1-book",), "kind", (["8H", "8H", "8S"], "K"), rules.BOOK),
    lib(("1.1-book",), "kind", (["KS", "KD", "KH", "KH"], "Q"), rules.BOOK),
    lib(("1.1-run",), "kind", (["5C", "6C", "7C"], "K"), rules.RUN),
    lib(("1.1-run",), "kind", (["9T", "10T", "JT", "QT"], "K"), rules.RUN),
    lib(("1.1-run",), "kind", (["QH", "KH", "3H"], "5"), None),  # no wrap
    lib(("1.1-run",), "kind", (["5C", "6D", "7C"], "K"), None),
    lib(("1.1-melds",), "kind", (["5C", "5D"], "K"), None),  # three cards at least
    lib(("1.1-wilds",), "kind", (["9D", "7C", "JD"], "7"), rules.RUN),  # official example
    lib(("1.1-wilds",), "kind", (["6D", "7T", "7H", "9D"], "7"), rules.RUN),  # official
    lib(("1.1-wilds",), "kind", (["8S", "QS", "QH"], "8"), rules.BOOK),  # official
    lib(("1.1-wilds",), "kind", (["3H", "JK", "JK", "JK", "7H"], "K"), rules.RUN),
    lib(("1.1-wilds",), "kind", (["KH", "JK", "JK"], "5"), rules.BOOK),
    lib(("1.1-scoring",), "points", ("3S", "K"), 3),
    lib(("1.1-scoring",), "points", ("10H", "K"), 10),
    lib(("1.1-scoring",), "points", ("JD", "K"), 11),
    lib(("1.1-scoring",), "points", ("QC", "K"), 12),
    lib(("1.1-scoring",), "points", ("KT", "Q"), 13),
    lib(("1.1-scoring",), "points", ("KT", "K"), 20),
    lib(("1.1-scoring",), "points", ("JK", "3"), 50),
    lib(("1.1-scoring",), "leftover", (["KS", "5H", "7C"], "7"), 38),  # worked example: Ben
    lib(("1.1-scoring",), "leftover", (["JK", "3D", "9S"], "7"), 62),  # Cy
    lib(("1.1-scoring",), "leftover", (["JH", "10D", "4C"], "7"), 25),  # Dee
    lib(("1.1-going-out",), "can_go_out", (["5H", "6H", "7H", "KS"], "3", "KS"), True),
    lib(("1.1-going-out",), "can_go_out", (["5H", "6H", "7H", "7H"], "3", "7H"), True),
    lib(("1.1-going-out",), "can_go_out", (["5H", "6H", "7H", "KS"], "3", "5H"), False),
    lib(("FC-6",), "kind", (["JK", "JK", "JK"], "K"), rules.WILD),
    lib(("FC-6",), "kind", (["JK", "JK", "KS"], "K"), rules.WILD),
    lib(("FC-6", "1.5-natural-required"), "kind", (["JK", "JK", "JK"], "K"), None, min_naturals=1),
    lib(("FC-7",), "kind", (["7C", "7H", "7S"], "7"), rules.WILD),
    lib(("FC-7", "1.5-natural-required"), "kind", (["7C", "7H", "7S"], "7"), None, min_naturals=1),
    lib(("FC-7",), "kind", (["7C", "7H", "7S"], "8"), rules.BOOK, min_naturals=1),
    lib(("FC-7",), "points", ("7C", "7"), 20),  # wild, so it scores 20 when left over
    lib(("FC-8",), "leftover", (["5H", "6H", "7H", "7S", "7C"], "K"), 11),  # 7H used once
    lib(("FC-9",), "kind", (["5C", "6C", "6C", "7C"], "K"), None),
    lib(("FC-9",), "kind", (["3H", "KH", *["JK"] * 9], "Q"), rules.RUN),  # 11 long
    lib(("FC-9",), "kind", (["3H", "QH", *["JK"] * 10], "K"), None),  # 12: too long
    lib(("FC-10",), "run", (["5H", "7H", "JK"], "K"), (5, 7)),  # fills the gap
    lib(("FC-10",), "run", (["5H", "6H", "JK"], "K"), (5, 7)),  # extends upward
    lib(("FC-10",), "run", (["JH", "QH", "JK", "JK"], "5"), (10, 13)),  # up to K, then down
    lib(("FC-10",), "run", (["QH", "KH", "JK"], "5"), (11, 13)),
    # a run is the set of its cards: the placement above never stops a card joining it
    lib(("FC-10", "1.5-lay-off-on-others"), "grow", (["5H", "6H", "7H"], ["8H"], "K"), (5, 8)),
    lib(("FC-10", "1.5-lay-off-on-others"), "grow", (["5H", "6H", "7H"], ["9H"], "K"), None),
    lib(("FC-10", "1.5-lay-off-on-others"), "grow", (["8H", "9H", "JK"], ["10H"], "4"), (8, 11)),
    lib(("FC-10", "1.5-lay-off-on-others"), "grow", (["QH", "KH", "JK"], ["JH"], "5"), (10, 13)),
    lib(("FC-10", "1.5-lay-off-on-others"), "grow", (["8H", "JK", "JK"], ["9H"], "K"), None),
    lib(("FC-11",), "kind", (["JK", "KS", "JK"], "K"), rules.WILD),
    lib(("FC-15",), "meld_all", (["8H", "8S", "8C", "QD", "QS", "QC"], "5"), True),
    lib(("FC-15",), "out_discards", (["8H", "8S", "8C", "QD", "QS", "QC"], "5"), ()),
    lib(("1.4",), "leftover", (["3H", "4H", "JK", "9S", "9D"], "7"), 7),  # greedy wild fails
    lib(("1.4",), "leftover", (["3H", "4H", "5H", "5S", "5D"], "K"), 7),
    lib(("1.4",), "leftover", (["8H", "9H", "10H", "JK", "JK", "KS", "KD"], "K"), 0),
    lib(("1.4",), "leftover", (["JK", "KS", "KD"], "K"), 90, min_naturals=1),  # 3 wilds left
    lib(("1.4",), "leftover", (["JK", "KS", "9H"], "K"), 79, max_wilds_per_natural=1),
    lib(("1.5-wilds-not-exceed-naturals",), "is_meld", (["5C", "JK", "JK"], "K"), False,
        max_wilds_per_natural=1),
    lib(("1.5-wilds-not-exceed-naturals",), "is_meld", (["5C", "5D", "JK"], "K"), True,
        max_wilds_per_natural=1),
]  # fmt: skip


@pytest.mark.parametrize("labels, fn, args, kw, expected", LIBRARY)
def test_library(labels, fn, args, kw, expected) -> None:
    assert FN[fn](*args, **kw) == expected


# -- play -------------------------------------------------------------------------------

A = ("5H", "6H", "7H")  # a run, dealt to seat 1 (the dealer's left)
B = ("9C", "9D", "QS")  # dealt to seat 0, the dealer
OUT = (1, go_out([A], "KS"))  # seat 1 goes out, having drawn KS


@dataclass(frozen=True)
class Play:
    """A position and a move under test.

    Args:
        labels: the decisions shown.
        hands: round 1's hands in deal order (the dealer's left first), with ``top`` turned
            up and ``stock`` on the draw pile; empty: the game's own seeded deal.
        players: seats (default: one per hand).
        patch: changes the state before the moves (a position set up mid-game).
        moves: (seat, move) pairs that must stand, then ``last``, the move under test.
        expect: ``refused`` (the code), ``types`` (the last move's event types), an event
            type (a subset of its data; with ``=`` its data exactly), ``view``/``view<seat>``
            (paths of the spectator's or a seat's view; ``a.b`` maps over lists), ``toAct``,
            ``state.<field>``, ``deck`` (cards in play), ``legal<seat>+``/``-`` (moves
            listed, not listed), ``result`` (winners, and the scores unless None).
    """

    labels: tuple[str, ...]
    hands: tuple[Sequence[str], ...] = (A, B)
    top: str = "KD"
    stock: tuple[str, ...] = ("KS",)
    rules: tuple[str, ...] = ()
    players: int | tuple[int, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    ints: tuple[int, ...] = ()
    shuffles: tuple[Sequence[str], ...] = ()
    patch: Callable[[State], State] | None = None
    moves: tuple[tuple[int, Any], ...] = ()
    last: tuple[int, Any] | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def game_of(play: Play) -> GameDriver:
    if play.hands:
        d = start(
            play.hands,
            play.top,
            play.stock,
            play.rules,
            play.players,
            shuffles=play.shuffles,
            ints=play.ints,
            **play.options,
        )
    else:
        seed: Any = FixedRng(shuffles=play.shuffles, ints=play.ints)
        if not play.shuffles and not play.ints:
            seed = b"decisions"
        d = driver(play.players or 2, play.rules, seed=seed, **play.options)
    if play.patch is not None:
        d.state = play.patch(d.state)
    return d


def pluck(value: Any, path: str) -> Any:
    for key in path.split("."):
        if isinstance(value, list):
            value = [v[key] for v in value]
        else:
            value = value[key]
    return value


def check(play: Play, d: GameDriver, events: tuple[Event, ...] | None) -> None:
    for key, want in play.expect.items():
        if key == "refused":
            continue
        if key == "types":
            assert events is not None and [e.type for e in events] == want
        elif key.startswith("view"):
            seat = int(key[4:]) if key[4:] else None
            view = d.view(seat)
            for path, value in want.items():
                assert pluck(view, path) == value, (key, path)
        elif key == "toAct":
            assert d.to_act() == want
        elif key.startswith("state."):
            assert getattr(d.state, key[6:]) == want, key
        elif key == "deck":
            assert sum(Counter(d.state.all_cards()).values()) == want
        elif key.startswith("legal"):
            seat, sign = int(key[5:-1]), key[-1]
            listed = d.legal(seat)
            for move in want:
                assert (move in listed) is (sign == "+"), (key, move)
        elif key == "result":
            result = d.result()
            assert result is not None and result.winners == want[0]
            if want[1] is not None:
                assert result.scores == want[1]
        else:
            exact = key.endswith("=")
            kind = key.rstrip("=")
            assert events is not None
            found = next((e for e in events if e.type == kind), None)
            assert found is not None, f"no {kind} event"
            if exact:
                assert found.data == want, kind
            else:
                assert {k: found.data[k] for k in want} == want, kind


def one_stock_card(state: State) -> State:
    """Every stock card but the top one moved under the discard pile."""
    return replace(state, stock=state.stock[:1], discard=state.stock[1:] + state.discard)


def worked_example(state: State) -> State:
    """DECISIONS.md's worked check: round 5 (7s wild), Ana (seat 0) has gone out; Ben,
    Cy and Dee take their last turns and keep {KS 5H 7C}, {JK 3D 9S} and {JH 10D 4C}."""
    hands = (
        (),
        ("KS", "5H", "7C", "9D", "9S", "9H", "9C"),
        ("JK", "3D", "9S", "4C", "4S", "4H", "4D"),
        ("JH", "10D", "4C", "6T", "6T", "6S", "6D"),
    )
    laid = (("3H", "4H", "5H", "6H"), ("8C", "8D", "8S"))
    melds = []
    for cards in laid:
        meld = rules.make_meld(cards, "7")
        assert meld is not None
        melds.append(TableMeld(0, meld))
    state = replace(
        state,
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
        melds=tuple(melds),
        stock=("QD", "QS", "QC"),
        discard=("KD",),
    )
    rest = Counter(rules.deck())
    rest.subtract(state.all_cards())
    return replace(state, stock=state.stock + tuple(sorted(rest.elements(), key=rules.sort_key)))


SOLO_DECK = tuple(rules.deck())  # unshuffled: pile 0 is 3S 4S 5S, the turned card JC
FOUR = (("9C", "9D", "QS"), A, ("4S", "8T", "10D"), ("4C", "8C", "10C"))  # seats 1, 2, 3, 0
FOUR_OUT = ((1, draw()), (1, discard("5C")), (2, draw()), (2, go_out([A], "KS")))
THREE = (A, ("9C", "9D", "8H"), ("4S", "QT", "10D"))  # seats 1, 2, 0
THREE_OUT = ((1, draw()), OUT, (2, draw()))
SOLO = {"hands": (), "players": 1, "shuffles": (SOLO_DECK,)}
PLAYOFF = {"rounds": 1, "tieBreak": "playoffRound"}
ROUND_TWO = {
    "round.dealt": {"round": 2, "cardsDealt": 4, "wildRank": "4", "dealer": 1},
    "toAct": (0,),
}

PLAYS = [
    # 1.1 confirmed facts
    pytest.param(Play(("1.1-deck",), hands=(), expect={"deck": 116}), id="1.1-deck-116"),
    pytest.param(Play(("1.1-players", "FC-17"), hands=(), players=7,
                      expect={"view": {"stockSize": 116 - 21 - 1, "players.handSize": [3] * 7}}),
                 id="1.1-players-seven"),
    pytest.param(Play(("1.1-players", "FC-17", "1.2"), hands=(), players=1,
                      expect={"view": {"mode": "SOLO", "phase": "PLACE"}}),
                 id="1.1-players-solo"),
    pytest.param(Play(("1.1-start", "1.1-wild-rank"),
                      expect={"view": {"round": 1, "cardsDealt": 3, "wildRank": "3",
                                       "topDiscard": "KD", "discardSize": 1, "stockSize": 109,
                                       "players.handSize": [3, 3]}}),
                 id="1.1-start-deal-three-turn-one-up"),
    pytest.param(Play(("1.1-first-player", "FC-1"),
                      expect={"view": {"dealer": 0, "turn": 1}, "toAct": (1,)}),
                 id="1.1-first-player-dealers-left"),
    pytest.param(Play(("1.1-turn",), last=(1, discard("5H")), expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.1-turn-draw-first"),
    pytest.param(Play(("1.1-turn",), moves=((1, draw()),), last=(1, discard("5H")),
                      expect={"types": ["card.discarded"], "toAct": (0,)}),
                 id="1.1-turn-draw-then-discard"),
    pytest.param(Play(("1.1-turn",), last=(1, draw("DISCARD")),
                      expect={"card.drawn=": {"source": "DISCARD", "card": "KD"},
                              "view": {"topDiscard": None, "discardSize": 0}}),
                 id="1.1-turn-top-discard-only"),
    pytest.param(Play(("1.1-melds",), moves=((1, draw()),), last=(1, lay_down([A], "KS")),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.1-melds-stay-in-hand"),
    pytest.param(Play(("1.1-book",), hands=(("8H", "8H", "8S"), B), moves=((1, draw()),),
                      last=(1, go_out([["8H", "8H", "8S"]], "KS")),
                      expect={"types": ["player.went_out"]}),
                 id="1.1-book-of-twins"),
    pytest.param(Play(("1.1-run", "FC-2"), moves=((1, draw()),), last=OUT,
                      expect={"types": ["player.went_out"],
                              "view": {"finalTurns": True, "wentOut": 1}}),
                 id="FC-2-out-on-the-first-turn"),
    pytest.param(Play(("1.1-wilds",), hands=(("5H", "JK", "JK"), B), moves=((1, draw()),),
                      last=(1, go_out([["5H", "JK", "JK"]], "KS")),
                      expect={"types": ["player.went_out"]}),
                 id="1.1-wilds-side-by-side"),
    pytest.param(Play(("1.1-going-out",), stock=("8H",), moves=((1, draw()),),
                      last=(1, go_out([A], "8H")), expect={"types": ["player.went_out"]}),
                 id="1.1-going-out-playable-discard"),
    pytest.param(Play(("1.1-going-out",), hands=(B, A), moves=((1, draw()),),
                      last=(1, go_out([B], "KS")), expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.1-going-out-needs-melds"),
    pytest.param(Play(("1.1-after-going-out", "1.1-rounds", "1.1-dealer-rotation", "FC-14"),
                      stock=("KS", "9S"), moves=((1, draw()), OUT, (0, draw())),
                      last=(0, discard("QS")),
                      expect={"types": ["card.discarded", "cards.laid_down", "hand.scored",
                                        "round.scored", "round.dealt"],
                              "round.scored": {"points": {"0": 0, "1": 0}, "wentOut": 1},
                              **ROUND_TWO}),
                 id="1.1-after-going-out-one-turn-then-next-round"),
    pytest.param(Play(("1.1-scoring", "1.5-declare-final-melds"), hands=(), players=4,
                      rules=(DECLARE,), patch=worked_example,
                      moves=((1, draw()), (1, lay_down([["9D", "9S", "9H", "9C"]], "QD")),
                             (2, draw()), (2, lay_down([["4C", "4S", "4H", "4D"]], "QS")),
                             (3, draw())),
                      last=(3, lay_down([["6T", "6T", "6S", "6D"]], "QC")),
                      expect={"round.scored": {"points": {"0": 0, "1": 38, "2": 62, "3": 25},
                                               "totals": {"0": 40, "1": 69, "2": 109,
                                                          "3": 60}},
                              "result": ((0,), {0: 40, 1: 69, 2: 109, 3: 60})}),
                 id="1.1-scoring-worked-example"),
    pytest.param(Play(("1.1-unusable-wild",), hands=(("JK", "5H", "9C"), B),
                      moves=((1, draw()),), last=(1, discard("JK")),
                      expect={"types": ["card.discarded"], "view": {"topDiscard": "JK"}}),
                 id="1.1-unusable-wild-discarded"),
    pytest.param(Play(("1.1-empty-draw-pile", "FC-5"), patch=one_stock_card,
                      moves=((1, draw()),), last=(1, discard("KS")),
                      expect={"types": ["card.discarded", "stock.reshuffled"],
                              "state.discard": ("KS",), "view": {"stockSize": 109},
                              "legal0+": [draw("STOCK"), draw("DISCARD")], "deck": 116}),
                 id="FC-5-restock-keeps-the-top-discard"),
    pytest.param(Play(("FC-5", "1.5-reshuffle-whole-discard"), rules=(WHOLE_DISCARD,),
                      patch=one_stock_card, moves=((1, draw()),), last=(1, discard("KS")),
                      expect={"state.discard": (), "view": {"stockSize": 110},
                              "legal0+": [draw("STOCK")], "legal0-": [draw("DISCARD")]}),
                 id="1.5-reshuffle-whole-discard"),
    pytest.param(Play(("1.1-winner", "1.5-option-rounds"), stock=("KS", "4S"),
                      options={"rounds": 1}, moves=((1, draw()), OUT, (0, draw())),
                      last=(0, discard("QS")),
                      expect={"game.over": {"winners": [1]}, "result": ((1,), {0: 22, 1: 0}),
                              "toAct": ()}),
                 id="1.1-winner-lowest-total"),
    # 1.2 the solo game
    pytest.param(Play(("1.2",), **SOLO,
                      expect={"view": {"solo.piles.size": list(range(3, 14)),
                                       "solo.piles.wildRank": list(rules.RANKS),
                                       "solo.current": "JC", "stockSize": 27}}),
                 id="1.2-eleven-piles-own-wilds"),
    pytest.param(Play(("1.2",), **SOLO, last=(0, {"place": {"pile": 0, "discard": "3S"}}),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.2-closed-pile"),
    pytest.param(Play(("1.2",), **SOLO, last=(0, {"place": {"pile": 2, "discard": "JC"}}),
                      expect={"types": ["card.placed", "card.turned"],
                              "view": {"solo.deadCount": 1, "solo.lastDead": "JC",
                                       "stockSize": 26}}),
                 id="1.2-place-and-discard-dead"),
    pytest.param(Play(("1.2",), **SOLO, patch=lambda s: replace(s, stock=()),
                      last=(0, {"place": {"pile": 2, "discard": "JC"}}),
                      expect={"types": ["card.placed", "round.scored", "game.over"],
                              "result": ((), None)}),
                 id="1.2-stock-used-up-no-reshuffle"),
    # 1.3 gaps and decisions
    pytest.param(Play(("FC-1", "1.5-option-firstDealer"), hands=(), players=3, ints=(1,),
                      options={"firstDealer": "random"},
                      expect={"view": {"dealer": 1, "turn": 2}}),
                 id="FC-1-random-first-dealer"),
    pytest.param(Play(("FC-3",), top="JK", last=(1, draw("DISCARD")),
                      expect={"card.drawn=": {"source": "DISCARD", "card": "JK"}}),
                 id="FC-3-turned-up-joker-taken"),
    pytest.param(Play(("FC-4",), stock=(), moves=((1, draw("DISCARD")),),
                      last=(1, discard("KD")), expect={"types": ["card.discarded"]}),
                 id="FC-4-rediscard-allowed"),
    pytest.param(Play(("FC-4", "1.5-no-immediate-rediscard"), stock=(), rules=(NO_REDISCARD,),
                      moves=((1, draw("DISCARD")),), last=(1, discard("KD")),
                      expect={"refused": "ILLEGAL_MOVE", "legal1-": [discard("KD")],
                              "legal1+": [discard("5H")]}),
                 id="1.5-no-immediate-rediscard"),
    pytest.param(Play(("FC-6",), hands=(("3H", "3S", "JK"), B), moves=((1, draw()),),
                      last=(1, go_out([["3H", "3S", "JK"]], "KS")),
                      expect={"types": ["player.went_out"]}),
                 id="FC-6-all-wild-meld"),
    pytest.param(Play(("FC-6", "1.5-natural-required"), hands=(("3H", "3S", "JK"), B),
                      rules=(NATURAL,), moves=((1, draw()),),
                      last=(1, go_out([["3H", "3S", "JK"]], "KS")),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.5-natural-required"),
    pytest.param(Play(("FC-7",), hands=(("3H", "3S", "3C"), B), rules=(NATURAL,),
                      moves=((1, draw()),), last=(1, go_out([["3H", "3S", "3C"]], "KS")),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="FC-7-wild-rank-is-never-natural"),
    pytest.param(Play(("1.5-wilds-not-exceed-naturals",), hands=(("5H", "JK", "JK"), B),
                      rules=(RATIO,), moves=((1, draw()),),
                      last=(1, go_out([["5H", "JK", "JK"]], "KS")),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.5-wilds-not-exceed-naturals"),
    pytest.param(Play(("FC-8",), moves=((1, draw()),), last=(1, go_out([A, A], "KS")),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="FC-8-a-card-in-one-meld"),
    pytest.param(Play(("FC-12",), hands=(A, ("3C", "4D", "QS")), stock=("KS", "JK"),
                      moves=((1, draw()), OUT, (0, draw())), last=(0, discard("4D")),
                      expect={"cards.laid_down": {"byEngine": [["QS", "3C", "JK"]]},
                              "hand.scored=": {"points": 0, "cardsLeft": 0}}),
                 id="FC-12-engine-scores-the-minimum-leftover"),
    pytest.param(Play(("FC-12", "1.5-declare-final-melds"), hands=(A, ("3C", "4D", "QS")),
                      stock=("KS", "JK"), rules=(DECLARE,),
                      moves=((1, draw()), OUT, (0, draw())), last=(0, discard("4D")),
                      expect={"types": ["card.discarded", "hand.scored", "round.scored",
                                        "round.dealt"],
                              "hand.scored=": {"points": 12 + 20 + 50, "cardsLeft": 3}}),
                 id="1.5-declare-final-melds-keeps-what-is-not-laid"),
    pytest.param(Play(("FC-13",), hands=(A, ("9C", "9D", "QS")), stock=("KS", "9S"),
                      rules=(DECLARE,), moves=((1, draw()), OUT, (0, draw())),
                      last=(0, go_out([["9C", "9D", "9S"]], "QS")),
                      expect={"hand.scored=": {"points": 0, "cardsLeft": 0}}),
                 id="FC-13-all-down-on-the-last-turn"),
    pytest.param(Play(("FC-14",), hands=FOUR, stock=("5C", "KS"), moves=FOUR_OUT[:-1],
                      last=FOUR_OUT[-1], expect={"toAct": (3,)}),
                 id="FC-14-last-turns-start-left-of-who-went-out"),
    pytest.param(Play(("FC-14",), hands=FOUR, stock=("5C", "KS"),
                      moves=(*FOUR_OUT, (3, draw()), (3, discard("4S")), (0, draw()),
                             (0, discard("4C")), (1, draw())),
                      last=(1, discard("9C")),
                      expect={"round.scored": {"wentOut": 2}, "round.dealt": {"round": 2}}),
                 id="FC-14-one-turn-each-then-the-round-ends"),
    pytest.param(Play(("FC-16",), hands=(A, ("9C", "9D", "9S")), stock=("KS", "QS"),
                      options={"rounds": 1}, moves=((1, draw()), OUT, (0, draw())),
                      last=(0, discard("QS")), expect={"result": ((0, 1), {0: 0, 1: 0})}),
                 id="FC-16-tie-makes-co-winners"),
    pytest.param(Play(("FC-16", "1.5-option-tieBreak"), hands=(A, ("9C", "9D", "9S")),
                      stock=("KS", "QS"), options=PLAYOFF,
                      moves=((1, draw()), OUT, (0, draw())), last=(0, discard("QS")),
                      expect={"round.dealt": {"playoff": True, "cardsDealt": 6,
                                              "wildRank": "6", "players": [0, 1]},
                              "view": {"round": 2, "playoff": True}}),
                 id="FC-16-playoff-round-of-six"),
    pytest.param(Play(("FC-18", "1.5-single-deck-two-players"), hands=(), rules=(SINGLE_DECK,),
                      expect={"deck": 58, "view": {"stockSize": 58 - 6 - 1}}),
                 id="FC-18-one-deck-for-two"),
    pytest.param(Play(("FC-18",), hands=(), players=3, rules=(SINGLE_DECK,),
                      expect={"deck": 116}),
                 id="FC-18-two-decks-for-three"),
    pytest.param(Play(("FC-19",), moves=((1, draw()),), last=OUT,
                      expect={"view": {"hand": None, "players.handSize": [3, 0],
                                       "melds.cards": [list(A)], "topDiscard": "KS",
                                       "stockSize": 108},
                              "view0": {"hand": ["QS", "9C", "9D"]}}),
                 id="FC-19-counts-top-discard-stock-melds"),
    pytest.param(Play(("FC-19",), last=(1, draw()),
                      expect={"card.drawn=": {"source": "STOCK"},
                              "view": {"drawnCard": None, "drewFrom": "STOCK"},
                              "view0": {"drawnCard": None}, "view1": {"drawnCard": "KS"}}),
                 id="FC-19-stock-card-private"),
    # 1.5 the lay-off house rule
    pytest.param(Play(("1.5-lay-off-on-others",), hands=THREE, stock=("KS", "3C", "4H"),
                      rules=(LAY_OFF,), moves=THREE_OUT, last=(2, lay_off(["8H"], 0)),
                      expect={"cards.laid_off": {"result": ["5H", "6H", "7H", "8H"]}}),
                 id="1.5-lay-off-on-others"),
    pytest.param(Play(("1.5-lay-off-on-others",), hands=THREE, stock=("KS", "3C", "4H"),
                      moves=THREE_OUT, last=(2, lay_off(["8H"], 0)),
                      expect={"refused": "ILLEGAL_MOVE"}),
                 id="1.5-lay-off-refused-when-off"),
]  # fmt: skip


@pytest.mark.parametrize("play", PLAYS)
def test_play(play: Play) -> None:
    d = game_of(play)
    for seat, move in play.moves:
        d.move(seat, move)
    events = None
    if play.last is not None:
        before = d.state
        out = d.try_move(*play.last)
        refused = play.expect.get("refused")
        if refused is not None:
            assert isinstance(out, Rejected) and out.code == refused, out
            assert d.state is before
        else:
            assert not isinstance(out, Rejected), out
            events = out.events
    check(play, d, events)


# -- completeness -----------------------------------------------------------------------


def _labels_of_tables() -> set[str]:
    found: set[str] = set()
    for param in LIBRARY:
        found |= set(param.values[0])
    for param in PLAYS:
        found |= set(param.values[0].labels)
    return found


def test_every_decision_has_a_row() -> None:
    covered = _labels_of_tables()
    assert not set(LABELS) - covered, sorted(set(LABELS) - covered)
    assert covered <= set(LABELS), sorted(covered - set(LABELS))


def test_labels_follow_decisions_md() -> None:
    """The labels list every row of DECISIONS.md §1.1, §1.3 and §1.5."""
    if not DECISIONS_MD.exists():
        pytest.skip("DECISIONS.md is not beside this checkout")
    text = DECISIONS_MD.read_text(encoding="utf-8")
    section = text[text.index("## 1. Five Crowns") : text.index("## 2.")]
    facts = section[section.index("### 1.1") : section.index("### 1.2")]
    topics = [
        m.group(1).strip().lower().replace(" ", "-")
        for m in re.finditer(r"^\| ([^|]+) \|", facts, re.M)
        if m.group(1).strip() not in ("Topic", "---")
    ]
    assert tuple(topics) == TOPICS
    gaps = re.findall(r"^\| (FC-\d+) \|", section, re.M)
    assert gaps == [f"FC-{n}" for n in range(1, 20)]
    house = section[section.index("### 1.5") :]
    assert tuple(re.findall(r"^\| `five-crowns/([a-z-]+)` \|", house, re.M)) == HOUSE_RULES
    for option in OPTIONS:
        assert f"`{option}`" in house
