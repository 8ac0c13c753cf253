"""Quick play's matching, pure: which waiting tickets make a table now.

A ticket waits in a pool: one game, one set of house rules, one set of options (the same
JSON, keys sorted), so a pool's tickets all want the same game. Within it the matcher
takes the oldest ticket first (fairness: nobody is passed over by a later arrival who
could have played with them) and gathers behind it the oldest tickets that fit:

- the seat counts overlap: every ticket's ``{min, max}`` players holds the table's size;
- signed-in players are within a rating window of each other: ``WINDOW`` ordinal points at
  first, widening by ``WIDEN`` a second the older of the two has waited, up to ``MAX_WINDOW``
  (anyone without a rating, anonymous players among them, fits every window: they come
  by arrival).

A group that fills the largest table every ticket accepts starts at once. Once the oldest
ticket has waited its ``afterSeconds``, its group starts with what it has, at least the
minimum: bots fill the seats left up to the largest size, where every ticket of the group
allows bots; without bots, a group below the minimum keeps waiting. A ticket that cannot
start yet never blocks the tickets behind it from making a table of their own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

WINDOW: Final = 5.0  # ordinal points two signed-in players may be apart at first
WIDEN: Final = 1.0  # points the window grows by each second waited
MAX_WINDOW: Final = 50.0

WAITING: Final = "WAITING"
MATCHED: Final = "MATCHED"
CANCELLED: Final = "CANCELLED"
EXPIRED: Final = "EXPIRED"


def pool_of(game_id: str, house_rules: Sequence[str], options: Any) -> str:
    """The pool of tickets that want this game, these house rules and these options."""
    key = json.dumps([game_id, sorted(set(house_rules)), options], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player's wish to play now, as the queue keeps it."""

    id: str
    pool: str
    game_id: str
    house_rules: tuple[str, ...]
    options: Any
    min: int
    max: int
    bots: bool  # may bots fill the seats left once the wait is over
    after: float  # seconds of the wait
    at: float  # when it was made (epoch seconds)
    name: str  # the name its seat takes
    user: str | None = None  # the signed-in user, or None for an anonymous player
    rating: float | None = None  # the user's ordinal in this game and variant, if rated
    address: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Ticket:
        data = json.loads(text)
        data["house_rules"] = tuple(data["house_rules"])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Group:
    """Tickets that make one table now: ``seats`` in all, ``bots`` of them bots."""

    tickets: tuple[Ticket, ...]
    seats: int
    bots: int


def window(waited: float) -> float:
    """How many ordinal points apart two signed-in players may be after ``waited`` s."""
    return min(MAX_WINDOW, WINDOW + WIDEN * max(0.0, waited))


def near(a: Ticket, b: Ticket, now: float) -> bool:
    """Whether two tickets' players may meet now by their ratings."""
    if a.rating is None or b.rating is None:
        return True
    waited = now - min(a.at, b.at)
    return abs(a.rating - b.rating) <= window(waited)


def plan(waiting: Sequence[Ticket], now: float) -> list[Group]:
    """The tables to make now from one pool's waiting tickets (oldest first)."""
    left = sorted(waiting, key=lambda t: (t.at, t.id))
    groups: list[Group] = []
    held: set[str] = set()  # tickets of a group made this round
    for i, anchor in enumerate(left):
        if anchor.id in held:
            continue
        # Only the tickets behind it: an older one free yet could not start with it.
        group = gather(anchor, left[i + 1 :], now, held)
        if group is not None:
            groups.append(group)
            held.update(t.id for t in group.tickets)
    return groups


def gather(
    anchor: Ticket,
    behind: Sequence[Ticket],
    now: float,
    held: frozenset[str] | set[str] = frozenset(),
) -> Group | None:
    """The table ``anchor`` makes now with the oldest of ``behind`` that fit (none of
    ``held``), or None. It reads ``behind`` only until the table is full."""
    tickets = [anchor]
    lo, hi = anchor.min, anchor.max
    for t in behind:
        if len(tickets) >= hi:
            break
        if t.id in held:
            continue
        new_lo, new_hi = max(lo, t.min), min(hi, t.max)
        if new_lo > new_hi or len(tickets) + 1 > new_hi:
            continue
        if not all(near(t, other, now) for other in tickets):
            continue
        tickets.append(t)
        lo, hi = new_lo, new_hi
    if len(tickets) >= hi:
        return Group(tuple(tickets), len(tickets), 0)
    if now - anchor.at < anchor.after:
        return None
    if all(t.bots for t in tickets):
        return Group(tuple(tickets), hi, hi - len(tickets))
    if len(tickets) >= lo:
        return Group(tuple(tickets), len(tickets), 0)
    return None
