"""The quick play queue's contract, on every store: tickets wait in their pool, are
settled all together or not at all, and a lease has one holder at a time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from uuid import uuid4

from tablestate.store import StateStore


def pool() -> str:
    return uuid4().hex[:16]


async def test_tickets_wait_oldest_first_and_settle_together(store: StateStore) -> None:
    p = pool()
    a, b, c = (f"{p}.{n}" for n in "abc")
    for ticket_id, at in ((b, 20.0), (a, 10.0), (c, 30.0)):
        assert await store.enqueue(p, ticket_id, f'{{"id":"{ticket_id}"}}', at, limit=10, ttl=60)
    assert p in await store.pools()
    assert [text for text, _ in await store.waiting(p)] == [f'{{"id":"{t}"}}' for t in (a, b, c)]
    assert await store.seen(b, 25.0) == 1  # a is ahead of it
    assert await store.seen(a, 11.0) == 0
    assert [seen for _, seen in await store.waiting(p)] == [11.0, 25.0, 30.0]
    assert await store.settle(p, {a: "matched-a", b: "matched-b"}, ttl=60)
    assert await store.ticket(a) == "matched-a" and await store.ticket(b) == "matched-b"
    assert [text for text, _ in await store.waiting(p)] == [f'{{"id":"{c}"}}']
    # a ticket settled already makes a second settle change nothing
    assert not await store.settle(p, {b: "again", c: "matched-c"}, ttl=60)
    assert await store.ticket(b) == "matched-b"
    assert await store.ticket(c) == f'{{"id":"{c}"}}'
    assert await store.seen(a, 40.0) is None
    assert await store.seen(c, 40.0) == 0  # the others ahead of it were settled
    assert await store.settle(p, {c: "cancelled"}, ttl=60)
    assert await store.waiting(p) == ()
    assert await store.ticket(f"{p}.unknown") is None


async def test_a_full_pool_takes_no_more(store: StateStore) -> None:
    p = pool()
    assert await store.enqueue(p, f"{p}.1", "{}", 1.0, limit=2, ttl=60)
    assert await store.enqueue(p, f"{p}.2", "{}", 2.0, limit=2, ttl=60)
    assert not await store.enqueue(p, f"{p}.3", "{}", 3.0, limit=2, ttl=60)
    assert await store.ticket(f"{p}.3") is None
    assert len(await store.waiting(p)) == 2


async def test_settled_tickets_are_forgotten_after_their_ttl(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    p = pool()
    assert await store.enqueue(p, f"{p}.1", "{}", 1.0, limit=5, ttl=60)
    assert await store.settle(p, {f"{p}.1": "done"}, ttl=0.3)
    await elapse(0.5)
    assert await store.ticket(f"{p}.1") is None


async def test_a_lease_has_one_holder_until_it_lapses(
    store: StateStore, elapse: Callable[[float], Awaitable[None]]
) -> None:
    name = f"match:{pool()}"
    assert await store.lease(name, "one", 0.3)
    assert not await store.lease(name, "two", 0.3)
    assert await store.lease(name, "one", 0.3)  # renewed by its holder
    await elapse(0.5)
    assert await store.lease(name, "two", 0.3)
    assert not await store.lease(name, "one", 0.3)
