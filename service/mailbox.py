"""A FIFO queue and a flag for the many that wait idle: a subscription, a WebSocket's received
messages, a WebSocket's writes.

``asyncio.Queue`` holds three deques and an ``asyncio.Event`` from the start, about 3 KB
each; a server with thousands of idle subscribers holds thousands of them. ``Mailbox``
offers what those callers use (``put_nowait``, ``get``, ``get_nowait``, ``empty``,
``qsize``, with the same ``QueueFull``/``QueueEmpty`` and the same order) and holds a deque
only while items wait and a future only while a getter does.

A subscriber's mailbox (a table's, in the hub; the lobby's) is bounded: ``offer`` queues an
item, or marks a subscriber whose mailbox is full as slow, which ``unless_slow`` turns into
``SLOW_CONSUMER``.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Final, Generic, Protocol, TypeVar

from tablestate.errors import ApiError

T = TypeVar("T")


class Mailbox(Generic[T]):
    """A FIFO queue, bounded by ``maxsize`` (0: unbounded), for one loop's coroutines."""

    __slots__ = ("_items", "_waiters", "maxsize")

    def __init__(self, maxsize: int = 0) -> None:
        self.maxsize = maxsize
        self._items: collections.deque[T] | None = None
        self._waiters: list[asyncio.Future[None]] | None = None

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: T) -> None:
        """Add ``item`` at the end; ``asyncio.QueueFull`` when ``maxsize`` items wait."""
        if self._items is None:
            self._items = collections.deque()
        elif 0 < self.maxsize <= len(self._items):
            raise asyncio.QueueFull
        self._items.append(item)
        self._wake()

    def get_nowait(self) -> T:
        """The first item; ``asyncio.QueueEmpty`` when none waits."""
        items = self._items
        if not items:
            raise asyncio.QueueEmpty
        item = items.popleft()
        if not items:
            self._items = None
        return item

    async def get(self) -> T:
        """The first item, once there is one."""
        while not self._items:
            waiter = _enlist(self)
            try:
                await waiter
            except BaseException:
                if not _drop(self, waiter) and self._items:
                    self._wake()  # it was woken for an item it will not take: the next one
                raise
        return self.get_nowait()

    def _wake(self) -> None:
        """Wake the first getter still waiting."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                break
        if not waiters:
            self._waiters = None


_SLOW: Final = object()


class Queued(Protocol):
    """A subscriber with a bounded queue: the hub's and the lobby's."""

    queue: Mailbox[Any]
    slow: bool


def offer(sub: Queued, item: Any) -> bool:
    """Queue ``item`` for ``sub``. A full queue marks the subscriber slow: it is emptied and
    holds only the mark, which ``unless_slow`` turns into ``SLOW_CONSUMER``; a slow
    subscriber gets nothing more. Whether the subscriber went slow just now."""
    if sub.slow:
        return False
    try:
        sub.queue.put_nowait(item)
    except asyncio.QueueFull:
        sub.slow = True
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(_SLOW)
        return True
    return False


def unless_slow(item: Any) -> Any:
    """``item`` as taken from a subscriber's queue, or ``SLOW_CONSUMER`` for the mark."""
    if item is _SLOW:
        raise ApiError("SLOW_CONSUMER", "this subscriber fell too far behind")
    return item


class Flag:
    """A flag to wait for, as ``asyncio.Event`` (``set``, ``clear``, ``is_set``, ``wait``)
    but holding a list only while a coroutine waits: an ``Event`` holds a deque from the
    start (some 700 B), and every connection holds one for its writes to wait on."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        """Set the flag and wake every waiter."""
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        """Return at once when the flag is set, else once it is (True, as ``Event``)."""
        if self._set:
            return True
        waiter = _enlist(self)
        try:
            await waiter
        finally:
            _drop(self, waiter)
        return True


def _enlist(owner: Mailbox[Any] | Flag) -> asyncio.Future[None]:
    """A new future for a coroutine to wait on, at the end of ``owner``'s waiters."""
    waiter = asyncio.get_running_loop().create_future()
    if owner._waiters is None:
        owner._waiters = []
    owner._waiters.append(waiter)
    return waiter


def _drop(owner: Mailbox[Any] | Flag, waiter: asyncio.Future[None]) -> bool:
    """Take ``waiter`` off ``owner``'s waiters (and the list once empty); whether it was on."""
    waiters = owner._waiters
    if waiters is None or waiter not in waiters:
        return False
    waiters.remove(waiter)
    if not waiters:
        owner._waiters = None
    return True
