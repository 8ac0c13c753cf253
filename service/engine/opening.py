"""A table while it is OPEN: creating it, its options and house rules, seats taken, left
and given to bots, and the start that deals.

Pure functions from a ``Table`` to a new ``Table`` and its events, or a ``Rejected`` with
one of the API's codes (refusals in the documented order: the caller has already checked the
token, that the table exists and the caller's rights).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from tablestate.engine.bots import LEVELS, NORMAL
from tablestate.engine.game import Event, GameDef, HouseRuleDef, Rejected, SetupContext
from tablestate.engine.options import OptionError, resolve, table_schema
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate.engine.table import BOT, EMPTY, HUMAN, OPEN, PLAYING, Seat, Table

MAX_NAME: Final = 40
MAX_CLIENT_SEED: Final = 256

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


def check_options(game: GameDef[Any], options: Any, seats: int) -> Mapping[str, Any] | Rejected:
    """A table's options as sent (a JSON object or nothing), checked against the game's
    options and the core table options, defaults filled in, then by the game's
    ``check_options`` for a table of ``seats`` seats; ``BAD_INPUT`` otherwise."""
    if options is not None and not isinstance(options, Mapping):
        return Rejected("BAD_INPUT", "options must be a JSON object")
    try:
        resolved = resolve(table_schema(game.options), options)
    except OptionError as exc:
        return Rejected("BAD_INPUT", str(exc))
    reason = game.check_options(resolved, seats)
    if reason is not None:
        return Rejected("BAD_INPUT", reason)
    return resolved


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
    host_user: str | None = None,
) -> tuple[Table, list[Event]] | Rejected:
    """A new OPEN table (``host_user``: the signed-in user who holds the host's rights)."""
    if seats is not None and not game.min_players <= seats <= game.max_players:
        return Rejected(
            "BAD_INPUT", f"{game.name} seats {game.min_players} to {game.max_players}, not {seats}"
        )
    n = seats if seats is not None else game.max_players
    resolved = check_options(game, options, n)
    if isinstance(resolved, Rejected):
        return resolved
    rules = tuple(dict.fromkeys(rule_ids))
    bad = check_rules(game, rules, house_rules, conflicts)
    if bad is None and seats is not None:
        bad = _rule_range(seats, rules, house_rules)
    if bad is not None:
        return bad
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
        host_user=host_user,
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


def with_seat(table: Table, seat: Seat, now: str) -> Table:
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
    user: str | None = None,
) -> tuple[Table, int, list[Event]] | Rejected:
    """A human takes a seat (the first free one when ``seat`` is None); ``user``: the
    signed-in user it is bound to, who holds at most one seat of a table."""
    clean = clean_name(name)
    if clean is None:
        return Rejected("BAD_INPUT", f"a name is 1 to {MAX_NAME} printable characters")
    if client_seed is not None and len(client_seed) > MAX_CLIENT_SEED:
        return Rejected("BAD_INPUT", f"a client seed is at most {MAX_CLIENT_SEED} characters")
    held = next((s.index for s in table.seats if user is not None and s.user == user), None)
    if held is not None and table.status == OPEN:
        return Rejected("ALREADY_SEATED", f"you hold seat {held} of this table already")
    index = _free_seat(table, seat)
    if isinstance(index, Rejected):
        return index
    if name_taken(table, clean):
        return Rejected("BAD_INPUT", NAME_TAKEN)
    new = Seat(index, HUMAN, clean, token_hash, host, client_seed, user=user)
    event = Event("seat.joined", {"name": clean, "host": host}, seat=index)
    return with_seat(table, new, now), index, [event]


def add_bot(
    table: Table, *, seat: int | None, now: str, level: str = NORMAL
) -> tuple[Table, list[Event]] | Rejected:
    """Seat a bot of ``level`` (``service/engine/bots.py``; normal is stored as None, as
    older records have it)."""
    if level not in LEVELS:
        return Rejected("BAD_INPUT", f"no bot level {level!r}: one of {', '.join(LEVELS)}")
    index = _free_seat(table, seat)
    if isinstance(index, Rejected):
        return index
    name, n = f"Bot {index + 1}", 1
    while name_taken(table, name):
        n += 1
        name = f"Bot {index + 1}.{n}"
    stored = None if level == NORMAL else level
    return with_seat(table, Seat(index, BOT, name, bot_level=stored), now), [
        Event("seat.bot_added", {"name": name}, seat=index)
    ]


def leave(table: Table, *, seat: int, now: str) -> tuple[Table, list[Event]] | Rejected:
    if table.status != OPEN:
        return Rejected("TABLE_NOT_OPEN", "seats can be left only while the table is open")
    return with_seat(table, Seat(seat), now), [Event("seat.left", {}, seat=seat)]


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
    reason = game.check_options(table.options, len(order)) or game.check_setup(
        order, table.options, rules
    )
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
