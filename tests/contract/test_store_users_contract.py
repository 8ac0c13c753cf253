"""Each signed-in user's tables (``myTables``), on every store: the index is written apart from
the commits, pages like the listings, follows the tables' status, drops what expired and
is shared by every client of one store (two replicas of one Redis)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from tablestate.store import BadCursor, StateStore, TableMeta
from tablestate.store.base import page_cursor

from .test_store_contract import TTL, ev, meta, new_table, tid

ANN, BOB = "https://issuer.test#ann", "https://issuer.test#bob"


async def noted(store: StateStore, user: str, status: str | None = None) -> list[str]:
    page = await store.user_tables(user, status, 100, None)
    assert page.next is None
    return list(page.table_ids)


async def test_a_users_tables_newest_first_and_by_status(store: StateStore) -> None:
    ids = [await new_table(store, created=100.0 + i) for i in range(4)]
    for i, table_id in enumerate(ids):
        await store.add_user_table(ANN, table_id, 100.0 + i, ttl=TTL)
    await store.add_user_table(BOB, ids[1], 101.0, ttl=TTL)
    await store.add_user_table(ANN, ids[2], 102.0, ttl=TTL)  # noted twice: listed once
    assert await noted(store, ANN) == ids[::-1]
    assert await noted(store, BOB) == [ids[1]]
    assert await noted(store, "https://issuer.test#nobody") == []
    # the status is the table's own, as its last commit wrote it
    assert (
        await store.commit(ids[0], 1, "s", meta(status="PLAYING", created=100.0), [], ttl=TTL)
    ).ok
    assert await noted(store, ANN, "PLAYING") == [ids[0]]
    assert await noted(store, ANN, "OPEN") == [ids[3], ids[2], ids[1]]
    assert await noted(store, ANN, "FINISHED") == []


async def test_a_users_pages_cover_all_once(store: StateStore) -> None:
    ids = set()
    for i in range(11):
        table_id = await new_table(store, created=float(i // 3))
        await store.add_user_table(ANN, table_id, float(i // 3), ttl=TTL)
        ids.add(table_id)
    seen: list[str] = []
    after: str | None = None
    for _ in range(20):
        page = await store.user_tables(ANN, None, 4, after)
        assert len(page.table_ids) <= 4
        seen += page.table_ids
        after = page.next
        if after is None:
            break
    assert len(seen) == len(set(seen)) == 11 and set(seen) == ids
    with pytest.raises(BadCursor):
        await store.user_tables(ANN, None, 4, "not a cursor")


async def test_private_tables_are_a_users_too(store: StateStore) -> None:
    table_id = tid()
    await store.create(table_id, "s", TableMeta("g", "OPEN", 5.0, private=True), [ev("a")], ttl=TTL)
    await store.add_user_table(ANN, table_id, 5.0, ttl=TTL)
    assert await noted(store, ANN) == [table_id]


async def test_tables_gone_leave_a_users_list(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    short = tid()
    await store.create(short, "s", meta(created=2.0), [ev("a")], ttl=0.3)
    kept = await new_table(store, created=1.0)
    for table_id, at in ((short, 2.0), (kept, 1.0)):
        await store.add_user_table(ANN, table_id, at, ttl=TTL)
    await store.add_user_table(ANN, tid(), 3.0, ttl=TTL)  # a table that never was
    await elapse(0.5)
    assert await noted(store, ANN) == [kept]
    assert await noted(store, ANN) == [kept]


@pytest.mark.redis
async def test_two_replicas_of_one_redis_see_the_same_lists(redis_url, redis_prefix) -> None:
    from tablestate.store import RedisStore

    one, other = (RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2))
    try:
        table_id = await new_table(one)
        await one.add_user_table(ANN, table_id, 1.0, ttl=TTL)
        assert await noted(other, ANN) == [table_id]
    finally:
        await one.close()
        await other.close()


async def test_a_users_tables_page_from_a_place_between_rows(store: StateStore) -> None:
    ids = [await new_table(store, created=m) for m in (1.0, 2.0, 2.0, 3.0)]
    for table_id, m in zip(ids, (1.0, 2.0, 2.0, 3.0), strict=True):
        await store.add_user_table(ANN, table_id, m, ttl=TTL)
    everything = await noted(store, ANN)
    assert (await store.user_tables(ANN, None, 100, page_cursor(3.0))).table_ids == tuple(
        everything[1:]
    )
    assert (await store.user_tables(ANN, None, 100, page_cursor(2.0))).table_ids == (ids[0],)
