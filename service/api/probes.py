"""``/healthz``, ``/readyz`` and ``/metrics``: what an orchestrator and a scraper ask, at a
bounded cost (docs/security.md, "Probes").

- **Each address is limited** as on ``/graphql`` (``TABLESTATE_RATE_ADDRESS``, its burst),
  in a token bucket of this replica's memory, never in the store: a probe costs no Redis
  call to count. Past it: HTTP 429 with ``Retry-After``, ``RATE_LIMITED``. The addresses
  of ``TABLESTATE_RATE_EXEMPT`` and ``TABLESTATE_PROBE_EXEMPT`` (the kubelet's, when they
  connect directly) are never limited.
- **``/readyz`` pings the store at most once a second** per replica (``READY_FOR``): its
  answer is kept that long, and requests that arrive while a ping is under way wait for
  that one.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tablestate.config import Settings
from tablestate.metrics import CONTENT_TYPE, Metrics
from tablestate.ratelimit import Budget, Guard, refusal
from tablestate.store.base import StateStore

READY_FOR: Final = 1.0  # seconds a /readyz answer is kept
MAX_ADDRESSES: Final = 10_000  # buckets kept before the full ones are forgotten


class Probes:
    """The probe endpoints of one replica and their per-address buckets."""

    def __init__(
        self,
        settings: Settings,
        store: StateStore,
        metrics: Metrics,
        guard: Guard,
        *,
        degraded: Callable[[], bool] = lambda: False,
    ) -> None:
        self._degraded = degraded
        self._rate = settings.rate_address
        self._burst = settings.rate_address_burst
        self._store = store
        self._metrics = metrics
        self._guard = guard
        self._buckets: dict[str, Budget] = {}
        self._ready = False
        self._ready_until = -math.inf
        self._pinging: asyncio.Task[bool] | None = None

    def routes(self) -> list[Route]:
        return [
            Route("/healthz", self.healthz),
            Route("/readyz", self.readyz),
            Route("/metrics", self.metrics),
        ]

    async def healthz(self, request: Request) -> Response:
        return self._limited(request) or JSONResponse({"status": "ok"})

    async def readyz(self, request: Request) -> Response:
        refused = self._limited(request)
        if refused is not None:
            return refused
        if await self.ready():
            # The archive's database failing stops no play (finished tables wait in the
            # store): still ready, and said so.
            return JSONResponse({"status": "degraded" if self._degraded() else "ready"})
        return JSONResponse({"status": "unavailable"}, status_code=503)

    async def metrics(self, request: Request) -> Response:
        return self._limited(request) or Response(self._metrics.render(), media_type=CONTENT_TYPE)

    async def ready(self) -> bool:
        """Whether the store answers: a ping's answer, kept ``READY_FOR`` seconds."""
        if time.monotonic() < self._ready_until:
            return self._ready
        if self._pinging is None:
            self._pinging = asyncio.ensure_future(self._ping())
        return await asyncio.shield(self._pinging)

    async def _ping(self) -> bool:
        try:
            self._ready = await self._store.ping()
            self._ready_until = time.monotonic() + READY_FOR
        finally:
            self._pinging = None
        return self._ready

    def _limited(self, request: Request) -> Response | None:
        """None when the request may go on (it is counted); else its 429."""
        client = self._guard.probe_client(request.scope)
        if client.exempt or self._rate <= 0:
            return None
        bucket = self._buckets.get(client.address)
        if bucket is None:
            if len(self._buckets) >= MAX_ADDRESSES:
                self._forget()
            bucket = self._buckets[client.address] = Budget(self._rate, self._burst)
        wait = bucket.take()
        if wait <= 0:
            return None
        self._metrics.inc("tablestate_errors_total", code="RATE_LIMITED")
        return JSONResponse(
            {"errors": [refusal(wait)]},
            status_code=429,
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )

    def _forget(self) -> None:
        """Forget the buckets that are full again (a new one is the same); if none is,
        the older half (their addresses start afresh: looser for them, never stricter)."""
        full = [address for address, bucket in self._buckets.items() if bucket.full()]
        for address in full:
            del self._buckets[address]
        if len(self._buckets) >= MAX_ADDRESSES:
            for address in list(self._buckets)[: MAX_ADDRESSES // 2]:
                del self._buckets[address]
