"""The contract between a game and the API, checked before the game is served.

A game's view must build its state type, its legal moves must be values of its move input,
and its events must be of the types it declares: else a client meets ``INTERNAL`` on a
state query, ``BAD_INPUT`` on a move the server itself listed, or an event of no known
type. ``check_game`` finds such mistakes at start-up, by the types alone and by a short
seeded self-play: the game set up for its fewest players with the default options and no
house rule, then up to ``SELF_PLAY_MOVES`` legal moves picked with a seeded generator, with
every view (each seat's and a spectator's), every legal move of every seat and every event
checked. The harness (``tablestate.testing``) checks the same at every step of its games
with ``contract_of(game)``.

A refusal names the game, where and what was expected::

    game "tic-tac-toe": view of seat 0: field "board.0.0": expected String!, got 1
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tablestate.engine.game import Event, GameDef, Move, Outcome, SetupContext
from tablestate.engine.graphql_shapes import Shape, input_shape, misfit, state_shape, type_problems
from tablestate.engine.options import resolve
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet

SELF_PLAY_MOVES: Final = 30  # enough to reach most kinds of move; start-up stays fast
_SEED: Final = b"tablestate/contract"


class ContractError(ValueError):
    """A game that breaks its contract with the API; the message names the game, the
    place (``view of seat 0``, ``legal move of seat 1``, ``event``) and what was expected."""

    def __init__(self, game_id: str, detail: str) -> None:
        super().__init__(f'game "{game_id}": {detail}')
        self.game_id = game_id
        self.detail = detail


def _json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _who(seat: int | None) -> str:
    return "a spectator" if seat is None else f"seat {seat}"


@dataclass(frozen=True, eq=False)
class Contract:
    """One game's contract, its types read once: ``check_*`` raise ``ContractError``."""

    game: GameDef[Any]
    state: Shape
    move: Shape
    events: frozenset[str]

    def check_view(self, view: Mapping[str, Any], seat: int | None) -> None:
        """The view of ``seat`` (None: a spectator) builds the state type."""
        bad = misfit(self.state, view)
        if bad is not None:
            raise ContractError(self.game.id, f"view of {_who(seat)}: {bad}")

    def check_moves(self, moves: Iterable[Move], seat: int) -> None:
        """Each legal move of ``seat`` is a value of the move input and passes the game's
        own ``check_move``."""
        for move in moves:
            bad = misfit(self.move, move, is_input=True)
            if bad is None:
                reason = self.game.check_move(move)
                bad = None if reason is None else f"refused by check_move: {reason}"
            if bad is not None:
                raise ContractError(
                    self.game.id, f"legal move {_json(move)} of {_who(seat)}: {bad}"
                )

    def check_events(self, events: Iterable[Event]) -> None:
        """Every event is of a type the game declares in ``event_types``."""
        for event in events:
            if event.type not in self.events:
                declared = ", ".join(sorted(self.events)) or "none"
                raise ContractError(
                    self.game.id,
                    f'event "{event.type}" is not declared in event_types (declared: {declared})',
                )

    def check_state(self, state: Any, seats: Sequence[int], rules: RuleSet) -> None:
        """Every view of ``state`` and every legal move of every seat."""
        for seat in (None, *seats):
            self.check_view(self.game.view(state, seat), seat)
        for seat in seats:
            self.check_moves(self.game.legal_moves(state, seat, rules), seat)


def _pascal(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("-"))


_CONTRACTS: dict[int, tuple[GameDef[Any], Contract]] = {}
_PLAYED: dict[int, tuple[GameDef[Any], ContractError | None]] = {}


def contract_of(game: GameDef[Any]) -> Contract:
    """The contract of a game (read once per ``GameDef`` object).

    Raises:
        ContractError: a type is missing or not what the API needs.
    """
    found = _CONTRACTS.get(id(game))
    if found is not None and found[0] is game:
        return found[1]
    problems = type_problems(game.state_type, game.move_input_type, _pascal(game.id))
    bad = [t for t in game.event_types if not isinstance(t, str) or not t]
    if bad:
        problems.append(f"event_types holds {bad!r}: each is a non-empty string")
    if problems:
        raise ContractError(game.id, "; ".join(problems))
    assert game.state_type is not None and game.move_input_type is not None
    made = Contract(
        game, state_shape(game.state_type), input_shape(game.move_input_type),
        frozenset(game.event_types),
    )  # fmt: skip
    _CONTRACTS[id(game)] = (game, made)
    return made


def _seats(game: GameDef[Any], options: Mapping[str, Any], rules: RuleSet) -> tuple[int, ...]:
    for n in range(game.min_players, game.max_players + 1):
        seats = tuple(range(n))
        if game.check_setup(seats, options, rules) is None:
            return seats
    raise ContractError(game.id, "no player count starts with the default options")


def self_play(game: GameDef[Any], rules: RuleSet, moves: int = SELF_PLAY_MOVES) -> None:
    """Play ``game`` a little and check its contract at every step (see the module).

    Raises:
        ContractError: a type, a view, a legal move or an event breaks the contract, or a
            function of the game raised (the error says which, and at which move).
    """
    contract = contract_of(game)
    pick, step = Rng(_SEED + b"/pick"), "at the setup"
    try:
        options = resolve(game.options, None)
        seats = _seats(game, options, rules)
        rng = Rng(_SEED)
        state, events = game.setup(SetupContext(seats, options, rules, rng))
        contract.check_events(events)
        for n in range(moves + 1):
            step = f"after move {n}" if n else "after the setup"
            contract.check_state(state, seats, rules)
            acting = tuple(game.to_act(state))
            if not acting or n == moves:
                return
            seat = pick.choice(acting)
            legal = list(game.legal_moves(state, seat, rules))
            if not legal:
                raise ContractError(game.id, f"seat {seat} is to act with no legal move")
            move, step = pick.choice(legal), f"at move {n + 1}"
            out = game.apply(state, seat, move, rng, rules)
            if not isinstance(out, Outcome):
                raise ContractError(
                    game.id,
                    f"legal move {_json(move)} of seat {seat} refused: {out.code}: {out.reason}",
                )
            contract.check_events(out.events)
            state = out.state
    except ContractError as exc:
        raise ContractError(game.id, f"{exc.detail} (self-play, {step})") from None
    except Exception as exc:  # whatever a game's function raises refuses the game, named
        raise ContractError(game.id, f"self-play, {step}: {type(exc).__name__}: {exc}") from exc


def check_game(game: GameDef[Any], rules: RuleSet | None = None) -> None:
    """Check a game's contract (its types, then ``self_play``), once per ``GameDef`` object:
    a later call answers from the first.

    Args:
        game: the game.
        rules: its rule set with no house rule on (from ``Registry.ruleset``, so that the
            game's own hooks answer); None: a rule set of no hooks.

    Raises:
        ContractError: the game breaks its contract.
    """
    found = _PLAYED.get(id(game))
    if found is None or found[0] is not game:
        error = None
        try:
            self_play(game, rules if rules is not None else RuleSet())
        except ContractError as exc:
            error = exc
        found = _PLAYED[id(game)] = (game, error)
    if found[1] is not None:
        raise ContractError(game.id, found[1].detail)
