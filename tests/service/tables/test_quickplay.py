"""Quick play end to end: tickets over the API, matched into one started table by any
replica's matcher, once, even when a replica dies in the middle of a match."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from support.jwts import ISSUER, Issuer, Key, sign_in_settings, token
from support.lucky import TABLE
from support.server import Client, make_settings, serve, ws_init, ws_next
from support.streams import MULTIPART, SSE, subscribe

from tablestate.engine.matching import MATCHED, WAITING
from tablestate.engine.rights import User
from tablestate.plugins import Registry
from tablestate.tables import TableService
from tablestate.tables.quickplay import Wish

PLAY = """mutation($g: ID!, $p: QuickPlayPlayers, $b: QuickPlayBots, $n: String, $o: JSON) {
  quickPlay(gameId: $g, players: $p, bots: $b, name: $n, options: $o) {
    id gameId minPlayers maxPlayers } }"""
CANCEL = "mutation($t: ID!) { cancelQuickPlay(ticket: $t) }"
EVENTS = """subscription($t: ID!) { quickPlayEvents(ticket: $t) {
  status ahead estimatedWaitSeconds tableId seat playerToken ticket { id } } }"""


async def listen(c: Client, ticket: str, auth: str | None = None) -> list[dict[str, Any]]:
    """Every event of the ticket's stream, until it ends."""
    seen: list[dict[str, Any]] = []
    async with c.ws() as conn:
        await ws_init(conn, auth)
        payload = {"query": EVENTS, "variables": {"t": ticket}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while (msg := await ws_next(conn, timeout=20))["type"] == "next":
            assert "errors" not in msg["payload"], msg
            seen.append(msg["payload"]["data"]["quickPlayEvents"])
        assert msg["type"] == "complete", msg
    return seen


async def test_two_players_are_matched_to_one_started_table(registry: Registry, make_store):
    async with serve(make_settings(), registry, make_store()) as c:
        two = {"min": 2, "max": 2}
        first = (await c.q(PLAY, g="lucky-draw", p=two, n="Ann"))["quickPlay"]
        assert (first["gameId"], first["minPlayers"], first["maxPlayers"]) == ("lucky-draw", 2, 2)
        listening = asyncio.ensure_future(listen(c, first["id"]))
        second = (await c.q(PLAY, g="lucky-draw", p=two, n="Bob"))["quickPlay"]
        theirs = await listen(c, second["id"])
        mine = await listening
        assert mine[0]["status"] == WAITING and mine[0]["ahead"] == 0
        ends = [mine[-1], theirs[-1]]
        assert [e["status"] for e in ends] == [MATCHED, MATCHED]
        assert ends[0]["tableId"] == ends[1]["tableId"]
        assert {e["seat"] for e in ends} == {0, 1}
        table = (await c.q(TABLE, ends[0]["playerToken"], t=ends[0]["tableId"]))["table"]
        assert table["status"] == "PLAYING"
        assert {s["name"] for s in table["seats"]} == {"Ann", "Bob"}
        assert [s["kind"] for s in table["seats"]] == ["HUMAN", "HUMAN"]
        # the table is private: nobody else finds it in the lobby
        listed = await c.q("query { tables(status: PLAYING) { nodes { id } } }")
        assert ends[0]["tableId"] not in [n["id"] for n in listed["tables"]["nodes"]]


async def test_bots_fill_the_table_after_the_wait(registry: Registry, make_store):
    async with serve(make_settings(), registry, make_store()) as c:
        wish = {
            "g": "lucky-draw",
            "p": {"min": 2, "max": 3},
            "b": {"allowed": True, "afterSeconds": 0},
        }
        ticket = (await c.q(PLAY, **wish))["quickPlay"]
        end = (await listen(c, ticket["id"]))[-1]
        assert end["status"] == MATCHED and end["seat"] == 0
        table = (await c.q(TABLE, end["playerToken"], t=end["tableId"]))["table"]
        assert [s["kind"] for s in table["seats"]] == ["HUMAN", "BOT", "BOT"]


@pytest.mark.parametrize(
    "kind",
    [pytest.param(SSE, id="graphql-sse"), pytest.param(MULTIPART, id="multipart"), "graphql-ws"],
)
@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
async def test_matched_over_every_transport(registry: Registry, make_store, kind: str):
    async with serve(make_settings(), registry, make_store()) as c:
        wish = {"g": "lucky-draw", "p": {"min": 2, "max": 2}}
        one = (await c.q(PLAY, **wish))["quickPlay"]["id"]
        two = (await c.q(PLAY, **wish))["quickPlay"]["id"]
        if kind == "graphql-ws":  # the legacy protocol (subscriptions-transport-ws)
            ends = await asyncio.gather(*(_legacy(c, t) for t in (one, two)))
        else:
            ends = await asyncio.gather(*(_over_http(c, t, kind) for t in (one, two)))
        assert [e["status"] for e in ends] == [MATCHED, MATCHED]
        assert ends[0]["tableId"] == ends[1]["tableId"]


async def _over_http(c: Client, ticket: str, kind: str) -> dict[str, Any]:
    async with subscribe(c.http, EVENTS, kind, t=ticket) as stream:
        last = None
        while (found := await stream.next()) is not None:
            assert "errors" not in found, found
            last = found["data"]["quickPlayEvents"]
        assert last is not None
        return last


async def _legacy(c: Client, ticket: str) -> dict[str, Any]:
    async with c.ws("graphql-ws") as conn:
        await conn.send(json.dumps({"type": "connection_init", "payload": {}}))
        payload = {"query": EVENTS, "variables": {"t": ticket}}
        await conn.send(json.dumps({"id": "1", "type": "start", "payload": payload}))
        last = None
        while (msg := await ws_next(conn, timeout=20))["type"] != "complete":
            if msg["type"] == "data":
                last = msg["payload"]["data"]["quickPlayEvents"]
        assert last is not None
        return last


async def test_a_cancelled_ticket_ends_its_stream(registry: Registry, make_store):
    async with serve(make_settings(), registry, make_store()) as c:
        ticket = (await c.q(PLAY, g="lucky-draw", p={"min": 2, "max": 2}))["quickPlay"]
        assert (await c.q(CANCEL, t=ticket["id"]))["cancelQuickPlay"] is True
        assert (await c.q(CANCEL, t=ticket["id"]))["cancelQuickPlay"] is False
        assert [e["status"] for e in await listen(c, ticket["id"])] == ["CANCELLED"]
        assert await c.code(CANCEL, t="nothing.here") == "NOT_FOUND"


async def test_bad_wishes_are_refused(registry: Registry, make_store):
    async with serve(make_settings(), registry, make_store()) as c:
        assert await c.code(PLAY, g="no-such-game") == "NOT_FOUND"
        assert await c.code(PLAY, g="lucky-draw", p={"min": 3, "max": 2}) == "BAD_INPUT"
        assert await c.code(PLAY, g="lucky-draw", p={"min": 1, "max": 99}) == "BAD_INPUT"
        bad_wait = {"allowed": True, "afterSeconds": 999}
        assert await c.code(PLAY, g="lucky-draw", b=bad_wait) == "BAD_INPUT"
        assert await c.code(PLAY, g="lucky-draw", o={"nonsense": True}) == "BAD_INPUT"
        assert await c.code(PLAY, g="lucky-draw", n="   ") == "BAD_INPUT"
        assert await c.code(PLAY, g="lucky-draw", o={"x": "a" * 20_000}) == "BAD_INPUT"


async def test_a_signed_in_users_ticket_is_theirs_and_seats_them(
    registry: Registry, make_store, tmp_path
):
    issuer = Issuer(tmp_path)
    issuer.publish(Key.rsa("rsa-1"))
    ann, bob = (token(issuer.keys[0], sub) for sub in ("ann", "bob"))
    settings = make_settings(**sign_in_settings(str(issuer.file)))
    async with serve(settings, registry, make_store()) as c:
        two = {"min": 2, "max": 2}
        mine = (await c.q(PLAY, ann, g="lucky-draw", p=two))["quickPlay"]
        assert await c.code(CANCEL, bob, t=mine["id"]) == "FORBIDDEN"
        assert await c.code(CANCEL, None, t=mine["id"]) == "FORBIDDEN"
        listening = asyncio.ensure_future(listen(c, mine["id"], ann))
        theirs = (await c.q(PLAY, bob, g="lucky-draw", p=two))["quickPlay"]
        end = (await listen(c, theirs["id"], bob))[-1]
        assert (await listening)[-1]["tableId"] == end["tableId"]
        assert end["playerToken"] is None  # the seat is bound to the user
        viewer = await c.q(
            "query($t: ID) { viewer(tableId: $t) { seat user { id } } }", bob, t=end["tableId"]
        )
        assert viewer["viewer"]["seat"] == end["seat"]
        assert viewer["viewer"]["user"]["id"] == f"{ISSUER}#bob"


async def test_a_ticket_nobody_listens_to_expires(registry: Registry, make_store):
    svc = TableService(make_settings(), registry, make_store())
    svc.quick.grace = 0.0
    try:
        ticket = await svc.quick.enqueue(None, _wish(), "a")
        await asyncio.sleep(0.01)  # let its clock pass the grace of none
        assert await svc.quick.match(ticket.pool) == 0
        assert (await svc.quick.status(None, ticket.id)).status == "EXPIRED"
    finally:
        await svc.close()


async def test_a_full_queue_is_unavailable(registry: Registry, make_store):
    svc = TableService(make_settings(), registry, make_store())
    svc.quick.pool_limit = 1
    try:
        await svc.quick.enqueue(None, _wish(), "a")
        with pytest.raises(Exception, match="full") as refused:
            await svc.quick.enqueue(None, _wish(), "a")
        assert getattr(refused.value, "code", None) == "UNAVAILABLE"
    finally:
        await svc.close()


class Killed(Exception):
    """The replica dies here."""


@pytest.mark.parametrize("store_kind", ["redis"], indirect=True)
async def test_a_replica_killed_mid_match_leaves_the_tickets_to_another(
    registry: Registry, make_store
):
    settings = make_settings()
    dying = TableService(settings, registry, make_store())
    other = TableService(settings, registry, make_store())
    for svc in (dying, other):
        svc.quick.lease = 0.3

    async def killed(*_: Any) -> Any:
        raise Killed

    dying.operations.start = killed  # type: ignore[method-assign]
    try:
        one = await dying.quick.enqueue(None, _wish(), "a")
        two = await dying.quick.enqueue(None, _wish(), "b")
        with pytest.raises(Killed):  # the table made, its seats taken, never started
            await dying.quick.run_due_once()
        for t in (one, two):
            assert (await other.quick.status(None, t.id)).status == WAITING
        assert await other.quick.run_due_once() == 0  # the dead replica's lease holds yet
        for _ in range(100):
            if await other.quick.run_due_once():
                break
            await asyncio.sleep(0.05)
        ends = [await other.quick.status(None, t.id) for t in (one, two)]
        assert [e.status for e in ends] == [MATCHED, MATCHED]
        assert ends[0].table_id == ends[1].table_id
        started = await other.reads.must_load(str(ends[0].table_id))
        assert started.table.status == "PLAYING" and len(started.table.seated()) == 2
        # matched once: a second round finds nothing to match
        assert await other.quick.run_due_once() == 0
    finally:
        await dying.close()
        await other.close()


def _wish() -> Wish:
    return Wish("lucky-draw", (), None, 2, 2, False, 30, "P")


_ = User  # signed-in users are matched through the API above


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
async def test_tickets_are_limited_per_address(registry: Registry, make_store):
    async with serve(make_settings(), registry, make_store()) as c:

        async def play(address: str) -> dict[str, Any]:
            body = {"query": PLAY, "variables": {"g": "lucky-draw"}}
            sent = await c.http.post("/graphql", json=body, headers={"X-Forwarded-For": address})
            return sent.json()  # type: ignore[no-any-return]

        answers = [await play("203.0.113.9") for _ in range(11)]
        assert all("errors" not in a for a in answers[:10])
        assert answers[10]["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        assert "errors" not in await play("203.0.113.10")  # another address is not
