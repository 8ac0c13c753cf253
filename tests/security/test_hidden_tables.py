"""Tables hidden from spectators (the table option ``spectators: false``) have no place in
the listings, through real uvicorn on both stores: no cursor of ``tables`` names one (the
end of a page is the last table shown, or a place between rows that names none), and no
lobby notice names one to a subscriber who may not watch it; its own still see it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.server import Client, make_settings, serve
from support.sockets import Socket, opened

from tablestate.plugins import Registry
from tablestate.store import MemoryStore, RedisStore, StateStore

CREATE = """mutation($o: JSON) { createTable(gameId: "five-by-five", options: $o) {
  hostToken table { id } } }"""
OPTIONS = "mutation($t: ID!, $o: JSON!) { setOptions(tableId: $t, options: $o) { version } }"
LIST = """query($f: Int, $a: String) { tables(gameId: "five-by-five", first: $f, after: $a) {
  nodes { id } edges { cursor node { id } }
  pageInfo { startCursor endCursor hasNextPage } } }"""
LOBBY = """subscription { lobbyEvents(gameId: "five-by-five") { type tableId status
  table { id } } }"""
KINDS = [
    pytest.param("memory", id="memory"),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
]


@pytest.fixture(params=KINDS)
async def c(request: pytest.FixtureRequest, registry: Registry) -> AsyncIterator[Client]:
    store: StateStore
    if request.param == "memory":
        store = MemoryStore()
    else:
        url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        store = RedisStore.from_url(url, prefix=prefix)
    try:
        async with serve(make_settings(), registry, store) as client:
            yield client
    finally:
        await store.close()


async def made(c: Client, hidden: bool) -> tuple[str, str]:
    """A new OPEN table (``hidden``: without spectators): its id and host token."""
    options = {"spectators": False} if hidden else None
    found = (await c.q(CREATE, o=options))["createTable"]
    return found["table"]["id"], found["hostToken"]


def cursors(page: dict[str, Any]) -> list[str]:
    info = page["pageInfo"]
    return [e["cursor"] for e in page["edges"]] + [
        c for c in (info["startCursor"], info["endCursor"]) if c is not None
    ]


async def walk(c: Client, first: int, token: str | None = None) -> tuple[list[str], list[str]]:
    """Every page of the listing: the tables shown and every cursor given."""
    shown: list[str] = []
    given: list[str] = []
    after = None
    for _ in range(20):
        page = (await c.q(LIST, token, f=first, a=after))["tables"]
        shown += [n["id"] for n in page["nodes"]]
        given += cursors(page)
        if not page["pageInfo"]["hasNextPage"]:
            return shown, given
        after = page["pageInfo"]["endCursor"]
        assert after is not None
    raise AssertionError("the listing never ended")


async def test_no_cursor_of_the_listing_names_a_hidden_table(c: Client) -> None:
    old, _ = await made(c, hidden=False)
    first_hidden, _ = await made(c, hidden=True)
    # the finding: the newest table is hidden and ends the store's first page
    page = (await c.q(LIST, f=1))["tables"]
    assert [n["id"] for n in page["nodes"]] == [old]
    assert not any(first_hidden in x for x in cursors(page)), page
    newer, _ = await made(c, hidden=False)
    hidden = [first_hidden] + [(await made(c, hidden=True))[0] for _ in range(6)]
    newest, newest_host = await made(c, hidden=True)
    hidden.append(newest)
    for first in (1, 2, 3, 20):
        shown, given = await walk(c, first)
        assert shown == [newer, old], first
        assert not [x for x in given if any(h in x for h in hidden)], (first, given)
    # five pages of hidden tables: the end is a place between rows, naming no table
    page = (await c.q(LIST, f=1))["tables"]
    assert page["nodes"] == [] and page["pageInfo"]["hasNextPage"]
    score, bar, rest = page["pageInfo"]["endCursor"].partition("|")
    assert bar == "|" and rest == "" and float(score) > 0
    # the host of the newest sees it, and it is listed for it
    shown, _ = await walk(c, 1, newest_host)
    assert shown == [newest, newer, old]


@contextlib.asynccontextmanager
async def lobby(c: Client, token: str | None) -> AsyncIterator[Socket]:
    """A lobby subscription past its snapshot."""
    async with opened(c, token) as socket:
        await socket.start("lobby", LOBBY)
        await socket.wait(lambda: any(e["type"] == "lobby.live" for e in notices(socket)))
        yield socket


def notices(socket: Socket) -> list[dict[str, Any]]:
    return [m["payload"]["data"]["lobbyEvents"] for m in socket.answers("lobby")]


def about(socket: Socket, table_id: str) -> list[tuple[str, str | None]]:
    return [(e["type"], e["status"]) for e in notices(socket) if e["tableId"] == table_id]


async def test_no_lobby_notice_names_a_table_to_one_who_may_not_watch_it(c: Client) -> None:
    hidden, hidden_host = await made(c, hidden=True)
    public, public_host = await made(c, hidden=False)
    # a watcher, and the hidden table's host (a spectator of every other table)
    async with lobby(c, None) as w, lobby(c, hidden_host) as o:
        # the snapshot
        assert about(w, public) == about(o, public) == [("table.listed", "OPEN")]
        assert about(w, hidden) == [] and about(o, hidden) == [("table.listed", "OPEN")]
        # a new hidden table, then a public one
        later, _ = await made(c, hidden=True)
        marker, _ = await made(c, hidden=False)
        for socket in (w, o):
            await socket.wait(lambda s=socket: bool(about(s, marker)))
            assert about(socket, later) == []
        # a change of the hidden table reaches its own only
        await c.q(OPTIONS, hidden_host, t=hidden, o={"spectators": False, "undo": True})
        await o.wait(lambda: len(about(o, hidden)) == 2)
        assert about(o, hidden)[-1] == ("table.updated", "OPEN")
        # spectators turned off: watchers drop the table, and learn nothing more of it
        await c.q(OPTIONS, public_host, t=public, o={"spectators": False})
        await c.q(OPTIONS, public_host, t=public, o={"spectators": False, "undo": True})
        # ... and on again: it opens to them
        await c.q(OPTIONS, public_host, t=public, o={"spectators": True})
        for socket in (w, o):
            await socket.wait(lambda s=socket: len(about(s, public)) == 3)
            assert about(socket, public) == [
                ("table.listed", "OPEN"),
                ("table.closed", None),
                ("table.opened", "OPEN"),
            ]
        assert about(w, hidden) == []
