"""The game driver: a game played as the engine plays it, with no server, with fixed or
seeded chance."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from tablestate import PROJECT
from tablestate.engine.contract import contract_of
from tablestate.engine.game import Event, GameDef, Move, Outcome, Rejected, Result, SetupContext
from tablestate.engine.options import resolve
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import HookNamespace, RuleSet

if TYPE_CHECKING:
    from tablestate.plugins import Registry


T = TypeVar("T")


class FixedRng(Rng):
    """An ``Rng`` that answers from lists given in advance, for scenario tests.

    ``shuffles``: each ``shuffle`` call returns the next given order (or the items as they
    are when none is left); ``ints``: the answers of ``randint``/``choice`` (an index) and
    of ``roll`` (its dice, in order).
    """

    def __init__(self, shuffles: Iterable[Sequence[Any]] = (), ints: Iterable[int] = ()) -> None:
        super().__init__(b"fixed")
        self._shuffles: Iterator[Sequence[Any]] = iter(list(shuffles))
        self._ints: Iterator[int] = iter(list(ints))

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        self.counter += 1
        order = next(self._shuffles, None)
        if order is None:
            return tuple(items)
        if sorted(map(str, order)) != sorted(map(str, items)):
            raise AssertionError("FixedRng: a given shuffle is not a permutation of the items")
        return tuple(order)

    def randint(self, a: int, b: int) -> int:
        self.counter += 1
        return next(self._ints, a)

    def choice(self, items: Sequence[T]) -> T:
        self.counter += 1
        return items[next(self._ints, 0)]

    def roll(self, n: int = 1, sides: int = 6) -> tuple[int, ...]:
        self.counter += 1
        return tuple(next(self._ints, 1) for _ in range(n))


@cache
def _installed() -> Registry:
    from tablestate.plugins import load

    return load()


def ruleset(game_id: str, *rules: str, registry: Registry | None = None) -> RuleSet:
    """The rule set of a game with these house rules on, for a ``GameDriver``: the game's
    own hooks and those of the rules named, as a table with those rules plays.

    ``rules`` are house-rule ids, with or without the ``<game id>/`` prefix; ``registry``
    is where the plugins come from (default: every installed plugin, loaded once; a
    plugin not installed yet can be given with ``tablestate.plugins.load(objects=...)``)::

        rules = ruleset("lucky-draw", "double-evens")
        d = GameDriver(GAME, 2, rules=rules, seed="s")

    Raises:
        ValueError: an unknown game or rule, or rules that conflict with each other.
    """
    reg = registry if registry is not None else _installed()
    if game_id not in reg.games:
        raise ValueError(f"no installed game {game_id!r} (installed: {', '.join(reg.games)})")
    ids = [r if "/" in r else f"{game_id}/{r}" for r in rules]
    known = {r.id for r in reg.rules_of(game_id)}
    for rule_id in ids:
        if rule_id not in known:
            raise ValueError(f"no house rule {rule_id!r} of {game_id} (known: {sorted(known)})")
        clash = set(reg.conflicts(rule_id)) & set(ids)
        if clash:
            raise ValueError(f"house rule {rule_id!r} conflicts with {sorted(clash)}")
    return reg.ruleset(game_id, ids)


def _no_house_rules(game: GameDef[Any]) -> RuleSet:
    """The rule set of a table of ``game`` with no house rule on: the game's own hooks,
    which no rule answers (a ``firstresult`` hook gives None, any other an empty list), as
    at a table."""
    if game.hookspecs is None:
        return RuleSet()
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(game.hookspecs)
    return RuleSet(frozenset(), HookNamespace(lambda name: getattr(pm.hook, name)))


class MoveRefused(AssertionError):
    """A move the rules refused in a test that expected it to stand."""

    def __init__(self, rejected: Rejected) -> None:
        super().__init__(f"{rejected.code}: {rejected.reason}")
        self.rejected = rejected


class GameDriver:
    """Plays one game in memory the way the engine does, minus the store and the API.

    Args:
        game: the game definition.
        players: how many seats (0..n-1), or the seat indices in play order.
        options: table options (checked, defaults filled).
        rules: a ``RuleSet`` (``ruleset(game_id, *house_rules)``) or nothing: no house
            rule, and no hook of the game's own answers (``_no_house_rules``).
        seed: the game seed, or an ``Rng`` (a ``FixedRng`` for scenarios).
    """

    def __init__(
        self,
        game: GameDef[Any],
        players: int | Sequence[int] = 2,
        options: dict[str, Any] | None = None,
        rules: RuleSet | None = None,
        seed: str | bytes | Rng = b"seed",
    ) -> None:
        self.game = game
        self.seats = tuple(range(players)) if isinstance(players, int) else tuple(players)
        self.rules = rules if rules is not None else _no_house_rules(game)
        if isinstance(seed, Rng):
            self.rng = seed
        else:
            self.rng = Rng(seed.encode() if isinstance(seed, str) else seed)
        self.options = resolve(game.options, options)
        state, events = game.setup(SetupContext(self.seats, self.options, self.rules, self.rng))
        self.state: Any = state
        self.start: Any = state  # as the setup left it
        self.events: list[Event] = list(events)

    def to_act(self) -> tuple[int, ...]:
        return tuple(self.game.to_act(self.state))

    def legal(self, seat: int) -> list[Move]:
        return list(self.game.legal_moves(self.state, seat, self.rules))

    def view(self, seat: int | None) -> Any:
        return self.game.view(self.state, seat)

    def result(self) -> Result | None:
        return self.game.result(self.state)

    def try_move(self, seat: int, move: Move) -> Outcome[Any] | Rejected:
        """Apply a move the way the engine does: shape, turn, then the rules."""
        reason = self.game.check_move(move)
        if reason is not None:
            return Rejected("BAD_INPUT", reason)
        if seat not in self.to_act():
            return Rejected("NOT_YOUR_TURN", "it is not your turn")
        out = self.game.apply(self.state, seat, move, self.rng, self.rules)
        if isinstance(out, Outcome):
            self.state = out.state
            self.events.extend(out.events)
        return out

    def move(self, seat: int, move: Move) -> tuple[Event, ...]:
        """Apply a move that must stand; its events."""
        out = self.try_move(seat, move)
        if isinstance(out, Rejected):
            raise MoveRefused(out)
        return out.events

    def check_roundtrip(self) -> None:
        """The state survives the store: JSON out and back gives an equal state."""
        data = json.loads(json.dumps(self.game.encode(self.state)))
        assert self.game.decode(data) == self.state, "decode(encode(state)) != state"
        for seat in (None, *self.seats):
            json.dumps(self.view(seat))

    def random_playout(
        self, max_moves: int = 20_000, chooser: random.Random | None = None, check: bool = True
    ) -> Result:
        """Play random legal moves to the end, checking the invariants on the way:
        someone is always to act, each to-act seat has a legal move, every listed move is
        accepted, event types are declared, and (with ``check``) state and views are JSON
        and the game keeps its contract with the API (``tablestate.engine.contract``)."""
        pick = chooser or random.Random(0)
        contract = contract_of(self.game)
        contract.check_events(self.events)
        for _ in range(max_moves):
            if check:
                contract.check_state(self.state, self.seats, self.rules)
            result = self.result()
            if result is not None:
                return result
            acting = self.to_act()
            assert acting, "nobody to act in a game that is not over"
            seat = pick.choice(acting)
            moves = self.legal(seat)
            assert moves, f"seat {seat} is to act but has no legal move"
            contract.check_events(self.move(seat, pick.choice(moves)))
            if check:
                self.check_roundtrip()
        raise AssertionError(f"no end after {max_moves} moves")


# -- golden logs ---------------------------------------------------------------------
