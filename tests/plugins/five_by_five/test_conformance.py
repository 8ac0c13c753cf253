"""Seeded random full games of Five by Five with the DESIGN.md invariants checked at every
step: conservation (40 dice, 60 action cards, the objective deck), secrecy, determinism,
every listed move accepted, progress. Random legal play, bots, seats with gaps, every house
rule alone, sensible combinations and random rule sets."""

from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from plugins.five_by_five.game import GAME
from plugins.five_by_five.rules import COLORS, OBJECTIVE_BY_ID
from service.engine import Move, Outcome, Rng
from service.testing import GameDriver

from .helpers import (
    RULE_MODULES,
    check_conservation,
    check_event_secrecy,
    check_secrecy,
    check_specials,
    ruleset,
)


class CheckedDriver(GameDriver):
    """A driver that checks the invariants after every move, and every ``every``-th time
    it lists moves, that each listed move is well formed and accepted."""

    def __init__(self, *args: Any, every: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.every = every
        self.listed = 0
        self.shared = self.rules.is_on("five-by-five/shared-specials")
        self.check()
        check_event_secrecy(self.events, self.state.config.open_objectives)

    def check(self) -> None:
        check_conservation(self.state, self.options)
        check_specials(self.state, self.shared)
        check_secrecy(self.state)
        self.check_roundtrip()
        acting = self.to_act()
        assert len(acting) <= 1
        for seat in self.seats:
            if seat not in acting:
                assert self.legal(seat) == []

    def legal(self, seat: int) -> list[Move]:
        moves = super().legal(seat)
        self.listed += 1
        if self.every and moves and self.listed % self.every == 0:
            assert len({repr(m) for m in moves}) == len(moves), "a move listed twice"
            for move in moves:
                assert self.game.check_move(move) is None, move
                out = self.game.apply(self.state, seat, move, Rng(b"probe"), self.rules)
                assert isinstance(out, Outcome), (move, out)
        return moves

    def move(self, seat: int, move: Move) -> tuple[Any, ...]:
        events = super().move(seat, move)
        self.check()
        check_event_secrecy(list(events), self.state.config.open_objectives)
        return events


def random_move(moves: list[Move], chooser: random.Random) -> Move:
    """A random legal move: a kind of move first, then one of that kind, so that the many
    ways to forfeit (every part of a hand) do not crowd out play."""
    kind = chooser.choice(sorted({next(iter(m)) for m in moves}))
    return chooser.choice([m for m in moves if kind in m])


def play_random(players, rules=(), seed="s", options=None, every=0, bots=()) -> CheckedDriver:
    d = CheckedDriver(
        GAME,
        players=players,
        options=options,
        rules=ruleset(*rules),
        seed=seed,
        every=every,
    )
    chooser = random.Random(seed)
    bot_rng = Rng(f"bot-{seed}".encode())
    for _ in range(5000):
        if d.result() is not None:
            break
        (seat,) = d.to_act()
        moves = d.legal(seat)
        assert moves, f"seat {seat} has no legal move"
        if seat in bots:
            move = GAME.bot(d.state, seat, bot_rng, d.rules)
            assert move in moves, move
        else:
            move = random_move(moves, chooser)
        d.move(seat, move)
    result = d.result()
    assert result is not None, "the game did not end"
    assert set(result.scores) == set(d.seats) and set(result.winners) <= set(d.seats)
    best = max(result.scores.values())
    assert all(result.scores[w] == best for w in result.winners)
    return d


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_games_for_every_player_count(players: int) -> None:
    play_random(players, seed=f"count-{players}", every=9 if players in (2, 5) else 0)


@pytest.mark.parametrize("seats", [[0, 2], [1, 3, 4], [0, 2, 4]], ids=str)
def test_seats_with_gaps(seats: list[int]) -> None:
    d = play_random(seats, seed=f"gap-{seats}")
    assert sorted(d.result().scores) == sorted(seats)


@pytest.mark.parametrize("rule", sorted(RULE_MODULES))
def test_each_house_rule(rule: str) -> None:
    play_random(3, rules=(rule,), seed=f"rule-{rule}", every=15)


COMBOS = {
    "all": tuple(RULE_MODULES),
    "scarce-dice": ("removed-dice-leave", "equal-turns", "swap-into-empty"),
    "friendly": ("shared-specials", "open-objectives", "diagonal-lines", "plus-minus-wrap"),
    "loose-hands": ("partial-action-discard", "removed-dice-leave", "plus-minus-wrap"),
}


@pytest.mark.parametrize("combo", sorted(COMBOS))
def test_house_rule_combinations(combo: str) -> None:
    play_random(4, rules=COMBOS[combo], seed=f"combo-{combo}", every=25)


@pytest.mark.parametrize("seed", range(3))
def test_random_house_rule_sets(seed: int) -> None:
    pick = random.Random(seed)
    rules = tuple(r for r in sorted(RULE_MODULES) if pick.random() < 0.5)
    players = pick.choice([2, 3, 5])
    options = {"eachColorMin": pick.choice([4, 5]), "actionHandSize": pick.choice([3, 4, 6])}
    play_random(players, rules=rules, seed=f"random-{seed}", options=options)


@pytest.mark.parametrize(
    "players, rules",
    [
        pytest.param(1, (), id="solo-bot"),
        pytest.param(3, (), id="three-bots"),
        pytest.param(5, ("removed-dice-leave", "equal-turns"), id="five-bots-scarce"),
        pytest.param(4, tuple(RULE_MODULES), id="four-bots-all-rules"),
    ],
)
def test_bot_games(players: int, rules: tuple[str, ...]) -> None:
    d = play_random(players, rules=rules, seed=f"bots-{players}", bots=range(players))
    assert sum(d.result().scores.values()) > 0  # bots complete objectives


def test_bots_against_random_play() -> None:
    play_random([0, 1, 2], seed="mixed", bots=(0, 2), every=20)


def test_options_in_play() -> None:
    options = {
        "eachColorMin": 4,
        "actionHandSize": 2,
        "objectiveHandSize": 1,
        "objectiveCounts": {"line-all-odd": 4, "square-same-color": 0},
        "objectivePoints": {"square-distinct-numbers": 7},
    }
    play_random(3, seed="options", options=options)


@pytest.mark.parametrize("players, prefilled", [(2, 12), (4, 24)], ids=["2p-12", "4p-24"])
def test_games_from_a_prefilled_board(players: int, prefilled: int) -> None:
    d = play_random(players, seed=f"prefill-{prefilled}", options={"prefilledSquares": prefilled})
    assert any(e.type == "board.prefilled" for e in d.events)


def test_same_seed_same_game() -> None:
    def events(seed: str) -> list[Any]:
        d = GameDriver(GAME, players=3, seed=seed, rules=ruleset("diagonal-lines"))
        d.random_playout(chooser=random.Random(7), check=False)
        return d.events

    first, again, other = events("same"), events("same"), events("other")
    assert first == again
    assert first != other


def test_random_playout_of_the_service_driver() -> None:
    d = GameDriver(GAME, players=[0, 3], seed="playout", rules=ruleset("equal-turns"))
    result = d.random_playout(chooser=random.Random(3))
    assert set(result.scores) == {0, 3}


def _parts(items: tuple[str, ...]) -> list[list[str]]:
    found = {c for n in range(len(items) + 1) for c in combinations(items, n)}
    return [list(c) for c in sorted(found)]


def every_shape(d: GameDriver, seat: int) -> list[Move]:
    """Every well-formed move worth trying now: all kinds, squares, colours and cards."""
    player = d.state.players[d.state.position(seat)]
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


def _canonical(move: Move) -> str:
    ((kind, arg),) = move.items()
    if kind in ("forfeitActions", "forfeitObjectives"):
        arg = {k: sorted(v) for k, v in arg.items()}
    return json.dumps({kind: arg}, sort_keys=True)


@pytest.mark.parametrize(
    "rules",
    [(), ("swap-into-empty", "plus-minus-wrap", "partial-action-discard", "removed-dice-leave")],
    ids=["default", "rules"],
)
def test_a_move_is_accepted_if_and_only_if_listed(rules) -> None:
    d = GameDriver(GAME, players=2, seed=f"iff-{rules}", rules=ruleset(*rules))
    chooser = random.Random(5)
    step = 0
    while d.result() is None:
        (seat,) = d.to_act()
        moves = d.legal(seat)
        if step % 15 == 0:
            listed = {_canonical(m) for m in moves}
            for move in every_shape(d, seat):
                assert GAME.check_move(move) is None, move
                out = GAME.apply(d.state, seat, move, Rng(b"probe"), d.rules)
                assert isinstance(out, Outcome) == (_canonical(move) in listed), (move, out)
        d.move(seat, chooser.choice(moves))
        step += 1
