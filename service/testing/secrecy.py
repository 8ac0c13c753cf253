"""Secrecy for any game, over values of every type: what a viewer gets (its view, its copy
of each event) must stay the same when the parts of the state hidden from it change.

The hidden parts are changed by a scramble: the game's facts' ``scramble`` when they give
one, else the game's own ``determinize`` (a state the seat cannot tell from this one, its
hidden parts drawn again), so a game that declares ``determinize`` is checked with no facts
at all. Views and events are compared as JSON of any type (strings, numbers, nested lists,
objects), so a hand leaked as numbers is caught as surely as one leaked as card names.

An event is checked by playing the same move twice: in the state with one draw of chance,
and in a scrambled state with another (so that dice rolled or cards drawn by the move come
out otherwise too). When the viewer's view after the move is the same in both, the
viewer's copy of the events (their public data, and its own private part) must be the same
too. Event types that exist to show what was hidden (a showdown, a challenge's dice) are
named in the facts' ``revealing`` and not compared.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tablestate.engine.game import Event, GameDef, Move, Outcome
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet

if TYPE_CHECKING:
    from tablestate.testing.conformance import GameFacts


def _who(seat: int | None) -> str:
    return "a spectator" if seat is None else f"seat {seat}"


def difference(mine: Any, theirs: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``"players.1.dice.0": 3, else 5``), or None
    when they are equal."""
    if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
        for key in sorted({*mine, *theirs}, key=str):
            inner = f"{path}.{key}" if path else str(key)
            if key not in mine or key not in theirs:
                return f'"{inner}": present in one and not the other'
            found = difference(mine[key], theirs[key], inner)
            if found is not None:
                return found
        return None
    if isinstance(mine, list | tuple) and isinstance(theirs, list | tuple):
        if len(mine) != len(theirs):
            return f'"{path}": {len(mine)} items, else {len(theirs)}'
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            found = difference(a, b, f"{path}.{i}" if path else str(i))
            if found is not None:
                return found
        return None
    if mine == theirs and type(mine) is type(theirs):
        return None
    return f'"{path}": {_text(mine)}, else {_text(theirs)}'


def _text(value: Any) -> str:
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return repr(value)


def scramble(
    game: GameDef[Any],
    facts: GameFacts,
    state: Any,
    seat: int | None,
    seats: Sequence[int],
    shuffle: random.Random,
) -> Any:
    """``state`` with what ``seat`` (None: a spectator) may not see drawn again: the facts'
    ``scramble`` if they have one, else the game's ``determinize`` (for a spectator, as a
    seat drawn at random sees it: what a spectator sees, every seat sees)."""
    try:
        return facts.scramble(state, seat, shuffle)
    except NotImplementedError:
        pass
    who = seat if seat is not None else shuffle.choice(list(seats))
    return game.determinize(state, who, Rng(b"scramble", shuffle.getrandbits(32)))


def seen(event: Event, seat: int | None) -> dict[str, Any]:
    """An event as ``seat`` (None: a spectator) gets it: its public part and its own."""
    out: dict[str, Any] = {"type": event.type, "seat": event.seat, "data": event.data}
    if seat is not None and seat in event.private:
        out["private"] = event.private[seat]
    return out


def check_view_secret(
    game: GameDef[Any],
    facts: GameFacts,
    state: Any,
    seats: Sequence[int],
    shuffle: random.Random,
    views: Mapping[int | None, Any] | None = None,
) -> dict[int | None, Any]:
    """Each view (every seat's and a spectator's; ``views`` when they are made already) is
    the same in a state scrambled as its viewer cannot tell. The scrambled states, by
    viewer (for ``check_events_secret``)."""
    out: dict[int | None, Any] = {}
    for seat in (None, *seats):
        view = views[seat] if views is not None else game.view(state, seat)
        out[seat] = other = scramble(game, facts, state, seat, seats, shuffle)
        again = game.view(other, seat)
        found = None if again == view else difference(view, again)
        assert found is None, (
            f"the view of {_who(seat)} changes with what it may not see: at {found} in a "
            "state it cannot tell from this one"
        )
    return out


def check_events_secret(
    game: GameDef[Any],
    facts: GameFacts,
    seats: Sequence[int],
    before: Any,
    mover: int,
    move: Move,
    rules: RuleSet,
    chance: Rng,
    shuffle: random.Random,
    scrambled: Mapping[int | None, Any] | None = None,
) -> None:
    """The events of ``mover``'s ``move`` from ``before`` show no viewer what it may not
    see (the module's docstring): ``chance`` is the table's generator, which the two plays
    fork in two ways; ``scrambled``: ``check_view_secret``'s states of ``before``, whose
    views it checked (else they are drawn here, and checked)."""
    base = game.apply(before, mover, move, chance.fork(b"secrecy"), rules)
    if not isinstance(base, Outcome):
        return
    for seat in (None, *seats):
        if scrambled is not None:
            other = scrambled[seat]
        else:
            other = scramble(game, facts, before, seat, seats, shuffle)
            if game.view(other, seat) != game.view(before, seat):
                continue  # the view check reports it
        out = game.apply(other, mover, move, chance.fork(b"secrecy/else"), rules)
        if not isinstance(out, Outcome) or game.view(out.state, seat) != game.view(
            base.state, seat
        ):
            continue  # the move showed the viewer something new: its events may too
        mine = [seen(e, seat) for e in base.events if e.type not in facts.revealing]
        theirs = [seen(e, seat) for e in out.events if e.type not in facts.revealing]
        found = None if mine == theirs else difference(mine, theirs)
        assert found is None, (
            f"the events of seat {mover}'s move {_text(move)} show {_who(seat)} what it may not "
            f"see: at {found} (event {_event_at(found, mine)}) in a state it cannot tell "
            "from this one"
        )


def _event_at(found: str | None, events: Sequence[Mapping[str, Any]]) -> str:
    index = (found or '"').split('"')[1].split(".")[0]
    if index.isdigit() and int(index) < len(events):
        return repr(events[int(index)]["type"])
    return "?"
