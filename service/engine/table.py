"""A table: seats, house rules, options, lifecycle and the game state inside it.

Pure functions from a ``Table`` to a new ``Table`` and its events, or a ``Rejected``
with one of API.md's codes. The store keeps ``Table.encode()``; the version is the
store's. Refusals follow DESIGN.md's order; the caller has already checked the token
(``UNAUTHENTICATED``), that the table exists (``NOT_FOUND``) and the viewer's rights
(``FORBIDDEN``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from service import _json
from service.engine.game import Event, GameDef, HouseRuleDef, Move, Outcome, Rejected, SetupContext
from service.engine.options import OptionError, resolve, table_schema
from service.engine.rng import Rng
from service.engine.ruleset import RuleSet

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
)
MAX_NAME: Final = 40
MAX_CLIENT_SEED: Final = 256


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
    version: int = 0

    def encode(self) -> str:
        d = {k: getattr(self, k) for k in self.__slots__ if k != "version"}
        d["seats"] = [{k: getattr(s, k) for k in Seat.__slots__} for s in self.seats]
        return _json.dumps(d)

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


Conflicts = Callable[[str], Sequence[str]]


def check_rules(
    game: GameDef[Any],
    rule_ids: Sequence[str],
    house_rules: Mapping[str, HouseRuleDef],
    conflicts: Conflicts,
) -> Rejected | None:
    """Unknown ids are ``NOT_FOUND``; rules of another game or in conflict, ``RULE_CONFLICT``."""
    for rid in rule_ids:
        if rid not in house_rules:
            return Rejected("NOT_FOUND", f"no house rule {rid[:80]!r}")
        if house_rules[rid].game_id != game.id:
            return Rejected("RULE_CONFLICT", f"house rule {rid!r} is for another game")
    on = set(rule_ids)
    for rid in sorted(on):
        clash = sorted(on.intersection(conflicts(rid)))
        if clash:
            return Rejected("RULE_CONFLICT", f"house rule {rid!r} conflicts with {clash[0]!r}")
    return None


def check_options(game: GameDef[Any], options: Any) -> Mapping[str, Any] | Rejected:
    """A table's options as sent (a JSON object or nothing), checked against the game's
    options and the core table options, defaults filled in; ``BAD_INPUT`` otherwise."""
    if options is not None and not isinstance(options, Mapping):
        return Rejected("BAD_INPUT", "options must be a JSON object")
    try:
        return resolve(table_schema(game.options), options)
    except OptionError as exc:
        return Rejected("BAD_INPUT", str(exc))


def _rule_range(
    count: int, rule_ids: Sequence[str], house_rules: Mapping[str, HouseRuleDef]
) -> Rejected | None:
    for rid in rule_ids:
        r = house_rules[rid]
        if (r.min_players is not None and count < r.min_players) or (
            r.max_players is not None and count > r.max_players
        ):
            lo = r.min_players or 1
            hi = r.max_players or lo
            return Rejected(
                "RULE_CONFLICT", f"house rule {rid!r} needs {lo} to {hi} players, not {count}"
            )
    return None


def create(
    *,
    table_id: str,
    game: GameDef[Any],
    options: Mapping[str, Any] | None,
    rule_ids: Sequence[str],
    seats: int | None,
    house_rules: Mapping[str, HouseRuleDef],
    conflicts: Conflicts,
    now: str,
    nonce: str,
    host_hash: str,
    commitment: str,
) -> tuple[Table, list[Event]] | Rejected:
    """A new OPEN table."""
    if seats is not None and not game.min_players <= seats <= game.max_players:
        return Rejected(
            "BAD_INPUT", f"{game.name} seats {game.min_players} to {game.max_players}, not {seats}"
        )
    resolved = check_options(game, options)
    if isinstance(resolved, Rejected):
        return resolved
    rules = tuple(dict.fromkeys(rule_ids))
    bad = check_rules(game, rules, house_rules, conflicts)
    if bad is None and seats is not None:
        bad = _rule_range(seats, rules, house_rules)
    if bad is not None:
        return bad
    n = seats if seats is not None else game.max_players
    table = Table(
        id=table_id,
        game_id=game.id,
        status=OPEN,
        options=resolved,
        house_rules=tuple(sorted(rules)),
        seats=tuple(Seat(i) for i in range(n)),
        host_hash=host_hash,
        nonce=nonce,
        commitment=commitment,
        created_at=now,
        updated_at=now,
    )
    data = {"gameId": game.id, "seats": n, "houseRules": list(table.house_rules)}
    return table, [Event("table.created", data)]


def clean_name(name: str) -> str | None:
    name = unicodedata.normalize("NFC", name).strip()
    if not 1 <= len(name) <= MAX_NAME:
        return None
    if any(unicodedata.category(c).startswith("C") for c in name):
        return None
    return name


def name_key(name: str) -> str:
    """What makes two names the same at a table: equal after NFKC and case folding (so
    "ANN", "ann" and the same letters in full width are one name)."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_taken(table: Table, name: str, but: int | None = None) -> bool:
    """Whether another taken seat than ``but`` carries ``name`` (as ``name_key`` sees it)."""
    key = name_key(name)
    return any(
        s.kind != EMPTY and s.index != but and s.name is not None and name_key(s.name) == key
        for s in table.seats
    )


