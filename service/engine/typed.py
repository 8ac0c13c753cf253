"""A game in its own Python types: ``define_game`` takes the rules written over the game's
dataclasses and derives the rest of a ``GameDef``.

The types are standard-library dataclasses: they need no dependency, they can be frozen
and slotted (the engine's own records are such dataclasses), and ``dataclasses.fields``
with ``typing.get_type_hints`` reads them as data, which is all the derivation needs.

What a game writes: its state dataclass, one dataclass per kind of move, and five pure
functions over them (``setup``, ``to_act``, ``legal``, ``apply``, ``result``). What is
derived (``shapes`` and ``typed_schema`` say how):

- ``encode``/``decode``: the state's JSON, from its type;
- ``view``: the whole state, when the game declares no hidden information; else the
  game's ``view``, which returns a dataclass of its own (the view type);
- ``state_type`` and ``move_input_type``: the GraphQL types, from the view type and the
  move classes, their descriptions from the docstrings;
- ``check_move``: the move's shape (one known kind, every field there and of its type);
- ``legal_moves``, ``apply``: the move dataclasses to and from the move's JSON;
- ``event_types`` and the events of a move: a move whose ``apply`` returns a bare state
  emits ``move.made`` (public, with the move), allowed when nothing is hidden;
- bots: ``easy`` a random legal move, ``normal`` a search from random playouts
  (``bots.search``), ``strong`` the generic search built on it.

Any ``GameDef`` field given to ``define_game`` replaces what it would derive.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from tablestate.engine.bots import random_move, search
from tablestate.engine.game import (
    ILLEGAL_MOVE,
    Event,
    GameDef,
    Move,
    Outcome,
    Rejected,
    Result,
    SetupContext,
)
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate.engine.shapes import Shape, checker, decoder, encoder, kind_name, shape_of

MOVE_MADE: Final = "move.made"
_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(GameDef))
_CORE_KEYS: Final = ("gameId", "toAct", "id")  # fields GameState gives every state


class GameDefinitionError(TypeError):
    """A game ``define_game`` cannot derive; the message names the game and the culprit."""


def _extras(fn: Callable[..., Any], names: Sequence[str]) -> tuple[str, ...]:
    """Which of the optional parameters ``names`` a function takes (by name)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature takes none of them
        return ()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return tuple(names)
    return tuple(n for n in names if n in params)


def _dataclass(cls: object, what: str, where: str) -> type:
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise GameDefinitionError(f"{where}: {what} must be a dataclass, not {cls!r}")
    return cls


@dataclasses.dataclass(frozen=True, slots=True)
class _Kind:
    """One kind of move: its class and shape, and its JSON both ways (compiled once)."""

    name: str
    cls: type
    shape: Shape
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    check: Callable[[Any, str], str | None]


class _Moves:
    """The move classes of a game, their kinds, and their JSON both ways."""

    def __init__(self, classes: Sequence[type], where: str) -> None:
        self.where = where
        self.kinds: dict[str, _Kind] = {}
        for cls in classes:
            kind = kind_name(_dataclass(cls, "a move class", where))
            if kind in self.kinds:
                raise GameDefinitionError(f"{where}: two move classes are named {kind!r}")
            shape = _shape(cls, where)
            self.kinds[kind] = _Kind(kind, cls, shape, encoder(shape), decoder(shape),
                                     checker(shape))  # fmt: skip
        if not self.kinds:
            raise GameDefinitionError(f"{where}: a game has at least one move class")
        self.of_class = {k.cls: k for k in self.kinds.values()}

    def to_json(self, move: object) -> Move:
        """A move dataclass as the move's JSON (a mapping stays as it is)."""
        if isinstance(move, Mapping):
            return move
        kind = self.of_class.get(type(move))
        if kind is None:
            raise GameDefinitionError(f"{self.where}: {move!r} is not one of its move classes")
        return {kind.name: kind.encode(move) if kind.shape.fields else True}

    def from_json(self, move: Move) -> Any:
        """The move dataclass of a move's JSON (checked by ``check``)."""
        name, arg = next(iter(move.items()))
        kind = self.kinds[name]
        return kind.decode(arg) if kind.shape.fields else kind.cls()

    def check(self, move: Move) -> str | None:
        """Why the move's JSON is malformed, or None."""
        if not isinstance(move, Mapping) or len(move) != 1:
            return "a move has exactly one kind"
        name, arg = next(iter(move.items()))
        kind = self.kinds.get(name)
        if kind is None:
            return f"unknown move {name!r}"
        if not kind.shape.fields:
            return None if arg is True else f"{name} takes true"
        return kind.check(arg, name)


def _shape(cls: type, where: str) -> Shape:
    try:
        return shape_of(cls)
    except TypeError as exc:
        raise GameDefinitionError(f"{where}: {exc}") from None


