"""Queries and WebSocket helpers for the table-life tests (chat, presence, rematch, lobby)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from support.server import Client, ws_init, ws_next

CHAT = """mutation($t: ID!, $x: String!, $n: String) {
  sendChat(tableId: $t, text: $x, name: $n) { cursor version type seat data }
}"""
EVENTS = """query($t: ID!, $a: String, $f: Int, $l: Int) { table(id: $t) {
  version cursor events(after: $a, first: $f, last: $l) { cursor version type seat data }
} }"""
SEATS = """query($t: ID!) { table(id: $t) {
  version status seats { index kind name connected isHost }
} }"""
SUB = """subscription($t: ID!, $a: String) {
  tableEvents(tableId: $t, after: $a) { cursor version type seat data }
}"""
LOBBY = """subscription($g: ID) {
  lobbyEvents(gameId: $g) { type tableId gameId status table { id status seats { kind } } }
}"""


async def subscribe(
    conn: Any, query: str, variables: dict[str, Any], token: str | None = None, id_: str = "1"
) -> None:
    assert (await ws_init(conn, token))["type"] == "connection_ack"
    payload = {"query": query, "variables": variables}
    await conn.send(json.dumps({"id": id_, "type": "subscribe", "payload": payload}))


async def next_data(conn: Any, field: str = "tableEvents", timeout: float = 10) -> dict[str, Any]:
    msg = await ws_next(conn, timeout)
    assert msg["type"] == "next", msg
    return msg["payload"]["data"][field]  # type: ignore[no-any-return]


async def until(
    conn: Any, done: Callable[[dict[str, Any]], bool], field: str = "tableEvents"
) -> list[dict[str, Any]]:
    """Events up to and including the first that ``done`` accepts."""
    out = []
    while True:
        ev = await next_data(conn, field)
        out.append(ev)
        if done(ev):
            return out


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 10) -> None:
    """Wait until ``check`` holds (the condition is the assertion; the bound only keeps a
    broken build from hanging)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, "the condition never held"
        await asyncio.sleep(0.02)


async def events(c: Client, table_id: str, token: str | None = None, **kw: Any) -> Any:
    return (await c.q(EVENTS, token, t=table_id, **kw))["table"]
