"""The archive of finished tables, end to end: a table played to its end by signed-in
players is archived once, rated once, forgotten by the store, and then still read, paged,
listed, replayed and ranked; the database down stops no play and loses nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio
from support.jwts import ISSUER, Issuer, Key, sign_in_settings, token
from support.lucky import TABLE, open_table, play_out
from support.server import free_port, make_settings, serve, ws_init, ws_next

from tablestate import cli
from tablestate.archive import ratings
from tablestate.archive.db import Archive, Player
from tablestate.engine.rights import User
from tablestate.plugins import Registry
from tablestate.store.memory import MemoryStore
from tablestate.tables import TableService
from tablestate.tables.archiving import HOLD, RATED

EVENTS = """query($t: ID!, $n: Int, $a: String) { table(id: $t) { id status
  eventsConnection(first: $n, after: $a) {
    nodes { cursor type data } pageInfo { endCursor hasNextPage } } } }"""
MINE = """query { myTables(status: FINISHED) { nodes { id status } } }"""
BOARD = """query($g: ID!, $n: Int, $a: String) { leaderboard(gameId: $g, first: $n, after: $a) {
  edges { cursor rank node { player { userId name } mu sigma ordinal games } }
  pageInfo { endCursor hasNextPage } } }"""
RATINGS = (
    """query { viewer { user { id ratings { gameId houseRules mu sigma ordinal games } } } }"""
)


async def until(check: Callable[[], Awaitable[Any]], seconds: float = 20.0) -> Any:
    """The first truthy answer of ``check``, asked until ``seconds`` have passed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        found = await check()
        if found:
            return found
        assert loop.time() < deadline, "the condition never held"
        await asyncio.sleep(0.05)


