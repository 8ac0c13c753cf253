"""A seat never receives another seat's hidden cards, in queries or in events."""

from __future__ import annotations

import asyncio
import json
import random

from support.lucky import MOVE, TABLE, open_table
from support.server import Client, make_settings, serve, ws_init, ws_next

from tablestate.engine.table import Table
from tablestate.store.memory import MemoryStore
from tablestate.tables import TableService
from tablestate_example.rules import hidden

SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type seat data } }"


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


async def _follow(c: Client, table_id: str, token: str | None, out: list[dict]) -> None:
    async with c.ws() as conn:
        await ws_init(conn, token)
        await conn.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": SUB, "variables": {"t": table_id}},
                }
            )
        )
        while True:
            msg = await ws_next(conn, 20)
            ev = msg["payload"]["data"]["tableEvents"]
            out.append(ev)
            if ev["type"] == "game.finished":
                return


async def test_random_games_leak_nothing(registry):
    store = MemoryStore()
    async with serve(make_settings(), registry, store) as c:
        service = TableService(make_settings(), registry, store)
        for game in range(3):
            pick = random.Random(game)
            t = await open_table(c, humans=3)
            seen: dict[int | None, list[dict]] = {0: [], 1: [], 2: [], None: []}
            followers = [
                asyncio.ensure_future(_follow(c, t.table_id, t.tokens.get(s), seen[s]))  # type: ignore[arg-type]
                for s in seen
            ]
            await asyncio.sleep(0.1)
            for _ in range(200):
                loaded = await service.reads.load(t.table_id)
                assert loaded is not None
                if loaded.table.status == "FINISHED":
                    break
                for seat in (None, 0, 1, 2):
                    secret = set(hidden(loaded.state, seat))
                    view = (await c.q(TABLE, t.tokens.get(seat), t=t.table_id))["table"]  # type: ignore[arg-type]
                    assert not _strings(view) & secret, (seat, _strings(view) & secret)
                acting = loaded.to_act()[0]
                view = (await c.q(TABLE, t.tokens[acting], t=t.table_id))["table"]
                await c.q(MOVE, t.tokens[acting], t=t.table_id, m=pick.choice(view["legalMoves"]))
            await asyncio.wait_for(asyncio.gather(*followers), 30)
            stored = {e.cursor: e for e in await store.events(t.table_id, None, 1000)}
            for seat, events in seen.items():
                assert [e["cursor"] for e in events] == list(stored)
                for e in events:
                    want = dict(stored[e["cursor"]].data)
                    own = stored[e["cursor"]].private.get(str(seat)) if seat is not None else None
                    if own is not None:
                        want["private"] = own
                    assert e["data"] == want
            # each hand was dealt privately: every seat saw exactly its own
            dealt = next(e for e in seen[0] if e["type"] == "cards.dealt")
            assert len(dealt["data"]["private"]["hand"]) == 3
            assert (
                "private" not in next(e for e in seen[None] if e["type"] == "cards.dealt")["data"]
            )
            final = await service.reads.load(t.table_id)
            assert final is not None and isinstance(final.table, Table)
