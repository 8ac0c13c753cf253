"""One redaction (``engine/views.py``), as a property over every installed game: random play,
and every way a seat changes hands (join, leave, kick, a bot taking over after timeouts or a
grace period, a seat handed to a new player, a rejoin, the table finishing).

At every step, every viewer (each seat's token and signed-in user, old ones included, the
host, another table's token, a signed-in user without a seat, nobody) is asked its rights at
the table and shown the state and the step's events through its ``Sight``:

- viewers with equal sights are shown exactly the same (so sharing by sight is sound), and so
  are the viewers fan-out lets share a delivered event's data (``Sight.of_event``);
- nobody is shown another seat's private part of an event, nor an item the game hides from
  it in the state (``GameFacts.hidden``), and a seat is shown its own private part;
- a sight with a seat belongs to the credential the table binds that seat to now.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.games import facts, game, installed, registry

from tablestate.api import fanout
from tablestate.api.types import TableEvent
from tablestate.engine import Rejected, lobby, opening, seating
from tablestate.engine import table as eng
from tablestate.engine.clock import time_out
from tablestate.engine.game import Event
from tablestate.engine.rights import SPECTATORS, Credential, User, rights, token_hash
from tablestate.engine.views import SPECTATING, Sight
from tablestate.hub import Delivery
from tablestate.store.base import NewEvent, StoredEvent
from tablestate.tables.commit import new_events
from tablestate.testing.conformance import secret, strings

AT = "2026-01-01T00:00:00.000Z"
TID = "t1"
FOREVER = 1e12
STEPS = ("move", "move", "move", "leave", "rejoin", "grace", "timeout", "replace", "chat")


def _user(uid: str) -> User:
    return User(f"https://issuer.test#{uid}", None, FOREVER, lambda: 0.0)


@dataclass
class Play:
    """A table played through the engine, with every credential that ever held anything."""

    game: Any
    table: eng.Table
    state: Any = None
    rules: Any = None
    creds: dict[str, Credential | User | None] = field(default_factory=dict)
    issued: int = 0

    def token(self) -> tuple[str, str]:
        self.issued += 1
        name = f"tok{self.issued}"
        self.creds[name] = Credential.of_token(f"{TID}.{name}")
        return name, token_hash(f"{TID}.{name}")


def _ok(out: Any) -> Any:
    assert not isinstance(out, Rejected), out
    return out


def _open(game_id: str, case: int, pick: random.Random, grace: bool) -> tuple[Play, list[Event]]:
    """An OPEN table of one of the game's playout cases (its players, rules and options)."""
    g, cases = game(game_id), facts(game_id).playouts
    chosen = cases[case % len(cases)]
    players = chosen["seats"] if "seats" in chosen else chosen["players"]
    n = players if isinstance(players, int) else len(players)
    rule_ids = [r if "/" in r else f"{game_id}/{r}" for r in chosen.get("rules") or ()]
    options = {
        **facts(game_id).options(pick, n),
        **(chosen.get("options") or {}),
        "leaveGraceSeconds": 60 if grace else 0,
        "timeoutsBeforeBot": 2,
    }
    reg = registry()
    table, events = _ok(
        opening.create(
            table_id=TID,
            game=g,
            options=options,
            rule_ids=rule_ids,
            seats=n,
            house_rules=reg.house_rules,
            conflicts=reg.conflicts,
            now=AT,
            nonce="n",
            host_hash=token_hash(f"{TID}.host"),
            commitment="c",
        )
    )
    play = Play(g, table, rules=registry().ruleset(game_id, rule_ids))
    play.creds.update(
        host=Credential.of_token(f"{TID}.host"),
        elsewhere=Credential.of_token("t2.other"),
        nobody=None,
        unseated=_user("nobody"),
    )
    return play, events


def _join(play: Play, seat: int, how: str) -> list[Event]:
    if how == "bot":
        play.table, events = _ok(opening.add_bot(play.table, seat=seat, now=AT))
        return events
    name, digest = play.token()
    uid = None
    if how == "user":
        play.creds[f"user-{name}"] = user = _user(f"u-{name}")
        uid = user.id
    play.table, _, events = _ok(
        opening.join(
            play.table,
            name=f"P {name}",
            seat=seat,
            token_hash=digest,
            host=seat == 0,
            client_seed=None,
            now=AT,
            user=uid,
        )
    )
    return events


def _start(play: Play) -> list[Event]:
    reg = registry()
    play.table, events = _ok(
        opening.start(
            play.table,
            game=play.game,
            rules=play.rules,
            seed=b"seed",
            house_rules=reg.house_rules,
            now=AT,
        )
    )
    play.state = eng.decode_state(play.table, play.game)
    return events


