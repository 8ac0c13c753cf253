"""A game load through a Redis failover, and what it did to acknowledged moves.

Tables of one human and one bot are played on two service replicas: the humans' moves by
``Load.play`` (a move answered ``UNAVAILABLE`` is sent again with its idempotency key, as
API.md asks), and each table followed by a subscriber that resumes from its last cursor,
on either replica, whenever its subscription ends. ``Load.check`` then compares what the
clients were told with what the store holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from support.lucky import ADD_BOT, CREATE, JOIN, MOVE, START, TABLE, Seated
from support.replicas import SECRET, Replica
from support.server import Client, GraphQLFailed
from tablestate.config import Settings
from tablestate.engine.replay import replay
from tablestate.plugins import load
from tablestate.store.redis import RedisStore
from tablestate.tables import TableService

SUB = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { cursor version type seat } }"""
RETRY_FOR = 30.0  # seconds a client keeps resending through a failover


@contextlib.asynccontextmanager
async def clients(replicas: list[Replica]) -> AsyncIterator[list[Client]]:
    async with contextlib.AsyncExitStack() as stack:
        made = []
        for r in replicas:
            http = await stack.enter_async_context(httpx.AsyncClient(base_url=r.url, timeout=10))
            made.append(Client(http, r.url))
        yield made


async def ask(c: Client, query: str, token: str | None = None, **v: Any) -> Any:
    """The data of a query, asked again while the store is ``UNAVAILABLE``."""
    deadline = time.monotonic() + RETRY_FOR
    while True:
        try:
            body = await c.raw(query, token, **v)
        except httpx.TransportError:
            body = {"errors": [{"extensions": {"code": "UNAVAILABLE"}}]}
        errors = body.get("errors") or []
        if not errors:
            return body["data"]
        if errors[0]["extensions"]["code"] != "UNAVAILABLE" or time.monotonic() > deadline:
            raise GraphQLFailed(errors)
        await asyncio.sleep(0.1)


@dataclass
class Load:
    clients: list[Client]
    replicas: list[Replica]
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    tables: list[Seated] = field(default_factory=list)
    # (table id, the events a makeMove answer carried) for every acknowledged move
    acked: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)
    seen: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unavailable: int = 0  # moves answered UNAVAILABLE (and sent again)
    resumed: int = 0  # subscriptions resumed from their cursor

    def client(self) -> Client:
        return self.rng.choice(self.clients)

    async def new_table(self) -> Seated:
        c = self.client()  # one replica: a table made through a failover is still made once
        made = (await ask(c, CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]
        t = Seated(made["table"]["id"], made["hostToken"])
        joined = (await ask(c, JOIN, t=t.table_id, n="P0"))["joinTable"]
        t.tokens[joined["seat"]] = joined["playerToken"]
        await ask(c, ADD_BOT, t.host, t=t.table_id)
        await ask(c, START, t.host, t=t.table_id)
        self.tables.append(t)
        return t

    async def play(self, t: Seated, pause: float) -> None:
        """The human's first legal move, until the end."""
        while True:
            table = (await ask(self.client(), TABLE, t=t.table_id))["table"]
            if table["status"] == "FINISHED":
                return
            acting = [s for s in table["state"]["toAct"] if s in t.tokens]
            if not acting:
                await asyncio.sleep(0.01)
                continue
            token = t.tokens[acting[0]]
            mine = (await ask(self.client(), TABLE, token, t=t.table_id))["table"]
            if mine["version"] != table["version"] or not mine["legalMoves"]:
                continue
            move, key = mine["legalMoves"][0], f"move-{mine['version']}"
            deadline = time.monotonic() + RETRY_FOR
            while True:
                try:
                    body = await self.client().raw(MOVE, token, t=t.table_id, m=move, k=key)
                except httpx.TransportError:
                    body = {"errors": [{"extensions": {"code": "UNAVAILABLE"}}]}
                errors = body.get("errors") or []
                if not errors:
                    self.acked.append((t.table_id, body["data"]["makeMove"]["events"]))
                    break
                code = errors[0]["extensions"]["code"]
                if code == "NOT_YOUR_TURN":
                    break  # the table moved on meanwhile (a lost commit, replayed): look again
                if code != "UNAVAILABLE" or time.monotonic() > deadline:
                    raise GraphQLFailed(errors)
                self.unavailable += 1
                await asyncio.sleep(0.1)
            await asyncio.sleep(pause)

    async def follow(self, t: Seated) -> None:
        """Every event of the table, resuming from the last cursor when cut off."""
        seen = self.seen.setdefault(t.table_id, [])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            replica = self.rng.choice(self.replicas)
            after = seen[-1]["cursor"] if seen else None
            try:
                async with connect(replica.ws_url, subprotocols=["graphql-transport-ws"]) as ws:
                    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                    await asyncio.wait_for(ws.recv(), 5)
                    sub = {"query": SUB, "variables": {"t": t.table_id, "a": after}}
                    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 15))
                        if msg["type"] != "next" or msg["payload"].get("errors"):
                            break  # ended (UNAVAILABLE, say): resume from the cursor
                        event = msg["payload"]["data"]["tableEvents"]
                        seen.append(event)
                        if event["type"] == "game.finished":
                            return
            except (WebSocketException, OSError, TimeoutError):
                pass
            self.resumed += 1
            await asyncio.sleep(0.1)
        raise AssertionError(f"table {t.table_id} was not followed to its end")


