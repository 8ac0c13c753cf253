"""Subscription fan-out inside one replica.

Each table with local subscribers has one feed. The store tells the hub (through its one
listener) that a table has new events; the feed fetches them once from the store, after
the last cursor it holds, and hands each subscriber the same event object (its redacted
data is made once per ``Sight`` on the delivery, ``engine/views.py``). A subscriber
replays from its own cursor, then takes live events, dropping any it already had: in
order, no gap, no duplicate. A subscriber whose bounded queue fills is dropped with
``SLOW_CONSUMER``. A subscriber may have a sink: a live event that finds it waiting with
nothing queued is handed to the sink by the code that delivers it (a commit's, or the
feed's), with no queue and no task to wake; what the sink declines is queued as for any
subscriber.

Each event comes with the newest table the feed knows, at the event's version or later, so
that the subscriber can ask its rights at it (``service/engine/rights.py``): a table this
replica committed comes with its commit; otherwise the feed reads the table after the
events it fetched.

Where a feed stands in its table's events (delivered, announced, heard of, in flight), and
so whether a commit this replica hands over is delivered at once or fetched, is the
feed's ``Position`` (``_position.py``). Subscribers' bounded queues are ``mailbox.py``'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from tablestate._position import Position
from tablestate.engine.views import Sight
from tablestate.errors import ApiError
from tablestate.mailbox import Mailbox, offer, unless_slow
from tablestate.metrics import Metrics
from tablestate.store.base import (
    BadCursor,
    StateStore,
    StoredEvent,
    StoreUnavailable,
    cursor_key,
)

log = logging.getLogger("tablestate.hub")

FETCH_BATCH: Final = 500


@dataclass(eq=False, slots=True)
class Delivery:
    """One event on its way to the subscribers of a table; redacted once per sight."""

    event: StoredEvent
    _cache: dict[Sight, dict[str, Any]] = field(default_factory=dict)
    # What the API layer derives from the event once per audience and shares among the
    # subscribers (its GraphQL object and results: ``api/fanout.py``).
    memo: dict[Any, Any] = field(default_factory=dict)

    def data_for(self, sight: Sight) -> dict[str, Any]:
        """The event's data as ``sight`` sees it (``Sight.event``), made once per sight."""
        found = self._cache.get(sight)
        if found is None:
            found = self._cache[sight] = sight.event(self.event)
        return found


class Versioned(Protocol):
    """A table as the hub passes it on: only its version matters here."""

    @property
    def version(self) -> int: ...


Loader = Callable[[str], Awaitable["Versioned | None"]]


# A subscriber's way to take a live event at once, with the table it comes with (see
# ``Hub.subscribe``): True when it took it, False to have it queued instead.
Sink = Callable[[Delivery, Any], bool]


@dataclass(eq=False)
class _Subscriber:
    queue: Mailbox[Any]
    slow: bool = False
    seat: int | None = None  # the seat it watches as, if any (its own events come first)
    follows: bool = False  # it asks its rights at every event: it needs the table
    sink: Sink | None = None
    # Its consumer waits on the queue with nothing in hand: a live event may go to the
    # sink, in order, since nothing is before it.
    waiting: bool = False
    seen: tuple[int, int] | None = None  # the newest cursor it was given


_GONE: Final = object()  # the table was not found after a fetch


@dataclass(eq=False)
class _Feed:
    table_id: str
    subscribers: set[_Subscriber] = field(default_factory=set)
    # Where it stands in the table's events, and whether it has to fetch (_position.py).
    at: Position = field(default_factory=Position)
    task: asyncio.Task[None] | None = None
    # The newest table known (at the version of the last event delivered, or later; None:
    # not read yet), and how many subscribers need it.
    table: Any = None
    followers: int = 0
    # Offers that wait for the next turn of the loop (see ``Hub._deliver``), in order.
    later: list[tuple[list[_Subscriber], Delivery]] | None = None

    def learn(self, table: Any) -> None:
        """Keep ``table`` if it is newer than the one held (``_GONE``: the table is gone)."""
        held = self.table
        if table is _GONE or held is None or held is _GONE or table.version >= held.version:
            self.table = table


