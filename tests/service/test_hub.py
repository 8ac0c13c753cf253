"""The hub: one fetch per table for all subscribers, bounded queues, SLOW_CONSUMER."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from tablestate.errors import ApiError
from tablestate.hub import Hub
from tablestate.mailbox import offer, unless_slow
from tablestate.metrics import Metrics
from tablestate.store.base import NewEvent, TableMeta
from tablestate.store.memory import MemoryStore

META = TableMeta("lucky-draw", "PLAYING", 0.0)


async def _commit(store: MemoryStore, tid: str, version: int, n: int = 1) -> None:
    events = [NewEvent("tick", "2026-01-01T00:00:00Z", {"i": i}) for i in range(n)]
    result = await store.commit(tid, version, "{}", META, events, ttl=60)
    assert result.ok


async def test_slow_subscriber_is_dropped_and_others_get_everything():
    store = MemoryStore()
    metrics = Metrics()
    hub = Hub(store, metrics, queue_size=3)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    slow = hub.subscribe("t", None)
    fast = hub.subscribe("t", None)
    assert (await anext(slow))[0].event.cursor == "1-0"
    assert (await anext(fast))[0].event.cursor == "1-0"
    got: list[str] = []

    async def read_fast() -> None:
        async for item, _ in fast:
            got.append(item.event.cursor)
            if item.event.cursor == "11-0":
                return

    reader = asyncio.ensure_future(read_fast())
    for v in range(1, 11):
        await _commit(store, "t", v)
        await asyncio.sleep(0.01)
    await asyncio.wait_for(reader, 5)
    assert got == [f"{v}-0" for v in range(2, 12)]
    with pytest.raises(ApiError) as info:
        for _ in range(10):
            await anext(slow)
    assert info.value.code == "SLOW_CONSUMER"
    assert metrics.get("tablestate_slow_consumers_total") == 1
    await slow.aclose()
    await fast.aclose()
    assert metrics.get("tablestate_subscribers") == 0
    await hub.close()


async def test_many_subscribers_share_one_fetch(monkeypatch):
    store = MemoryStore()
    hub = Hub(store, Metrics(), queue_size=100)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    calls = 0
    real = store.events

    async def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return await real(*args, **kwargs)

    subs = [hub.subscribe("t", "1-0") for _ in range(50)]
    pending = [asyncio.ensure_future(anext(s)) for s in subs]
    await asyncio.sleep(0.05)
    monkeypatch.setattr(store, "events", counting)
    await _commit(store, "t", 1, n=3)
    firsts = await asyncio.wait_for(asyncio.gather(*pending), 5)
    assert {f.event.cursor for f, _ in firsts} == {"2-0"}
    assert calls <= 2  # the feed fetched once for all fifty (plus at most one wake-up)
    for s in subs:
        await s.aclose()
    await hub.close()


async def test_resume_in_the_middle_of_a_commit():
    store = MemoryStore()
    hub = Hub(store)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    await _commit(store, "t", 1, n=3)
    sub = hub.subscribe("t", "2-0")
    assert [(await anext(sub))[0].event.cursor for _ in range(2)] == ["2-1", "2-2"]
    await _commit(store, "t", 2)
    assert (await asyncio.wait_for(anext(sub), 5))[0].event.cursor == "3-0"
    await sub.aclose()
    await hub.close()


async def test_own_commit_announced_first_needs_no_fetch(monkeypatch):
    """The store's announcement of this replica's own commit may come before the commit's
    reply: the events handed over by ``local_commit`` settle it, with no read back."""
    store, hub, sub = await _subscribed()
    calls = 0
    real = store.events

    async def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, "events", counting)
    for version in range(1, 4):
        events = [NewEvent("tick", "2026-01-01T00:00:00Z", {"i": i}) for i in range(2)]
        result = await store.commit("t", version, "{}", META, events, ttl=60)
        await asyncio.sleep(0)  # the announcement is delivered first
        hub.local_commit("t", result.events)
        got = [(await asyncio.wait_for(anext(sub), 5))[0].event.cursor for _ in range(2)]
        assert got == [f"{version + 1}-0", f"{version + 1}-1"]
    await asyncio.sleep(0.05)
    assert calls == 0
    # an announcement of something newer than the own commit still fetches it
    other = await store.commit("t", 4, "{}", META, [NewEvent("tick", "x", {})], ttl=60)
    assert other.ok
    assert (await asyncio.wait_for(anext(sub), 5))[0].event.cursor == "5-0"
    assert calls >= 1
    await sub.aclose()
    await hub.close()


async def test_a_full_queue_leaves_only_the_slow_mark() -> None:
    """The bounded queue of any subscriber (a table's or the lobby's): when it overflows,
    what was queued is dropped, the subscriber learns SLOW_CONSUMER, and gets nothing more."""

    @dataclass
    class Sub:
        queue: asyncio.Queue[Any] = field(default_factory=lambda: asyncio.Queue(2))
        slow: bool = False

    sub = Sub()
    assert not offer(sub, "a") and not offer(sub, "b")
    assert offer(sub, "c") and sub.slow
    assert not offer(sub, "d")
    assert sub.queue.qsize() == 1
    with pytest.raises(ApiError) as err:
        unless_slow(await sub.queue.get())
    assert err.value.code == "SLOW_CONSUMER"
    assert unless_slow("x") == "x"


async def test_the_seat_that_acted_hears_first():
    """Of a table's subscribers, those watching as the seat that acted get its event
    first (their tasks run first): the mover's acknowledgement, then everyone else."""
    store = MemoryStore()
    hub = Hub(store, Metrics())
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    heard: list[tuple[str, str]] = []
    watchers = {"spectator": None, "seat 0": 0, "seat 1": 1, "seat 1 again": 1}
    streams = {who: hub.subscribe("t", None, seat) for who, seat in watchers.items()}
    for stream in streams.values():
        assert (await anext(stream))[0].event.cursor == "1-0"

    async def listen(who: str) -> None:
        async for item, _ in streams[who]:
            heard.append((item.event.cursor, who))

    tasks = [asyncio.ensure_future(listen(who)) for who in streams]
    await asyncio.sleep(0.01)
    for version, seat in ((1, 1), (2, 0), (3, None)):
        event = NewEvent("moved", "2026-01-01T00:00:00Z", {}, seat=seat)
        assert (await store.commit("t", version, "{}", META, [event], ttl=60)).ok
        await asyncio.sleep(0.05)
    firsts = {cursor: [w for c, w in heard if c == cursor] for cursor in ("2-0", "3-0", "4-0")}
    assert sorted(firsts["2-0"][:2]) == ["seat 1", "seat 1 again"]
    assert firsts["3-0"][0] == "seat 0"
    assert all(len(found) == 4 for found in firsts.values())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.close()


