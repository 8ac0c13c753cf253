"""``tablestate serve --workers N``: one process accepts, N workers serve, and the
connections of one table reach one worker (docs/clients.md, "Routing key").

A table is cheapest on the worker that holds it: its decoded state is in that worker's
cache, and its events reach its subscribers there without crossing Redis pub/sub. With
uvicorn's own workers the kernel hands each connection to any of them, so the two players
of a table usually sit on different workers and every move costs both of them a load and a
read of the log. Here the supervisor accepts each connection itself, looks at the request
line without taking it from the socket (``MSG_PEEK``), and passes the socket to a worker
(``SCM_RIGHTS``):

- ``?table=<id>`` in the address (``/graphql?table=ID``, any method, WebSocket or HTTP)
  picks the worker by a hash of the id, the same worker for every connection of that
  table while the workers are the same;
- anything else (no key, a request line that does not come within ``PEEK_WAIT`` seconds,
  or more than ``PEEK_BYTES`` bytes without one) goes to the workers in turn.

The worker then serves the socket as if it had accepted it (uvicorn's protocol, the same
bounds). Every request is served correctly whichever worker gets it; only the cost differs.
A worker that dies is started again; its tables go to the others until it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import selectors
import signal
import socket
import sys
import time
import zlib
from dataclasses import dataclass, field
from multiprocessing.context import SpawnProcess
from typing import Final
from urllib.parse import unquote_to_bytes

from uvicorn.config import Config
from uvicorn.server import Server

PEEK_BYTES: Final = 4096  # the request line is looked for in this much
PEEK_WAIT: Final = 2.0  # seconds a connection may take to send its request line
MAX_PENDING: Final = 1024  # connections waiting for their request line; more go at once
RESTART_DELAY: Final = 1.0  # seconds between a worker's death and its new start

log = logging.getLogger("uvicorn.error")
spawn = multiprocessing.get_context("spawn")


def route_key(head: bytes) -> bytes | None:
    """The table id of a request's ``table`` query parameter, from the first bytes of the
    connection (``GET /graphql?table=abc HTTP/1.1``); None without one."""
    line, _, _ = head.partition(b"\r\n")
    parts = line.split(b" ")
    if len(parts) != 3:
        return None
    _, _, query = parts[1].partition(b"?")
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        if name == b"table" and value:
            return unquote_to_bytes(value.replace(b"+", b" "))
    return None


def worker_of(key: bytes, count: int) -> int:
    """The worker of a table id: the same for every connection while ``count`` is."""
    return zlib.crc32(key) % count


class RoutedServer(Server):
    """A uvicorn server that listens on nothing: it serves the connections its supervisor
    passes over ``channel``."""

    def __init__(self, config: Config, channel: socket.socket) -> None:
        super().__init__(config)
        self.channel = channel
        self._taking: set[asyncio.Task[None]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])
        if self.should_exit:
            return
        self.channel.setblocking(False)
        asyncio.get_running_loop().add_reader(self.channel.fileno(), self._receive)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.channel.fileno())
        self.channel.close()
        await super().shutdown(sockets)

    def _receive(self) -> None:
        """Take the sockets that have come: each is served as an accepted connection."""
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.channel, 64, 64)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            if not data and not fds:  # the supervisor is gone: so are new connections
                asyncio.get_running_loop().remove_reader(self.channel.fileno())
                self.should_exit = True
                return
            for fd in fds:
                sock = socket.socket(fileno=fd)
                if self.should_exit:
                    sock.close()
                    continue
                task = asyncio.get_running_loop().create_task(self._adopt(sock))
                self._taking.add(task)
                task.add_done_callback(self._taking.discard)

    async def _adopt(self, sock: socket.socket) -> None:
        config = self.config

        def protocol() -> asyncio.Protocol:
            return config.http_protocol_class(  # type: ignore[call-arg]  # uvicorn's take these
                config=config, server_state=self.server_state, app_state=self.lifespan.state
            )

        try:
            await asyncio.get_running_loop().connect_accepted_socket(protocol, sock, ssl=config.ssl)
        except OSError:  # the client went away between the accept and now
            sock.close()


def _worker_main(config: Config, channel: socket.socket) -> None:  # pragma: no cover
    """A worker process: uvicorn's server on the connections of ``channel``."""
    config.configure_logging()
    with contextlib.suppress(KeyboardInterrupt):
        RoutedServer(config, channel).run()


@dataclass
class Worker:
    """One worker process and the supervisor's end of its channel."""

    index: int
    process: SpawnProcess
    channel: socket.socket
    died_at: float | None = None


@dataclass
class _Pending:
    sock: socket.socket
    since: float
    key: bytes | None = field(default=None)


