"""What Tablestate's shared tests need to know of Five by Five (``tablestate.testing.GameFacts``):
its dice and cards, who may see each, and the games the tests play. Pure, like the rules.

Items, for conservation: the 40 dice by colour (``die:R``), the 60 action cards
(``action:PAINT``) and the objective deck's cards (``objective:<id>``). For secrecy, the
names a view or an event may hold: objective ids and special action cards (a colour
action card is named like a die colour, so strings cannot tell them apart; the events'
own check below covers those). Other players' hands (objective hands are open with
``open-objectives``), the objective deck and discard and all but the face-up card of each
action deck are hidden.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Final

from tablestate.engine import Event, Move, RuleSet
from tablestate.testing import GameFacts
from tablestate_five_by_five.game import conserved
from tablestate_five_by_five.rules import (
    ACTION_COUNTS,
    COLORS,
    DICE_PER_COLOR,
    OBJECTIVE_BY_ID,
    SPECIAL_ACTIONS,
    SPECIAL_IDS,
    satisfied_objectives,
)
from tablestate_five_by_five.state import State
from tablestate_five_by_five.views import unseen_dealt

NAMES: Final = frozenset(OBJECTIVE_BY_ID) | frozenset(SPECIAL_ACTIONS)
RULES: Final = (
    "removed-dice-leave",
    "shared-specials",
    "diagonal-lines",
    "plus-minus-wrap",
    "swap-into-empty",
    "partial-action-discard",
    "open-objectives",
    "equal-turns",
)


def _game(
    id_: str, players: Any, seed: str, rules: Sequence[str] = (), **more: Any
) -> dict[str, Any]:
    """A random game: a kind of move first, then one of that kind, so that the many ways
    to forfeit (every part of a hand) do not crowd out play."""
    key = "players" if isinstance(players, int) else "seats"
    return {
        "id": id_,
        key: players,
        "rules": list(rules),
        "seed": seed,
        "by_kind": True,
        "probe_every": 0,
        **more,
    }


PLAYOUTS: Final = (
    *(
        _game(f"{n}p", n, f"count-{n}", probe_every=9 if n in (2, 5) else 0)
        for n in (1, 2, 3, 4, 5)
    ),
    *(
        _game(f"seats-{'-'.join(map(str, s))}", s, f"gap-{s}")
        for s in ([0, 2], [1, 3, 4], [0, 2, 4])
    ),
    *(_game(f"rule-{rule}", 3, f"rule-{rule}", (rule,), probe_every=15) for rule in sorted(RULES)),
    *(
        _game(f"combo-{name}", 4, f"combo-{name}", rules, probe_every=25)
        for name, rules in (
            ("all", RULES),
            (
                "friendly",
                ("shared-specials", "open-objectives", "diagonal-lines", "plus-minus-wrap"),
            ),
            ("loose-hands", ("partial-action-discard", "removed-dice-leave", "plus-minus-wrap")),
            ("scarce-dice", ("removed-dice-leave", "equal-turns", "swap-into-empty")),
        )
    ),
    # random rule sets and options (drawn once, from random.Random(0), (1), (2))
    _game(
        "random-rules-0",
        3,
        "random-0",
        ("open-objectives", "partial-action-discard", "removed-dice-leave", "swap-into-empty"),
        options={"eachColorMin": 5, "actionHandSize": 6},
    ),
    _game(
        "random-rules-1",
        2,
        "random-1",
        ("diagonal-lines", "partial-action-discard", "plus-minus-wrap", "removed-dice-leave"),
        options={"eachColorMin": 5, "actionHandSize": 3},
    ),
    _game(
        "random-rules-2",
        5,
        "random-2",
        ("open-objectives", "partial-action-discard", "swap-into-empty"),
        options={"eachColorMin": 4, "actionHandSize": 6},
    ),
    _game("solo-bot", 1, "bots-1", bots="all", expect={"objective.scored": 1}),
    _game("three-bots", 3, "bots-3", bots="all", expect={"objective.scored": 1}),
    _game(
        "five-bots-scarce",
        5,
        "bots-5",
        ("removed-dice-leave", "equal-turns"),
        bots="all",
        expect={"objective.scored": 1},
    ),
    _game("four-bots-all-rules", 4, "bots-4", RULES, bots="all", expect={"objective.scored": 1}),
    _game("bots-against-random-play", [0, 1, 2], "mixed", bots=[0, 2], probe_every=20),
    _game(
        "options-in-play",
        3,
        "options",
        options={
            "eachColorMin": 4,
            "actionHandSize": 2,
            "objectiveHandSize": 1,
            "objectiveCounts": {"line-all-odd": 4, "square-same-color": 0},
            "objectivePoints": {"square-distinct-numbers": 7},
        },
    ),
    *(
        _game(
            f"prefilled-{n}p-{k}",
            n,
            f"prefill-{k}",
            options={"prefilledSquares": k},
            expect={"board.prefilled": 1},
        )
        for n, k in ((2, 12), (4, 24))
    ),
    _game("same-seed-3p-diagonal", 3, "same", ("diagonal-lines",)),
    _game("driver-seats-0-3-equal-turns", [0, 3], "playout", ("equal-turns",)),
    # a move is accepted if and only if it is listed: every well-formed move, every 15 steps
    _game("iff-default", 2, "iff-()", by_kind=False, refusals_every=15),
    _game(
        "iff-rules",
        2,
        "iff-rules",
        ("swap-into-empty", "plus-minus-wrap", "partial-action-discard", "removed-dice-leave"),
        by_kind=False,
        refusals_every=15,
    ),
)

# the games with more seats start from a board partly filled (prefilledSquares), to keep
# the suite short; the humans mostly play on rather than forfeit
_AVOID: Final = {"forfeitActions": 0.9, "forfeitObjectives": 0.9}
API_GAMES: Final = tuple(
    {
        "id": id_,
        "seats": n,
        "seated": list(range(n)),
        "bots": bots,
        "seed": seed,
        "rules": "random",
        "options": {"prefilledSquares": prefilled},
        "avoid": _AVOID,
    }
    for id_, seed, n, bots, prefilled in (
        ("solo-real-game", 1, 1, [], 0),
        ("2p-a-bot-real-game", 2, 2, [1], 0),
        ("3p", 3, 3, [], 10),
        ("4p-two-bots", 4, 4, [0, 3], 12),
        ("5p-a-bot", 5, 5, [2], 14),
        ("3p-bots-real-game", 6, 3, [0, 1, 2], 0),
    )
)


def _parts(items: Sequence[str]) -> list[list[str]]:
    found = {c for n in range(len(items) + 1) for c in combinations(items, n)}
    return [list(c) for c in sorted(found)]


class Facts(GameFacts):
    """Five by Five's facts (see the module's docstring)."""

    playouts = PLAYOUTS
    api_games = API_GAMES
    # Events that show what was hidden, left out of the scramble's comparison (the names
    # they hold are still checked): a reshuffle shows the new face-up action cards, one of
    # which the mover then takes into its hand; drawn objectives are listed in the order
    # the hidden deck held them (the views sort a hand).
    revealing = frozenset({"actions.reshuffled", "objective.drawn"})

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str]:
        out = Counter({f"die:{c}": DICE_PER_COLOR for c in COLORS})
        out.update({f"action:{a}": n for a, n in ACTION_COUNTS.items()})
        out.update({f"objective:{o}": n for o, n in options["objectiveCounts"].items() if n})
        return out

    def is_item(self, name: str) -> bool:
        return name in NAMES

    def hidden(self, state: State, seat: int | None) -> set[str]:
        out = set(state.objective_deck) | set(state.objective_discard)
        for deck in state.decks:
            out |= set(deck[1:])
        for p in state.players:
            if p.seat != seat:
                out |= set(p.actions)
                if not state.config.open_objectives:
                    out |= set(p.objectives)
        return out & NAMES

    def visible(self, state: State, seat: int | None) -> set[str]:
        cfg = state.config
        out = set(SPECIAL_IDS) | set(state.action_discard)
        out |= satisfied_objectives(state.board, each_color_min=cfg.each_color_min, lines=cfg.lines)
        out |= {deck[0] for deck in state.decks if deck}
        for p in state.players:
            out |= {oid for oid, _ in p.scored}
            if p.seat == seat:
                out |= set(p.actions) | set(p.objectives)
            if cfg.open_objectives:
                out |= set(p.objectives)
        return out

    def released(
        self, before: State, after: State, seat: int | None, events: Sequence[Event]
    ) -> set[str]:
        """The action cards the mover played or forfeited (public, like every discard)."""
        mine = [p for p in before.players if p.seat == seat]
        now = [p for p in after.players if p.seat == seat]
        return set(mine[0].actions) - set(now[0].actions) if mine and now else set()

    def scramble(self, state: State, seat: int | None, rng: random.Random) -> State:
        return unseen_dealt(state, seat, lambda pool: rng.sample(pool, len(pool)))

    def moves(self, state: State, seat: int) -> list[Move]:
        """Every well-formed move worth trying now: all kinds, squares, colours and cards."""
        player = state.players[state.position(seat)]
        squares = [{"row": r, "col": c} for r in range(5) for c in range(5)]
        out: list[Move] = [{"done": True}]
        out += [{"playColor": {"card": a, "color": b}} for a in COLORS for b in COLORS]
        for s in squares:
            out += [{"place": {"square": s}}, {"reroll": {"square": s}}]
            out += [{"plusMinus": {"square": s, "delta": x}} for x in (1, -1)]
            out += [{k: {"square": s, "color": c}} for k in ("remove", "paint") for c in COLORS]
            out += [{"swap": {"first": s, "second": t}} for t in squares]
        for oid in OBJECTIVE_BY_ID:
            out += [{"playObjective": {"objective": oid}}, {"claimSpecial": {"objective": oid}}]
        out += [{"drawAction": {"deck": x}} for x in ("A", "B")]
        out += [{"forfeitActions": {"cards": p}} for p in _parts(player.actions)]
        out += [{"forfeitActions": {"cards": [*player.actions, "PAINT"]}}]
        out += [{"forfeitObjectives": {"objectives": p}} for p in _parts(player.objectives)]
        out += [{"forfeitObjectives": {"objectives": ["line-all-odd"] * 4}}]
        return out

    def options(self, pick: random.Random, players: int) -> dict[str, Any]:
        return {"eachColorMin": pick.choice([4, 5]), "actionHandSize": pick.choice([3, 4, 5])}

    def check_view(self, state: State, seat: int | None, view: Any) -> None:
        """Its own hand and no other; the public counts add up: 40 dice, 60 action cards
        and the objective deck; each special's claimants are those who scored it."""
        if seat is None:
            assert view["hand"] is None
        else:
            me = state.players[state.position(seat)]
            assert view["hand"]["actions"] == list(me.actions)
            assert view["hand"]["objectives"] == list(me.objectives)
        players = view["players"]
        for p in players:
            assert (p["objectives"] is not None) == state.config.open_objectives
        dice = sum(x["count"] for x in view["supply"] + view["outOfGame"])
        dice += sum(1 for row in view["board"] for d in row if d is not None)
        dice += view["pendingDie"] is not None
        assert dice == len(COLORS) * DICE_PER_COLOR, f"the view shows {dice} dice"
        actions = sum(p["actionCount"] for p in players) + view["actionDiscardSize"]
        actions += sum(d["size"] for d in view["decks"])
        assert actions == sum(ACTION_COUNTS.values()), f"the view shows {actions} action cards"
        held = sum(p["objectiveCount"] for p in players) + view["objectiveDeckSize"]
        held += sum(1 for p in players for s in p["scored"] if s["objective"] not in SPECIAL_IDS)
        held += view["objectiveDiscardSize"]
        objectives = sum(n for k, n in conserved(state).items() if k.startswith("objective:"))
        assert held == objectives, f"the view shows {held} objective cards of {objectives}"
        for special in view["specials"]:
            oid = special["objective"]
            claimed = [
                p["seat"] for p in players if any(s["objective"] == oid for s in p["scored"])
            ]
            assert special["claimedBy"] == claimed

    def check_commit(
        self, before: State | None, after: State, events: Sequence[Event], rules: RuleSet
    ) -> None:
        """Dice counts stay whole; the winners have the best score; a special is scored
        once by a seat (and by one seat
        without ``shared-specials``); a private part goes to its event's seat only, and no
        public part repeats one (the forfeited action cards excepted: they are public)."""
        assert min(after.supply) >= 0 and min(after.out) >= 0
        if after.winners:
            best = max(p.score for p in after.players)
            assert all(p.score == best for p in after.players if p.seat in after.winners)
        shared = rules.is_on("five-by-five/shared-specials")
        for sid in SPECIAL_IDS:
            claimed = after.claimed_by(sid)
            assert len(set(claimed)) == len(claimed)
            assert shared or len(claimed) <= 1, f"{sid} claimed by {claimed}"
        open_objectives = after.config.open_objectives
        for e in events:
            assert set(e.private) <= {e.seat}, e
            text = json.dumps(e.data)
            if e.type in ("hand.dealt", "action.drawn"):
                assert "card" not in e.data and "actions" not in e.data, e
            if e.type in ("hand.dealt", "objective.drawn", "objectives.forfeited"):
                assert ("objectives" in e.data) == open_objectives, e
            for private in e.private.values():
                for key, hidden in private.items():
                    if key == "objectives" and open_objectives:
                        continue
                    if e.type != "actions.forfeited":
                        assert json.dumps({key: hidden}) not in text, e


FACTS: Final = Facts()
