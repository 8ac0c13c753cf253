"""What Tablestate's shared tests need to know of Five Crowns (``tablestate.testing.GameFacts``):
its cards, who may see each, and the games the tests play. Pure, like the rules.

A card is an item (every card exists twice: ``"7T"`` names either copy). The stock and the
other players' hands are hidden; the discard pile (each card was announced), the melds,
a card taken from the discard pile and the solo piles are seen by everyone.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tablestate.engine import Event, Move, RuleSet
from tablestate.testing import GameFacts
from tablestate_five_crowns.rules import deck, is_card, sort_cards
from tablestate_five_crowns.state import DISCARD, STOCK, State
from tablestate_five_crowns.views import unseen_dealt

NATURAL: Final = "five-crowns/natural-required"
RATIO: Final = "five-crowns/wilds-not-exceed-naturals"
SINGLE_DECK: Final = "five-crowns/single-deck-two-players"
LAY_OFF: Final = "five-crowns/lay-off-on-others"
NO_REDISCARD: Final = "five-crowns/no-immediate-rediscard"
WHOLE_DISCARD: Final = "five-crowns/reshuffle-whole-discard"
DECLARE: Final = "five-crowns/declare-final-melds"


def _game(id_: str, players: Any, rules: Sequence[str], seed: int, **more: Any) -> dict[str, Any]:
    """A conformance game. Random play alone rarely goes out once hands are big, so the
    bot makes 60% of the moves unless the case says otherwise."""
    key = "players" if isinstance(players, int) else "seats"
    case = {"id": id_, key: players, "rules": list(rules), "seed": f"conformance-{seed}"}
    return {"bot_share": 0.6, "probe_every": 3, **case, **more}


PLAYOUTS: Final = (
    _game("solo", 1, (), 3, refusals_every=5),
    _game("solo-natural-required", 1, (NATURAL,), 4),
    _game("solo-wilds-not-exceed", 1, (RATIO,), 5),
    _game("2p", 2, (), 6, options={"rounds": 3}, refusals_every=4),
    _game("2p-single-deck", 2, (SINGLE_DECK,), 7, options={"rounds": 4}),
    _game("2p-combo", 2, (SINGLE_DECK, WHOLE_DISCARD, NO_REDISCARD), 8, options={"rounds": 3}),
    _game("4p", 4, (), 9, options={"rounds": 3}),
    _game("4p-natural-required", 4, (NATURAL,), 10, options={"rounds": 3}),
    _game("4p-wilds-not-exceed", 4, (RATIO,), 11, options={"rounds": 3}),
    _game("4p-lay-off", 4, (LAY_OFF,), 12, options={"rounds": 4}, refusals_every=4),
    _game("3p-lay-off-declare", 3, (LAY_OFF, DECLARE), 13, options={"rounds": 4}),
    _game("3p-declare", 3, (DECLARE,), 14, options={"rounds": 3}),
    _game("4p-no-rediscard", 4, (NO_REDISCARD,), 15, options={"rounds": 3}),
    _game("5p-whole-discard", 5, (WHOLE_DISCARD,), 16, options={"rounds": 3}),
    _game("7p", 7, (), 17, options={"rounds": 2}),
    _game("7p-combo", 7, (NATURAL, LAY_OFF, NO_REDISCARD), 18, options={"rounds": 2}),
    _game("seats-with-gap", (0, 2), (), 19, options={"rounds": 3, "firstDealer": "random"}),
    _game("gap-ratio-lay-off", (1, 3, 6), (RATIO, LAY_OFF), 20, options={"rounds": 2}),
    _game("3p-playoff-option", 3, (), 21, options={"rounds": 2, "tieBreak": "playoffRound"}),
    # purely random play draws long enough to empty the stock, which is made anew
    *(
        _game(
            f"random-only-{name}",
            2,
            rules,
            3,
            bot_share=0.0,
            options={"rounds": 3},
            expect={"stock.reshuffled": 1},
        )
        for name, rules in (
            ("2p", ()),
            ("2p-whole-discard", (WHOLE_DISCARD,)),
            ("2p-single-deck-whole-discard", (SINGLE_DECK, WHOLE_DISCARD)),
            ("2p-no-rediscard", (NO_REDISCARD,)),
        )
    ),
    _game("eleven-rounds-with-bots", 4, (), 31, bot_share=0.9, expect={"round.scored": 11}),
    _game(
        "eleven-rounds-house-rules",
        6,
        (NATURAL, RATIO, LAY_OFF, NO_REDISCARD, DECLARE),
        32,
        bot_share=0.9,
        options={"rounds": 11},
    ),
    _game("same-seed-solo", 1, (), 40, options={"rounds": 2}),
    _game("same-seed-3p-lay-off", 3, (LAY_OFF,), 40, options={"rounds": 2}),
    _game("same-seed-7p-lay-off", 7, (LAY_OFF,), 40, options={"rounds": 2}),
)

# seats at the table, the seats taken (the others stay empty), which of them are bots;
# the humans play the bot's move half the time, and mostly go out when they can
_PREFER: Final = {"goOut": 0.9, "layDown": 0.7, "layOff": 0.5}
API_GAMES: Final = tuple(
    {
        "id": id_,
        "seats": seats,
        "seated": list(seated),
        "bots": list(bots),
        "seed": seed,
        "rules": "random",
        "bot_share": 0.5,
        "prefer": _PREFER,
    }
    for id_, seats, seated, bots, seed in (
        ("2p", 2, (0, 1), (), 1),
        ("3p-one-bot", 3, (0, 1, 2), (2,), 2),
        ("4p-seat-gap-one-bot", 5, (0, 2, 3, 4), (3,), 3),
        ("6p-two-bots", 6, range(6), (1, 4), 4),
        ("7p-four-bots", 7, range(7), (0, 2, 4, 5), 5),
        ("2p-one-bot", 2, (0, 1), (1,), 9),
        ("solo", 1, (0,), (), 9),
    )
)


def _pos(state: State, seat: int | None) -> int | None:
    return state.seats.index(seat) if seat is not None and seat in state.seats else None


class Facts(GameFacts):
    """Five Crowns' facts (see the module's docstring)."""

    playouts = PLAYOUTS
    api_games = API_GAMES
    # any valid arrangement is accepted; legalMoves lists one (a lay-off: each single card)
    free_kinds = frozenset({"goOut", "layDown", "layOff"})

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str]:
        copies = 1 if rules.is_on(SINGLE_DECK) and len(seats) == 2 else 2
        return Counter(deck(copies))

    def is_item(self, name: str) -> bool:
        return is_card(name)

    def hidden(self, state: State, seat: int | None) -> set[str]:
        pos = _pos(state, seat)
        out = set(state.stock)
        for i, hand in enumerate(state.hands):
            if i != pos:
                out |= set(hand)
        return out

    def visible(self, state: State, seat: int | None) -> set[str]:
        pos = _pos(state, seat)
        out = set(state.discard) | {c for m in state.melds for c in m.meld.cards}
        if pos is not None:
            out |= set(state.hands[pos])
        if state.drawn is not None and (state.drawn_from == DISCARD or pos == state.turn):
            out.add(state.drawn)
        if state.solo is not None:
            out |= {c for p in state.solo.piles for c in p.cards} | set(state.solo.dead)
            if state.solo.current is not None:
                out.add(state.solo.current)
        return out

    def released(
        self, before: State, after: State, seat: int | None, events: Sequence[Event]
    ) -> set[str]:
        """The cards that left the mover's hand, but for what it kept: when the round ended
        and the hands were dealt anew, its leftover (shown to itself alone)."""
        pos = _pos(before, seat)
        if pos is None or seat is None:  # seat None has no position either
            return set()
        kept: Sequence[str] = after.hands[pos]
        if any(e.type == "round.scored" for e in events):
            scored = [e for e in events if e.type == "hand.scored" and e.seat == seat]
            kept = scored[0].private[seat]["leftover"] if scored else []
        return set(Counter(before.hands[pos]) - Counter(kept))

    def scramble(self, state: State, seat: int | None, rng: random.Random) -> State:
        return unseen_dealt(state, seat, lambda pool: rng.sample(pool, len(pool)))

    def moves(self, state: State, seat: int) -> list[Move]:
        """Draws, discards (of cards held and not), lay-offs of one card and of two on
        every meld and one past them, the solo game's places, and going out or laying
        down with all the hand but one card as one meld."""
        pos = _pos(state, seat)
        assert pos is not None
        hand = sort_cards(set(state.hands[pos]))
        foreign = [c for c in ("3S", "10H", "KT", "JK") if c not in hand]
        out: list[Move] = [{"draw": {"source": s}} for s in (STOCK, DISCARD)]
        out += [{"discard": {"card": c}} for c in (*hand, *foreign)]
        out += [
            {"layOff": {"cards": [c], "meld": i}} for c in hand for i in range(len(state.melds) + 1)
        ]
        if state.solo is not None and state.solo.current is not None:
            for i, pile in enumerate(state.solo.piles):
                cards = sort_cards({*pile.cards, state.solo.current})
                out += [{"place": {"pile": i, "discard": c}} for c in (*cards, *foreign[:1])]
        return out

    def options(self, pick: random.Random, players: int) -> dict[str, Any]:
        return {
            "rounds": pick.randint(1, 4 if players <= 4 else 3),
            "tieBreak": pick.choice(["shared", "playoffRound"]),
            "firstDealer": pick.choice(["seat0", "random"]),
        }

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        pos = _pos(state, seat)
        assert view["hand"] == (None if pos is None else list(state.hands[pos]))
        assert [p["handSize"] for p in view["players"]] == [len(h) for h in state.hands]
        counted = view["stockSize"] + view["discardSize"]
        counted += sum(p["handSize"] for p in view["players"])
        counted += sum(len(m["cards"]) for m in view["melds"])
        if view["solo"] is not None:
            solo = view["solo"]
            counted += sum(len(p["cards"]) for p in solo["piles"]) + solo["deadCount"]
            counted += solo["current"] is not None
        assert counted == len(state.all_cards()), "the view's public counts lose or make cards"

    def check_commit(
        self, before: State | None, after: State, events: Sequence[Event], rules: RuleSet
    ) -> None:
        """A hand (or a leftover) is never public; a stock card drawn is its drawer's
        alone; only a deal has private parts for others than the actor, each seat's own
        hand."""
        for e in events:
            assert "hand" not in e.data and "leftover" not in e.data, e
            if e.type == "card.drawn" and e.data["source"] == STOCK:
                assert "card" not in e.data
            if e.type == "round.dealt":
                assert set(e.private) == set(e.data["players"])
                for seat, part in e.private.items():
                    assert part["hand"] == list(after.hands[after.seats.index(seat)])
            else:
                assert set(e.private) <= {e.seat}, e
            if e.type == "hand.scored":
                assert e.seat is not None
                assert len(e.private[e.seat]["leftover"]) == e.data["cardsLeft"]


FACTS: Final = Facts()
