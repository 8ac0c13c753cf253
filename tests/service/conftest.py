"""Fixtures of the service tests: the plugin registry and a real server on each store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.server import Client, make_settings, serve

from tablestate import plugins
from tablestate.store.base import StateStore


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make_store(store_kind: str, request: pytest.FixtureRequest):
    """A factory of stores of the parametrized kind (several share one Redis prefix, like
    replicas do)."""
    made: list[StateStore] = []
    prefix = request.getfixturevalue("redis_prefix") if store_kind == "redis" else ""
    url = request.getfixturevalue("redis_url") if store_kind == "redis" else None

    def factory() -> StateStore:
        if store_kind == "memory":
            from tablestate.store.memory import MemoryStore

            store: StateStore = MemoryStore()
        else:
            from tablestate.store.redis import RedisStore

            store = RedisStore.from_url(str(url), prefix=prefix, timeout=2.0)
        made.append(store)
        return store

    yield factory
    for store in made:
        await store.close()


@pytest.fixture
async def client(registry: plugins.Registry, make_store) -> AsyncIterator[Client]:
    async with serve(make_settings(), registry, make_store()) as c:
        yield c
