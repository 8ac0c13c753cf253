"""What a viewer sees of a table's state and of its events: the one place that decides.

A viewer's rights at a table (``engine/rights.py``: a seat, host rights, nothing) come down
to its ``Sight``: the seat whose private parts it sees (None: no seat's) and whether it
holds the host's rights. Everything a viewer is shown of a table and its events is made
here from the sight alone, with the table, the game state and the event: ``Sight.state``
(the game's own ``view`` asked with the sight's seat), ``Sight.sees`` and ``Sight.event``
(an event's audience, and its public data with the sight's own private part).

So two viewers with equal sights are shown the same, and may share what is made for one
of them: the sight is the key of every shared result (the hub's redacted data, the API's
event objects and executed results, ``api/fanout.py`` and ``api/direct.py``).
``Sight.of_event`` narrows the key to what one event's data depends on: every seat
without a private part in it sees what a spectator sees (in a game without secrets,
everyone shares one result). ``Sight.whole_key`` says which key a result of a selection
that reaches past the event's own fields is shared under, or that it is not.

Whether the table is over needs no place in the key: a game that shows its hands at the end
does so in its state's view, and the seed is revealed in the table's own fields and in the
``game.finished`` event, the same for every viewer.

A ``Sight`` is a named tuple: hashed and compared as a tuple is, so using it as a key on
the path of every delivery costs no more than the ``(seat, host)`` pair it replaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple, Protocol

from tablestate.engine.game import GameDef
from tablestate.engine.rights import SPECTATORS
from tablestate.engine.table import Table, to_act


class _Event(Protocol):
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def private(self) -> Mapping[str, Any]: ...
    @property
    def audience(self) -> str | None: ...


class _Held(Protocol):
    @property
    def seat(self) -> int | None: ...
    @property
    def host(self) -> bool: ...


class Sight(NamedTuple):
    """What a viewer sees: the seat whose private parts it sees (None: none) and whether it
    holds the host's rights. Equal sights are shown the same."""

    seat: int | None = None
    host: bool = False

    @classmethod
    def of(cls, held: _Held) -> Sight:
        """The sight of rights held at a table (``rights.Rights``): one object per sight, so
        that keys holding it compare by identity on the path of every delivery."""
        key = (held.seat, bool(held.host))
        found = _KNOWN.get(key)
        if found is None:
            found = cls(*key)
            if len(_KNOWN) < _KEEP:
                _KNOWN[key] = found
        return found

    def sees(self, event: _Event) -> bool:
        """Whether this sight is shown the event at all (spectators' chat is for viewers
        without a seat)."""
        audience = event.audience
        return audience is None or (audience == SPECTATORS and self.seat is None)

    def event(self, event: _Event) -> dict[str, Any]:
        """The event's data as this sight sees it: the public part, plus ``private``: its
        own seat's private part, if the event has one."""
        seat = self.seat
        if seat is None:
            return event.data
        own = event.private.get(str(seat))
        if own is None:
            return event.data
        return {**event.data, "private": own}

    def of_event(self, event: _Event) -> Sight:
        """The narrowest sight shown the same data of this event: its own where it has a
        private part in it, else the spectators'."""
        seat = self.seat
        if seat is not None and event.private.get(str(seat)) is not None:
            return self if not self.host else Sight(seat)
        return SPECTATING

    def whole_key(self) -> Sight | None:
        """The key results of a selection that reaches past an event's own fields (its
        ``table``) are shared under among the viewers of this sight, or None: each viewer's
        is its own. Only the spectators' are shared: their table is shown as a spectator
        sees it, whatever their credential holds by then; a seat's or a host's is asked
        with the viewer's own rights at the newest table, which another viewer of the same
        sight may no longer hold."""
        return self if self == SPECTATING else None

    def state(self, table: Table, game: GameDef[Any], state: Any) -> dict[str, Any] | None:
        """The game state as this sight sees it, with the core fields (None while the table
        is OPEN: no state yet)."""
        if state is None:
            return None
        data = dict(game.view(state, self.seat))
        data["gameId"] = game.id
        data["toAct"] = list(to_act(table, game, state))
        return data


SPECTATING: Final = Sight()
HOST: Final = Sight(None, True)
_KNOWN: Final[dict[tuple[int | None, bool], Sight]] = {
    (None, False): SPECTATING,
    (None, True): HOST,
}
_KEEP: Final = 1024  # sights kept (two per seat index in use)
