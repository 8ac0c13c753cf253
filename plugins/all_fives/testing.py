"""What Tablestate's shared tests need to know of All Fives (``tablestate.testing.GameFacts``):
its cards, who may see each, and the games the tests play. Pure, like the rules.

A card is an item. The stock, the other players' hands and the cards discarded face down
are hidden; the trick, the last trick, the tricks won, the turn-up and the cards set
aside are seen by everyone.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tablestate.engine import Event, Move, RuleSet
from tablestate.testing import GameFacts
from tablestate_all_fives import rules as r
from tablestate_all_fives.presets import traditional
from tablestate_all_fives.state import GAME_OVER, State
from tablestate_all_fives.views import unseen_dealt

PEG_OUT: Final = "all-fives/peg-out"
MAY_TRUMP: Final = "all-fives/may-trump-instead-of-following"
HLJG: Final = "all-fives/high-low-jack-game"
JACK_BONUS: Final = "all-fives/turn-up-jack-bonus"
GIFT_ALL: Final = "all-fives/beg-gift-to-all-opponents"
NO_GIFT_WIN: Final = "all-fives/dealer-cannot-gift-win"
DISCARD_SIX: Final = "all-fives/discard-to-six-after-run"
PARTNERS: Final = "all-fives/partnerships"
BUNCH: Final = "all-fives/bunch-on-agreement"
ALL_RULES: Final = (
    PEG_OUT,
    MAY_TRUMP,
    HLJG,
    JACK_BONUS,
    GIFT_ALL,
    NO_GIFT_WIN,
    DISCARD_SIX,
    PARTNERS,
    BUNCH,
)
# the rules each player count allows (DECISIONS.md 2.3)
FITS: Final = {
    2: [x for x in ALL_RULES if x not in (PARTNERS, GIFT_ALL)],
    3: [x for x in ALL_RULES if x not in (PARTNERS, BUNCH)],
    4: [x for x in ALL_RULES if x not in (GIFT_ALL, BUNCH)],
}
FAST: Final = {"targetScore": 31}
FLAGS: Final = ("stand", "beg", "giveOne", "run", "bunch", "declineBunch")


def _config(
    seats: Sequence[int], rules: Sequence[str], options: Mapping[str, Any]
) -> dict[str, Any]:
    """Three games of random legal play; at every step every listed move is tried, and
    every third step every move that could be made is refused if and only if unlisted."""
    names = "+".join(x.split("/")[1] for x in rules) or "default"
    id_ = f"{len(seats)}p{''.join(map(str, seats))}-{names}-{options.get('targetScore', 60)}"
    return {
        "id": id_,
        "seats": list(seats),
        "rules": list(rules),
        "options": dict(options),
        "seed": id_,
        "repeat": 3,
        "refusals_every": 3,
    }


def _random_rules(k: int) -> dict[str, Any]:
    """A random rule set that fits a random player count, random options, bots in some
    seats; every listed move tried one game in three."""
    chooser = random.Random(k)
    n = chooser.choice((2, 3, 4))
    rules = {x for x in FITS[n] if chooser.random() < 0.5} | ({PARTNERS} if n == 4 else set())
    seats = sorted(chooser.sample(range(4), n))
    bots = [s for s in seats if chooser.random() < 0.5]
    options = {
        "targetScore": chooser.choice((21, 31, 61)),
        "lowGoesTo": chooser.choice(("dealt", "won")),
        "gameTie": chooser.choice(("none", "eldest", "dealerOpponents")),
    }
    return {
        "id": f"random-rules-{k}",
        "seats": seats,
        "rules": sorted(rules),
        "bots": bots,
        "options": options,
        "seed": f"random-{k}",
        "probe_every": 1 if k % 3 == 0 else 0,
    }


# Seats, house rules and options of a case.
_Case = tuple[Sequence[int], Sequence[str], Mapping[str, Any]]

PLAYOUTS: Final = (
    *(
        _config(*c)
        for c in list[_Case](
            [
                ((0, 1), (), {}),
                ((1, 3), (), FAST),
                ((0, 1, 2), (), {}),
                ((0, 2, 3), (), FAST),
                *[((0, 1), (rule,), FAST) for rule in FITS[2]],
                *[((0, 1, 3), (rule,), FAST) for rule in FITS[3]],
                ((0, 1, 2, 3), (PARTNERS,), FAST),
                ((0, 1, 2, 3), (PARTNERS, MAY_TRUMP, HLJG), {"gameTie": "dealerOpponents"}),
                ((0, 2), (HLJG, MAY_TRUMP), {"lowGoesTo": "won", "gameTie": "eldest"}),
                (
                    (0, 1, 2),
                    (HLJG, PEG_OUT, GIFT_ALL),
                    {"gameTie": "dealerOpponents", "targetScore": 41},
                ),
                ((2, 3), (BUNCH, DISCARD_SIX, JACK_BONUS, NO_GIFT_WIN), FAST),
                ((0, 1), FITS[2], {}),
                *[(tuple(range(n)), *traditional(n)) for n in (2, 3, 4)],
            ]
        )
    ),
    *(_random_rules(k) for k in range(12)),
    # the same seed gives the same game (every case replays its moves), a bot in one seat
    *(
        {
            "id": f"same-seed-{name}",
            "seats": list(seats),
            "rules": list(rules),
            "options": FAST,
            "seed": "same",
            "bots": list(seats[:1]),
        }
        for name, seats, rules in (
            ("2p", (0, 2), ()),
            ("3p", (0, 1, 2), (GIFT_ALL, HLJG)),
            ("4p", (0, 1, 2, 3), (PARTNERS, PEG_OUT)),
            ("2p-bunch", (0, 1), (BUNCH, DISCARD_SIX, JACK_BONUS)),
        )
    ),
    *(
        {"id": f"bots-{n}p", "players": n, "seed": f"bots-{n}", "bots": "all", "repeat": 3}
        for n in (2, 3)
    ),
    # the cards run until the stock is too short: the deal is void and dealt again
    {
        "id": "4p-void-deal",
        "seats": [0, 1, 2, 3],
        "rules": [PARTNERS],
        "options": FAST,
        "seed": "void-15",
        "expect": {"deal.void": 1},
    },
)

# seed, players, bots, an empty seat (the rules then set one by one while the table is open)
API_GAMES: Final = (
    {
        "id": "2p-a-bot-random-rules",
        "seats": 2,
        "seated": [0, 1],
        "bots": [0],
        "seed": 1,
        "rules": "random",
    },
    {
        "id": "2p-traditional",
        "seats": 2,
        "seated": [0, 1],
        "bots": [],
        "seed": 2,
        "rules": traditional(2)[0],
    },
    {
        "id": "3p-a-bot-an-empty-seat-random-rules",
        "seats": 4,
        "seated": [0, 1, 3],
        "bots": [0],
        "seed": 3,
        "rules": "random",
        "rules_later": True,
    },
    {
        "id": "3p-two-bots-traditional",
        "seats": 3,
        "seated": [0, 1, 2],
        "bots": [0, 1],
        "seed": 4,
        "rules": traditional(3)[0],
    },
    {
        "id": "4p-partnerships-two-bots-random-rules",
        "seats": 4,
        "seated": [0, 1, 2, 3],
        "bots": [0, 1],
        "seed": 5,
        "rules": "random",
        "require": [PARTNERS],
    },
    {
        "id": "4p-partnerships-random-rules",
        "seats": 4,
        "seated": [0, 1, 2, 3],
        "bots": [],
        "seed": 6,
        "rules": "random",
        "require": [PARTNERS],
    },
)


class Facts(GameFacts):
    """All Fives' facts (see the module's docstring)."""

    playouts = PLAYOUTS
    api_games = API_GAMES

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str]:
        return Counter(r.DECK)

    def is_item(self, name: str) -> bool:
        return r.is_card(name)

    def hidden(self, state: State, seat: int | None) -> set[str]:
        pos = state.position(seat) if seat is not None else None
        out = set(state.stock) | set(state.discards)
        for i, hand in enumerate(state.hands):
            if i != pos:
                out |= set(hand)
        return out

    def visible(self, state: State, seat: int | None) -> set[str]:
        pos = state.position(seat) if seat is not None else None
        out = {c for _, c in state.trick} | {c for _, c in state.last_trick}
        out |= set(state.set_aside) | {c for won in state.won for c in won}
        out |= {state.turn_up} if state.turn_up is not None else set()
        return out | (set(state.hands[pos]) if pos is not None else set())

    def released(
        self, before: State, after: State, seat: int | None, events: Sequence[Event]
    ) -> set[str]:
        """The cards played and turned up face up, which a new deal may have shuffled away."""
        return {e.data["card"] for e in events if e.type in ("card.played", "card.turned")}

    def shown(self, before: State, after: State, seat: int, events: Sequence[Event]) -> set[str]:
        """The packets dealt to ``seat`` in a deal this commit voided and dealt again."""
        last = max((i for i, e in enumerate(events) if e.type == "deal.started"), default=0)
        dealt = [e.private.get(seat, {}) for e in events[:last] if e.type == "cards.dealt"]
        return {c for part in dealt for c in part.get("cards", ())}

    def scramble(self, state: State, seat: int | None, rng: random.Random) -> State:
        return unseen_dealt(state, seat, lambda pool: rng.sample(pool, len(pool)))

    def moves(self, state: State, seat: int) -> list[Move]:
        cards = [{k: {"card": c}} for k in ("play", "discard") for c in r.DECK]
        return [*({flag: True} for flag in FLAGS), *cards]

    def options(self, pick: random.Random, players: int) -> dict[str, Any]:
        return {
            "lowGoesTo": pick.choice(("dealt", "won")),
            "gameTie": pick.choice(("none", "eldest", "dealerOpponents")),
            "targetScore": pick.choice((21, 31)),  # short games
        }

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        pos = state.position(seat) if seat is not None else None
        own = None if pos is None else list(r.sort_cards(state.hands[pos]))
        assert view["hand"] == own, "a seat sees its own hand, a spectator none"
        players = view["players"]
        counted = sum(p["handSize"] for p in players) + view["stockSize"]
        counted += (view["turnUp"] is not None) + len(view["setAside"]) + view["discardedCount"]
        counted += len(view["trick"]) + len(players) * sum(p["tricksWon"] for p in players)
        assert counted == len(r.DECK), f"the view's public counts make {counted} cards"

    def check_commit(
        self, before: State | None, after: State, events: Sequence[Event], rules: RuleSet
    ) -> None:
        """A finished game has winners. The hands followed through the events alone: each
        deal's packets tell each seat its own cards; no public part names a card in a
        hand, no private part another seat's; and the events end with the state's hands."""
        seats = after.seats
        assert after.phase != GAME_OVER or after.winners, "a game over has winners"
        hands = {s: set() if before is None else set(before.hands[p]) for p, s in enumerate(seats)}
        for e in events:
            if e.type == "deal.started":
                hands = {s: set() for s in seats}
            elif e.type == "cards.dealt":
                assert set(e.private) == set(seats), "a packet for every seat"
                for seat, part in e.private.items():
                    hands[seat] |= set(part["cards"])
            elif e.type == "card.played":
                assert e.seat is not None
                hands[e.seat].remove(e.data["card"])
            elif e.type == "card.discarded":
                assert e.seat is not None and set(e.private) == {e.seat}
                hands[e.seat].remove(e.private[e.seat]["card"])
            held = set().union(*hands.values())
            leak = self.names(e.data) & held
            assert not leak, f"public data of {e.type} names {sorted(leak)}, in a hand"
            for seat, part in e.private.items():
                assert not self.names(part) & (held - hands[seat]), f"{e.type} shows another hand"
        assert hands == {s: set(after.hands[p]) for p, s in enumerate(seats)}, "events and state"


FACTS: Final = Facts()