class Supervisor:
    """Accepts, peeks, routes; starts the workers and starts again the ones that die."""

    def __init__(self, config: Config, count: int) -> None:
        self.config = config
        self.count = count
        self.workers: list[Worker | None] = [None] * count
        self.turn = itertools.count()
        self.pending: dict[int, _Pending] = {}
        self.selector = selectors.DefaultSelector()
        self.stopping = False

    def run(self) -> None:
        listener = self.config.bind_socket()
        listener.listen(self.config.backlog)  # uvicorn's workers would, in create_server
        listener.setblocking(False)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._stop)
        log.info("Started supervisor [%d] routing to %d workers", os.getpid(), self.count)
        for i in range(self.count):
            self._start(i)
        self.selector.register(listener, selectors.EVENT_READ, None)
        try:
            while not self.stopping:
                for key, _ in self.selector.select(timeout=0.25):
                    if key.data is None:
                        self._accept(listener)
                    else:
                        self._peek(key.data)
                self._expire()
                self._watch()
        finally:
            self.selector.close()
            listener.close()
            for p in list(self.pending.values()):
                p.sock.close()
            self._stop_workers()

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _start(self, index: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        process = spawn.Process(target=_worker_main, args=(self.config, theirs), daemon=False)
        process.start()
        theirs.close()
        ours.settimeout(1.0)
        self.workers[index] = Worker(index, process, ours)
        log.info("Started worker [%d] (%d of %d)", process.pid, index + 1, self.count)

    def _watch(self) -> None:
        """Workers that died are started again, after ``RESTART_DELAY``."""
        now = time.monotonic()
        for i, w in enumerate(self.workers):
            if w is None or w.process.is_alive():
                continue
            if w.died_at is None:
                w.died_at = now
                w.channel.close()
                log.warning("worker [%s] died (exit code %s)", w.process.pid, w.process.exitcode)
            elif now - w.died_at >= RESTART_DELAY:
                self._start(i)

    def _live(self) -> list[Worker]:
        return [w for w in self.workers if w is not None and w.died_at is None]

    def _accept(self, listener: socket.socket) -> None:
        for _ in range(64):
            try:
                sock, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of descriptors, say: the next turn tries again
                log.warning("accept failed: %s", exc)
                return
            if len(self.pending) >= MAX_PENDING:
                self._hand(sock, None)
                continue
            sock.setblocking(False)
            self.pending[sock.fileno()] = _Pending(sock, time.monotonic())
            self.selector.register(sock, selectors.EVENT_READ, sock.fileno())

    def _peek(self, fd: int) -> None:
        p = self.pending.get(fd)
        if p is None:
            return
        try:
            head = p.sock.recv(PEEK_BYTES, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            head = b""
        if head and b"\r\n" not in head and len(head) < PEEK_BYTES:
            return  # the request line is still coming
        self._release(p)
        if not head:  # closed before a word: nothing to serve
            p.sock.close()
            return
        self._hand(p.sock, route_key(head))

    def _expire(self) -> None:
        now = time.monotonic()
        for p in [p for p in self.pending.values() if now - p.since > PEEK_WAIT]:
            self._release(p)
            self._hand(p.sock, None)  # the worker's own read timeout decides its fate

    def _release(self, p: _Pending) -> None:
        self.pending.pop(p.sock.fileno(), None)
        self.selector.unregister(p.sock)

    def _hand(self, sock: socket.socket, key: bytes | None) -> None:
        """Pass ``sock`` to its worker (the next live one if that one is down or full)."""
        live = self._live()
        try:
            if not live:
                return
            if key is not None:
                first = self.workers[worker_of(key, self.count)]
                order = [first] if first in live else []
                order += [w for w in live if w is not first]
            else:
                start = next(self.turn) % len(live)
                order = live[start:] + live[:start]
            for w in order:
                assert w is not None
                try:
                    socket.send_fds(w.channel, [b"c"], [sock.fileno()])
                    return
                except OSError:
                    continue
        finally:
            sock.close()  # the worker holds its own copy now

    def _stop_workers(self) -> None:
        live = [w for w in self.workers if w is not None]
        for w in live:
            with contextlib.suppress(OSError):
                w.channel.close()
            if w.process.is_alive() and w.process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(w.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + (self.config.timeout_graceful_shutdown or 10) + 5
        for w in live:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.kill()
                w.process.join(5)


def serve(config: Config, count: int) -> int:
    """Run the supervisor and its ``count`` workers until SIGINT or SIGTERM."""
    if sys.platform == "win32":  # pragma: no cover
        raise SystemExit("tablestate: more than one worker needs a POSIX system")
    Supervisor(config, count).run()
    return 0
