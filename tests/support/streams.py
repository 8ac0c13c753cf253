"""Subscriptions over HTTP for the tests: graphql-sse (distinct connections mode) and
multipart HTTP, read as a client reads them, one result at a time."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

SSE = "text/event-stream"
MULTIPART = 'multipart/mixed;subscriptionSpec="1.0",application/json'


class Stream:
    """One subscription over HTTP: ``next()`` is its next result (``{"data": ...}`` or
    ``{"errors": [...]}``), None once the server completed it."""

    def __init__(self, response: httpx.Response, kind: str) -> None:
        self.response, self.kind = response, kind
        self._lines = response.aiter_lines()
        self.done = False

    async def next(self) -> dict[str, Any] | None:
        if self.done:
            return None
        found = await (self._sse() if self.kind == SSE else self._part())
        if found is None:
            self.done = True
        return found

    async def _sse(self) -> dict[str, Any] | None:
        event, data = None, ""
        async for line in self._lines:
            if line.startswith(":"):
                continue  # a heartbeat
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
            elif line == "" and event is not None:
                if event == "complete":
                    return None
                return json.loads(data)  # type: ignore[no-any-return]
        return None

    async def _part(self) -> dict[str, Any] | None:
        async for line in self._lines:
            line = line.strip()
            if line.startswith("--graphql--"):
                return None
            if not line.startswith("{"):
                continue  # boundaries and part headers
            part = json.loads(line)
            if "payload" in part:
                return part["payload"]  # type: ignore[no-any-return]
            if "errors" in part:
                return {"errors": part["errors"]}
            # else {}: a heartbeat
        return None

    async def take(self, n: int) -> list[dict[str, Any]]:
        """The next ``n`` results (fewer if the stream ends first)."""
        out = []
        for _ in range(n):
            found = await self.next()
            if found is None:
                break
            out.append(found)
        return out


@contextlib.asynccontextmanager
async def subscribe(
    http: httpx.AsyncClient,
    query: str,
    kind: str = SSE,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    **variables: Any,
) -> AsyncIterator[Stream]:
    """A subscription over HTTP (``kind``: ``SSE`` or ``MULTIPART``) until the block ends."""
    sent = {"accept": kind, **(headers or {})}
    if token:
        sent["authorization"] = f"Bearer {token}"
    body = {"query": query, "variables": variables}
    async with http.stream("POST", "/graphql", json=body, headers=sent, timeout=20) as r:
        yield Stream(r, kind)
