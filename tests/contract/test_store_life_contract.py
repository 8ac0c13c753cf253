"""The store contract of table life (chat, presence, the lobby), on every store alike:
version-less appends, audiences, presence entries with a ttl, unlisted tables and the
lobby channel."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from uuid import uuid4

from tablestate.store import MemoryStore, NewEvent, StateStore, TableMeta
from tablestate.store.base import SPECTATOR_BASE, SPECTATOR_STEP, SPECTATORS

AT = "2026-01-01T00:00:00Z"
TTL = 3600.0


def ev(kind: str, **data: object) -> NewEvent:
    return NewEvent(kind, AT, dict(data))


def meta(status: str = "OPEN", private: bool = False) -> TableMeta:
    return TableMeta("life-game", status, 1.0, private)


def tid() -> str:
    return f"tbl-{uuid4().hex[:10]}"


MakeStore = Callable[..., Awaitable[StateStore]]


# -- version-less appends -------------------------------------------------------------


async def test_append_takes_the_next_free_cursor_and_keeps_the_version(store: StateStore) -> None:
    table_id = tid()
    await store.create(table_id, "s1", meta(), [ev("a"), ev("b")], ttl=TTL)
    said = await store.append(table_id, [ev("chat.message", text="hi")])
    assert [(e.cursor, e.version, e.type, e.data) for e in said] == [
        ("1-2", 1, "chat.message", {"text": "hi"})
    ]
    more = await store.append(table_id, [ev("x"), ev("y")])
    assert [e.cursor for e in more] == ["1-3", "1-4"]
    assert await store.load(table_id) == ("s1", 1)  # no version change
    # a commit still needs version 1 and starts its own cursors at 0
    done = await store.commit(table_id, 1, "s2", meta(), [ev("c")], ttl=TTL)
    assert done.ok and [e.cursor for e in done.events] == ["2-0"]
    after = await store.append(table_id, [ev("z")])
    assert [e.cursor for e in after] == ["2-1"]
    everything = await store.events(table_id)
    assert [e.cursor for e in everything] == ["1-0", "1-1", "1-2", "1-3", "1-4", "2-0", "2-1"]
    assert everything[2] == said[0]
    # replayable from any cursor, the appended ones included
    assert [e.cursor for e in await store.events(table_id, "1-3")] == ["1-4", "2-0", "2-1"]
    assert [e.cursor for e in await store.last_events(table_id, 2)] == ["2-0", "2-1"]


async def test_a_commit_names_the_newest_event_appended_at_the_version_it_followed(
    store: StateStore,
) -> None:
    """So that the replica that made the commit knows whether its subscribers must read
    the log before it (an append may reach them after the commit)."""
    table_id = tid()
    await store.create(table_id, "s1", meta(), [ev("a")], ttl=TTL)
    done = await store.commit(table_id, 1, "s2", meta(), [ev("b")], ttl=TTL)
    assert done.ok and done.appended == ""  # nothing was appended at version 1
    await store.append(table_id, [ev("seat.connected")])
    quiet = NewEvent("chat.spectator", AT, {"text": "psst"}, None, {}, SPECTATORS)
    await store.append(table_id, [quiet])
    done = await store.commit(table_id, 2, "s3", meta(), [ev("c")], ttl=TTL)
    # the newest of either audience: the spectators' message, after 2-0 and 2-1
    assert done.ok and done.appended == f"2-{SPECTATOR_BASE + 2 * SPECTATOR_STEP}"
    # in cursor order, not by the numbers written: a seat's message after a spectator's
    await store.append(table_id, [quiet])
    await store.append(table_id, [ev("chat.message")])
    done = await store.commit(table_id, 3, "s4", meta(), [ev("d")], ttl=TTL)
    assert done.ok and done.appended == "3-1"
    done = await store.commit(table_id, 4, "s5", meta(), [ev("e")], ttl=TTL)
    assert done.ok and done.appended == ""  # those were at version 3


async def test_append_to_no_table_writes_nothing(store: StateStore) -> None:
    table_id = tid()
    assert await store.append(table_id, [ev("x")]) == ()
    assert await store.load(table_id) is None
    assert await store.events(table_id) == ()


async def test_append_keeps_the_audience_and_private_parts(store: StateStore) -> None:
    table_id = tid()
    await store.create(table_id, "s", meta(), [ev("a")], ttl=TTL)
    quiet = NewEvent("chat.spectator", AT, {"text": "psst"}, None, {}, SPECTATORS)
    secret = NewEvent("t", AT, {}, 1, {"1": {"k": "v"}})
    stored = await store.append(table_id, [quiet, secret])
    replayed = await store.events(table_id, "1-0")
    assert replayed == stored
    assert replayed[0].audience == SPECTATORS and replayed[1].audience is None
    assert replayed[1].private == {"1": {"k": "v"}}


async def test_appends_keep_their_newest_and_never_the_games_events_out(
    make_store: MakeStore,
) -> None:
    store = await make_store(chat_kept=3)
    table_id = tid()
    await store.create(table_id, "s", meta(), [ev("a"), ev("b")], ttl=TTL)
    for i in range(4):
        await store.append(table_id, [ev("x", i=i)])
    kept = await store.events(table_id)
    assert [e.cursor for e in kept] == ["1-0", "1-1", "1-3", "1-4", "1-5"]


async def test_concurrent_appends_and_commits_never_share_a_cursor(store: StateStore) -> None:
    table_id = tid()
    await store.create(table_id, "s", meta(), [ev("a")], ttl=TTL)

    async def commit_all() -> None:
        version = 1
        for _ in range(10):
            assert (await store.commit(table_id, version, "s", meta(), [ev("m")], ttl=TTL)).ok
            version += 1

    await asyncio.gather(commit_all(), *(store.append(table_id, [ev("c")]) for _ in range(30)))
    cursors = [e.cursor for e in await store.events(table_id, None, 1000)]
    assert len(cursors) == 41 == len(set(cursors))
    keys = [tuple(int(p) for p in c.split("-")) for c in cursors]
    assert keys == sorted(keys)


async def test_append_is_announced_like_a_commit(store: StateStore) -> None:
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    store.set_listener(lambda table_id, cursor: heard.put_nowait((table_id, cursor)))
    table_id = tid()
    await store.create(table_id, "s", meta(), [ev("a")], ttl=TTL)
    await store.watch(table_id)
    await store.append(table_id, [ev("x"), ev("y")])
    assert await asyncio.wait_for(heard.get(), 2) == (table_id, "1-2")


async def test_append_does_not_extend_the_table_life(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    table_id = tid()
    await store.create(table_id, "s", meta(), [ev("a")], ttl=0.5)
    await elapse(0.3)
    assert len(await store.append(table_id, [ev("chat")])) == 1
    await elapse(0.4)
    assert await store.load(table_id) is None
    assert await store.events(table_id) == ()


# -- private tables are not listed ----------------------------------------------------


async def test_private_tables_are_never_listed(store: StateStore) -> None:
    public, hidden = tid(), tid()
    await store.create(public, "s", meta(), [ev("a")], ttl=TTL)
    await store.create(hidden, "s", meta(private=True), [ev("a")], ttl=TTL)
    assert (await store.commit(hidden, 1, "s", meta("PLAYING", True), [], ttl=TTL)).ok
    for status in (None, "OPEN", "PLAYING"):
        found = (await store.list("life-game", status, 50, None)).table_ids
        assert hidden not in found
    assert public in (await store.list("life-game", "OPEN", 50, None)).table_ids


# -- presence -------------------------------------------------------------------------


async def test_presence_counts_every_holder_of_a_seat(store: StateStore) -> None:
    table_id = tid()
    assert await store.connected(table_id) == frozenset()
    assert await store.presence(table_id, 1, "replica-a", True, 30) is True
    assert await store.presence(table_id, 1, "replica-b", True, 30) is False
    assert await store.presence(table_id, 1, "replica-a", True, 30) is False  # refresh
    assert await store.presence(table_id, 2, "replica-a", True, 30) is True
    assert await store.connected(table_id) == {1, 2}
    assert await store.presence(table_id, 1, "replica-a", False, 30) is False  # b holds it
    assert await store.presence(table_id, 1, "replica-b", False, 30) is True
    assert await store.connected(table_id) == {2}
    assert await store.presence(table_id, 1, "replica-b", False, 30) is False  # gone already
    assert await store.connected(tid()) == frozenset()


async def test_presence_of_a_dead_holder_lapses(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    table_id = tid()
    await store.presence(table_id, 0, "dead-replica", True, 0.3)
    await store.presence(table_id, 1, "live-replica", True, 30)
    assert await store.connected(table_id) == {0, 1}
    await elapse(0.5)
    assert await store.connected(table_id) == {1}
    # the seat had lapsed: marking it again is a change
    assert await store.presence(table_id, 0, "live-replica", True, 30) is True


async def test_a_lapse_is_told_once_and_only_for_seats_left_away(
    make_store: MakeStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    """Two replicas' stores notice the lapse of a dead one: only the first is told, so one
    alone records the seat as away; a seat another replica still holds is not away."""
    a = await make_store()
    b = a if isinstance(a, MemoryStore) else await make_store()
    table_id = tid()
    await a.presence(table_id, 0, "dead-replica", True, 0.3)
    await a.presence(table_id, 1, "dead-replica", True, 0.3)
    await a.presence(table_id, 1, "live-replica", True, 30)
    assert await a.lapsed(table_id) == frozenset()  # nothing lapsed yet
    await elapse(0.5)
    assert await a.connected(table_id) == {1}
    assert await a.lapsed(table_id) == {0}
    assert await b.lapsed(table_id) == frozenset()
    assert await a.connected(table_id) == {1}


# -- the lobby channel ----------------------------------------------------------------


async def test_lobby_notices_reach_watching_stores_only(
    make_store: MakeStore,
) -> None:
    a, b = await make_store(), await make_store()
    heard_a: asyncio.Queue[str] = asyncio.Queue()
    heard_b: asyncio.Queue[str] = asyncio.Queue()
    a.set_lobby_listener(heard_a.put_nowait)
    b.set_lobby_listener(heard_b.put_nowait)
    await a.watch_lobby()
    notice = json.dumps({"type": "table.opened", "tableId": "t1"})
    await a.publish_lobby(notice)
    assert await asyncio.wait_for(heard_a.get(), 2) == notice
    await b.watch_lobby()
    await a.unwatch_lobby()
    second = json.dumps({"type": "table.closed", "tableId": "t1"})
    await a.publish_lobby(second)
    if isinstance(a, MemoryStore):  # one process, one lobby: b hears its own store only
        await b.publish_lobby(second)
    assert await asyncio.wait_for(heard_b.get(), 2) == second
    await asyncio.sleep(0.05)
    assert heard_a.empty()
