"""One pipelined connection to Redis for the store's hottest command, the commit.

Through redis-py a commit takes a connection from the pool, writes the command, waits for
its reply on that connection and gives the connection back: a write and a read of its own
per move, a pool lock, and several awaits of bookkeeping. Here every commit goes down one
connection: commands made while others await their replies leave together in one write at
the end of the event loop's turn (a command on an idle connection leaves at once), replies
come back in order (Redis answers a connection's commands in order) and each is handed to
the caller that waits for it; one read often brings several. Each command has a deadline
(the store's timeout): past it, its caller gets ``TimeoutError`` and leaves its place in
the queue, so the replies after it still go to their own callers. One timer serves every
deadline of the connection (a deadline per command, each with a timer of asyncio's, cost a
timer handle, its cancellation and the task's bookkeeping every move).

Only for plain ``redis://`` URLs; the store keeps redis-py for everything else (TLS, unix
sockets, Redis Cluster, and every other command). Errors are redis-py's: a lost or
refused connection is ``ConnectionError`` (the store's ``StoreUnavailable``), an error
reply is redis-py's class of it (``store/_wire.py``: ``OutOfMemoryError`` for ``OOM``, ...,
``ResponseError`` for the others).
"""

from __future__ import annotations

import asyncio
import collections
from dataclasses import dataclass
from typing import Any, Final

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from tablestate.store._wire import error_reply

_PLAIN_KEYS: Final = frozenset({"host", "port", "db", "username", "password"})


@dataclass(frozen=True, slots=True)
class Address:
    """Where a plain ``redis://`` URL points, and who to say we are there."""

    host: str
    port: int
    db: int
    username: str | None
    password: str | None

    @classmethod
    def of(cls, url: str) -> Address | None:
        """The address of a plain ``redis://`` URL; None for any other URL, or one with
        options these connections do not implement (redis-py does)."""
        if not url.startswith("redis://"):
            return None
        kwargs: dict[str, Any] = dict(parse_url(url))
        if set(kwargs) - _PLAIN_KEYS:
            return None
        return cls(
            str(kwargs.get("host") or "localhost"),
            int(kwargs.get("port") or 6379),
            int(kwargs.get("db") or 0),
            kwargs.get("username"),
            kwargs.get("password"),
        )

    def auth(self) -> tuple[str, ...] | None:
        """The AUTH command of this address, if it names a password."""
        if self.password is None:
            return None
        return ("AUTH", self.username, self.password) if self.username else ("AUTH", self.password)


class Replies(asyncio.Protocol):
    """A connection to Redis whose data hiredis reads into whole replies, each handed to
    ``reply`` as it comes; a stream hiredis cannot read, or the connection's end, goes to
    ``broken`` (the connection closed)."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader(replyError=error_reply)
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream's: a Transport

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self.broken(exc)
                if self.transport is not None:
                    self.transport.close()
                return
            if reply is False:
                return
            self.reply(reply)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.broken(exc or ConnectionResetError("closed by Redis"))

    def reply(self, reply: Any) -> None:
        raise NotImplementedError

    def broken(self, exc: BaseException) -> None:
        raise NotImplementedError


class _Protocol(Replies):
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        # The deadlines of the commands waiting, in the same order (one timeout for all:
        # they come in order of sending), and the timer set for the first one.
        self._deadlines: collections.deque[tuple[float, asyncio.Future[Any]]] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self._out: list[bytes] = []
        self.lost: BaseException | None = None

    def request(self, packed: bytes, timeout: float | None = None) -> asyncio.Future[Any]:
        if self.lost is not None:
            raise RedisConnectionError(f"connection to Redis lost: {self.lost}")
        reply = self._loop.create_future()
        idle = not self._waiting and not self._out
        self._waiting.append(reply)
        if timeout is not None:
            deadline = self._loop.time() + timeout
            self._deadlines.append((deadline, reply))
            if self._timer is None:
                self._timer = self._loop.call_at(deadline, self._expire)
        if idle and self.transport is not None:
            self.transport.write(packed)  # nothing to share a write with: send it now
            return reply
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(packed)
        return reply

    def _expire(self) -> None:
        """The commands past their deadline fail with ``TimeoutError`` (their replies, when
        they come, are dropped); the timer is set again for the next deadline."""
        self._timer = None
        now, deadlines = self._loop.time(), self._deadlines
        while deadlines and (deadlines[0][1].done() or deadlines[0][0] <= now):
            _, waiter = deadlines.popleft()
            if not waiter.done():
                waiter.set_exception(TimeoutError("no reply from Redis in time"))
        if deadlines:
            self._timer = self._loop.call_at(deadlines[0][0], self._expire)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self.transport is not None and self.lost is None and out:
            self.transport.write(out[0] if len(out) == 1 else b"".join(out))

    def reply(self, reply: Any) -> None:
        if not self._waiting:
            return  # nothing asked for it (cannot happen: Redis answers each command)
        waiter = self._waiting.popleft()
        if waiter.done():
            return  # its caller gave up; the reply was still its own
        if isinstance(reply, RedisError):
            waiter.set_exception(reply)
        else:
            waiter.set_result(reply)

    def broken(self, exc: BaseException) -> None:
        self.lost = exc
        self._deadlines.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(RedisConnectionError(f"connection to Redis lost: {exc}"))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Pipe:
    """Commands down one connection, replies in order (see the module)."""

    def __init__(self, address: Address) -> None:
        self._address = address
        self._hello: list[tuple[Any, ...]] = []
        auth = address.auth()
        if auth is not None:
            self._hello.append(auth)
        if address.db:
            self._hello.append(("SELECT", address.db))
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    @classmethod
    def for_url(cls, url: str) -> Pipe | None:
        """A pipe to the Redis of a plain ``redis://`` URL, else None."""
        address = Address.of(url)
        return None if address is None else cls(address)

    async def call(self, *args: Any, timeout: float | None = None) -> Any:
        """Send one command; its reply (bytes, ints, lists as hiredis reads them).

        Raises:
            TimeoutError: past ``timeout`` seconds (connecting included) without a reply.
        """
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            async with asyncio.timeout(timeout):
                protocol = await self._connect()
        return await protocol.request(hiredis.pack_command(args), timeout)

    async def _connect(self) -> _Protocol:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self._protocol
            if protocol is not None and protocol.lost is None:
                return protocol
            loop = asyncio.get_running_loop()
            _, protocol = await loop.create_connection(
                lambda: _Protocol(loop), self._address.host, self._address.port
            )
            try:
                for command in self._hello:
                    await protocol.request(hiredis.pack_command(command))
            except BaseException:
                protocol.close()
                raise
            self._protocol = protocol
            return protocol

    def close(self) -> None:
        if self._protocol is not None:
            self._protocol.close()
            self._protocol = None
