"""What every store contract module shares: a store of each kind (memory, Redis) made
with an injected clock, and a way to let time pass on either."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from tablestate.store import MemoryStore, RedisStore, StateStore


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


MakeStore = Callable[..., Awaitable[StateStore]]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("redis", id="redis", marks=pytest.mark.redis),
    ]
)
async def make_store(request: pytest.FixtureRequest, clock: FakeClock) -> AsyncIterator[MakeStore]:
    stores: list[StateStore] = []

    async def make(max_events: int | None = None, **bounds: int) -> StateStore:
        """A store; ``bounds``: ``chat_kept``, ``idempotency_kept``."""
        store: StateStore
        if request.param == "memory":
            store = MemoryStore(clock=clock, max_events=max_events, **bounds)
        else:
            url = request.getfixturevalue("redis_url")
            prefix = request.getfixturevalue("redis_prefix")
            store = RedisStore.from_url(url, prefix=prefix, max_events=max_events, **bounds)
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


@pytest.fixture
async def store(make_store: MakeStore) -> StateStore:
    return await make_store()


@pytest.fixture
def elapse(store: StateStore, clock: FakeClock) -> Callable[[float], Awaitable[None]]:
    """Let time pass: the memory store's injected clock, Redis' real one."""

    async def wait(seconds: float) -> None:
        if isinstance(store, MemoryStore):
            clock.now += seconds
        else:
            await asyncio.sleep(seconds)

    return wait
