"""What a game plugin hands the engine: a ``GameDef`` of pure functions over its state.

The engine never looks inside a game's state. It calls the functions of the ``GameDef``
with the state, a seat and a move, and gets back a new state and events, or a
``Rejected``. Seats are the table's seat indices (a table with seats 0 and 2 seated plays
with seats 0 and 2); ``SetupContext.seats`` lists them in play order.

Moves are JSON: the game's own move input with exactly one key, the kind of move, as a
frontend sends it under the game's field of ``MoveInput`` (``{"discard": {"card": "KH"}}``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeAlias, TypeVar

if TYPE_CHECKING:
    from tablestate.engine.rng import Rng
    from tablestate.engine.ruleset import RuleSet

S = TypeVar("S")
JSON: TypeAlias = Any
Move: TypeAlias = Mapping[str, Any]

BAD_INPUT: Final = "BAD_INPUT"
ILLEGAL_MOVE: Final = "ILLEGAL_MOVE"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as the rules say it.

    Args:
        type: dotted name, e.g. ``"card.drawn"``; list every type in ``GameDef.event_types``.
        data: the public part, JSON: what every viewer may see.
        seat: the seat that acted, if any.
        private: seat -> JSON only that seat may see (its drawn card, its dealt hand).
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None
    private: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rejected:
    """A move the rules refuse. ``code`` is ``BAD_INPUT`` or ``ILLEGAL_MOVE``;
    ``reason`` says why in words a player understands (and reveals no hidden item)."""

    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome(Generic[S]):
    """An accepted move: the new state and what happened, in order."""

    state: S
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game: the winning seats and each seat's final score."""

    winners: tuple[int, ...]
    scores: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class SetupContext:
    """What ``GameDef.setup`` is given.

    Args:
        seats: the seated seat indices, in play order (clockwise from seat 0).
        options: the table options, validated against ``GameDef.options`` with defaults filled.
        rules: the table's rule set (enabled house rules and their hooks).
        rng: the table's seeded generator.
    """

    seats: tuple[int, ...]
    options: Mapping[str, Any]
    rules: RuleSet
    rng: Rng


def _no_check(move: Move) -> str | None:
    return None


def _any_setup(seats: tuple[int, ...], options: Mapping[str, Any], rules: RuleSet) -> str | None:
    return None


def _any_options(options: Mapping[str, Any], seats: int) -> str | None:
    return None


def _no_upgrade(from_format: int, data: JSON) -> JSON:
    raise ValueError(f"no upgrade from state format {from_format}")


def _nothing_hidden(state: Any, seat: int, rng: Rng) -> Any:
    return state


def _never_undoable(before: Any, seat: int, move: Move, outcome: Outcome[Any]) -> bool:
    return False


