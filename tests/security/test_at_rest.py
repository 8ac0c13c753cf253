"""Secrets at rest: someone who reads every key Redis holds for a table can neither act as
one of its seats (only token hashes are there) nor find what its shuffles derive from
(the server seed is an HMAC of a secret that is only in the replicas' environment)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest
import redis.asyncio as aioredis
from support.server import make_settings, serve

from tablestate.engine import fairness
from tablestate.store.redis import RedisStore

pytestmark = pytest.mark.redis

SECRET = b"a long secret only the replicas know"
CREATE = """mutation { createTable(gameId: "five-crowns", seats: 2, options: {rounds: 1}) {
  hostToken table { id shuffleCommitment } } }"""
JOIN = """mutation($t: ID!, $n: String!, $c: String) {
  joinTable(tableId: $t, name: $n, clientSeed: $c) { seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
VIEW = "query($t: ID!) { table(id: $t) { status legalMoves state { toAct } } }"
MOVE = "mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { status } } }"
VIEWER = "{ viewer { tableId seat isHost } }"


async def dump(admin: aioredis.Redis, prefix: str) -> dict[str, str]:
    """Every key under ``prefix`` and everything in it, as text."""
    out: dict[str, str] = {}
    async for raw in admin.scan_iter(match=f"{prefix}*", count=500):
        key = raw.decode()
        kind = (await admin.type(key)).decode()
        value: Any
        if kind == "string":
            value = await admin.get(key)
        elif kind == "hash":
            value = await admin.hgetall(key)
        elif kind == "list":
            value = await admin.lrange(key, 0, -1)
        elif kind == "set":
            value = await admin.smembers(key)
        elif kind == "zset":
            value = await admin.zrange(key, 0, -1, withscores=True)
        elif kind == "stream":
            value = await admin.xrange(key, "-", "+")
        else:
            raise AssertionError(f"unexpected key type {kind} of {key}")
        out[key] = repr(value)
    return out


async def test_a_redis_reader_cannot_act_nor_predict(registry, redis_url, redis_prefix):
    settings = make_settings(secret=SECRET, rate_exempt=())
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    admin = aioredis.from_url(redis_url)
    try:
        async with serve(settings, registry, store) as c:
            made = (await c.q(CREATE))["createTable"]
            tid, host = made["table"]["id"], made["hostToken"]
            commitment = made["table"]["shuffleCommitment"]
            seats = [
                (await c.q(JOIN, t=tid, n=f"P{i}", c=f"entropy {i}"))["joinTable"]["playerToken"]
                for i in range(2)
            ]
            tokens = [host, *seats]
            await c.q(START, host, t=tid)
            for _ in range(3):  # a few moves: the move log and idempotency records fill
                (actor,) = (await c.q(VIEW, t=tid))["table"]["state"]["toAct"]
                move = (await c.q(VIEW, seats[actor], t=tid))["table"]["legalMoves"][0]
                await c.q(MOVE, seats[actor], t=tid, m=move)
            # rate limit buckets of these tokens exist now too (loopback is not exempt here)
            everything = await dump(admin, redis_prefix)
            text = "\n".join(f"{k} {v}" for k, v in everything.items())
            assert any(f"{{t:{tid}}}" in k for k in everything), "the table is not in Redis"
            assert any(":rl:t:" in k for k in everything), "no token bucket was written"

            # no token, nor its secret part, anywhere; only SHA-256 hashes of them
            for token in tokens:
                assert token not in text and token.split(".", 1)[1] not in text
                assert hashlib.sha256(token.encode()).hexdigest() in text
            # what a reader finds cannot be used as a token
            stored = [hashlib.sha256(t.encode()).hexdigest() for t in tokens]
            for h in stored:
                for forged in (h, f"{tid}.{h}", f"{tid}.{h[:43]}"):
                    assert await c.code(VIEWER, forged) == "UNAUTHENTICATED"

            # nothing a shuffle derives from: not the secret, not the server seed, not the
            # game seed; and nothing there hashes to the public commitment
            loaded = await _truth(c, registry, store, tid, settings)
            server = fairness.server_seed(SECRET, tid, loaded.table.nonce)
            game = fairness.game_seed(server, [f"entropy {i}" for i in range(2)])
            assert hashlib.sha256(server).hexdigest() == commitment
            for secret in (SECRET.decode(), server.hex(), game.hex(), server.decode("latin-1")):
                assert secret not in text
            assert loaded.table.nonce in text  # the nonce is stored: alone it gives nothing
            for guess in _guesses(everything, tid, loaded.table.nonce):
                assert hashlib.sha256(guess).hexdigest() != commitment
            assert (await c.q("query($t: ID!) { table(id: $t) { shuffleSeed } }", t=tid))["table"][
                "shuffleSeed"
            ] is None
    finally:
        await admin.aclose()
        await store.close()


async def _truth(c: Any, registry: Any, store: RedisStore, tid: str, settings: Any) -> Any:
    from tablestate.tables import TableService

    loaded = await TableService(settings, registry, store).reads.load(tid)
    assert loaded is not None
    return loaded


def _guesses(everything: dict[str, str], tid: str, nonce: str) -> list[bytes]:
    """What a reader might try as the seed: HMACs keyed with anything found in Redis."""
    found = {tid, nonce, *everything}
    for value in everything.values():
        found.update(part for part in value.replace('"', "'").split("'") if 0 < len(part) < 200)
    message = (tid + nonce).encode()
    out = [message, hashlib.sha256(message).digest()]
    for key in found:
        out.append(hmac.new(key.encode(), message, hashlib.sha256).digest())
    return out


async def test_keys_of_a_table_are_its_own(registry, redis_url, redis_prefix):
    """Every key of a table shares its hash tag; what is global (listings, the due-index,
    rate limits) holds ids and hashes only."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    admin = aioredis.from_url(redis_url)
    try:
        async with serve(make_settings(rate_exempt=()), registry, store) as c:
            made = (await c.q(CREATE))["createTable"]
            host = made["hostToken"]
            await c.q(VIEWER, host)
            everything = await dump(admin, redis_prefix)
            for key, value in everything.items():
                rest = key[len(redis_prefix) :]
                assert rest.startswith(("{t:", "tables:", "due", "rl:a:", "rl:t:", "rl:c:")), key
                if not rest.startswith("{t:"):
                    assert host.split(".", 1)[1] not in value and host not in key
            json.dumps(everything)
    finally:
        await admin.aclose()
        await store.close()