async def test_a_finished_table_outlives_the_store(
    registry: Registry, make_store: Any, archive_url: str, tmp_path: Any
) -> None:
    issuer = Issuer(tmp_path)
    issuer.publish(Key.rsa("rsa-1"))
    ann, bob = (token(issuer.keys[0], sub) for sub in ("ann", "bob"))
    settings = make_settings(
        database_url=archive_url, migrate=True, finished_ttl=1, **sign_in_settings(str(issuer.file))
    )
    store = make_store()
    async with serve(settings, registry, store) as c:
        t = await open_table(c, humans=2, joiners=[ann, bob])
        finished = await play_out(c, t)
        assert finished["status"] == "FINISHED"

        live = (await c.q(TABLE, ann, t=t.table_id))["table"]
        live_events = (await c.q(EVENTS, ann, t=t.table_id, n=1000))["table"]
        nodes = live_events["eventsConnection"]["nodes"]
        # The finishing event tells each signed-in seat's rating change.
        told = next(e for e in nodes if e["type"] == "game.finished")["data"]["ratings"]
        assert {r["player"]["id"] for r in told} == {f"{ISSUER}#ann", f"{ISSUER}#bob"}
        assert all(r["before"]["mu"] == 25.0 for r in told)
        assert not [e for e in nodes if e["type"] == RATED]  # what was kept is what it told

        # The store forgets it a second after it finished (it is archived by then)...
        await until(lambda: _gone(store, t.table_id))
        # ... and every read finds it in the archive, with the same rights and redaction.
        assert (await c.q(TABLE, ann, t=t.table_id))["table"] == live
        spectator = (await c.q(TABLE, None, t=t.table_id))["table"]
        assert spectator["id"] == t.table_id and spectator["state"]["myHand"] is None
        paged: list[dict[str, Any]] = []
        after = None
        while True:
            page = (await c.q(EVENTS, ann, t=t.table_id, n=7, a=after))["table"]
            conn = page["eventsConnection"]
            paged += conn["nodes"]
            after = conn["pageInfo"]["endCursor"]
            if not conn["pageInfo"]["hasNextPage"]:
                break
        assert paged == live_events["eventsConnection"]["nodes"]
        # A subscription replays what the caller may see after its cursor, then ends.
        middle = paged[len(paged) // 2]["cursor"]
        async with c.ws() as conn:
            await ws_init(conn, ann)
            query = "subscription($t: ID!, $a: String) { tableEvents(tableId: $t, after: $a) { cursor } }"
            await conn.send(
                json.dumps(
                    {
                        "id": "1",
                        "type": "subscribe",
                        "payload": {"query": query, "variables": {"t": t.table_id, "a": middle}},
                    }
                )
            )
            streamed = []
            while (msg := await ws_next(conn))["type"] == "next":
                streamed.append(msg["payload"]["data"]["tableEvents"]["cursor"])
            assert msg["type"] == "complete"
        assert streamed == [e["cursor"] for e in paged[len(paged) // 2 + 1 :]]
        assert [n["id"] for n in (await c.q(MINE, ann))["myTables"]["nodes"]] == [t.table_id]

        board = (await c.q(BOARD, g="lucky-draw", n=1))["leaderboard"]
        top = board["edges"][0]
        assert top["rank"] == 1 and board["pageInfo"]["hasNextPage"]
        rest = (await c.q(BOARD, g="lucky-draw", n=5, a=top["cursor"]))["leaderboard"]
        assert [e["rank"] for e in rest["edges"]] == [2]
        assert not rest["pageInfo"]["hasNextPage"]
        first, second = top["node"], rest["edges"][0]["node"]
        assert first["ordinal"] >= second["ordinal"] and first["games"] == second["games"] == 1
        assert {first["player"]["name"], second["player"]["name"]} == {"P0", "P1"}
        after = {r["player"]["id"]: r["after"] for r in told}
        for rating in (first, second):
            kept = after[rating["player"]["userId"]]
            assert (rating["mu"], rating["sigma"]) == (kept["mu"], kept["sigma"])
        winners = finished["result"]["winners"]
        if len(winners) == 1:  # the winner is on top
            user = "ann" if winners == [0] else "bob"
            assert first["player"]["userId"] == f"{ISSUER}#{user}"
        mine = (await c.q(RATINGS, ann))["viewer"]["user"]["ratings"]
        assert [(r["gameId"], r["houseRules"], r["games"]) for r in mine] == [("lucky-draw", [], 1)]

    # `tablestate replay` checks the shuffle from the archive alone.
    replayed, message = await cli._replay_async(t.table_id, settings)
    assert replayed, message


async def _gone(store: Any, table_id: str) -> bool:
    return await store.load(table_id) is None


async def test_the_database_down_stops_no_play_and_loses_nothing(
    registry: Registry, make_store: Any, archive_url: str, request: pytest.FixtureRequest
) -> None:
    down = f"postgresql://nobody@127.0.0.1:{free_port()}/none"
    settings = make_settings(database_url=down, finished_ttl=1)
    svc = TableService(settings, registry, make_store())
    archiver = svc.archiver
    assert archiver is not None
    try:
        loaded, host = await svc.operations.create("lucky-draw", [], None, 2)
        tid = loaded.table.id
        _, _, token0 = await svc.operations.join(None, tid, "Ann", 0, None)
        _, _, token1 = await svc.operations.join(None, tid, "Bob", 1, None)
        await svc.operations.start(await svc.reads.authenticate(host), tid)
        while (now := await svc.reads.must_load(tid)).table.status != "FINISHED":
            seat = now.to_act()[0]
            viewer = await svc.reads.authenticate(token0 if seat == 0 else token1)
            await svc.moves.make(viewer, tid, "lucky-draw", now.legal_moves(seat)[0])
        await until(lambda: _true(archiver.degraded))
        # Each failed try puts the entry off by a backoff that doubles, past the lease too.
        for wait in (2.0, 4.0, 8.0, 16.0, 32.0, 64.0):
            assert not await archiver.run(tid)
            await until(lambda wait=wait: _true(archiver._backoff.get(tid) == wait))
        late = time.time() + 64.0 - 1
        await until(lambda: _true(not archiver._tasks))
        assert await svc.store.claim_archive(late, 0, 10) == ()
        assert await svc.store.claim_archive(late + 3, 0, 10) == (tid,)
        archiver._backoff.clear()
        await svc.store.schedule_archive(tid, 0.0)
        assert svc.metrics.get("tablestate_archive_degraded") == 1
        assert svc.metrics.get("tablestate_archive_failures_total") >= 1
        # Its finished TTL is a second, but the store holds it until it is archived.
        assert await _kept_for(svc.store, tid, request) > HOLD / 2

        # The database comes back: the worker archives it on its next try.
        healthy = Archive(archive_url)
        await healthy.migrate()
        archiver.archive = healthy
        svc.reads.archive = healthy
        svc.start_worker()
        found = await until(lambda: healthy.load(tid), seconds=30)
        assert found.status == "FINISHED" and not archiver.degraded
        await until(lambda: _gone(svc.store, tid))
        assert (await svc.reads.must_load(tid)).table.status == "FINISHED"
    finally:
        await svc.close()


async def _kept_for(store: Any, table_id: str, request: pytest.FixtureRequest) -> float:
    """Seconds the store keeps the table yet (its snapshot's expiry)."""
    if isinstance(store, MemoryStore):
        return float(store._tables[table_id].expires_at - store._clock())
    client = redis.asyncio.Redis.from_url(request.getfixturevalue("redis_url"))
    try:
        prefix = request.getfixturevalue("redis_prefix")
        return float(await client.pttl(f"{prefix}{{t:{table_id}}}:s")) / 1000
    finally:
        await client.aclose()


async def _true(value: bool) -> bool:
    return value


async def test_archived_once_by_racing_replicas(
    registry: Registry, make_store: Any, archive: Archive, archive_url: str
) -> None:
    settings = make_settings(database_url=archive_url, finished_ttl=600)
    store = make_store()
    one = TableService(settings, registry, store)
    two = TableService(settings, registry, store)
    try:
        loaded, host = await one.operations.create("lucky-draw", [], None, 2)
        tid = loaded.table.id
        _, _, ann = await one.operations.join(None, tid, "Ann", 0, None)
        await one.operations.add_bot(await one.reads.authenticate(host), tid, 1)
        await one.operations.cancel(await one.reads.authenticate(host), tid)
        assert one.archiver is not None and two.archiver is not None
        done = await asyncio.gather(one.archiver.run(tid), two.archiver.run(tid))
        assert done == [True, True]
        kept = await archive.load(tid)
        assert kept is not None and kept.status == "CANCELLED"
        assert await archive.changes(tid) == ()  # a cancelled table is not rated
        assert await archive.ratings(Player("bot", "normal")) == []
        # Held still, its entry due again shortly before its finished TTL runs out...
        assert await store.claim_archive(time.time() + 60, 1, 10) == ()
        if isinstance(store, MemoryStore):
            assert store._tables[tid].expires_at - store._clock() > HOLD / 2
        # ... for a last pass, which adds what was appended since and lets the store
        # forget it when the TTL runs out.
        await one.chat.send(await one.reads.authenticate(ann), tid, "good game", None, "a")
        one.archiver.clock = lambda: time.time() + 590
        assert await one.archiver.run(tid)
        assert await store.claim_archive(time.time() + 3600, 1, 10) == ()
        if isinstance(store, MemoryStore):
            assert store._tables[tid].expires_at - store._clock() < 11
        again = await archive.load(tid)
        assert again is not None and len(again.events) == len(kept.events) + 1
        assert "good game" in again.events[-1]
    finally:
        await one.close()
        await two.close()


async def test_readyz_says_degraded_while_the_database_fails(
    registry: Registry, make_store: Any
) -> None:
    down = f"postgresql://nobody@127.0.0.1:{free_port()}/none"
    async with serve(make_settings(database_url=down), registry, make_store()) as c:
        assert (await c.http.get("/readyz")).json() == {"status": "ready"}
        t = await open_table(c, humans=2)
        await play_out(c, t)

        async def degraded() -> bool:
            answer = await c.http.get("/readyz")
            return answer.status_code == 200 and answer.json() == {"status": "degraded"}

        await until(degraded)
        metrics = (await c.http.get("/metrics")).text
        assert "tablestate_archive_degraded 1.0" in metrics
        # Play goes on meanwhile.
        assert (await c.q(TABLE, t.tokens[0], t=t.table_id))["table"]["status"] == "FINISHED"
        again = await open_table(c, humans=2)
        assert (await play_out(c, again))["status"] == "FINISHED"


async def test_a_rating_changed_in_between_is_told_again(
    registry: Registry, make_store: Any, archive: Archive, archive_url: str
) -> None:
    """Two tables of one player finish; the first is archived only after the second: what
    its finishing event told is stale, and ``table.rated`` tells what was kept."""
    svc = TableService(make_settings(database_url=archive_url), registry, make_store())
    archiver = svc.archiver
    assert archiver is not None
    ann, bob, cy = (User(f"{ISSUER}#{n}", n, time.time() + 3600, time.time) for n in "abc")
    try:
        stalled = await _played(svc, ann, bob, archive_now=False)
        await _played(svc, ann, cy, archive_now=True)
        assert await archiver.run(stalled)  # as the worker does once its entry falls due
        events = [e.type for e in await svc.reads.events(stalled, None, 1000, None)]
        assert events.count(RATED) == 1
        kept = await archive.changes(stalled)
        rated = (await svc.reads.events(stalled, None, 1000, None))[-1]
        assert rated.type == RATED
        assert [r["after"]["mu"] for r in rated.data["ratings"]] == [c.mu_after for c in kept]
        # ann's second table counted first: the stalled table's change starts from it
        ann_before = next(c for c in kept if c.player.id == ann.id)
        assert (ann_before.mu_before, ann_before.sigma_before) != ratings.DEFAULT
    finally:
        await svc.close()


async def _played(svc: TableService, one: User, two: User, *, archive_now: bool) -> str:
    """A lucky-draw table of two signed-in users, played to its end; with ``archive_now``
    false it is archived only by the worker, after its entry's lease."""
    archiver = svc.archiver
    assert archiver is not None
    loaded, host = await svc.operations.create("lucky-draw", [], None, 2)
    tid = loaded.table.id
    await svc.operations.join(one, tid, "One", 0, None)
    await svc.operations.join(two, tid, "Two", 1, None)
    await svc.operations.start(await svc.reads.authenticate(host), tid)
    spawn = archiver._spawn
    if not archive_now:
        archiver._spawn = lambda coro: coro.close()  # type: ignore[method-assign]
    try:
        while (now := await svc.reads.must_load(tid)).table.status != "FINISHED":
            seat = now.to_act()[0]
            await svc.moves.make(
                one if seat == 0 else two, tid, "lucky-draw", now.legal_moves(seat)[0]
            )
    finally:
        archiver._spawn = spawn  # type: ignore[method-assign]
    if archive_now:
        await until(lambda: archiver.archive.load(tid))
    return tid


async def test_my_tables_pages_through_the_store_and_the_archive(
    registry: Registry, make_store: Any, archive: Archive, archive_url: str
) -> None:
    svc = TableService(
        make_settings(database_url=archive_url, finished_ttl=1), registry, make_store()
    )
    ann = User(f"{ISSUER}#ann", "ann", time.time() + 3600, time.time)
    bob = User(f"{ISSUER}#bob", "bob", time.time() + 3600, time.time)
    try:
        made = [await _played(svc, ann, bob, archive_now=True) for _ in range(3)]
        for tid in made:  # forgotten by the store, kept by the archive
            await until(lambda tid=tid: _gone(svc.store, tid))
        loaded, _ = await svc.operations.create("lucky-draw", [], None, 2)
        await svc.operations.join(ann, loaded.table.id, "Ann", 0, None)  # live, OPEN
        newest_first = [loaded.table.id, *reversed(made)]
        for status, expected in [(None, newest_first), ("FINISHED", newest_first[1:])]:
            seen: list[str] = []
            after = None
            while True:
                held, page = await svc.reads.mine(ann, status, 1, after)
                seen += [t.table.id for t in held]
                after = page.next
                if after is None:
                    break
            assert seen == expected, status
            held, page = await svc.reads.mine(ann, status, 10, None)
            assert [t.table.id for t in held] == expected and page.next is None
    finally:
        await svc.close()


async def test_an_archive_never_migrated_stops_no_game(
    registry: Registry, make_store: Any, archive_url: str
) -> None:
    """An operator who forgot `tablestate migrate`: games still finish, archiving waits and
    is retried, and goes through once the schema is there."""
    svc = TableService(make_settings(database_url=archive_url), registry, make_store())
    archiver = svc.archiver
    assert archiver is not None
    ann = User(f"{ISSUER}#ann", "ann", time.time() + 3600, time.time)
    bob = User(f"{ISSUER}#bob", "bob", time.time() + 3600, time.time)
    try:
        tid = await _played(svc, ann, bob, archive_now=False)
        assert (await svc.reads.must_load(tid)).table.status == "FINISHED"
        assert not await archiver.run(tid) and archiver.degraded
        await archiver.archive.migrate()
        assert await archiver.run(tid) and not archiver.degraded
        kept = await archiver.archive.load(tid)
        assert kept is not None and kept.status == "FINISHED"
    finally:
        await svc.close()
