"""The store contract of bounded reads and bounded storage, on every store alike: a reader
with a seat never reads events it may not see, appended events (chat, presence) are kept
per audience up to a bound while the game's own events are never dropped, cursors stay
exact, and a table keeps its newest idempotency records only."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from uuid import uuid4

import pytest

from tablestate.store import BadCursor, Idempotency, NewEvent, StateStore, StoredEvent, TableMeta
from tablestate.store.base import SPECTATOR_BASE, SPECTATOR_STEP, SPECTATORS, cursor_key

AT = "2026-01-01T00:00:00Z"
TTL = 3600.0
META = TableMeta("bounds-game", "PLAYING", 1.0)

MakeStore = Callable[..., Awaitable[StateStore]]


def ev(kind: str, **data: object) -> NewEvent:
    return NewEvent(kind, AT, dict(data))


def quiet(text: str) -> NewEvent:
    """A spectator's chat message: for viewers without a seat only."""
    return NewEvent("chat.spectator", AT, {"text": text}, None, {}, SPECTATORS)


def tid() -> str:
    return f"tbl-{uuid4().hex[:10]}"


def cursors(events: tuple[StoredEvent, ...]) -> list[str]:
    return [e.cursor for e in events]


def key(cursor: str) -> tuple[int, int]:
    return cursor_key(cursor)


def heard(version: int, s: int, m: int) -> str:
    """The cursor of the m-th spectators' event after the first s events of ``version``
    every viewer sees."""
    return f"{version}-{SPECTATOR_BASE + s * SPECTATOR_STEP + m}"


def after(events: tuple[StoredEvent, ...], cursor: str) -> tuple[StoredEvent, ...]:
    return tuple(e for e in events if key(e.cursor) > key(cursor))


async def mixed_history(store: StateStore) -> str:
    """1-0 1-1 (game), five spectators' messages after them, 2-0 (game), 2-1 (everyone's
    chat), a spectators' message, 3-0 3-1 (game)."""
    table_id = tid()
    await store.create(table_id, "s1", META, [ev("a"), ev("b")], ttl=TTL)
    for i in range(5):
        await store.append(table_id, [quiet(f"q{i}")])
    assert (await store.commit(table_id, 1, "s2", META, [ev("c")], ttl=TTL)).ok
    await store.append(table_id, [ev("chat.message", text="hi")])
    await store.append(table_id, [quiet("q5")])
    assert (await store.commit(table_id, 2, "s3", META, [ev("d"), ev("e")], ttl=TTL)).ok
    return table_id


# -- reads by audience ------------------------------------------------------------------


async def test_a_seated_read_leaves_out_events_with_an_audience(store: StateStore) -> None:
    table_id = await mixed_history(store)
    everything = await store.events(table_id, limit=1000)
    spectators = [heard(1, 2, m) for m in range(5)]
    assert cursors(everything) == (
        ["1-0", "1-1", *spectators, "2-0", "2-1", heard(2, 2, 0), "3-0", "3-1"]
    )
    seen = tuple(e for e in everything if e.audience is None)
    assert await store.events(table_id, limit=1000, seated=True) == seen
    # a page is filled with what the reader may see: hidden events use none of it
    assert cursors(await store.events(table_id, "1-1", 2, seated=True)) == ["2-0", "2-1"]
    assert cursors(await store.events(table_id, "1-1", 2)) == [heard(1, 2, 0), heard(1, 2, 1)]
    # the newest, per reader
    assert cursors(await store.last_events(table_id, 3, seated=True)) == ["2-1", "3-0", "3-1"]
    assert cursors(await store.last_events(table_id, 3)) == [heard(2, 2, 0), "3-0", "3-1"]
    assert await store.last_events(table_id, 100, seated=True) == seen