@dataclass(frozen=True)
class GameDef(Generic[S]):
    """A game, described with data and pure functions. All functions are pure: no I/O,
    no clock, no global randomness; they never mutate their arguments.

    Args:
        id: the game id, lower-case words joined by ``-`` (``"five-crowns"``). Its GraphQL
            names derive from it: ``FiveCrownsState``, ``FiveCrownsMoveInput`` and the
            ``MoveInput.fiveCrowns`` field.
        name: display name.
        summary: one or two sentences for a lobby.
        min_players, max_players: the seat range of the game itself (a house rule may
            narrow it for itself with its own range).
        options: JSON Schema (``type: object``) of the table options; every property
            has a ``default``. Unknown options are refused before ``setup`` sees them.
        setup: deals the game: ``(SetupContext) -> (state, events)``.
        to_act: the seats whose move is awaited now (empty once the game is over).
        legal_moves: ``(state, seat, rules) -> moves``: every legal move of ``seat`` now, in
            the move input's JSON shape; for combinatorial moves one valid, best choice.
        apply: ``(state, seat, move, rng, rules) -> Outcome | Rejected``. Called only for a
            seat in ``to_act`` and a move that passed ``check_move``.
        view: ``(state, seat or None) -> JSON``: the state as that seat (or a spectator) may
            see it. Keys are the GraphQL field names of ``state_type`` (camelCase).
        result: ``state -> Result``, or ``None`` while the game goes on.
        bot: ``(view, rng) -> move``: the game's own bot, the ``normal`` level: a legal
            move for ``view.seat`` decided from a ``tablestate.engine.bots.BotView`` (the
            seat's information set: a state whose hidden parts are guesses), never from the
            table's state. The ``easy`` and ``strong`` levels are built on it.
        determinize: ``(state, seat, rng) -> state``: a full state the seat cannot tell from
            ``state``: what it sees kept, every part hidden from it (other hands, the stock,
            face-down cards) redrawn with ``rng`` from the items it has not seen. The result
            must depend only on what the seat sees and on ``rng`` (sort the unseen items
            before shuffling them), so that any arrangement of the hidden parts gives the
            same state: the conformance tests check it. Default: the game hides nothing.
        standing: ``(state, seat, rules) -> float``: how well ``seat`` stands, higher is
            better, comparable between states of one game: the ``strong`` bot's score of a
            playout. Default: 1 for a win (shared: split), 0 for a loss, 0.5 unfinished.
        bot_stage: ``state -> stage``: the part of the game a state is in (a round, a deal),
            any value compared with ``==``. A ``strong`` bot's playout ends when the stage
            changes, so that ``standing`` judges the stage it moved in once it is scored, or
            after ``bot_depth`` moves, whichever comes first. Default: one stage.
        bot_depth: the most moves a ``strong`` bot's playout makes before ``standing`` judges.
        encode, decode: the state to and from JSON for the store.
        check_move: the shape check of a move (``None`` when well formed, else the reason
            for a ``BAD_INPUT``), before turn and legality are checked.
        check_setup: ``(seats, options, rules) -> reason or None``: whether the game can
            start with these seats, options and rules (a reason refuses ``startGame`` with
            ``BAD_INPUT``), for limits the player range alone does not say.
        check_options: ``(options, seats) -> reason or None``: whether the options (checked
            against ``options``' schema, defaults filled in) can deal a table of ``seats``
            seats, for limits between options that a JSON Schema does not say (a reason,
            naming the options, refuses ``createTable`` and ``setOptions`` with
            ``BAD_INPUT``, and ``startGame`` with the players seated).
        state_format: the version of ``encode``'s JSON; bump it when it changes.
        upgrade: ``(old_format, json) -> json`` of the next format, for older snapshots.
        event_types: every event type ``setup`` and ``apply`` may emit.
        state_type: the Strawberry type of the view (implements ``GameState``), built from
            the view by ``state_type.from_view(view)``; from the game's ``schema.py``.
        move_input_type: the Strawberry ``@oneOf`` input of the moves, from ``schema.py``.
        hookspecs: the module of the game's own hookspecs, for its house rules, or None.
        undoable: ``(state_before, seat, move, outcome) -> bool``: whether the mover may take
            this move back (``undoMove``, at tables with the ``undo`` option) as long as
            nobody has moved since. Say yes only for a move that gave the mover nothing
            new: a discard, a card laid from the hand; never a card drawn from the stock,
            a die rolled or a hidden card turned up. The core refuses on its own a move
            that used chance (the table's chance counter moved) or finished the game.
            Default: no move is undoable.
        easy_bot: ``(view, rng) -> move``: the ``easy`` level. Default: the game's ``bot``
            half of the time, else a legal move drawn at random.
        web_view: the game's own view on the web page, an ES module the plugin ships as
            package data: ``"<package>:<folder>/<file>.js"`` (``"tablestate_five_crowns:
            web/view.js"``). The server serves the files of that folder at
            ``/games/<game id>/`` and ``Game.viewModule`` names the module's URL; the page
            imports it in place of its generic view (``docs/plugins.md``). None: the page
            builds its view from the state type.
        event_texts: event type -> a sentence for people, with the event's public fields
            in braces and ``{player}`` for the seat that acted (``"{player} played
            {card}"``); ``Game.eventTexts``. Types left out are worded by the page.
        uses_chance: whether the game shuffles or rolls (the page shows its "Fair shuffle"
            part only then).
        conserved: ``state -> {item: count}``: the items no move may create or destroy
            (cards by name, tokens by kind, dice by colour: never a die's face, which a
            roll changes). The harness (``tablestate.testing``) checks that the counts
            stay those of the setup at every step. Default: the game declares none.
    """

    id: str
    name: str
    summary: str
    min_players: int
    max_players: int
    setup: Callable[[SetupContext], tuple[S, Sequence[Event]]]
    to_act: Callable[[S], Sequence[int]]
    legal_moves: Callable[[S, int, RuleSet], Sequence[Move]]
    apply: Callable[[S, int, Move, Rng, RuleSet], Outcome[S] | Rejected]
    view: Callable[[S, int | None], Mapping[str, Any]]
    result: Callable[[S], Result | None]
    bot: Callable[[BotView[S], Rng], Move]
    encode: Callable[[S], JSON]
    decode: Callable[[JSON], S]
    options: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    check_move: Callable[[Move], str | None] = _no_check
    check_setup: Callable[[tuple[int, ...], Mapping[str, Any], RuleSet], str | None] = _any_setup
    check_options: Callable[[Mapping[str, Any], int], str | None] = _any_options
    state_format: int = 1
    upgrade: Callable[[int, JSON], JSON] = _no_upgrade
    event_types: tuple[str, ...] = ()
    state_type: type | None = None
    move_input_type: type | None = None
    hookspecs: ModuleType | type | None = None
    undoable: Callable[[S, int, Move, Outcome[S]], bool] = _never_undoable
    determinize: Callable[[S, int, Rng], S] = _nothing_hidden
    standing: Callable[[S, int, RuleSet], float] | None = None
    bot_stage: Callable[[S], Hashable] | None = None
    bot_depth: int = 40
    easy_bot: Callable[[BotView[S], Rng], Move] | None = None
    web_view: str | None = None
    event_texts: Mapping[str, str] = field(default_factory=dict)
    uses_chance: bool = True
    conserved: Callable[[S], Mapping[str, int]] | None = None


