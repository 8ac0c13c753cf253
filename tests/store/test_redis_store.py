"""What only the Redis store has to prove: replicas, hash tags, expiry on every key,
failing fast, pub/sub reconnection and a bounded number of connections."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from uuid import uuid4

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot
from redis_server import RedisHandle, find_redis_server, free_port, redis_server_process

from tablestate.store import (
    Idempotency,
    NewEvent,
    RedisStore,
    StoredEvent,
    StoreUnavailable,
    TableMeta,
)
from tablestate.store._deltas import patch
from tablestate.store.base import SPECTATOR_BASE, SPECTATOR_STEP, SPECTATORS, CursorsSpent

pytestmark = pytest.mark.redis

AT = "2026-01-01T00:00:00Z"
META = TableMeta("five-crowns", "OPEN", 1.0)

MakeStore = Callable[..., RedisStore]


def tid() -> str:
    return f"tbl-{uuid4().hex[:10]}"


def ev(kind: str) -> NewEvent:
    return NewEvent(kind, AT)


@pytest.fixture
async def make_store(redis_url: str, redis_prefix: str) -> AsyncIterator[MakeStore]:
    stores: list[RedisStore] = []

    def make(url: str = redis_url, **kwargs: object) -> RedisStore:
        store = RedisStore.from_url(url, prefix=redis_prefix, **kwargs)  # type: ignore[arg-type]
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


@pytest.fixture
def own_redis(redis_handle: RedisHandle) -> Iterator[str]:
    """A Redis nobody else uses, for tests that kill clients or count connections."""
    if redis_handle.owned:
        yield redis_handle.url
        return
    binary = find_redis_server()
    if binary is None:
        pytest.skip("needs a Redis of the tests' own, and no redis-server is available")
    with redis_server_process(binary) as url:
        yield url


async def test_commit_by_another_replica_notifies_the_watcher(make_store: MakeStore) -> None:
    here, there = make_store(), make_store()
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    here.set_listener(lambda table_id, cursor: heard.put_nowait((table_id, cursor)))
    table_id = tid()
    await there.create(table_id, "s", META, [ev("a")], ttl=60)
    await here.watch(table_id)
    assert (await there.commit(table_id, 1, "s2", META, [ev("b"), ev("c")], ttl=60)).ok
    assert await asyncio.wait_for(heard.get(), 2) == (table_id, "2-1")
    assert await here.events(table_id, after="1-0") == await there.events(table_id, after="1-0")


async def test_keys_of_a_table_share_its_hash_tag(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    tables = [tid(), tid()]
    for table_id in tables:
        await store.create(table_id, "s", META, [ev("a")], ttl=60)
        key = Idempotency(0, "k", "h")
        await store.commit(table_id, 1, "s2", META, [ev("b")], ttl=60, idempotency=key, log="m")
        await store.append(table_id, [ev("chat"), NewEvent("quiet", AT, audience=SPECTATORS)])
    keys = {k.decode() async for k in admin.scan_iter(match=f"{redis_prefix}*")}
    global_keys = {
        k for k in keys if k.startswith((f"{redis_prefix}tables:", f"{redis_prefix}due"))
    }
    assert f"{redis_prefix}tables:all" in global_keys
    for table_id in tables:
        tag = f"{redis_prefix}{{t:{table_id}}}"
        own = {k for k in keys if f"{{t:{table_id}}}" in k}
        assert own == {f"{tag}:{k}" for k in ("s", "e", "io", "m", "c", "x")}
        assert len({key_slot(k.encode()) for k in own | {f"{tag}:ev"}}) == 1
    assert keys == global_keys | {k for k in keys if "{t:" in k}


async def test_every_key_of_a_table_gets_the_ttl(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=10)
    # appended streams made now live as long as the table does
    await store.append(table_id, [ev("chat"), NewEvent("quiet", AT, audience=SPECTATORS)])
    tag = f"{redis_prefix}{{t:{table_id}}}"
    for suffix in (":c", ":x"):  # the TTL, and at most a hundredth more (commit.lua)
        assert 8_000 < await admin.pttl(tag + suffix) <= 10_100, suffix
    key = Idempotency(0, "k", "h")
    await store.commit(table_id, 1, "s2", META, [ev("b")], ttl=100, idempotency=key, log="m")
    for suffix in (":s", ":e", ":io", ":m", ":c", ":x"):
        assert 98_000 < await admin.pttl(tag + suffix) <= 101_000, suffix


async def test_a_busy_tables_expiry_is_put_off_once_it_nears_the_ttl(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """Within a hundredth of the TTL (a minute at most), a commit leaves the expiry alone
    but gives the keys it makes theirs; nearer, or past a shorter TTL, it puts it off."""
    store = make_store()
    table_id = tid()
    tag = f"{redis_prefix}{{t:{table_id}}}"
    await store.create(table_id, "s", META, [], ttl=100)  # no event yet: no stream
    assert await admin.exists(tag + ":e") == 0
    await admin.pexpire(tag + ":s", 100_500)  # within the slack of a 100 s TTL
    key = Idempotency(0, "k", "h")
    await store.commit(table_id, 1, "s2", META, [ev("b")], ttl=100, idempotency=key, log="m")
    assert 100_000 < await admin.pttl(tag + ":s") <= 100_500  # left alone
    for suffix in (":e", ":io", ":m"):  # made by this commit: their own expiry
        assert 100_000 < await admin.pttl(tag + suffix) <= 101_000, suffix
    await admin.pexpire(tag + ":s", 99_000)  # below the TTL: put off again
    await store.commit(table_id, 2, "s3", META, [ev("c")], ttl=100)
    for suffix in (":s", ":e", ":io", ":m"):
        assert 100_000 < await admin.pttl(tag + suffix) <= 101_000, suffix
    await store.commit(table_id, 3, "s4", META, [ev("d")], ttl=10)  # finished: shorter
    for suffix in (":s", ":e", ":io", ":m"):
        assert 9_000 < await admin.pttl(tag + suffix) <= 10_100, suffix


async def test_expired_tables_are_cleaned_from_listings(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    gone, kept = tid(), tid()
    await store.create(gone, "s", META, [], ttl=0.1)
    await store.create(kept, "s", META, [], ttl=60)
    await asyncio.sleep(0.25)
    assert (await store.list(None, "OPEN", 10, None)).table_ids == (kept,)
    assert await admin.zscore(f"{redis_prefix}tables:s:OPEN", gone) is None


async def test_a_users_list_is_one_key_of_its_own_whose_life_is_only_ever_put_off(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    user = "https://issuer.test#ann|with odd text \u00e9"
    first, second = tid(), tid()
    await store.create(first, "s", META, [], ttl=60)
    await store.create(second, "s", META, [], ttl=60)
    await store.add_user_table(user, first, 1.0, ttl=100)
    keys = {k.decode() async for k in admin.scan_iter(match=f"{redis_prefix}users:*")}
    (key,) = keys
    assert user not in key and len(key) == len(redis_prefix) + len("users:") + 32
    assert 98_000 < await admin.pttl(key) <= 100_000
    await store.add_user_table(user, second, 2.0, ttl=10)  # a shorter life never shortens it
    assert 98_000 < await admin.pttl(key) <= 100_000
    await store.add_user_table(user, second, 2.0, ttl=200)
    assert 198_000 < await admin.pttl(key) <= 200_000
    assert (await store.user_tables(user, None, 10, None)).table_ids == (second, first)


async def test_unreachable_redis_fails_fast(make_store: MakeStore) -> None:
    store = make_store(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
    for call in (store.load("t"), store.events("t"), store.watch("t")):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await call
        assert time.monotonic() - started < 1.5
    assert await store.ping() is False


async def test_silent_redis_fails_within_timeout(make_store: MakeStore) -> None:
    # A server that accepts connections and never answers: only timeouts can save us.
    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        store = make_store(f"redis://127.0.0.1:{port}/0", timeout=0.5)
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.commit("t", 1, "s", META, [ev("a")], ttl=60)
        assert time.monotonic() - started < 1.5
        assert await store.ping() is False
    finally:
        server.close()


async def test_exhausted_pool_is_unavailable_not_a_hang(make_store: MakeStore) -> None:
    store = make_store(max_connections=1, timeout=0.3)
    pool = store._redis.connection_pool  # white box: hold the only connection
    held = await pool.get_connection()
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.load("t")
        assert time.monotonic() - started < 1.3
    finally:
        await pool.release(held)
    assert await store.load("t") is None


async def test_ping(make_store: MakeStore) -> None:
    assert await make_store().ping() is True


async def test_pubsub_reconnects_and_asks_for_a_catch_up(
    make_store: MakeStore, own_redis: str
) -> None:
    store = make_store(own_redis)
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    store.set_listener(lambda table_id, cursor: heard.put_nowait((table_id, cursor)))
    watched, other = tid(), tid()
    for table_id in (watched, other):
        await store.create(table_id, "s", META, [ev("a")], ttl=60)
    await store.watch(watched)
    await store.watch(other)
    await store.unwatch(other)
    admin = aioredis.Redis.from_url(own_redis)
    try:
        assert await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub") == 1
        assert await asyncio.wait_for(heard.get(), 5) == (watched, "")
        assert (await store.commit(watched, 1, "s2", META, [ev("b")], ttl=60)).ok
        assert await asyncio.wait_for(heard.get(), 2) == (watched, "2-0")
        assert heard.empty()
        clients = await admin.client_list(_type="pubsub")
        assert [c["name"] for c in clients] == ["tablestate-pubsub"]
    finally:
        await admin.aclose()


async def test_connections_stay_bounded_under_load(make_store: MakeStore, own_redis: str) -> None:
    admin = aioredis.Redis.from_url(own_redis)
    try:
        before = (await admin.info("clients"))["connected_clients"]
        store = make_store(own_redis, max_connections=5)
        table_id = tid()
        await store.create(table_id, "s", META, [ev("a")], ttl=60)
        loads = await asyncio.gather(*(store.load(table_id) for _ in range(200)))
        assert loads == [("s", 1)] * 200
        after = (await admin.info("clients"))["connected_clients"]
        assert 1 <= after - before <= 5 + 1  # the pool, and the commits' own connection
    finally:
        await admin.aclose()


async def test_after_a_restart_no_stale_connection_fails_a_request(
    make_store: MakeStore, tmp_path
) -> None:
    """Idle pooled connections outlive a Redis restart only as broken sockets; the pool
    checks a connection before it lends it and reconnects a broken one, so once Redis is
    back every request succeeds: none meets a connection of the dead server."""
    from support.replicas import RedisProcess

    server = RedisProcess(tmp_path).start()
    try:
        store = make_store(server.url, timeout=1.0)
        table_id = tid()
        await store.create(table_id, "s", META, [ev("a")], ttl=3600)
        # several connections in the pool at once, then idle
        await asyncio.gather(*(store.load(table_id) for _ in range(8)))
        server.kill()
        with pytest.raises(StoreUnavailable):
            await store.load(table_id)
        server.start()
        for _ in range(8):
            assert await store.load(table_id) is None  # no AOF: the table is gone, no error
    finally:
        server.stop()


async def test_a_read_is_sent_again_once_on_a_dead_connection() -> None:
    """``_reading``: a read that meets a dead connection is sent once more (a fresh
    connection answers it); a second failure, and any other error, is the caller's."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import ResponseError

    from tablestate.store._reach import Reach

    calls: list[str] = []

    def flaky(failures: int, error: type[Exception] = RedisConnectionError):
        async def command(key: str) -> str:
            calls.append(key)
            if len(calls) <= failures:
                raise error("Connection closed by server.")
            return f"value of {key}"

        return command

    assert await Reach._reading(flaky(1), "k") == "value of k"
    assert calls == ["k", "k"]
    calls.clear()
    with pytest.raises(RedisConnectionError):
        await Reach._reading(flaky(2), "k")
    assert len(calls) == 2
    calls.clear()
    with pytest.raises(ResponseError):
        await Reach._reading(flaky(1, ResponseError), "k")
    assert calls == ["k"]