async def test_the_movers_write_leaves_before_the_others_hear():
    """The mover's connection holds its frames for one turn of the loop and then writes
    them (service/server.py): that write comes before any other subscriber's task takes
    the event, however many are woken by it."""
    store = MemoryStore()
    hub = Hub(store, Metrics())
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    heard: list[str] = []
    watchers = {"mover": 0, **{f"spectator {i}": None for i in range(20)}}
    streams = {who: hub.subscribe("t", None, seat) for who, seat in watchers.items()}
    for stream in streams.values():
        assert (await anext(stream))[0].event.cursor == "1-0"

    async def listen(who: str) -> None:
        loop = asyncio.get_running_loop()
        async for _item, _ in streams[who]:
            heard.append(who)
            if who == "mover":
                loop.call_soon(heard.append, "the mover's write")

    tasks = [asyncio.ensure_future(listen(who)) for who in streams]
    await asyncio.sleep(0.01)
    event = NewEvent("moved", "2026-01-01T00:00:00Z", {}, seat=0)
    assert (await store.commit("t", 1, "{}", META, [event], ttl=60)).ok
    await asyncio.sleep(0.05)
    assert heard[:2] == ["mover", "the mover's write"] and len(heard) == 22
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.close()


async def test_events_of_one_commit_reach_every_subscriber_in_order_when_the_mover_goes_first():
    store = MemoryStore()
    hub = Hub(store, Metrics())
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    heard: dict[str, list[str]] = {}
    watchers = {"mover": 0, "seat 1": 1, "spectator a": None, "spectator b": None}
    streams = {who: hub.subscribe("t", None, seat) for who, seat in watchers.items()}
    for stream in streams.values():
        assert (await anext(stream))[0].event.cursor == "1-0"

    async def listen(who: str) -> None:
        async for item, _ in streams[who]:
            heard.setdefault(who, []).append(item.event.cursor)

    tasks = [asyncio.ensure_future(listen(who)) for who in streams]
    await asyncio.sleep(0.01)
    events = [
        NewEvent("moved", "2026-01-01T00:00:00Z", {}, seat=0),
        NewEvent("scored", "2026-01-01T00:00:00Z", {}),
        NewEvent("moved", "2026-01-01T00:00:00Z", {}, seat=1),
    ]
    assert (await store.commit("t", 1, "{}", META, events, ttl=60)).ok
    await asyncio.sleep(0.05)
    assert heard == {who: ["2-0", "2-1", "2-2"] for who in watchers}
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await hub.close()