def _rule(state: type, rule: str, fn: Callable[..., Any] | None, where: str) -> Any:
    """A rule given by keyword, or else the state class's method of that name."""
    found = fn if fn is not None else getattr(state, rule, None)
    if not callable(found):
        raise GameDefinitionError(
            f"{where}: no `{rule}`: give it by keyword or as a method of {state.__name__}"
        )
    return found


def _move_classes(legal: Callable[..., Any], where: str) -> tuple[type, ...]:
    """The move classes ``legal``'s return annotation names (``list[Play | Pass]``)."""
    try:
        hint = typing.get_type_hints(legal).get("return")
    except NameError as exc:
        raise GameDefinitionError(f"{where}: legal's annotations: {exc}") from None
    args = typing.get_args(hint)
    if len(args) != 1 and not (len(args) == 2 and args[1] is Ellipsis):
        raise GameDefinitionError(
            f"{where}: give `moves`, or annotate legal's return type: list[MoveClass | ...]"
        )
    inner = args[0]
    if typing.get_origin(inner) in (typing.Union, types.UnionType):
        return typing.get_args(inner)
    return (inner,)


def _view_type(view: Callable[..., Any], where: str) -> type:
    try:
        found = typing.get_type_hints(view).get("return")
    except NameError as exc:
        raise GameDefinitionError(f"{where}: view's annotations: {exc}") from None
    if found is None:
        raise GameDefinitionError(f"{where}: annotate view's return type with its view dataclass")
    return _dataclass(found, "view's return type", where)


_RULES: Final = ("setup", "to_act", "legal", "apply", "result")


def _reads_rng(fn: Callable[..., Any]) -> bool:
    """Whether a setup function reads its context's ``rng`` (``ctx.rng.shuffle(...)``): a
    game whose setup and apply never touch chance deals the same game for any seed, which
    the harness checks, and the page leaves out its "Fair shuffle" part."""
    code = getattr(fn, "__code__", None)
    return code is None or "rng" in code.co_names