def quiet(text: str) -> NewEvent:
    return NewEvent("chat.spectator", AT, {"text": text}, None, {}, SPECTATORS)


async def write_quiet(admin: aioredis.Redis, tag: str, version: int, cursor: str) -> None:
    """A spectators' message written straight into the table's stream of them."""
    event = StoredEvent(cursor, version, "chat.spectator", AT, {}, None, {}, SPECTATORS)
    await admin.xadd(f"{tag}:x", {"e": event.to_json()}, id=cursor)


async def test_a_version_with_spectators_chat_numbered_the_old_way_goes_on_so(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """A table written before spectators' events were numbered apart: at the version whose
    spectators' stream holds one numbered the old way (the next free n of everyone), the
    appends go on the old way (no stream mixes two numberings at one version, no cursor is
    given twice); the next version is numbered the new way."""
    store = make_store()
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=60)
    await write_quiet(admin, f"{redis_prefix}{{t:{table_id}}}", 1, "1-1")
    said = await store.append(table_id, [ev("chat.message"), quiet("q"), ev("chat.message")])
    assert [e.cursor for e in said] == ["1-2", "1-3", "1-4"]
    assert (await store.commit(table_id, 1, "s2", META, [ev("b")], ttl=60)).ok
    said = await store.append(table_id, [quiet("q"), ev("chat.message")])
    assert [e.cursor for e in said] == [f"2-{SPECTATOR_BASE + SPECTATOR_STEP}", "2-1"]
    everything = await store.events(table_id, None, 100)
    assert [e.cursor for e in everything] == [
        "1-0",
        "1-1",
        "1-2",
        "1-3",
        "1-4",
        "2-0",
        f"2-{SPECTATOR_BASE + SPECTATOR_STEP}",
        "2-1",
    ]
    for i, e in enumerate(everything):
        assert await store.events(table_id, e.cursor, 100) == everything[i + 1 :]
        seen = tuple(x for x in everything[i + 1 :] if x.audience is None)
        assert await store.events(table_id, e.cursor, 100, seated=True) == seen