async def _subscribed() -> tuple[MemoryStore, Hub, Any]:
    """A table at version 1 and a subscriber that has heard its ``1-0``."""
    store = MemoryStore()
    hub = Hub(store, Metrics(), queue_size=100)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    sub = hub.subscribe("t", None)
    assert (await anext(sub))[0].event.cursor == "1-0"
    await asyncio.sleep(0.05)
    return store, hub, sub


async def _subscribed_at_version_two() -> tuple[MemoryStore, Hub, Any]:
    """The same at version 2 (``2-0`` committed here and handed over)."""
    store, hub, sub = await _subscribed()
    first = await store.commit("t", 1, "{}", META, [NewEvent("tick", "x", {})], ttl=60)
    hub.local_commit("t", first.events)
    assert (await asyncio.wait_for(anext(sub), 5))[0].event.cursor == "2-0"
    return store, hub, sub


async def _hears(sub: Any, hub: Hub, cursors: list[str]) -> None:
    got = [(await asyncio.wait_for(anext(sub), 5))[0].event.cursor for _ in cursors]
    assert got == cursors
    await sub.aclose()
    await hub.close()


@pytest.mark.parametrize("announced_first", [False, True], ids=["reply-first", "announced-first"])
async def test_an_event_appended_at_a_version_is_not_lost_to_the_next_commit(announced_first):
    """Presence or chat appended at version 2 (``2-1``), then the next commit (``3-0``)
    handed over by this replica before a fetch read the append: the feed must not take
    the commit as following what it holds, or ``2-1`` is skipped for good."""
    store, hub, sub = await _subscribed_at_version_two()
    appended = await store.append("t", [NewEvent("seat.connected", "x", {}, 0)])
    assert [e.cursor for e in appended] == ["2-1"]
    if announced_first:
        await asyncio.sleep(0)  # the store's announcement of the append reaches the hub
    hub.local_commit("t", appended)
    nxt = await store.commit("t", 2, "{}", META, [NewEvent("tick", "x", {})], ttl=60)
    hub.local_commit("t", nxt.events)
    await _hears(sub, hub, ["2-1", "3-0"])


async def test_a_commit_answered_before_this_replicas_own_append_waits_for_a_fetch():
    """This replica's append at version 2 is sent, and its next commit answered before the
    append's reply or announcement: the commit is fetched after the append, not delivered
    on its own (the hub was told of the append in flight)."""
    store, hub, sub = await _subscribed_at_version_two()
    hub.appending("t", True)
    appended = await store.append("t", [NewEvent("seat.connected", "x", {}, 0)])
    nxt = await store.commit("t", 2, "{}", META, [NewEvent("tick", "x", {})], ttl=60)
    hub.local_commit("t", nxt.events)  # before the append's reply or announcement
    hub.local_commit("t", appended)
    hub.appending("t", False)
    await _hears(sub, hub, ["2-1", "3-0"])


