"""What a collaborator of the committer runs in the background: tasks it spawns after a
commit, and a worker that claims the entries of a due-index that fell due (the bots' and
clocks' ``Bots``, the archive's ``Archiver``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from tablestate.store.base import StoreUnavailable


class Background:
    """Spawned tasks and one worker loop; ``close`` ends both."""

    def __init__(self, log: logging.Logger, worker: str) -> None:
        self._log = log
        self._worker_name = worker  # what a log line of the worker calls it
        self._tasks: set[asyncio.Task[Any]] = set()
        self._worker: asyncio.Task[None] | None = None
        self._closing = False

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run_due_once(self) -> int:
        """Claim due entries and run them; the number claimed."""
        raise NotImplementedError

    async def _work(self, interval: float) -> None:
        while not self._closing:
            try:
                await self.run_due_once()
            except StoreUnavailable:
                pass
            except Exception:  # the worker must outlive any one bad table; it is logged
                self._log.exception(self._worker_name)
            await asyncio.sleep(interval)

    def start_worker(self, interval: float) -> None:
        if self._worker is None:
            self._worker = asyncio.ensure_future(self._work(interval))

    async def close(self) -> None:
        self._closing = True
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
