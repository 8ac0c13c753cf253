"""The pub/sub connection of a plain ``redis://`` URL, read as its data comes.

Every commit's announcement comes back to the watcher of each replica that follows the
table, the one that made the commit included: one message a move. redis-py's ``PubSub``
reads each through its retry wrapper, a timeout armed and cancelled per read and its
bookkeeping of the connection's health: some 8-11 µs of CPU a message (against well under
one here), the largest part of the watcher's share of a busy server. Here an
``asyncio.Protocol`` feeds hiredis and queues what it reads; ``get_message`` takes from
that queue without waiting when something is there, and a single timer per connection
stands for every read's timeout: a round of ``keepalive`` seconds with nothing heard ends
the wait with None, as redis-py's ``get_message(timeout=keepalive)`` does (the watcher
then pings, and gives the link up after rounds of silence).

It offers the calls of redis-py's ``PubSub`` that the watcher makes, with their results:
``connect``, ``ssubscribe``, ``sunsubscribe``, ``ping``, ``get_message`` (a dict with
``type``, ``channel`` and ``data``; a reply to ``PING`` is a ``pong``), ``connection``
(None once lost) and ``aclose``. Errors are redis-py's: a lost connection is
``ConnectionError``, an error reply redis-py's class of it (``ResponseError`` mostly).
Every other URL (TLS, unix sockets, Sentinel, Cluster nodes) keeps redis-py's ``PubSub``.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Final

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from tablestate.store._pipe import Address, Replies

NAME: Final = "tablestate-pubsub"


class _Protocol(Replies):
    def __init__(self, link: LeanPubSub) -> None:
        super().__init__()
        self._link = link

    def reply(self, reply: Any) -> None:
        self._link.heard(reply)

    def broken(self, exc: BaseException) -> None:
        self._link.lose(exc)


class LeanPubSub:
    """One pub/sub connection to ``address`` (see the module)."""

    def __init__(self, address: Address, *, keepalive: float, timeout: float) -> None:
        self._address = address
        self._keepalive = keepalive
        self._timeout = timeout
        self._protocol: _Protocol | None = None
        self._lost: BaseException | None = None
        self._heard: collections.deque[Any] = collections.deque()
        self._hello: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._count = 0  # replies and messages heard, for the keepalive's rounds
        self._counted = 0
        self._timer: asyncio.TimerHandle | None = None

    async def connect(self) -> None:
        """Connect, authenticate and name the connection (``CLIENT LIST`` shows it)."""
        loop = asyncio.get_running_loop()
        hello: list[tuple[str, ...]] = [("CLIENT", "SETNAME", NAME)]
        auth = self._address.auth()
        if auth is not None:
            hello.insert(0, auth)
        try:
            async with asyncio.timeout(self._timeout):
                _, self._protocol = await loop.create_connection(
                    lambda: _Protocol(self), self._address.host, self._address.port
                )
                replies = []
                for command in hello:
                    replies.append(loop.create_future())
                    self._hello.append(replies[-1])
                    self._write(command)
                for reply in replies:
                    await reply
        except BaseException:
            await self.aclose()
            raise
        self._timer = loop.call_later(self._keepalive, self._round)

    @property
    def connection(self) -> LeanPubSub | None:
        """Self while connected, else None (as redis-py's ``PubSub.connection``)."""
        return self if self.is_connected else None

    @property
    def is_connected(self) -> bool:
        protocol = self._protocol
        return (
            self._lost is None
            and protocol is not None
            and protocol.transport is not None
            and not protocol.transport.is_closing()
        )

    async def ssubscribe(self, channel: str) -> None:
        self._write(("SSUBSCRIBE", channel))

    async def sunsubscribe(self, channel: str) -> None:
        self._write(("SUNSUBSCRIBE", channel))

    async def ping(self) -> None:
        """Its answer comes as a message of type ``pong``."""
        self._write(("PING",))

    async def get_message(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message heard; None once a round of the keepalive passes with
        nothing heard (``timeout`` is that round, fixed when the link was made).

        Raises:
            RedisError: Redis refused a command (say, sharded pub/sub it lacks).
            ConnectionError: the connection is lost (after what it brought is read).
        """
        while not self._heard:
            if self._lost is not None:
                raise RedisConnectionError(f"pub/sub connection lost: {self._lost}")
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
            if not self._heard and self._lost is None:
                return None  # a silent round
        return _message(self._heard.popleft())

    async def aclose(self) -> None:
        self._stop()
        while self._hello:  # a hello cut short: nobody waits for the rest
            self._hello.popleft().cancel()
        protocol, self._protocol = self._protocol, None
        if protocol is not None and protocol.transport is not None:
            protocol.transport.close()
        if self._lost is None:
            self._lost = ConnectionResetError("closed")

    # The protocol's side.

    def heard(self, reply: Any) -> None:
        self._count += 1
        if self._hello:
            waiter = self._hello.popleft()
            if isinstance(reply, RedisError):
                waiter.set_exception(reply)
            else:
                waiter.set_result(reply)
            return
        self._heard.append(reply)
        self._wake()

    def lose(self, exc: BaseException) -> None:
        if self._lost is None:
            self._lost = exc
        self._stop()
        while self._hello:
            waiter = self._hello.popleft()
            if not waiter.done():
                waiter.set_exception(RedisConnectionError(f"connection to Redis lost: {exc}"))
        self._wake()

    def _write(self, command: tuple[Any, ...]) -> None:
        protocol = self._protocol
        if not self.is_connected or protocol is None or protocol.transport is None:
            raise RedisConnectionError(f"pub/sub connection lost: {self._lost}")
        protocol.transport.write(hiredis.pack_command(command))

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _round(self) -> None:
        """The keepalive's round: a wait with nothing heard since the last round ends."""
        if self._count == self._counted:
            self._wake()
        self._counted = self._count
        self._timer = asyncio.get_running_loop().call_later(self._keepalive, self._round)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _message(reply: Any) -> dict[str, Any]:
    """A reply as redis-py's ``PubSub`` hands it on (error replies raised)."""
    if isinstance(reply, RedisError):
        raise reply
    if isinstance(reply, list) and len(reply) == 3:
        kind = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        return {"type": kind, "pattern": None, "channel": reply[1], "data": reply[2]}
    # PING: ``[b"pong", b""]`` while subscribed, ``b"PONG"`` before any subscription.
    data = reply[1] if isinstance(reply, list) and len(reply) == 2 else b""
    return {"type": "pong", "pattern": None, "channel": None, "data": data}