async def test_a_commit_after_an_append_not_yet_heard_of_waits_for_a_fetch():
    """Another replica appended ``2-1``; this one commits ``3-0`` and hands it over before
    the append's announcement arrives: the store's word that ``2-1`` was appended at the
    version the commit followed makes the feed read the log first."""
    store, hub, sub = await _subscribed_at_version_two()
    await store.append("t", [NewEvent("seat.connected", "x", {}, 0)])  # not announced yet
    nxt = await store.commit("t", 2, "{}", META, [NewEvent("tick", "x", {})], ttl=60)
    assert nxt.appended == "2-1"
    hub.local_commit("t", nxt.events, None, nxt.appended)
    await _hears(sub, hub, ["2-1", "3-0"])


async def test_a_sink_takes_live_events_in_order_and_what_it_declines_comes_through():
    """A subscriber with a sink: its replay comes through the stream; then a live event
    that finds it waiting goes to the sink where it is delivered; one the sink declines is
    queued, and so is everything after it until the stream has caught up, in order."""
    store = MemoryStore()
    metrics = Metrics()
    hub = Hub(store, metrics, queue_size=100)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    await _commit(store, "t", 1)
    sunk: list[str] = []
    decline = {"4-0"}

    def sink(item: Any, table: Any) -> bool:
        if item.event.cursor in decline:
            return False
        sunk.append(item.event.cursor)
        return True

    sub = hub.subscribe("t", None, sink=sink)
    replay = [(await anext(sub))[0].event.cursor for _ in range(2)]
    assert replay == ["1-0", "2-0"] and sunk == []
    streamed: list[str] = []

    async def read() -> None:
        async for item, _ in sub:
            streamed.append(item.event.cursor)

    reader = asyncio.ensure_future(read())
    await asyncio.sleep(0.01)  # the reader waits on the queue
    await _commit(store, "t", 2)
    await asyncio.sleep(0.05)
    assert sunk == ["3-0"] and streamed == []
    await _commit(store, "t", 3)  # declined: queued, with what follows until caught up
    await _commit(store, "t", 4)
    await asyncio.sleep(0.05)
    assert streamed == ["4-0", "5-0"] and sunk == ["3-0"]
    await _commit(store, "t", 5)  # the stream waits again: the sink takes it
    await asyncio.sleep(0.05)
    assert sunk == ["3-0", "6-0"] and streamed == ["4-0", "5-0"]
    assert metrics.get("tablestate_events_delivered_total") == 4  # the live ones, once each
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    await hub.close()


async def test_a_sink_that_fails_does_not_fail_the_delivery(caplog):
    store = MemoryStore()
    hub = Hub(store, Metrics(), queue_size=100)
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)

    def broken(item: Any, table: Any) -> bool:
        raise RuntimeError("a bug")

    sub = hub.subscribe("t", None, sink=broken)
    assert (await anext(sub))[0].event.cursor == "1-0"
    pending = asyncio.ensure_future(anext(sub))
    await asyncio.sleep(0.01)
    await _commit(store, "t", 1)
    assert (await asyncio.wait_for(pending, 5))[0].event.cursor == "2-0"  # queued instead
    assert "sink failed" in caplog.text
    await sub.aclose()
    await hub.close()


async def test_settled_until_an_offer_waits_in_a_queue():
    store = MemoryStore()
    hub = Hub(store, Metrics(), queue_size=100)
    assert hub.settled("t")  # nobody subscribes here
    await store.create("t", "{}", META, [NewEvent("start", "2026-01-01T00:00:00Z")], ttl=60)
    sub = hub.subscribe("t", None)
    assert (await anext(sub))[0].event.cursor == "1-0"
    assert hub.settled("t")
    await _commit(store, "t", 1)
    await asyncio.sleep(0.02)  # the feed fetched it: queued for the subscriber
    assert not hub.settled("t")
    assert (await anext(sub))[0].event.cursor == "2-0"
    assert hub.settled("t")
    await sub.aclose()
    await hub.close()