async def test_no_spectators_number_left_at_a_version_appends_nothing(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=60)
    last = f"1-{SPECTATOR_BASE + SPECTATOR_STEP + SPECTATOR_STEP - 1}"  # m at its end
    await write_quiet(admin, f"{redis_prefix}{{t:{table_id}}}", 1, last)
    with pytest.raises(CursorsSpent):
        await store.append(table_id, [quiet("one too many")])
    assert [e.cursor for e in await store.events(table_id, None, 100)] == ["1-0", last]
    # everyone's events still get their numbers, and then spectators' events again
    said = await store.append(table_id, [ev("chat.message"), quiet("after it")])
    assert [e.cursor for e in said] == ["1-1", f"1-{SPECTATOR_BASE + 2 * SPECTATOR_STEP}"]


async def test_a_table_made_by_an_earlier_release_keeps_its_records_and_appended_cursor(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """Before, a table's idempotency records lived in ``:i`` and the commit found the newest
    appended cursor in the appended streams: such a table (no ``a`` in its hash) is served
    so to its end, with the records and trimming of the earlier layout."""
    store = make_store(idempotency_kept=2)
    table_id = tid()
    tag = f"{redis_prefix}{{t:{table_id}}}"
    await store.create(table_id, "s", META, [ev("a")], ttl=60)
    await admin.hdel(f"{tag}:s", "a")  # as an earlier release made it
    for v in range(1, 5):
        key = Idempotency(0, f"k{v}", "h")
        assert (await store.commit(table_id, v, "s", META, [ev("m")], ttl=60, idempotency=key)).ok
    assert sorted(await admin.hkeys(f"{tag}:i")) == [b"0:k3", b"0:k4"]  # kept the old way, trimmed
    assert [f for f in await admin.hkeys(f"{tag}:s") if f.startswith(b"i:")] == []
    record = await store.idempotency(table_id, 0, "k4")
    assert record is not None and record.version == 5
    again = await store.commit(
        table_id, 5, "s", META, [ev("m")], ttl=60, idempotency=Idempotency(0, "k4", "h")
    )
    assert not again.ok and again.record == record
    # the newest appended cursor, read from the streams (an earlier release's append)
    await write_quiet(admin, tag, 5, f"5-{SPECTATOR_BASE + SPECTATOR_STEP}")
    await admin.xadd(f"{tag}:c", {"e": "{}"}, id="5-1")
    done = await store.commit(table_id, 5, "s", META, [ev("m")], ttl=60)
    assert done.ok and done.appended == "5-1"
    # this release's append leaves such a table as it was, and its cursor is found so too
    said = await store.append(table_id, [ev("chat.message")])
    assert not await admin.hexists(f"{tag}:s", "a")
    done = await store.commit(table_id, 6, "s", META, [ev("m")], ttl=60)
    assert done.ok and done.appended == said[0].cursor == "6-1"
    # a table made now keeps its records in its own hash
    fresh = tid()
    await store.create(fresh, "s", META, [ev("a")], ttl=60)
    key = Idempotency(1, "x", "h")
    assert (await store.commit(fresh, 1, "s", META, [ev("m")], ttl=60, idempotency=key)).ok
    assert await admin.exists(f"{redis_prefix}{{t:{fresh}}}:i") == 0
    assert await admin.hexists(f"{redis_prefix}{{t:{fresh}}}:s", "i:1:x")


def grown(n: int) -> str:
    """A snapshot whose game grows at its end, as Table.encode writes one, past the
    length from which the store writes differences."""
    return '{"seats":["Zoë","Ann"],"game":{"list":[' + ",".join("7" * n) + f']}},"at":{n}}}'


async def test_a_long_snapshot_is_written_as_its_difference_and_read_whole(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    store = make_store()
    table_id = tid()
    key = f"{redis_prefix}{{t:{table_id}}}:s"
    await store.create(table_id, "short", META, [ev("a")], ttl=60)
    assert await admin.hexists(key, "snap")  # short: whole
    sizes = []
    for v in range(1, 400):
        assert (await store.commit(table_id, v, grown(600 + v), META, [ev("m")], ttl=60)).ok
        assert await store.load(table_id) == (grown(600 + v), v + 1)
        sizes.append(await admin.hstrlen(key, "d"))
    assert not await admin.hexists(key, "snap")  # a reader of 'snap' alone finds no table
    assert int(await admin.hget(key, "b")) > 2  # rebased as the difference grew
    assert max(sizes) <= 256 + 10 and sum(sizes) / len(sizes) < 160
    # short again: whole, and the base and difference gone
    assert (await store.commit(table_id, 400, "short", META, [ev("m")], ttl=60)).ok
    assert await admin.hmget(key, ["snap", "base", "b", "d"]) == [b"short", None, None, None]
    assert await store.load(table_id) == ("short", 401)


async def test_replicas_writing_one_table_by_turns_each_read_it_whole(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """A difference from a base the table no longer has (the other replica wrote a new
    one) is refused by the script and sent again whole, in the same commit."""
    one, two = make_store(), make_store()
    table_id = tid()
    await one.create(table_id, grown(500), META, [ev("a")], ttl=60)
    for v in range(1, 300):
        writer, reader = (one, two) if (v // 7) % 2 else (two, one)
        loaded = await writer.load(table_id)
        assert loaded is not None and loaded[1] == v
        done = await writer.commit(table_id, v, grown(500 + v), META, [ev("m")], ttl=60)
        assert done.ok and done.version == v + 1
        assert await reader.load(table_id) == (grown(500 + v), v + 1)
    # a conflict writes nothing, a difference or not
    stale = await one.commit(table_id, 5, grown(1), META, [ev("m")], ttl=60)
    assert not stale.ok and stale.version == 300
    assert await two.load(table_id) == (grown(799), 300)


async def test_without_differences_a_table_is_written_whole_again(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """TABLESTATE_SNAPSHOT_DELTAS=0, for an upgrade from a release that reads 'snap' alone:
    the next commit of a table written as a difference writes it whole."""
    table_id = tid()
    key = f"{redis_prefix}{{t:{table_id}}}:s"
    newer, earlier = make_store(), make_store(snapshot_deltas=False)
    await newer.create(table_id, grown(500), META, [ev("a")], ttl=60)
    assert (await newer.commit(table_id, 1, grown(501), META, [ev("m")], ttl=60)).ok
    assert await admin.hget(key, "snap") is None and await admin.hget(key, "d")
    assert await earlier.load(table_id) == (grown(501), 2)
    assert (await earlier.commit(table_id, 2, grown(502), META, [ev("m")], ttl=60)).ok
    assert await admin.hmget(key, ["snap", "base", "b", "d"]) == [
        grown(502).encode(),
        None,
        None,
        None,
    ]
    assert await newer.load(table_id) == (grown(502), 3)
    assert (await newer.commit(table_id, 3, grown(503), META, [ev("m")], ttl=60)).ok
    assert await earlier.load(table_id) == (grown(503), 4)


async def test_a_difference_from_a_base_rewritten_since_is_sent_again_whole(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    one, two, three = make_store(), make_store(), make_store()
    table_id = tid()
    key = f"{redis_prefix}{{t:{table_id}}}:s"
    await one.create(table_id, grown(500), META, [ev("a")], ttl=60)  # the base: version 1
    assert await two.load(table_id) == (grown(500), 1)  # two keeps it
    assert (await one.commit(table_id, 1, grown(501), META, [ev("m")], ttl=60)).ok
    base, difference = await admin.hmget(key, ["b", "d"])
    assert base == b"1" and len(difference) < 40  # "<p>,<s>,<what changed>"
    assert patch(grown(500), difference.decode()) == grown(501)
    # three knows no base: it writes the snapshot whole, the base of version 3
    assert (await three.commit(table_id, 2, grown(502), META, [ev("m")], ttl=60)).ok
    assert await admin.hmget(key, ["b", "d"]) == [b"3", b""]
    # two's difference from version 1 is refused, and the commit sent again whole
    done = await two.commit(table_id, 3, grown(503), META, [ev("m")], ttl=60)
    assert done.ok and done.version == 4
    assert await admin.hmget(key, ["b", "d"]) == [b"4", b""]
    assert await one.load(table_id) == (grown(503), 4)
    # and each goes on with differences from the newest base it knows
    assert (await one.commit(table_id, 4, grown(504), META, [ev("m")], ttl=60)).ok
    assert await admin.hget(key, "b") == b"4" and await admin.hstrlen(key, "d") < 40
    assert await three.load(table_id) == (grown(504), 5)


async def test_a_base_of_the_same_version_written_again_by_another_is_read_anew(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    """A base this process wrote can be lost (a failover, a restart) and another written at
    the same version by another process: a load takes the stored one, so the next
    difference is from what readers will patch."""
    one, two = make_store(), make_store()
    table_id = tid()
    await one.create(table_id, grown(500), META, [ev("a")], ttl=60)  # one keeps version 1
    await admin.delete(*[k for k in await admin.keys(f"{redis_prefix}{{t:{table_id}}}*")])
    other = grown(500).replace("[7,", "[8,", 1)  # an entry in another state
    await two.create(table_id, other, META, [ev("a")], ttl=60)  # another base of version 1
    assert await one.load(table_id) == (other, 1)
    # a move that sets that entry as one's lost base had it, and grows the list: against
    # the lost base only the growth differs, and readers would keep the other entry
    assert (await one.commit(table_id, 1, grown(501), META, [ev("m")], ttl=60)).ok
    assert await two.load(table_id) == (grown(501), 2)


def dealt(turn: int, hand: list[int]) -> str:
    """A card game's snapshot: a move changes it in a few short places (the hand, the
    turn, the time), far apart."""
    rules = ",".join(f'"rule-{i}":{i * 7 % 11}' for i in range(300))
    return f'{{"rules":{{{rules}}},"hand":{hand},"turn":{turn},"log":"{"x" * 1500}","at":{turn}}}'


async def test_a_snapshot_changed_in_a_few_places_is_written_as_those_places(
    make_store: MakeStore, admin: aioredis.Redis, redis_prefix: str
) -> None:
    one, two = make_store(), make_store()
    table_id = tid()
    key = f"{redis_prefix}{{t:{table_id}}}:s"
    hand = [5, 12, 7, 1]
    await one.create(table_id, dealt(0, hand), META, [ev("a")], ttl=60)
    sizes = []
    for v in range(1, 40):
        hand = [*hand[1:], v % 13]
        assert (await one.commit(table_id, v, dealt(v, hand), META, [ev("m")], ttl=60)).ok
        assert await two.load(table_id) == (dealt(v, hand), v + 1)  # two patches the base
        difference = await admin.hget(key, "d")
        if difference:
            assert difference.startswith(b"*")  # several stretches
            whole = await admin.hget(key, "base")
            assert patch(whole.decode(), difference.decode()) == dealt(v, hand)
        sizes.append(len(difference) if difference else len(dealt(v, hand)))
    assert len(dealt(39, hand)) > 5000 and sum(sizes) / len(sizes) < 600, sizes


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_any_mix_of_writers_and_snapshots_reads_back_the_last_committed(
    make_store: MakeStore, seed: int
) -> None:
    """Three replicas (one writing every snapshot whole) commit one table in any order,
    with snapshots that grow at their end, change in their middle or in a few places, shrink
    below the length from which differences are written and grow past it again, some
    commits stale: every replica reads back exactly the snapshot last committed, at its
    version."""
    import random

    rng = random.Random(seed)
    stores = [make_store(), make_store(), make_store(snapshot_deltas=False)]
    table_id = tid()
    text = grown(450)
    await stores[0].create(table_id, text, META, [ev("a")], ttl=60)
    version = 1
    for _ in range(250):
        kind = rng.choice(["end", "end", "end", "middle", "places", "short", "long", "other"])
        if kind == "end":
            new = text[:-1] + ",7" * rng.randint(1, 3) + text[-1]
        elif kind == "middle":
            at = rng.randrange(len(text))
            new = text[:at] + "Zoë" * rng.randint(0, 40) + text[at + rng.randint(0, 50) :]
        elif kind == "places":  # a few short changes, apart
            new = text
            for _ in range(rng.randint(2, 5)):
                at = rng.randrange(len(new))
                new = new[:at] + "ë7," * rng.randint(0, 3) + new[at + rng.randint(0, 6) :]
        elif kind == "short":
            new = "short" * rng.randint(1, 100)
        elif kind == "long":
            new = grown(rng.randint(500, 3000))
        else:
            new = "".join(rng.choice("ab,7ë") for _ in range(rng.randint(900, 2500)))
        writer = rng.choice(stores)
        stale = rng.random() < 0.1
        done = await writer.commit(
            table_id, version - 1 if stale else version, new, META, [ev("m")], ttl=60
        )
        assert done.ok is not stale
        if done.ok:
            text, version = new, version + 1
        for store in stores:
            assert await store.load(table_id) == (text, version)