def _step(play: Play, kind: str, pick: random.Random) -> list[Event] | list[NewEvent]:
    table = play.table
    seated = [s.index for s in table.seats if s.kind != eng.EMPTY]
    seat = pick.choice(seated)
    if kind == "move" or table.status != eng.PLAYING:
        acting = eng.to_act(table, play.game, play.state)
        if not acting:
            return []
        mover = pick.choice(acting)
        rules = play.rules
        move = pick.choice(play.game.legal_moves(play.state, mover, rules))
        play.table, play.state, events = _ok(
            eng.apply_move(
                table,
                game=play.game,
                state=play.state,
                rules=rules,
                seat=mover,
                move=move,
                seed=b"seed",
                reveal=lambda: "seed",
                now=AT,
            )
        )
        return events
    if kind == "leave" and table.seats[seat].kind == eng.HUMAN:
        out = seating.leave(table, seat=seat, now=0.0, at=AT)
    elif kind == "rejoin":
        out = seating.rejoin(table, seat=seat, at=AT)
    elif kind == "grace":
        out = seating.grace_over(table, now=FOREVER, at=AT)
    elif kind == "timeout" and table.seats[seat].kind == eng.HUMAN:
        play.table, events, _ = time_out(table, seat)
        return events
    elif kind == "replace":  # a human's seat, a bot's, or one left: to a new token
        name, digest = play.token()
        out = seating.replace_player(table, seat=seat, name=f"N {name}", token_hash=digest, at=AT)
    elif kind == "chat":  # spectators' chat: seen by viewers without a seat only
        return [NewEvent("chat.spectator", AT, {"text": "hi"}, None, {}, SPECTATORS)]
    else:
        return []
    if isinstance(out, Rejected):
        return []
    play.table, events = out
    return events


def _shown(sight: Sight, play: Play, events: list[NewEvent]) -> str:
    """Everything ``sight`` is shown of the table now, as one text."""
    seen = [sight.event(e) if sight.sees(e) else None for e in events]
    return json.dumps([sight.state(play.table, play.game, play.state), seen], sort_keys=True)


def _check(play: Play, events: list[Event] | list[NewEvent]) -> None:
    stored = [e if isinstance(e, NewEvent) else new_events([e], AT)[0] for e in events]
    table, game_facts = play.table, facts(play.game.id)
    sights: dict[Sight, str] = {}
    for who, cred in play.creds.items():
        held = rights(cred, table)
        sight = Sight.of(held)
        if sight.seat is not None:  # the seat is this credential's, as the table says now
            s = table.seats[sight.seat]
            bound = (
                s.user == cred.id
                if isinstance(cred, User)
                else s.token_hash == getattr(cred, "digest", None)
            )
            assert bound, (who, sight)
        shown = _shown(sight, play, stored)
        # equal sights: shown the same (whose credential it is does not matter)
        assert sights.setdefault(sight, shown) == shown, (who, sight)
        for e in stored:
            if not sight.sees(e):
                assert e.audience == SPECTATORS and sight.seat is not None
                continue
            data = sight.event(e)
            own = e.private.get(str(sight.seat)) if sight.seat is not None else None
            assert data == ({**e.data, "private": own} if own is not None else e.data), who
        if play.state is not None:
            hidden = secret(game_facts, play.state, sight.seat)
            view = sight.state(table, play.game, play.state)
            leaked = set(strings(view)) & hidden
            assert not leaked, (who, sight, leaked)
    _check_deliveries(stored, sights)


def _check_deliveries(stored: list[NewEvent], sights: dict[Sight, str]) -> None:
    """Fan-out's objects of each event: viewers whose results it shares see the same data."""
    op = object()
    for n, e in enumerate(stored):
        item = Delivery(
            StoredEvent(f"{n}-0", n, e.type, e.at, e.data, e.seat, e.private, e.audience)
        )
        made = {s: TableEvent.delivered(item, TID, s) for s in (*sights, SPECTATING)}
        by_key: dict[Any, Any] = {}
        for s, event in made.items():
            if not s.sees(e):
                continue
            assert event.sight == s and event.data == s.event(e), s
            key = (id(event.shared), fanout.result_key(op, False, event))
            assert by_key.setdefault(key, event.data) == event.data, s
            whole = fanout.result_key(op, True, event)
            if whole is not None:
                assert made[SPECTATING].data == event.data and s == SPECTATING


@pytest.mark.parametrize("game_id", installed())
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    case=st.integers(0, 100),
    seed=st.integers(0, 2**32),
    grace=st.booleans(),
    joins=st.lists(st.sampled_from(["token", "user", "bot"]), min_size=6, max_size=6),
    opening_changes=st.lists(st.sampled_from(["kick", "leave"]), max_size=2),
    steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=40),
)
def test_equal_sights_are_shown_the_same_and_nobody_another_seats_secrets(
    game_id: str,
    case: int,
    seed: int,
    grace: bool,
    joins: list[str],
    opening_changes: list[str],
    steps: list[str],
) -> None:
    pick = random.Random(seed)
    play, events = _open(game_id, case, pick, grace)
    _check(play, events)
    n = len(play.table.seats)
    for seat in range(n):
        _check(play, _join(play, seat, joins[seat % len(joins)] if seat else "token"))
    for change in opening_changes:  # a seat emptied while OPEN, then taken by a new token
        seat = pick.randrange(n)
        if change == "kick":
            play.table, events = _ok(lobby.kick(play.table, seat=seat, now=AT))
        else:
            play.table, events = _ok(opening.leave(play.table, seat=seat, now=AT))
        _check(play, events)
        _check(play, _join(play, seat, "token"))
    _check(play, _start(play))
    for kind in steps:
        _check(play, _step(play, kind, pick))
    while play.table.status == eng.PLAYING and len(steps) > 30:  # some play on to the end
        _check(play, _step(play, "move", pick))
