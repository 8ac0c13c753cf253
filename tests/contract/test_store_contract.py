"""The store contract (service/store/base.py), run on every store: same calls, same answers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from uuid import uuid4

import pytest

from tablestate.store import (
    BadCursor,
    Idempotency,
    NewEvent,
    StateStore,
    StoredEvent,
    TableExists,
    TableMeta,
)
from tablestate.store.base import page_cursor

AT = "2026-01-01T00:00:00Z"
TTL = 3600.0


def ev(kind: str, **data: object) -> NewEvent:
    return NewEvent(kind, AT, dict(data))


def meta(game: str = "five-crowns", status: str = "OPEN", created: float = 1.0) -> TableMeta:
    return TableMeta(game, status, created)


def tid() -> str:
    return f"tbl-{uuid4().hex[:10]}"


MakeStore = Callable[..., Awaitable[StateStore]]


async def new_table(
    store: StateStore,
    n_events: int = 2,
    game: str = "five-crowns",
    status: str = "OPEN",
    created: float = 1.0,
) -> str:
    table_id = tid()
    events = [ev("e", i=i) for i in range(n_events)]
    await store.create(table_id, "s1", meta(game, status, created), events, ttl=TTL)
    return table_id


# -- tables and commits ---------------------------------------------------------------


async def test_create_and_load(store: StateStore) -> None:
    table_id = tid()
    events = await store.create(table_id, "snap", meta(), [ev("a"), ev("b", x=1)], ttl=TTL)
    assert [(e.cursor, e.version, e.type) for e in events] == [("1-0", 1, "a"), ("1-1", 1, "b")]
    assert events[1].data == {"x": 1}
    assert await store.load(table_id) == ("snap", 1)
    assert await store.load(tid()) is None
    with pytest.raises(TableExists):
        await store.create(table_id, "other", meta(), [], ttl=TTL)
    assert await store.load(table_id) == ("snap", 1)


async def test_commit_advances_version_by_exactly_one(store: StateStore) -> None:
    table_id = await new_table(store)
    first = await store.commit(table_id, 1, "s2", meta(), [ev("x"), ev("y"), ev("z")], ttl=TTL)
    assert first.ok and first.version == 2 and first.record is None
    assert [e.cursor for e in first.events] == ["2-0", "2-1", "2-2"]
    assert {e.version for e in first.events} == {2}
    quiet = await store.commit(table_id, 2, "s3", meta(), [], ttl=TTL)
    assert quiet.ok and quiet.version == 3 and quiet.events == ()
    assert await store.load(table_id) == ("s3", 3)


async def test_stale_commit_conflicts_and_writes_nothing(store: StateStore) -> None:
    table_id = await new_table(store)
    assert (await store.commit(table_id, 1, "s2", meta(), [ev("x")], ttl=TTL, log="m1")).ok
    before = await store.events(table_id)
    stale = await store.commit(table_id, 1, "lost", meta(), [ev("lost")], ttl=TTL, log="m2")
    assert (stale.ok, stale.version, stale.events, stale.record) == (False, 2, (), None)
    assert await store.load(table_id) == ("s2", 2)
    assert await store.events(table_id) == before
    assert await store.moves(table_id) == ("m1",)


async def test_commit_never_creates_a_table(store: StateStore) -> None:
    missing = tid()
    for expected in (0, 1):
        result = await store.commit(missing, expected, "s", meta(), [ev("x")], ttl=TTL)
        assert (result.ok, result.version) == (False, 0)
    assert await store.load(missing) is None


async def test_concurrent_commits_on_one_version_exactly_one_wins(store: StateStore) -> None:
    table_id = await new_table(store)
    results = await asyncio.gather(
        *(store.commit(table_id, 1, f"s{i}", meta(), [ev("m", i=i)], ttl=TTL) for i in range(20))
    )
    winners = [i for i, r in enumerate(results) if r.ok]
    assert len(winners) == 1
    assert all(r.version == 2 for r in results)
    assert await store.load(table_id) == (f"s{winners[0]}", 2)
    events = await store.events(table_id)
    assert [e.data for e in events if e.version == 2] == [{"i": winners[0]}]


# -- idempotency ----------------------------------------------------------------------


async def test_idempotency_key_applies_once(store: StateStore) -> None:
    table_id = await new_table(store)
    key = Idempotency(seat=0, key="k1", move_hash="h1")
    done = await store.commit(table_id, 1, "s2", meta(), [ev("drew")], ttl=TTL, idempotency=key)
    assert done.ok
    record = await store.idempotency(table_id, 0, "k1")
    assert record is not None
    assert (record.move_hash, record.version, record.events) == ("h1", 2, done.events)
    for expected in (2, 1):  # a retry, whether or not it saw the first commit land
        again = await store.commit(
            table_id, expected, "s3", meta(), [ev("drew")], ttl=TTL, idempotency=key, log="x"
        )
        assert (again.ok, again.version, again.record) == (False, 2, record)
    assert await store.load(table_id) == ("s2", 2)
    assert [e.version for e in await store.events(table_id)] == [1, 1, 2]
    assert await store.moves(table_id) == ()


async def test_idempotency_keys_are_scoped_per_table_and_seat(store: StateStore) -> None:
    table_id, other = await new_table(store), await new_table(store)
    key = Idempotency(seat=0, key="k", move_hash="h")
    assert (await store.commit(table_id, 1, "s2", meta(), [], ttl=TTL, idempotency=key)).ok
    seat1 = Idempotency(seat=1, key="k", move_hash="h")
    assert (await store.commit(table_id, 2, "s3", meta(), [], ttl=TTL, idempotency=seat1)).ok
    assert (await store.commit(other, 1, "s2", meta(), [], ttl=TTL, idempotency=key)).ok
    assert await store.idempotency(table_id, 2, "k") is None
    assert await store.idempotency(tid(), 0, "k") is None
    record = await store.idempotency(table_id, 1, "k")
    assert record is not None and record.version == 3


# -- events ---------------------------------------------------------------------------


async def built_history(store: StateStore) -> tuple[str, tuple[StoredEvent, ...]]:
    table_id = await new_table(store, n_events=3)
    version = 1
    for n in (1, 0, 4, 2):  # a commit with no events makes no cursor
        result = await store.commit(
            table_id, version, f"s{version}", meta(), [ev("e", n=i) for i in range(n)], ttl=TTL
        )
        assert result.ok
        version = result.version
    events = await store.events(table_id, limit=1000)
    return table_id, events


async def test_resuming_after_every_cursor_gives_exactly_the_rest(store: StateStore) -> None:
    table_id, events = await built_history(store)
    assert [e.cursor for e in events] == (
        ["1-0", "1-1", "1-2", "2-0", "4-0", "4-1", "4-2", "4-3", "5-0", "5-1"]
    )
    for i, event in enumerate(events):
        assert await store.events(table_id, after=event.cursor) == events[i + 1 :]


async def test_events_limit(store: StateStore) -> None:
    table_id, events = await built_history(store)
    assert await store.events(table_id, limit=3) == events[:3]
    assert await store.events(table_id, after="2-0", limit=2) == events[4:6]
    assert await store.events(table_id, limit=0) == ()
    pages: list[StoredEvent] = []
    after: str | None = None
    while page := await store.events(table_id, after=after, limit=3):
        pages += page
        after = page[-1].cursor
    assert tuple(pages) == events


@pytest.mark.parametrize(
    "cursor",
    [
        pytest.param("", id="empty"),
        pytest.param("abc", id="letters"),
        pytest.param("3", id="no-dash"),
        pytest.param("1-", id="no-n"),
        pytest.param("-1", id="no-version"),
        pytest.param("1-0-0", id="two-dashes"),
        pytest.param("²-0", id="unicode-digit"),
        pytest.param("1" * 30 + "-0", id="beyond-u64"),
        pytest.param("9-0", id="future"),
        pytest.param("5-7", id="n-out-of-range"),
        pytest.param("3-0", id="version-without-events"),
        pytest.param("0-0", id="before-first"),
        pytest.param("05-1", id="not-canonical"),
    ],
)
async def test_bad_cursors(store: StateStore, cursor: str) -> None:
    table_id, _ = await built_history(store)
    with pytest.raises(BadCursor):
        await store.events(table_id, after=cursor)


async def test_cursor_of_another_table_is_bad(store: StateStore) -> None:
    await built_history(store)
    small = await new_table(store, n_events=1)
    with pytest.raises(BadCursor):
        await store.events(small, after="4-2")
    with pytest.raises(BadCursor):
        await store.events(tid(), after="1-0")


async def test_cursor_older_than_what_is_kept_is_bad(make_store: MakeStore) -> None:
    store = await make_store(max_events=3)
    table_id, kept = await built_history(store)
    assert [e.cursor for e in kept] == ["4-3", "5-0", "5-1"]
    with pytest.raises(BadCursor):
        await store.events(table_id, after="4-2")
    assert await store.events(table_id, after="4-3") == kept[1:]


async def test_last_events_oldest_first(store: StateStore) -> None:
    table_id, events = await built_history(store)
    assert await store.last_events(table_id, 3) == events[-3:]
    assert await store.last_events(table_id, 100) == events
    assert await store.last_events(table_id, 0) == ()
    assert await store.last_events(tid(), 3) == ()


async def test_moves_log_in_commit_order(store: StateStore) -> None:
    table_id = await new_table(store)
    for version, entry in [(1, '{"draw":1}'), (2, None), (3, ""), (4, '{"go":"out"}')]:
        assert (await store.commit(table_id, version, "s", meta(), [], ttl=TTL, log=entry)).ok
    assert await store.moves(table_id) == ('{"draw":1}', "", '{"go":"out"}')
    assert await store.moves(tid()) == ()


# -- listings -------------------------------------------------------------------------


async def test_list_filters_newest_first(store: StateStore) -> None:
    rows = [("g1", "OPEN"), ("g2", "OPEN"), ("g1", "PLAYING"), ("g1", "OPEN"), ("g2", "FINISHED")]
    ids = [
        await new_table(store, game=g, status=s, created=100.0 + i) for i, (g, s) in enumerate(rows)
    ]

    async def listed(game: str | None, status: str | None) -> list[str]:
        page = await store.list(game, status, 100, None)
        assert page.next is None
        return list(page.table_ids)

    assert await listed(None, None) == ids[::-1]
    assert await listed("g1", None) == [ids[3], ids[2], ids[0]]
    assert await listed(None, "OPEN") == [ids[3], ids[1], ids[0]]
    assert await listed("g1", "OPEN") == [ids[3], ids[0]]
    assert await listed("g3", None) == []
    # A commit that changes the status moves the table between listings.
    assert (await store.commit(ids[0], 1, "s", meta("g1", "PLAYING", 100.0), [], ttl=TTL)).ok
    assert await listed("g1", "OPEN") == [ids[3]]
    assert await listed("g1", "PLAYING") == [ids[2], ids[0]]
    assert await listed(None, "PLAYING") == [ids[2], ids[0]]


async def test_list_pages_cover_all_once(store: StateStore) -> None:
    # Ties in created_at must not make a page repeat or skip a table.
    ids = {await new_table(store, game="pg", created=float(i // 3)) for i in range(11)}
    seen: list[str] = []
    after: str | None = None
    for _ in range(20):
        page = await store.list("pg", None, 4, after)
        assert len(page.table_ids) <= 4
        seen += page.table_ids
        after = page.next
        if after is None:
            break
    assert len(seen) == len(set(seen)) == 11 and set(seen) == ids
    assert seen == [i for i in (await store.list("pg", None, 100, None)).table_ids]
    with pytest.raises(BadCursor):
        await store.list(None, None, 4, "not a cursor")


async def test_a_place_between_rows_pages_from_the_rows_made_before_it(
    store: StateStore,
) -> None:
    """``"<created_at>|"`` names no table: the rows after it are those made strictly before
    ``created_at`` (a listing that hid the rows it read ends its page there)."""
    made = [1.0, 2.0, 2.0, 2.0, 3.0]
    ids = [await new_table(store, game="bw", created=m) for m in made]
    newest_first = list((await store.list("bw", None, 100, None)).table_ids)
    assert newest_first[0] == ids[4] and newest_first[-1] == ids[0]
    for bound, expected in [
        (page_cursor(3.0), newest_first[1:]),
        (page_cursor(2.5), newest_first[1:]),
        (page_cursor(2.0), [ids[0]]),
        (page_cursor(1.0), []),
        ("3.5|", newest_first),
    ]:
        page = await store.list("bw", None, 100, bound)
        assert list(page.table_ids) == expected, bound
        assert page.next is None
        # and page by page from there
        seen: list[str] = []
        after: str | None = bound
        while after is not None:
            page = await store.list("bw", None, 1, after)
            seen += page.table_ids
            after = page.next
        assert seen == expected, bound


# -- due-index ------------------------------------------------------------------------


async def test_due_index_claim_lease_unschedule(store: StateStore) -> None:
    a, b = tid(), tid()
    await store.schedule(a, 3, 100.0)
    await store.schedule(b, 5, 200.0)
    assert await store.claim_due(50.0, 30.0, 10) == ()
    assert await store.claim_due(150.0, 30.0, 10) == ((a, 3),)
    assert await store.claim_due(160.0, 30.0, 10) == ()  # leased until 180
    assert await store.claim_due(181.0, 30.0, 10) == ((a, 3),)  # the claimer died
    await store.unschedule(a, 3)
    await store.schedule(a, 4, 150.0)
    assert await store.claim_due(300.0, 30.0, 1) == ((a, 4),)
    assert await store.claim_due(300.0, 30.0, 1) == ((b, 5),)
    assert await store.claim_due(300.0, 30.0, 1) == ()
    await store.unschedule(a, 4)
    await store.unschedule(b, 5)
    await store.unschedule(b, 99)  # unknown entries are fine
    assert await store.claim_due(10_000.0, 30.0, 10) == ()


async def test_archive_queue_claim_lease_and_archived(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    a, b, gone = tid(), tid(), tid()
    await store.create(a, "s", meta(game="arch"), [ev("a")], ttl=3600)
    await store.schedule_archive(a, 100.0)
    await store.schedule_archive(b, 200.0)
    await store.schedule_archive(a, 150.0)  # only brought forward, never put off
    assert await store.claim_archive(50.0, 30.0, 10) == ()
    assert await store.claim_archive(120.0, 30.0, 10) == (a,)
    assert await store.claim_archive(140.0, 30.0, 10) == ()  # leased until 150
    assert await store.claim_archive(151.0, 30.0, 10) == (a,)  # the claimer died
    await store.schedule_archive(b, 500.0, only_sooner=False)  # put off on purpose
    assert await store.claim_archive(300.0, 30.0, 10) == (a,)  # b is due at 500 now
    await store.archived(b, None)  # the entry alone goes
    await store.archived(gone, None)  # unknown entries are fine
    await store.archived(a, 0.3)  # archived: the store forgets it soon
    assert await store.load(a) == ("s", 1)
    assert await store.claim_archive(10_000.0, 30.0, 10) == ()
    await elapse(0.5)
    assert await store.load(a) is None
    assert await store.events(a) == ()


async def test_due_index_only_sooner_never_puts_an_entry_off(store: StateStore) -> None:
    """Two commits racing for one version both write its entry first: the loser's later
    time must not delay the winner's (only_sooner); a plain schedule sets the time."""
    t = tid()
    await store.schedule(t, 1, 100.0, only_sooner=True)  # a new entry is added
    await store.schedule(t, 1, 200.0, only_sooner=True)  # not put off
    assert await store.claim_due(150.0, 30.0, 10) == ((t, 1),)
    await store.unschedule(t, 1)
    await store.schedule(t, 2, 100.0)
    await store.schedule(t, 2, 50.0, only_sooner=True)  # brought forward
    assert await store.claim_due(60.0, 30.0, 10) == ((t, 2),)
    await store.schedule(t, 2, 500.0)  # whoever finds nothing due sets the real time
    assert await store.claim_due(499.0, 30.0, 10) == ()
    assert await store.claim_due(500.0, 30.0, 10) == ((t, 2),)