async def test_resuming_from_every_cursor_gives_each_reader_exactly_the_rest(
    store: StateStore,
) -> None:
    table_id = await mixed_history(store)
    everything = await store.events(table_id, limit=1000)
    for i, event in enumerate(everything):
        rest = everything[i + 1 :]
        assert await store.events(table_id, event.cursor, 1000) == rest
        # a spectator's cursor is a place a seat may resume from too
        seen = tuple(e for e in rest if e.audience is None)
        assert await store.events(table_id, event.cursor, 1000, seated=True) == seen
        pages: list[StoredEvent] = []
        after = event.cursor
        while page := await store.events(table_id, after, 2, seated=True):
            pages += page
            after = page[-1].cursor
        assert tuple(pages) == seen


@pytest.mark.parametrize("seated", [False, True], ids=["spectator", "seat"])
async def test_bad_cursors_stay_bad_for_every_reader(store: StateStore, seated: bool) -> None:
    table_id = await mixed_history(store)
    never = [heard(1, 2, 5), heard(1, 1, 0), heard(2, 1, 0), heard(3, 2, 0), f"1-{2**53}"]
    for cursor in ["9-0", "1-7", "2-3", "0-0", "05-1", *never]:
        with pytest.raises(BadCursor):
            await store.events(table_id, cursor, seated=seated)
    with pytest.raises(BadCursor):
        await store.events(tid(), "1-0", seated=seated)


async def test_appends_of_every_audience_never_share_a_cursor(store: StateStore) -> None:
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)

    async def commit_all() -> None:
        version = 1
        for _ in range(10):
            assert (await store.commit(table_id, version, "s", META, [ev("m")], ttl=TTL)).ok
            version += 1

    said = [store.append(table_id, [quiet("q") if i % 2 else ev("c")]) for i in range(30)]
    await asyncio.gather(commit_all(), *said)
    found = cursors(await store.events(table_id, None, 1000))
    assert len(found) == 41 == len(set(found))
    keys = [cursor_key(c) for c in found]
    assert keys == sorted(keys)
    seated = await store.events(table_id, None, 1000, seated=True)
    assert len(seated) == 26 and all(e.audience is None for e in seated)
    # what a seat sees is numbered with no gap at each version
    numbers: dict[int, list[int]] = {}
    for e in seated:
        numbers.setdefault(e.version, []).append(int(e.cursor.partition("-")[2]))
    assert all(n == list(range(len(n))) for n in numbers.values()), numbers


# -- chat kept per audience -------------------------------------------------------------


async def test_chat_is_kept_up_to_its_bound_and_the_game_is_never_dropped(
    make_store: MakeStore,
) -> None:
    store = await make_store(chat_kept=3)
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)
    version = 1
    for round_ in range(4):
        for i in range(5):
            await store.append(table_id, [quiet(f"{round_}.{i}")])
            await store.append(table_id, [ev("chat.message", text=f"{round_}.{i}")])
        assert (await store.commit(table_id, version, "s", META, [ev("m")], ttl=TTL)).ok
        version += 1
    everything = await store.events(table_id, limit=1000)
    game = [e for e in everything if e.type in ("a", "m")]
    assert cursors(tuple(game)) == ["1-0", "2-0", "3-0", "4-0", "5-0"]  # every one kept
    chat = [e for e in everything if e.type == "chat.message"]
    said = [e for e in everything if e.type == "chat.spectator"]
    assert [e.data["text"] for e in chat] == ["3.2", "3.3", "3.4"]
    assert [e.data["text"] for e in said] == ["3.2", "3.3", "3.4"]
    # an old game cursor resumes exactly: every game event after it, the chat still kept
    assert await store.events(table_id, "2-0", 1000) == after(everything, "2-0")
    # a dropped chat message's cursor is still a place to resume from
    assert await store.events(table_id, "1-1", 1000) == after(everything, "1-1")
    assert await store.events(table_id, heard(1, 1, 0), 1000) == after(everything, heard(1, 1, 0))
    # from a spectators' cursor (kept) a seat resumes at the seats' next event
    seated = ["4-3", "4-4", "4-5", "5-0"]
    assert cursors(await store.events(table_id, heard(4, 3, 0), 1000, seated=True)) == seated
    assert cursors(await store.events(table_id, "4-3", 1000, seated=True)) == seated[1:]
    # ... but a cursor newer than every kept event is not
    with pytest.raises(BadCursor):
        await store.events(table_id, "5-9")


