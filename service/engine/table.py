"""A table as stored: its seats, house rules, options and status, and the game inside it
(the moves applied to it, what each viewer sees of it). A table while it is OPEN, from
its creation to the deal, is ``engine/opening.py``'s.

The store keeps ``Table.encode()``; the version is the store's. Refusals follow the order of
docs/architecture.md; the caller has already checked the token, that the table exists and
the caller's rights.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from tablestate import _json
from tablestate.engine.evolve import evolve
from tablestate.engine.game import Event, GameDef, Move, Outcome, Rejected
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet

OPEN: Final = "OPEN"
PLAYING: Final = "PLAYING"
FINISHED: Final = "FINISHED"
CANCELLED: Final = "CANCELLED"  # ended by its host before a result (service/engine/lobby.py)
EMPTY: Final = "EMPTY"
HUMAN: Final = "HUMAN"
BOT: Final = "BOT"

CORE_EVENT_TYPES: Final = (
    "table.created",
    "seat.joined",
    "seat.left",
    "seat.bot_added",
    "rules.changed",
    "game.started",
    "game.finished",
    "clock.started",
    "clock.timeout",
    "move.undone",
    "seat.rejoined",
    "seat.replaced",
    "seat.bot_took_over",
    "table.rated",  # the ratings the archive kept (service/tables/archiving.py)
)


@dataclass(frozen=True, slots=True)
class Seat:
    index: int
    kind: str = EMPTY
    name: str | None = None
    token_hash: str | None = None
    host: bool = False
    client_seed: str | None = None
    # The clock (epoch seconds; None: not running), the reserve left (None: untouched, the
    # table's full reserve) and the number of timeouts so far.
    turn_started: float | None = None
    deadline: float | None = None
    reserve: float | None = None
    timeouts: int = 0
    # A player who left a playing table may come back until then (None: seated or gone).
    rejoin_by: float | None = None
    # The signed-in user the seat is bound to (``<issuer>#<sub>``; None: a token's alone).
    user: str | None = None
    # A bot's level (service/engine/bots.py); None: normal (older records, a seat handed to
    # the bot when its player's time ran out or it left).
    bot_level: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """A table as stored. ``game`` is the game's encoded state (None while OPEN)."""

    id: str
    game_id: str
    status: str
    options: Mapping[str, Any]
    house_rules: tuple[str, ...]
    seats: tuple[Seat, ...]
    host_hash: str
    nonce: str
    commitment: str
    created_at: str
    updated_at: str
    play_order: tuple[int, ...] = ()
    chance: int = 0
    state_format: int = 0
    game: Any = None
    result: Mapping[str, Any] | None = None
    revealed_seed: str | None = None
    # Table life (service/engine/lobby.py); defaults so that older snapshots decode.
    private: bool = False
    join_code: str | None = None
    rematch_of: str | None = None
    rematch: str | None = None
    # What the last move needs to be taken back (service/engine/undo.py); never shown.
    undo: Mapping[str, Any] | None = None
    # The signed-in user who holds the host's rights (None: the host token's alone).
    host_user: str | None = None
    version: int = 0

    def encode(self) -> str:
        d = dict(zip(_TABLE_FIELDS, _read_table(self), strict=True))
        d["seats"] = [
            _without_unset(dict(zip(_SEAT_FIELDS, _read_seat(s), strict=True))) for s in self.seats
        ]
        return _json.dumps(_without_unset(d))

    @classmethod
    def decode(cls, text: str, version: int) -> Table:
        d = _json.loads(text)
        d["seats"] = tuple(Seat(**s) for s in d["seats"])
        d["house_rules"] = tuple(d["house_rules"])
        d["play_order"] = tuple(d["play_order"])
        return cls(**d, version=version)

    def seat(self, index: int) -> Seat | None:
        return self.seats[index] if 0 <= index < len(self.seats) else None

    def seated(self) -> tuple[int, ...]:
        return tuple(s.index for s in self.seats if s.kind != EMPTY)

    def bots(self) -> frozenset[int]:
        return frozenset(s.index for s in self.seats if s.kind == BOT)


# Fields added since the first release that are left out of a snapshot while unset, so
# that a replica of an earlier release still reads every table no signed-in user touched.
_LEFT_OUT_UNSET: Final = frozenset({"user", "host_user", "bot_level"})


def _without_unset(d: dict[str, Any]) -> dict[str, Any]:
    for key in _LEFT_OUT_UNSET:
        if key in d and d[key] is None:
            del d[key]
    return d


# What a snapshot holds, in its order (every field but the version), read in one call.
# What changes at every move comes last, after the game's state: the Redis store writes a
# snapshot as its difference from an earlier one, from the first to the last character
# that differ (service/store/_deltas.py), and a game's state most often grows at its end.
_CHANGING: Final = ("chance", "updated_at")
_TABLE_FIELDS: Final = (
    *(k for k in Table.__slots__ if k != "version" and k not in _CHANGING),
    *_CHANGING,
)
_read_table: Final = operator.attrgetter(*_TABLE_FIELDS)
_SEAT_FIELDS: Final = Seat.__slots__
_read_seat: Final = operator.attrgetter(*_SEAT_FIELDS)


def decode_state(table: Table, game: GameDef[Any]) -> Any:
    """The game state inside a table, upgraded to the game's current format."""
    data, fmt = table.game, table.state_format
    while fmt < game.state_format:
        data, fmt = game.upgrade(fmt, data), fmt + 1
    return game.decode(data)


def to_act(table: Table, game: GameDef[Any], state: Any) -> tuple[int, ...]:
    if table.status != PLAYING:
        return ()
    return tuple(game.to_act(state))


def check_move(
    table: Table, game: GameDef[Any], state: Any, seat: int, move: Move
) -> Rejected | None:
    """The refusals before the rules: not playing, malformed, not your turn."""
    if table.status != PLAYING:
        return Rejected("TABLE_NOT_PLAYING", "the table is not playing")
    reason = game.check_move(move)
    if reason is not None:
        return Rejected("BAD_INPUT", reason)
    if seat not in game.to_act(state):
        return Rejected("NOT_YOUR_TURN", "it is not your turn")
    return None


def apply_move(
    table: Table,
    *,
    game: GameDef[Any],
    state: Any,
    rules: RuleSet,
    seat: int,
    move: Move,
    seed: bytes,
    reveal: Callable[[], str],
    now: str,
) -> tuple[Table, Any, list[Event]] | Rejected:
    """A move by ``seat``: checked, applied, and the game finished if it is over."""
    bad = check_move(table, game, state, seat, move)
    if bad is not None:
        return bad
    rng = Rng(seed, table.chance)
    out = game.apply(state, seat, move, rng, rules)
    if not isinstance(out, Outcome):
        return out
    events = list(out.events)
    new = evolve(table, game=game.encode(out.state), chance=rng.counter, updated_at=now)
    result = game.result(out.state)
    if result is not None:
        scores = [int(result.scores.get(s.index, 0)) for s in table.seats]
        res = {"winners": list(result.winners), "scores": scores}
        new = evolve(new, status=FINISHED, result=res, revealed_seed=reveal())
        events.append(Event("game.finished", {**res, "shuffleSeed": new.revealed_seed}))
    return new, out.state, events