# -- live notifications ---------------------------------------------------------------


async def test_listener_hears_watched_tables_only(store: StateStore) -> None:
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    store.set_listener(lambda table_id, cursor: heard.put_nowait((table_id, cursor)))
    a, b = await new_table(store), await new_table(store)
    await store.watch(a)
    result = await store.commit(a, 1, "s", meta(), [ev("x"), ev("y")], ttl=TTL)
    assert await asyncio.wait_for(heard.get(), 2) == (a, result.events[-1].cursor)
    await store.unwatch(a)
    await store.watch(b)
    assert (await store.commit(a, 2, "s", meta(), [ev("z")], ttl=TTL)).ok
    assert (await store.commit(b, 1, "s", meta(), [ev("w")], ttl=TTL)).ok
    # Notifications arrive in commit order, so b's coming first proves a's never will.
    assert await asyncio.wait_for(heard.get(), 2) == (b, "2-0")
    assert heard.empty()


# -- expiry ---------------------------------------------------------------------------


async def test_table_expires_after_ttl_without_a_commit(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    ttl = 0.5
    table_id = tid()
    await store.create(table_id, "s", meta(game="ttl"), [ev("a")], ttl=ttl)
    await elapse(0.3)
    assert (await store.commit(table_id, 1, "s2", meta(game="ttl"), [ev("b")], ttl=ttl)).ok
    await elapse(0.3)  # past the first deadline: the commit pushed it back
    assert await store.load(table_id) == ("s2", 2)
    await elapse(0.4)
    assert await store.load(table_id) is None
    assert await store.events(table_id) == ()
    assert (await store.list("ttl", None, 10, None)).table_ids == ()
    assert (await store.commit(table_id, 2, "s3", meta(), [], ttl=ttl)).version == 0