@dataclass
class Report:
    acked: int
    lost: int  # acknowledged moves whose events are not in the log as answered
    followed: int
    broken: int  # followed tables whose subscriber's stream differs from the log
    finished: int
    replayed: int  # finished tables that replay from their seeds (MATCH)
    details: list[str]

    def line(self) -> str:
        return (
            f"acknowledged moves: {self.acked}, lost: {self.lost}; followed tables: "
            f"{self.followed}, with a gap or a repeat: {self.broken}; finished tables: "
            f"{self.finished}, replayed MATCH: {self.replayed}"
        )


async def check(load_: Load, url: str, prefix: str, *, cluster: bool) -> Report:
    """What the store holds against what the clients saw."""
    settings = Settings(secret=SECRET.encode(), redis_prefix=prefix)
    store = RedisStore.from_url(url, prefix=prefix, cluster=cluster)
    svc = TableService(settings, load(), store)
    details: list[str] = []
    try:
        logs: dict[str, dict[str, tuple[Any, ...]]] = {}
        finished = replayed = broken = 0
        for t in load_.tables:
            stored = await svc.reads.events(t.table_id, None, 1000, None)
            logs[t.table_id] = {e.cursor: (e.version, e.type, e.seat) for e in stored}
            seen = [e["cursor"] for e in load_.seen.get(t.table_id, [])]
            if seen != [e.cursor for e in stored]:
                broken += 1
                details.append(f"{t.table_id}: subscriber saw {len(seen)}, log {len(stored)}")
            loaded = await svc.reads.load(t.table_id)
            if loaded is None or loaded.table.status != "FINISHED":
                details.append(f"{t.table_id}: not finished")
                continue
            finished += 1
            report = replay(
                loaded.table, await svc.reads.moves(t.table_id), loaded.game, loaded.rules
            )
            replayed += report.ok
            if not report.ok:
                details.append(f"{t.table_id}: replay {report.reason}")
        # An acknowledged move is lost when the log does not hold its events as answered,
        # or when a later move was acknowledged at the same version: the first was dropped
        # and the table played on from before it (the same move again, in a seeded game,
        # can make the very same events).
        lost, versions = 0, set()
        for table_id, events in reversed(load_.acked):
            log = logs.get(table_id, {})
            at = (table_id, events[0]["version"] if events else None)
            if at in versions or any(
                log.get(e["cursor"]) != (e["version"], e["type"], e["seat"]) for e in events
            ):
                lost += 1
            versions.add(at)
        return Report(len(load_.acked), lost, len(load_.seen), broken, finished, replayed, details)
    finally:
        await store.close()
