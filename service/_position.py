"""Where a table's feed in the hub (``hub.py``) stands in the table's events: the newest it
delivered, the newest the store announced, the oldest it heard of and has not read, and the
appends in flight from this replica; and the one question the hub asks of them, whether a
commit this replica hands over follows what the feed holds (then it is delivered at once,
else the feed fetches).

A commit of this replica comes back to it twice: handed over by the code that made it, and
announced by the store on another connection, in either order. Events appended at the
version before it (presence, chat) may come between, from any replica; the store names the
newest of them in the commit's reply (``appended``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Final

from tablestate.store.base import BadCursor, cursor_key

ANY: Final = (1 << 62, 0)  # an announcement without a usable cursor: past every cursor
UNKNOWN: Final = (-1, 0)  # ... and before every cursor, for ``Position.pending``


@dataclass(eq=False, slots=True)
class Position:
    """A feed's place in its table's events, and ``wake``: set when it has to fetch."""

    # The newest event delivered: its cursor as a key (``cursor_key``) and as text.
    last: tuple[int, int] | None = None
    last_cursor: str | None = None
    # The newest cursor announced by the store (``ANY``: unknown, fetch whatever is new).
    announced: tuple[int, int] | None = None
    # The oldest cursor past ``last`` heard of (announced, or handed over out of turn)
    # since the last fetch began: a commit handed over by this replica follows what the
    # feed holds only if nothing before it is still to be read (an event appended at the
    # previous version: presence, chat). ``UNKNOWN``: an announcement without a cursor.
    pending: tuple[int, int] | None = None
    # Appends this replica has sent for the table and not yet handed over (their reply, or
    # their announcement, may come after a later commit's): no commit is delivered
    # without a fetch meanwhile.
    appends: int = 0
    fetching: bool = False  # a fetch is under way: it settles what comes meanwhile
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def advance(self, key: tuple[int, int], cursor: str) -> bool:
        """Take the event at ``cursor`` (``key``: its key) as delivered, unless the feed
        holds it already: whether it is new."""
        if self.last is not None and key <= self.last:
            return False
        self.last, self.last_cursor = key, cursor
        return True

    def announce(self, cursor: str) -> None:
        """The store announced ``cursor`` (or something it could not name): the feed is to
        fetch, unless it delivered that already (this replica's own commit)."""
        key = ANY
        if cursor:
            try:
                key = cursor_key(cursor)
            except BadCursor:
                pass
        if key is not ANY and self.last is not None and key <= self.last:
            return
        if self.announced is None or key > self.announced:
            self.announced = key
        self.expect(UNKNOWN if key is ANY else key)
        self.wake.set()

    def expect(self, key: tuple[int, int]) -> None:
        """Note that ``key`` is to be read, unless the feed holds it already (``UNKNOWN``:
        something is, maybe before what it holds)."""
        if key is not UNKNOWN and self.last is not None and key <= self.last:
            return
        if self.pending is None or key < self.pending:
            self.pending = key

    def fetch(self, key: tuple[int, int]) -> None:
        """The events from ``key`` on were not delivered here: the feed is to fetch them."""
        self.expect(key)
        self.wake.set()

    def begin_fetch(self) -> None:
        """A fetch begins: it reads everything heard of until now."""
        self.wake.clear()
        self.announced = self.pending = None
        self.fetching = True

    def follows(self, first: tuple[int, int], appended: str) -> bool:
        """Whether a commit of this replica whose first event is at ``first`` follows what
        the feed holds: the next version's first event, with no fetch under way, nothing
        in flight from here, nothing heard of before it, and no append at the previous
        version past what the feed holds (``appended``, the store's word; "": none)."""
        last = self.last
        return (
            last is not None
            and first[1] == 0
            and first[0] == last[0] + 1
            and not self.fetching
            and not self.appends
            and (self.pending is None or self.pending >= first)
            and (not appended or cursor_key(appended) <= last)
        )

    def settle(self) -> None:
        """After a handed-over commit was delivered: the store's announcement of it may
        have come first and woken the feed; when nothing newer was heard of, it need not
        fetch."""
        announced, last, pending = self.announced, self.last, self.pending
        if (
            self.wake.is_set()
            and announced is not None
            and last is not None
            and announced <= last
            and (pending is None or pending <= last)
        ):
            self.wake.clear()
            self.pending = None

    def appending(self, on: bool) -> None:
        """An append of this replica is sent (``on``), or handed over or given up."""
        if on or self.appends:
            self.appends += 1 if on else -1