NAME_TAKEN: Final = "another seat at this table has that name"


def _free_seat(table: Table, seat: int | None) -> int | Rejected:
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "seats change only while the table is open")
    if seat is None:
        for s in table.seats:
            if s.kind == EMPTY:
                return s.index
        return Rejected("TABLE_FULL", "every seat is taken")
    found = table.seat(seat)
    if found is None:
        return Rejected("NOT_FOUND", f"no seat {seat} at this table")
    if found.kind != EMPTY:
        return Rejected("TABLE_FULL", f"seat {seat} is taken")
    return seat


def _with_seat(table: Table, seat: Seat, now: str) -> Table:
    seats = list(table.seats)
    seats[seat.index] = seat
    return replace(table, seats=tuple(seats), updated_at=now)


def join(
    table: Table,
    *,
    name: str,
    seat: int | None,
    token_hash: str,
    host: bool,
    client_seed: str | None,
    now: str,
) -> tuple[Table, int, list[Event]] | Rejected:
    """A human takes a seat (the first free one when ``seat`` is None)."""
    clean = clean_name(name)
    if clean is None:
        return Rejected("BAD_INPUT", f"a name is 1 to {MAX_NAME} printable characters")
    if client_seed is not None and len(client_seed) > MAX_CLIENT_SEED:
        return Rejected("BAD_INPUT", f"a client seed is at most {MAX_CLIENT_SEED} characters")
    index = _free_seat(table, seat)
    if isinstance(index, Rejected):
        return index
    if name_taken(table, clean):
        return Rejected("BAD_INPUT", NAME_TAKEN)
    new = Seat(index, HUMAN, clean, token_hash, host, client_seed)
    event = Event("seat.joined", {"name": clean, "host": host}, seat=index)
    return _with_seat(table, new, now), index, [event]


def add_bot(table: Table, *, seat: int | None, now: str) -> tuple[Table, list[Event]] | Rejected:
    index = _free_seat(table, seat)
    if isinstance(index, Rejected):
        return index
    name, n = f"Bot {index + 1}", 1
    while name_taken(table, name):
        n += 1
        name = f"Bot {index + 1}.{n}"
    return _with_seat(table, Seat(index, BOT, name), now), [
        Event("seat.bot_added", {"name": name}, seat=index)
    ]


def leave(table: Table, *, seat: int, now: str) -> tuple[Table, list[Event]] | Rejected:
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "seats can be left only while the table is open")
    return _with_seat(table, Seat(seat), now), [Event("seat.left", {}, seat=seat)]


def set_rule(
    table: Table,
    *,
    game: GameDef[Any],
    rule_id: str,
    enabled: bool,
    house_rules: Mapping[str, HouseRuleDef],
    conflicts: Conflicts,
    now: str,
) -> tuple[Table, list[Event]] | Rejected:
    if rule_id not in house_rules:
        return Rejected("NOT_FOUND", f"no house rule {rule_id[:80]!r}")
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "house rules change only while the table is open")
    on = set(table.house_rules)
    if enabled:
        on.add(rule_id)
    else:
        on.discard(rule_id)
    bad = check_rules(game, sorted(on), house_rules, conflicts)
    if bad is not None:
        return bad
    rules = tuple(sorted(on))
    data = {"ruleId": rule_id, "enabled": enabled, "houseRules": list(rules)}
    return replace(table, house_rules=rules, updated_at=now), [Event("rules.changed", data)]


def start(
    table: Table,
    *,
    game: GameDef[Any],
    rules: RuleSet,
    seed: bytes,
    house_rules: Mapping[str, HouseRuleDef],
    now: str,
) -> tuple[Table, list[Event]] | Rejected:
    """Deal: empty seats drop out (indices stay), the game's setup runs."""
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "the game has already started")
    order = table.seated()
    if len(order) < game.min_players:
        return Rejected(
            "BAD_INPUT", f"{game.name} needs at least {game.min_players} seated players"
        )
    bad = _rule_range(len(order), table.house_rules, house_rules)
    if bad is not None:
        return bad
    reason = game.check_setup(order, table.options, rules)
    if reason is not None:
        return Rejected("BAD_INPUT", reason)
    rng = Rng(seed)
    state, events = game.setup(SetupContext(order, dict(table.options), rules, rng))
    new = replace(
        table,
        status=PLAYING,
        play_order=order,
        chance=rng.counter,
        state_format=game.state_format,
        game=game.encode(state),
        updated_at=now,
    )
    started = Event("game.started", {"playOrder": list(order)})
    return new, [started, *events]


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
    new = replace(table, game=game.encode(out.state), chance=rng.counter, updated_at=now)
    result = game.result(out.state)
    if result is not None:
        scores = [int(result.scores.get(s.index, 0)) for s in table.seats]
        res = {"winners": list(result.winners), "scores": scores}
        new = replace(new, status=FINISHED, result=res, revealed_seed=reveal())
        events.append(Event("game.finished", {**res, "shuffleSeed": new.revealed_seed}))
    return new, out.state, events


def view(table: Table, game: GameDef[Any], state: Any, seat: int | None) -> dict[str, Any]:
    """The game state as ``seat`` (None: a spectator) may see it, with the core fields."""
    data = dict(game.view(state, seat))
    data["gameId"] = game.id
    data["toAct"] = list(to_act(table, game, state))
    return data
