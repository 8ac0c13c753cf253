"""Clocks and grace periods on the service: any replica may fire a deadline, exactly
once; a game with undos and timeouts still replays from its revealed seed."""

from __future__ import annotations

import asyncio

from support.server import make_settings

from tablestate.engine.replay import replay
from tablestate.plugins import Registry
from tablestate.store.base import StateStore
from tablestate.tables import TableService


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def _table(svc: TableService, **options: object) -> tuple[str, dict[int, str]]:
    loaded, host = await svc.operations.create("lucky-draw", [], options, 2)
    tid = loaded.table.id
    tokens = {}
    for i in range(2):
        _, seat, token = await svc.operations.join(None, tid, f"P{i}", i, f"seed{i}")
        tokens[seat] = token
    await svc.operations.start(await svc.reads.authenticate(host), tid)
    return tid, tokens


def _replicas(registry: Registry, make_store, clock: Clock, n: int) -> list[TableService]:
    """Services sharing one store, like replicas (one memory store in one process)."""
    first: StateStore = make_store()
    memory = "Memory" in type(first).__name__
    stores = [first] + [first if memory else make_store() for _ in range(n - 1)]
    return [TableService(make_settings(), registry, s, clock=clock) for s in stores]


async def test_replicas_racing_for_one_deadline_fire_it_once(registry: Registry, make_store):
    clock = Clock()
    services = _replicas(registry, make_store, clock, 3)
    try:
        tid, _ = await _table(services[0], turnSeconds=5, timeoutsBeforeBot=0)
        before = await services[0].reads.must_load(tid)
        clock.now += 6
        claimed = await asyncio.gather(*(s.bots.run_due_once() for s in services))
        assert sorted(claimed) == [0, 0, 1]  # one claim; the lease keeps the others off
        for _ in range(100):
            now = await services[1].reads.must_load(tid)
            if now.version > before.version:
                break
            await asyncio.sleep(0.01)
        for s in services:  # even run directly by every replica, it happens once
            await s.bots.run(tid, before.version)
        events = await services[2].reads.events(tid, None, 1000, None)
        timeouts = [e for e in events if e.type == "clock.timeout"]
        assert [(e.version, e.data["timeouts"]) for e in timeouts] == [(before.version + 1, 1)]
        assert (await services[2].reads.must_load(tid)).version == before.version + 1
        fired = sum(s.metrics.get("tablestate_clock_timeouts_total") for s in services)
        assert fired == 1
    finally:
        for s in services:
            await s.close()


async def test_a_game_with_undos_and_timeouts_replays(registry: Registry, make_store):
    clock = Clock()
    (svc,) = _replicas(registry, make_store, clock, 1)
    try:
        tid, tokens = await _table(svc, turnSeconds=5, timeoutsBeforeBot=0, undo=True)
        undos = timeouts = 0
        for step in range(300):
            loaded = await svc.reads.must_load(tid)
            if loaded.table.status == "FINISHED":
                break
            seat = loaded.to_act()[0]
            if step % 3 == 2:  # let the clock run out: the bot moves for the seat
                clock.now += 6
                await svc.bots.run_due_once()
                for _ in range(100):
                    if (await svc.reads.must_load(tid)).version > loaded.version:
                        break
                    await asyncio.sleep(0.01)
                timeouts += 1
                continue
            viewer = await svc.reads.authenticate(tokens[seat])
            moves = loaded.legal_moves(seat)
            plays = [m for m in moves if "play" in m]
            await svc.moves.make(viewer, tid, "lucky-draw", (plays or moves)[0])
            if plays and step % 2 == 0:
                await svc.operations.undo(viewer, tid)
                undos += 1
                await svc.moves.make(viewer, tid, "lucky-draw", moves[-1])
        done = await svc.reads.must_load(tid)
        assert done.table.status == "FINISHED" and undos and timeouts
        log = await svc.reads.moves(tid)
        assert sum(1 for m in log if m.get("undo")) == undos
        assert sum(1 for m in log if m.get("timeout")) == timeouts
        report = replay(done.table, log, done.game, done.rules)
        assert report.ok, report.reason
        # A log with an undo dropped no longer matches.
        broken = [m for m in log if not m.get("undo")]
        assert not replay(done.table, broken, done.game, done.rules).ok
    finally:
        await svc.close()


async def test_a_grace_period_ends_once_whichever_replica_sees_it(registry: Registry, make_store):
    clock = Clock()
    services = _replicas(registry, make_store, clock, 3)
    try:
        tid, tokens = await _table(services[0], leaveGraceSeconds=20)
        loaded = await services[0].reads.must_load(tid)
        waiting = 1 - loaded.to_act()[0]  # the seat not to act leaves: nobody moves for it
        left = await services[1].operations.leave(
            await services[1].reads.authenticate(tokens[waiting]), tid
        )
        clock.now += 19
        assert sum(await asyncio.gather(*(s.bots.run_due_once() for s in services))) == 0
        clock.now += 2
        await asyncio.gather(*(s.bots.run_due_once() for s in services))
        for s in services:
            await s.bots.run(tid, left.version)
        done = await services[2].reads.must_load(tid)
        assert done.version == left.version + 1
        assert done.table.seats[waiting].kind == "BOT"
        events = await services[0].reads.events(tid, None, 1000, None)
        took = [e for e in events if e.type == "seat.bot_took_over"]
        assert [(e.seat, e.data["reason"]) for e in took] == [(waiting, "left")]
    finally:
        for s in services:
            await s.close()