@dataclass(frozen=True)
class HouseRuleDef:
    """A house rule: an on/off variant of one game, enabled per table.

    The plugin that returns it from ``tablestate_house_rules`` may implement the game's
    own hooks (``plugins/<game>/hookspecs.py``); at a table those hooks are called on
    the rules enabled there and no other. One plugin, one house rule.

    Args:
        id: ``"<game id>/<rule>"``.
        game_id: the game it changes.
        name, description: for a lobby; the description says exactly what changes.
        conflicts_with: rule ids that cannot be enabled together with this one.
        min_players, max_players: the player range it allows (None: the game's).
    """

    id: str
    game_id: str
    name: str
    description: str
    conflicts_with: tuple[str, ...] = ()
    min_players: int | None = None
    max_players: int | None = None


@dataclass(frozen=True)
class BotView(Generic[S]):
    """What a bot may know when it is to move.

    Args:
        seat: the bot's seat.
        state: a full state drawn from the seat's information set (``GameDef.determinize``):
            what the seat sees is as it is, every hidden part is a guess.
        rules: the table's rule set.
        game: the game (for its ``view`` and ``legal_moves``).
    """

    seat: int
    state: S
    rules: RuleSet
    game: GameDef[S] = field(repr=False)

    @cached_property
    def view(self) -> Mapping[str, Any]:
        """The game's view for the seat: what a frontend of that seat shows."""
        return self.game.view(self.state, self.seat)

    @cached_property
    def legal(self) -> tuple[Move, ...]:
        """The seat's legal moves now (they depend only on what it sees)."""
        return tuple(self.game.legal_moves(self.state, self.seat, self.rules))
