"""What the sign-in tests share: two replicas of one store signing in the tests' issuer's
users (its JWKS from a file or from HTTP on loopback), and the queries they send."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.jwts import Issuer, Key, sign_in_settings
from support.server import Client, make_settings, serve

from tablestate.plugins import Registry
from tablestate.store.memory import MemoryStore

CREATE = """mutation($g: ID!, $s: Int, $o: JSON) { createTable(gameId: $g, seats: $s, options: $o) {
  hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) {
  seat playerToken table { version } } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { version status } }"
KICK = "mutation($t: ID!, $s: Int!) { kickSeat(tableId: $t, seat: $s) { version } }"
LEAVE = "mutation($t: ID!) { leaveTable(tableId: $t) { version } }"
MOVE = """mutation($t: ID!, $m: MoveInput!, $k: String) {
  makeMove(tableId: $t, move: $m, idempotencyKey: $k) {
    table { version } events { cursor version type seat data } } }"""
VIEWER = "query($t: ID) { viewer(tableId: $t) { tableId seat isHost user { id name } } }"
HAND = """query($t: ID!) { table(id: $t) { version status legalMoves
  state { toAct ... on LuckyDrawState { myHand } } events(last: 30) { type seat data } } }"""
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor version type seat data } }"
MINE = """query($s: TableStatus, $f: Int, $a: String) { myTables(status: $s, first: $f, after: $a) {
  nodes { id status } pageInfo { endCursor hasNextPage } } }"""


@dataclass
class Stack:
    """Two replicas (with the memory store, one server stands for both), the issuer whose
    users they sign in, and how they read its keys (``source``: "file" or "http")."""

    a: Client
    b: Client
    issuer: Issuer
    source: str
    jwks_url: str

    @property
    def keys(self) -> list[Key]:
        return self.issuer.keys


STACKS = [
    pytest.param(("memory", "file"), id="memory-file"),
    pytest.param(("memory", "http"), id="memory-http"),
    pytest.param(("redis", "file"), id="redis-file", marks=pytest.mark.redis),
    pytest.param(("redis", "http"), id="redis-http", marks=pytest.mark.redis),
]


@contextlib.asynccontextmanager
async def stack_of(
    request: pytest.FixtureRequest,
    registry: Registry,
    folder: Path,
    store: str,
    source: str,
    **settings: Any,
) -> AsyncIterator[Stack]:
    """Two replicas of ``store`` signing in the users of an issuer with an RSA, an EC and
    an Ed25519 key, read from ``source``; ``settings``: more settings of both."""
    issuer = Issuer(folder)
    issuer.publish(Key.rsa("rsa-1"), Key.ec("ec-1"), Key.ed25519("ed-1"))
    async with contextlib.AsyncExitStack() as stack:
        url = str(issuer.file) if source == "file" else stack.enter_context(issuer.serve())
        config = make_settings(**sign_in_settings(url, **settings))
        if store == "memory":
            one = await stack.enter_async_context(serve(config, registry, MemoryStore()))
            yield Stack(one, one, issuer, source, url)
            return
        from tablestate.store.redis import RedisStore

        redis_url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        stores = [RedisStore.from_url(redis_url, prefix=prefix) for _ in range(2)]
        for s in stores:
            stack.push_async_callback(s.close)
        a = await stack.enter_async_context(serve(config, registry, stores[0]))
        b = await stack.enter_async_context(serve(config, registry, stores[1]))
        yield Stack(a, b, issuer, source, url)


def message_of(body: dict[str, Any]) -> str:
    return str(body["errors"][0]["message"])
