"""Pages of tables out of a sorted set of table ids by creation time (the table listings and
each signed-in user's tables), in the Redis store.

Such a set is written apart from the commits, best effort, so it may name tables that have
expired: each candidate's snapshot hash is asked for its status, the ones gone are dropped
from the set as they are met, and a page is filled from further down when they leave a gap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from tablestate.store import _wire
from tablestate.store.base import Page, page_cursor, parse_page_cursor


async def newest(
    redis: Redis | RedisCluster,
    key: str,
    snapshot_key: Callable[[str], str],
    first: int,
    after: str | None,
    status: str | None = None,
) -> Page:
    """The page of the set at ``key`` after ``after`` (a ``Page.next``), newest first, of
    tables that still exist (``snapshot_key(table id)`` names a table's snapshot hash) and,
    with ``status``, have that status. Call it within the store's bounds (``_reach``)."""
    bound = parse_page_cursor(after) if after is not None else None
    if first <= 0:
        return Page((), None)
    top = "+inf" if bound is None else repr(bound[0])
    batch = max(first + 1, 20)
    rows: list[tuple[float, str]] = []
    offset = 0
    while len(rows) <= first:
        found: Any = await redis.zrange(
            key, top, "-inf", desc=True, byscore=True, offset=offset, num=batch, withscores=True
        )
        offset += len(found)
        # Same-score rows come in descending id order, as the page cursor expects.
        candidates = [(score, _wire.text(raw)) for raw, score in found]
        candidates = [r for r in candidates if bound is None or r < bound]
        pipe = redis.pipeline(transaction=False)
        for _, table_id in candidates:
            pipe.hget(snapshot_key(table_id), "status")
        statuses = await pipe.execute() if candidates else []
        gone = [r[1] for r, now in zip(candidates, statuses, strict=True) if now is None]
        if gone:
            await redis.zrem(key, *gone)
            offset -= len(gone)
        rows += [
            r
            for r, now in zip(candidates, statuses, strict=True)
            if now is not None and (status is None or _wire.text(now) == status)
        ]
        if len(found) < batch:
            break
    page = rows[:first]
    following = page_cursor(*page[-1]) if len(rows) > first else None
    cursors = tuple(page_cursor(*row) for row in page)
    return Page(tuple(table_id for _, table_id in page), following, cursors)