async def test_one_audience_never_crowds_out_the_others_chat(make_store: MakeStore) -> None:
    store = await make_store(chat_kept=2)
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)
    await store.append(table_id, [ev("chat.message", text="seat")])
    for i in range(10):
        await store.append(table_id, [quiet(f"q{i}")])
    kept = await store.events(table_id, limit=100)
    assert [e.data.get("text") for e in kept] == [None, "seat", "q8", "q9"]
    seated = await store.events(table_id, limit=100, seated=True)
    assert [e.data.get("text") for e in seated] == [None, "seat"]


async def test_a_commit_refuses_events_with_an_audience(store: StateStore) -> None:
    table_id = tid()
    with pytest.raises(ValueError):
        await store.create(table_id, "s", META, [quiet("no")], ttl=TTL)
    assert await store.load(table_id) is None
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)
    with pytest.raises(ValueError):
        await store.commit(table_id, 1, "s2", META, [ev("b"), quiet("no")], ttl=TTL)
    assert await store.load(table_id) == ("s", 1)
    assert cursors(await store.events(table_id)) == ["1-0"]


# -- idempotency records ----------------------------------------------------------------


async def test_idempotency_records_beyond_those_kept_go_a_tenth_at_a_time(
    make_store: MakeStore,
) -> None:
    store = await make_store(idempotency_kept=10)
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)

    async def held() -> list[int]:
        found = [await store.idempotency(table_id, 0, f"k{i}") for i in range(12)]
        return [i for i, record in enumerate(found) if record is not None]

    for i in range(11):
        key = Idempotency(0, f"k{i}", f"h{i}")
        done = await store.commit(table_id, i + 1, "s", META, [ev("m")], ttl=TTL, idempotency=key)
        assert done.ok
    assert await held() == list(range(11))  # ten kept, and one more: a tenth
    key = Idempotency(0, "k11", "h11")
    assert (await store.commit(table_id, 12, "s", META, [ev("m")], ttl=TTL, idempotency=key)).ok
    assert await held() == list(range(2, 12))  # back to the newest ten
    # a dropped key is a new key; a kept one still applies nothing
    again = Idempotency(0, "k2", "h2")
    replayed = await store.commit(table_id, 13, "s", META, [ev("m")], ttl=TTL, idempotency=again)
    assert not replayed.ok and replayed.record is not None and replayed.record.version == 4
    evicted = Idempotency(0, "k1", "h1")
    done = await store.commit(table_id, 13, "s", META, [ev("m")], ttl=TTL, idempotency=evicted)
    assert done.ok and done.version == 14


async def test_a_table_keeps_its_newest_idempotency_records(make_store: MakeStore) -> None:
    store = await make_store(idempotency_kept=3)
    table_id = tid()
    await store.create(table_id, "s", META, [ev("a")], ttl=TTL)
    for i in range(5):
        key = Idempotency(i % 2, f"k{i}", f"h{i}")
        done = await store.commit(table_id, i + 1, "s", META, [ev("m")], ttl=TTL, idempotency=key)
        assert done.ok
    assert [await store.idempotency(table_id, i % 2, f"k{i}") is None for i in range(5)] == [
        True,
        True,
        False,
        False,
        False,
    ]
    kept = await store.idempotency(table_id, 0, "k4")
    assert kept is not None and kept.version == 6 and cursors(kept.events) == ["6-0"]
    # a kept key still applies nothing
    again = Idempotency(0, "k4", "h4")
    replayed = await store.commit(table_id, 6, "s", META, [ev("m")], ttl=TTL, idempotency=again)
    assert not replayed.ok and replayed.record == kept
    # an evicted key is a new key: it applies (the client's expectedVersion guards that)
    evicted = Idempotency(0, "k0", "h0")
    done = await store.commit(table_id, 6, "s", META, [ev("m")], ttl=TTL, idempotency=evicted)
    assert done.ok and done.version == 7
    assert await store.idempotency(table_id, 0, "k2") is None
    assert await store.idempotency(table_id, 0, "k0") is not None
    # the moves and events of every commit are all kept
    assert len(await store.events(table_id, limit=100)) == 7