def define_game(
    *,
    id: str,
    name: str,
    summary: str,
    players: int | tuple[int, int],
    state: type,
    moves: Sequence[type] | None = None,
    setup: Callable[..., Any] | None = None,
    to_act: Callable[[Any], Sequence[int]] | None = None,
    legal: Callable[..., Sequence[Any]] | None = None,
    apply: Callable[..., Any] | None = None,
    result: Callable[[Any], Result | None] | None = None,
    view: Callable[[Any, int | None], Any] | None = None,
    hidden: bool = False,
    listed_only: bool = True,
    events: Sequence[str] = (),
    **given: Any,
) -> GameDef[Any]:
    """A ``GameDef`` from a game written in its own dataclasses (module docstring).

    The five rules are functions given by keyword, or else methods of the state class of
    the same names (``setup`` a static or class method): ``state.apply(seat, move)``.

    Args:
        id, name, summary: as ``GameDef``'s (``id`` names the GraphQL types).
        players: the number of players, or ``(least, most)``.
        state: the state dataclass.
        moves: one dataclass per kind of move; the kind is the class name with a lower-case
            first letter (``PlayCard``: ``playCard``). A class without fields is a move
            that takes ``true`` (``{"pass": true}``). Default: the classes that ``legal``'s
            return annotation names (``list[Mark]``, ``list[Play | Pass]``).
        setup: ``(SetupContext) -> state`` or ``(state, events)``.
        to_act: ``state -> seats``: the seats whose move is awaited (none once it is over).
        legal: ``(state, seat) -> moves``: the legal moves of ``seat`` when it is to act,
            as move dataclasses; it may also take ``rules`` (the table's ``RuleSet``).
        apply: ``(state, seat, move) -> state | Outcome | Rejected``, the move as its
            dataclass; it may also take ``rng`` and ``rules``. A bare state emits
            ``move.made`` (only where nothing is hidden).
        result: ``state -> Result``, or ``None`` while the game goes on.
        view: ``(state, seat or None) -> view dataclass``, annotated with its return type:
            what a seat (None: a spectator) may see. Default: the whole state.
        hidden: the game hides information from some viewers: it must give ``view`` and
            ``determinize``, and return its own events (``Outcome``).
        listed_only: a move that ``legal`` does not list is refused (``ILLEGAL_MOVE``)
            before ``apply`` sees it. False for a game whose legal moves list one
            arrangement of many: its ``apply`` refuses what is illegal itself.
        events: the event types ``setup`` and ``apply`` emit of their own.
        Whether the game uses chance (``GameDef.uses_chance``) is read from the rules:
        an ``apply`` that takes ``rng``, or a ``setup`` that reads ``ctx.rng``; say
        ``uses_chance=`` where a helper of setup's draws instead.
        **given: any other ``GameDef`` field, which replaces what would be derived:
            ``options``, ``bot``, ``determinize``, ``standing``, ``hookspecs``...

    Raises:
        GameDefinitionError: a rule missing, a type the derivation does not support, a
            keyword that is not a ``GameDef`` field, hidden information without a view or
            ``determinize``.
    """
    where = f"game {id!r}"
    unknown = sorted(set(given) - _FIELDS)
    if unknown:
        raise GameDefinitionError(f"{where}: {unknown[0]!r} is not a GameDef field")
    state_shape = _shape(_dataclass(state, "state", where), where)
    setup, to_act, legal, apply, result = (
        _rule(state, rule, fn, where)
        for rule, fn in zip(_RULES, (setup, to_act, legal, apply, result), strict=True)
    )
    kinds = _Moves(_move_classes(legal, where) if moves is None else moves, where)
    if hidden and (view is None or "determinize" not in given):
        raise GameDefinitionError(
            f"{where} hides information: give it a `view` (what each seat may see) and a "
            "`determinize` (a state its seat cannot tell from the true one, for bots)"
        )
    view_shape = state_shape if view is None else _shape(_view_type(view, where), where)
    taken = {f.key for f in view_shape.fields} & set(_CORE_KEYS)
    if taken:
        raise GameDefinitionError(f"{where}: the view's field {min(taken)!r} is the core's own")
    least, most = (players, players) if isinstance(players, int) else players
    encode, decode = encoder(state_shape), decoder(state_shape)
    to_view = encoder(view_shape)
    legal_extras, apply_extras = _extras(legal, ("rules",)), _extras(apply, ("rng", "rules"))

    def set_up(ctx: SetupContext) -> tuple[Any, Sequence[Event]]:
        out = setup(ctx)
        first, made = out if isinstance(out, tuple) else (out, ())
        if not isinstance(first, state):
            raise GameDefinitionError(f"{where}: setup returned {first!r}, not a {state.__name__}")
        return first, list(made)

    def listed(st: Any, seat: int, rules: RuleSet) -> Sequence[Any]:
        if seat not in to_act(st):
            return ()
        return legal(st, seat, **({"rules": rules} if legal_extras else {}))

    def legal_moves(st: Any, seat: int, rules: RuleSet) -> list[Move]:
        return [kinds.to_json(m) for m in listed(st, seat, rules)]

    def play(st: Any, seat: int, move: Move, rng: Rng, rules: RuleSet) -> Outcome[Any] | Rejected:
        typed = kinds.from_json(move)
        if listed_only and typed not in listed(st, seat, rules):
            return Rejected(ILLEGAL_MOVE, "that move is not legal now")
        extra = {k: v for k, v in (("rng", rng), ("rules", rules)) if k in apply_extras}
        out = apply(st, seat, typed, **extra)
        if isinstance(out, Outcome | Rejected):
            return out
        if not isinstance(out, state):
            raise GameDefinitionError(f"{where}: apply returned {out!r}")
        if hidden:
            raise GameDefinitionError(
                f"{where} hides information: apply returns an Outcome with its own events"
            )
        made = Event(MOVE_MADE, {"move": kinds.to_json(typed)}, seat=seat)
        return Outcome(out, (made,))

    def seen(st: Any, seat: int | None) -> Mapping[str, Any]:
        found: Mapping[str, Any] = to_view(st if view is None else view(st, seat))
        return found

    derived: dict[str, Any] = {
        "setup": set_up,
        "to_act": to_act,
        "legal_moves": legal_moves,
        "apply": play,
        "view": seen,
        "result": result,
        "bot": search,
        "easy_bot": random_move,
        "encode": encode,
        "decode": decode,
        "check_move": kinds.check,
        "event_types": tuple(events) if hidden else (*events, MOVE_MADE),
        "uses_chance": "rng" in apply_extras or _reads_rng(setup),
    }
    if "bot" in given:  # the game's own bot may answer with a move dataclass
        own = given.pop("bot")
        derived["bot"] = lambda v, rng: kinds.to_json(own(v, rng))
        derived["easy_bot"] = None  # as for any game's bot: half of the easy level's moves
    if "state_type" not in given or "move_input_type" not in given:
        from tablestate.engine.typed_schema import derive

        moves_of = [(k.name, k.shape) for k in kinds.kinds.values()]
        try:
            derived["state_type"], derived["move_input_type"] = derive(
                id, name, view_shape, moves_of
            )
        except TypeError as exc:
            raise GameDefinitionError(f"{where}: {exc}") from None
    fields = {**derived, **given}
    return GameDef(id=id, name=name, summary=summary, min_players=least, max_players=most,
                   **fields)  # fmt: skip