class Hub:
    """Fan-out of table events to this replica's subscribers."""

    def __init__(
        self,
        store: StateStore,
        metrics: Metrics | None = None,
        queue_size: int = 256,
        load: Loader | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics()
        self.queue_size = queue_size
        self.load = load  # reads a table (the subscribers' rights are asked at it)
        self._feeds: dict[str, _Feed] = {}
        self._subscribers = 0
        self._delivered = self.metrics.child("tablestate_events_delivered_total")
        store.set_listener(self._announce)

    def _announce(self, table_id: str, cursor: str) -> None:
        feed = self._feeds.get(table_id)
        if feed is not None:
            feed.at.announce(cursor)

    async def _run(self, feed: _Feed) -> None:
        """Fetch what is new each time the feed is woken, and deliver it."""
        at = feed.at
        while True:
            await at.wake.wait()
            if not at.wake.is_set():
                continue  # settled meanwhile by this replica's own commit (local_commit)
            at.begin_fetch()
            try:
                while True:
                    batch = await self.store.events(feed.table_id, at.last_cursor, FETCH_BATCH)
                    if batch and feed.followers:
                        await self._read_table(feed)
                    for event in batch:
                        self._deliver(feed, Delivery(event))
                    if len(batch) < FETCH_BATCH:
                        break
            except (StoreUnavailable, BadCursor, ApiError) as exc:
                log.warning("feed fetch failed, retrying: %s", exc)
                await asyncio.sleep(0.2)
                at.wake.set()
            finally:
                at.fetching = False

    def _deliver(self, feed: _Feed, item: Delivery) -> None:
        if not feed.at.advance(cursor_key(item.event.cursor), item.event.cursor):
            return
        # The seat that acted hears first: its subscription is the mover's acknowledgement.
        # The others are offered the event a turn of the loop later, so that the mover's
        # task, and the write of its connection (held for one turn, see service/server.py),
        # run before the tasks of every other subscriber woken by the same event (when
        # there are several: a table's players alone go as before, with no extra turn).
        subscribers, mover = list(feed.subscribers), item.event.seat
        if feed.later is not None:  # offers wait already: this one follows them, in order
            feed.later.append((subscribers, item))
            return
        if mover is not None:
            movers = [sub for sub in subscribers if sub.seat == mover]
            others = [sub for sub in subscribers if sub.seat != mover]
            if movers and len(others) > 1:  # one other task alone delays it little
                self._offer(feed, movers, item)
                feed.later = [(others, item)]
                asyncio.get_running_loop().call_soon(self._offer_later, feed)
                return
            subscribers = movers + others
        self._offer(feed, subscribers, item)

    def _offer_later(self, feed: _Feed) -> None:
        later, feed.later = feed.later or [], None
        for subscribers, item in later:
            self._offer(feed, subscribers, item)

    def _offer(self, feed: _Feed, subscribers: list[_Subscriber], item: Delivery) -> None:
        key = None  # the event's cursor as a key, parsed once for every sink
        table = _table(feed, True)  # for the subscribers that follow it
        taken = 0
        for sub in subscribers:
            if sub.sink is not None and sub.waiting and sub.queue.empty():
                if key is None:
                    key = cursor_key(item.event.cursor)
                if sub.seen is not None and key <= sub.seen:
                    continue  # it had it already
                if self._sink(sub, item, key, table if sub.follows else None):
                    taken += 1
                    continue
            if offer(sub, item):
                self.metrics.inc("tablestate_slow_consumers_total")
        if taken:
            self._delivered.inc(taken)

    def _sink(self, sub: _Subscriber, item: Delivery, key: tuple[int, int], table: Any) -> bool:
        """Hand a live event (``key``: its cursor's) to a subscriber's sink, with the table
        if it follows it: whether it took it (else it is queued)."""
        assert sub.sink is not None
        try:
            taken = sub.sink(item, table)
        except Exception:  # a bug in a sink must not fail the commit that delivers
            log.exception("a subscriber's sink failed; the event is queued for it")
            taken = False
        if taken:
            sub.seen = key
        return taken

    async def _read_table(self, feed: _Feed) -> None:
        """Read the table after events were fetched: it is at their version or later."""
        if self.load is None:
            return
        found = await self.load(feed.table_id)
        feed.learn(found if found is not None else _GONE)

    def local_commit(
        self,
        table_id: str,
        events: tuple[StoredEvent, ...],
        table: Versioned | None = None,
        appended: str = "",
    ) -> None:
        """Events this replica just committed, the table at their version (None: not
        known), and the newest cursor appended at the version the commit followed (the
        store's word; "": none): deliver at once when they follow what the feed holds
        (``Position.follows``), else wake the feed to fetch."""
        feed = self._feeds.get(table_id)
        if feed is None or not events:
            return
        first = cursor_key(events[0].cursor)
        if table is not None and table.version >= events[-1].version:
            feed.learn(table)
        elif feed.followers:
            feed.at.fetch(first)  # the fetch reads the table at these events' version
            return
        if not feed.at.follows(first, appended):
            feed.at.fetch(first)
            return
        for event in events:
            self._deliver(feed, Delivery(event))
        feed.at.settle()

    def settled(self, table_id: str) -> bool:
        """Whether this replica's subscribers of the table hold nothing they were offered and
        have not taken (none has events queued, no offer waits for a later turn)."""
        feed = self._feeds.get(table_id)
        if feed is None:
            return True
        return feed.later is None and all(sub.queue.empty() for sub in feed.subscribers)

    def appending(self, table_id: str, on: bool) -> None:
        """An append (presence, chat) to the table is sent (``on``) or handed over or given
        up (not ``on``): see ``_Feed.appends``."""
        feed = self._feeds.get(table_id)
        if feed is not None:
            feed.at.appending(on)

    async def _open(self, table_id: str) -> _Feed:
        feed = self._feeds.get(table_id)
        if feed is not None:
            return feed
        feed = _Feed(table_id)
        self._feeds[table_id] = feed
        await self.store.watch(table_id)
        newest = await self.store.last_events(table_id, 1)
        if newest:
            feed.at.advance(cursor_key(newest[0].cursor), newest[0].cursor)
        feed.task = asyncio.ensure_future(self._run(feed))
        feed.at.wake.set()
        self.metrics.set("tablestate_watched_tables", len(self._feeds))
        return feed

    async def _close_feed(self, feed: _Feed) -> None:
        if feed.subscribers or self._feeds.get(feed.table_id) is not feed:
            return
        del self._feeds[feed.table_id]
        if feed.task is not None:
            feed.task.cancel()
        try:
            await self.store.unwatch(feed.table_id)
        except StoreUnavailable:
            pass
        self.metrics.set("tablestate_watched_tables", len(self._feeds))

    async def subscribe(
        self,
        table_id: str,
        after: str | None,
        seat: int | None = None,
        follows: bool = False,
        sink: Sink | None = None,
    ) -> AsyncIterator[tuple[Delivery, Any]]:
        """The table's events after ``after`` (all when None), then live ones, forever;
        each with the newest table known then (at its version or later; None when the
        subscription does not ``follow`` the table, or the table is gone).

        ``sink``: once the replay is done, a live event that finds this subscription
        waiting with nothing queued is handed to ``sink`` at once, by the code that
        delivers it (no queue, no task woken); what the sink does not take (False) is
        queued and yielded here, and so is everything after it until the queue is empty
        again. A sink must not raise, and must do nothing when it declines.

        Raises:
            ApiError: ``BAD_INPUT`` for a bad cursor, ``SLOW_CONSUMER`` when this subscriber
            fell too far behind, ``UNAVAILABLE`` when the store is away.
        """
        sub = _Subscriber(Mailbox(self.queue_size), seat=seat, follows=follows, sink=sink)
        feed: _Feed | None = None
        self._subscribers += 1
        self.metrics.set("tablestate_subscribers", self._subscribers)
        try:
            feed = await self._open(table_id)
            feed.subscribers.add(sub)
            if follows:
                feed.followers += 1
            sub.seen = cursor_key(after) if after is not None else None
            cursor = after
            while True:
                # A seat's replay never reads what only viewers without a seat see.
                batch = await self.store.events(
                    table_id, cursor, FETCH_BATCH, seated=seat is not None
                )
                if batch and follows:
                    await self._read_table(feed)
                for event in batch:
                    sub.seen, cursor = cursor_key(event.cursor), event.cursor
                    yield Delivery(event), _table(feed, follows)
                    del event
                if len(batch) < FETCH_BATCH:
                    break
            # An idle subscriber holds none of its replay (its own copies of the events,
            # and what was rendered of them): a few KB each.
            del batch
            while True:
                sub.waiting = True
                try:
                    item = unless_slow(await sub.queue.get())
                finally:
                    sub.waiting = False
                key = cursor_key(item.event.cursor)
                if sub.seen is None or key > sub.seen:
                    sub.seen = key
                    self._delivered.inc()
                    yield item, _table(feed, follows)
                del item
        except BadCursor as exc:
            raise ApiError("BAD_INPUT", str(exc)) from exc
        except StoreUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the store is unreachable; retry later") from exc
        finally:
            self._subscribers -= 1
            self.metrics.set("tablestate_subscribers", self._subscribers)
            if feed is not None:
                if sub in feed.subscribers and follows:
                    feed.followers -= 1
                feed.subscribers.discard(sub)
                await asyncio.shield(self._close_feed(feed))

    async def close(self) -> None:
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
        self._feeds.clear()


def _table(feed: _Feed, follows: bool) -> Any:
    return feed.table if follows and feed.table is not _GONE else None
