"""A signed-in user's tables across replicas, and the operator's and the host's options:
``TABLESTATE_REQUIRE_SIGN_IN``, ``TABLESTATE_SPECTATORS`` and the table option
``spectators``; through real uvicorn, on both stores."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.jwts import token
from support.server import Client
from support.sockets import opened

from .signin import CREATE, HAND, JOIN, KICK, MINE, START, SUB, Stack, stack_of

STORES = ["memory", pytest.param("redis", marks=pytest.mark.redis)]
CHAT = """mutation($t: ID!) { sendChat(tableId: $t, text: "hi", name: "Watcher") { cursor } }"""
TABLES = "{ tables(first: 50) { nodes { id } } }"
OPTIONS = "mutation($t: ID!, $o: JSON!) { setOptions(tableId: $t, options: $o) { version } }"


@pytest.fixture
def servers(request: pytest.FixtureRequest, registry, tmp_path) -> Any:
    """``servers(store, **settings)``: two replicas signing in the tests' issuer's users."""

    def make(store: str, **settings: Any) -> Any:
        return stack_of(request, registry, tmp_path, store, "file", **settings)

    return make


@pytest.fixture(params=STORES)
async def plain(request: pytest.FixtureRequest, servers) -> AsyncIterator[Stack]:
    async with servers(request.param) as found:
        yield found


async def mine(c: Client, who: str, **variables: Any) -> tuple[list[str], dict[str, Any]]:
    found = (await c.q(MINE, who, **variables))["myTables"]
    return [n["id"] for n in found["nodes"]], found["pageInfo"]


async def test_my_tables_across_two_replicas(plain: Stack):
    a, b = plain.a, plain.b
    rsa, ec, ed = plain.keys
    ann, bob = token(rsa, "ann"), token(ed, "bob")
    hosted = (await a.q(CREATE, ann, g="lucky-draw", s=2))["createTable"]["table"]["id"]
    played = (await a.q(CREATE, bob, g="lucky-draw", s=2))["createTable"]["table"]["id"]
    await b.q(JOIN, token(ec, "ann"), t=played, n="Ann")  # another device, another replica
    await b.q(JOIN, bob, t=played, n="Bob")
    await a.q(START, bob, t=played)
    kicked = (await b.q(CREATE, bob, g="lucky-draw", s=2))["createTable"]["table"]["id"]
    await a.q(JOIN, ann, t=kicked, n="Ann")
    await b.q(KICK, bob, t=kicked, s=0)  # the index still names it: the table's records decide
    await a.q(CREATE, None, g="lucky-draw", s=2)  # anonymous: nobody's
    for c in (a, b):
        assert (await mine(c, ann))[0] == [played, hosted]
        assert (await mine(c, token(ec, "ann"), s="PLAYING"))[0] == [played]
        assert (await mine(c, ann, s="OPEN"))[0] == [hosted]
        assert (await mine(c, bob))[0] == [kicked, played]
    first, page = await mine(b, ann, f=1)
    assert first == [played] and page["hasNextPage"]
    rest, page = await mine(a, ann, f=1, a=page["endCursor"])
    assert rest == [hosted] and not page["hasNextPage"]
    assert (await mine(a, token(rsa, "cat")))[0] == []
    assert await a.code(MINE, None) == "UNAUTHENTICATED"
    hosts_token = (await a.q(CREATE, None, g="lucky-draw", s=2))["createTable"]["hostToken"]
    assert await a.code(MINE, hosts_token) == "UNAUTHENTICATED"


@pytest.mark.parametrize("store", STORES)
async def test_require_sign_in_refuses_anonymous_creating_and_joining(servers, store):
    async with servers(store, require_sign_in=True) as s:
        a, b = s.a, s.b
        ann = token(s.keys[0], "ann")
        assert await a.code(CREATE, None, g="lucky-draw", s=2) == "UNAUTHENTICATED"
        made = (await a.q(CREATE, ann, g="lucky-draw", s=2))["createTable"]
        t = made["table"]["id"]
        assert await b.code(JOIN, None, t=t, n="Anon") == "UNAUTHENTICATED"
        # a table token is no sign-in either, not even the host's
        assert await b.code(JOIN, made["hostToken"], t=t, n="Host") == "UNAUTHENTICATED"
        assert await b.code(CREATE, made["hostToken"], g="lucky-draw", s=2) == "UNAUTHENTICATED"
        await b.q(JOIN, ann, t=t, n="Ann")
        await a.q(JOIN, token(s.keys[1], "bob"), t=t, n="Bob")
        await b.q(START, ann, t=t)
        # spectating stays open
        assert (await a.q(HAND, t=t))["table"]["status"] == "PLAYING"
        async with opened(b, None) as watcher:
            await watcher.start("sub", SUB, t=t)
            await watcher.wait(
                lambda: any(e["type"] == "cards.dealt" for e in watcher.events("sub"))
            )
            assert watcher.codes("sub") == []


async def refused_spectator(c: Client, who: str | None, t: str) -> None:
    """``who`` may not watch table ``t``: FORBIDDEN for the table and its events, left out
    of the listing, no chat."""
    body = await c.raw(HAND, who, t=t)
    assert body["data"]["table"] is None
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert t not in [n["id"] for n in (await c.q(TABLES, who))["tables"]["nodes"]]
    assert await c.code(CHAT, who, t=t) == "FORBIDDEN"
    async with opened(c, who) as socket:
        assert (await socket.ask("sub", SUB, t=t)) and socket.codes("sub") == ["FORBIDDEN"]


async def seen(c: Client, who: str | None, t: str) -> None:
    """``who`` sees table ``t`` (its public view at least) and may follow it."""
    assert (await c.q(HAND, who, t=t))["table"]["status"] in ("OPEN", "PLAYING")
    async with opened(c, who) as socket:
        await socket.start("sub", SUB, t=t)
        await socket.wait(lambda: bool(socket.events("sub")))
        assert socket.codes("sub") == []


async def seated_table(s: Stack, **options: Any) -> tuple[str, str, str, str]:
    """A started table of Ann (host) and Bob, with ``options``: its id and their JWTs and
    the host token."""
    ann, bob = token(s.keys[0], "ann"), token(s.keys[2], "bob")
    made = (await s.a.q(CREATE, ann, g="lucky-draw", s=2, o=options or None))["createTable"]
    t = made["table"]["id"]
    await s.b.q(JOIN, ann, t=t, n="Ann")
    await s.a.q(JOIN, bob, t=t, n="Bob")
    await s.b.q(START, ann, t=t)
    return t, ann, bob, made["hostToken"]


@pytest.mark.parametrize("store", STORES)
async def test_spectators_seated_lets_only_a_tables_own_see_it(servers, store):
    async with servers(store, spectators="seated") as s:
        t, ann, bob, host = await seated_table(s)
        for who in (None, token(s.keys[1], "cat")):
            await refused_spectator(s.b, who, t)
        for who in (ann, bob, host):
            await seen(s.b, who, t)


@pytest.mark.parametrize("store", STORES)
async def test_spectators_signed_in_lets_signed_in_users_watch(servers, store):
    async with servers(store, spectators="signed-in") as s:
        t, ann, _, _ = await seated_table(s)
        await refused_spectator(s.a, None, t)
        other_tables_token = (await s.a.q(CREATE, ann, g="lucky-draw", s=2))["createTable"]
        await refused_spectator(s.a, other_tables_token["hostToken"], t)
        cat = token(s.keys[1], "cat")
        await seen(s.b, cat, t)
        hand = (await s.b.q(HAND, cat, t=t))["table"]
        assert hand["legalMoves"] == [] and not hand["state"]["myHand"]
        await s.b.q(CHAT, cat, t=t)  # a signed-in spectator talks to the spectators


@pytest.mark.parametrize("store", STORES)
async def test_a_table_without_spectators_is_seen_by_its_players_only(servers, store):
    async with servers(store) as s:
        t, ann, bob, host = await seated_table(s, spectators=False)
        for who in (None, token(s.keys[1], "cat")):
            await refused_spectator(s.a, who, t)
        for who in (ann, bob, host):
            await seen(s.a, who, t)
        public = (await seated_table(s))[0]  # the server's policy is untouched elsewhere
        await seen(s.a, None, public)


@pytest.mark.parametrize("store", STORES)
async def test_turning_spectators_off_ends_their_subscriptions(servers, store):
    async with servers(store) as s:
        ann = token(s.keys[0], "ann")
        t = (await s.a.q(CREATE, ann, g="lucky-draw", s=2))["createTable"]["table"]["id"]
        async with opened(s.b, None) as watcher:
            await watcher.start("sub", SUB, t=t)
            await watcher.wait(lambda: bool(watcher.events("sub")))
            await s.a.q(OPTIONS, ann, t=t, o={"spectators": False})
            await asyncio.wait_for(watcher.ends["sub"].wait(), 10)
            assert watcher.codes("sub") == ["FORBIDDEN"]
            assert not any(e["type"] == "options.changed" for e in watcher.events("sub"))
        await refused_spectator(s.b, None, t)


async def test_a_rematch_keeps_each_users_seat_and_is_among_their_tables(plain: Stack):
    from support.lucky import open_table, play_out

    a, b = plain.a, plain.b
    ann, bob = token(plain.keys[0], "ann"), token(plain.keys[2], "bob")
    t = await open_table(a, humans=2, joiners=[ann, bob])
    assert (await play_out(a, t))["status"] == "FINISHED"
    rematch = "mutation($t: ID!) { rematch(tableId: $t) { seat table { id } } }"
    assert await b.code(rematch, token(plain.keys[1], "cat"), t=t.table_id) == "FORBIDDEN"
    made = (await b.q(rematch, bob, t=t.table_id))["rematch"]
    new = made["table"]["id"]
    assert made["seat"] == 1
    for who, seat in ((ann, 0), (bob, 1)):  # bound again, without a new token to keep
        viewer = await a.q("query($t: ID) { viewer(tableId: $t) { seat } }", who, t=new)
        assert viewer["viewer"]["seat"] == seat
        assert (await mine(a, who))[0] == [new, t.table_id]


@pytest.mark.parametrize("store", STORES)
async def test_the_lobby_shows_a_table_only_to_those_who_may_watch_it(servers, store):
    lobby = "subscription { lobbyEvents { type tableId table { id } } }"
    async with servers(store) as s:
        ann = token(s.keys[0], "ann")
        closed = await s.a.q(CREATE, ann, g="lucky-draw", s=2, o={"spectators": False})
        t = closed["createTable"]["table"]["id"]
        for who, shown in ((None, False), (token(s.keys[1], "cat"), False), (ann, True)):
            async with opened(s.b, who) as socket:
                await socket.start("lobby", lobby)

                def seen(socket: Any = socket) -> list[dict[str, Any]]:
                    return [m["payload"]["data"]["lobbyEvents"] for m in socket.answers("lobby")]

                await socket.wait(lambda seen=seen: any(e["type"] == "lobby.live" for e in seen()))
                listed = [e for e in seen() if e["tableId"] == t]
                assert [e["table"] is not None for e in listed] == ([True] if shown else []), who
                # a change of it reaches those who may watch it alone (the public table
                # opened after it reaches everyone)
                await s.a.q(OPTIONS, ann, t=t, o={"spectators": False})
                public = (await s.a.q(CREATE, ann, g="lucky-draw", s=2))["createTable"]
                marker = public["table"]["id"]
                await socket.wait(
                    lambda seen=seen, marker=marker: any(e["tableId"] == marker for e in seen())
                )
                changed = [e["type"] for e in seen() if e["tableId"] == t][len(listed) :]
                assert changed == (["table.updated"] if shown else []), who
