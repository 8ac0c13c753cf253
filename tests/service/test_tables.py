"""The table service across replicas: bots driven by the due-index, replay, expiry."""

from __future__ import annotations

import asyncio

import pytest
from support.server import make_settings

from tablestate.engine.replay import replay
from tablestate.plugins import Registry
from tablestate.tables import TableService
from tablestate.tables.loading import Loaded


async def _bot_table(svc: TableService) -> tuple[str, str, str]:
    loaded, host = await svc.operations.create("lucky-draw", [], None, 2)
    tid = loaded.table.id
    _, _seat, token = await svc.operations.join(None, tid, "Ann", 0, None)
    viewer = await svc.reads.authenticate(host)
    await svc.operations.add_bot(viewer, tid, 1)
    await svc.operations.start(viewer, tid)
    return tid, host, token


async def _human_move(svc: TableService, tid: str, token: str) -> None:
    viewer = await svc.reads.authenticate(token)
    loaded = await svc.reads.must_load(tid)
    move = loaded.legal_moves(0)[0]
    await svc.moves.make(
        viewer, tid, "lucky-draw", move["luckyDraw"] if "luckyDraw" in move else move
    )


async def _waiting_on_its_bot(svc: TableService) -> tuple[str, Loaded]:
    """A table after a human's move, waiting on its bot; ``svc`` never sets the bot going
    itself (as a replica that died right after the commit)."""

    async def nothing(*_: object) -> None:
        return None

    svc.bots.after_commit = nothing  # type: ignore[method-assign]
    tid, _, token = await _bot_table(svc)
    await _human_move(svc, tid, token)
    waiting = await svc.reads.must_load(tid)
    assert waiting.to_act() == (1,)
    return tid, waiting


async def test_a_replica_dying_after_a_human_move_stalls_nothing(registry: Registry, make_store):
    settings = make_settings(bot_lease=0.3)
    dying = TableService(settings, registry, make_store())
    survivor = TableService(settings, registry, make_store())

    tid, waiting = await _waiting_on_its_bot(dying)  # the replica died after the commit
    if type(dying.store) is type(survivor.store) and "Memory" in type(dying.store).__name__:
        survivor = TableService(settings, registry, dying.store)  # one process, one memory
    survivor.start_worker(interval=0.05)
    try:
        for _ in range(100):
            now = await survivor.reads.must_load(tid)
            if now.version > waiting.version:
                break
            await asyncio.sleep(0.05)
        assert now.version == waiting.version + 1
        assert now.to_act() == (0,)
    finally:
        await survivor.close()
        await dying.close()


async def test_bot_move_happens_once_with_two_workers(registry: Registry, make_store):
    settings = make_settings(bot_lease=0.2, bot_delay=0.1)
    first = TableService(settings, registry, make_store())
    store = first.store
    second = TableService(settings, registry, store)
    tid, _, token = await _bot_table(first)
    await _human_move(first, tid, token)
    before = await first.reads.must_load(tid)
    first.start_worker(0.02)
    second.start_worker(0.02)
    try:
        for _ in range(100):
            now = await first.reads.must_load(tid)
            if now.to_act() == (0,):
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        now = await first.reads.must_load(tid)
        assert now.version == before.version + 1
        assert (
            first.metrics.get("tablestate_bot_moves_total")
            + second.metrics.get("tablestate_bot_moves_total")
            == 1
        )
    finally:
        await first.close()
        await second.close()


async def test_a_bot_move_lost_to_another_replica_drops_its_entry_only_once_held(
    registry: Registry, make_store
):
    """The replica that loses the race for a bot's move drops the due-index entry as one that
    read past it: with replica acknowledgement, only once a replica holds the winner's
    commit, which a failover could otherwise undo with the entry gone."""
    settings = make_settings()
    first = TableService(settings, registry, make_store())
    second = TableService(settings, registry, first.store)
    tid, waiting = await _waiting_on_its_bot(first)  # no bot moves until a replica is told to
    dropped: list[tuple[str, int, bool]] = []
    unschedule = second.bots.due.unschedule

    async def recorded(table_id: str, version: int, *, passed: bool = False) -> None:
        dropped.append((table_id, version, passed))
        await unschedule(table_id, version, passed=passed)

    commit = second.bots.committer.commit

    async def beaten(*args, **kwargs):  # the first replica's bot moves meanwhile
        await first.bots.run(tid, waiting.version)
        return await commit(*args, **kwargs)

    second.bots.due.unschedule = recorded  # type: ignore[method-assign]
    second.bots.committer.commit = beaten  # type: ignore[method-assign]
    try:
        await second.bots.run(tid, waiting.version)
        assert dropped[-1] == (tid, waiting.version, True)  # the last: the loser's
        now = await second.reads.must_load(tid)
        assert now.version == waiting.version + 1
        assert first.metrics.get("tablestate_bot_moves_total") == 1
        assert second.metrics.get("tablestate_bot_moves_total") == 0
    finally:
        await first.close()
        await second.close()


async def test_replay_confirms_a_finished_game_and_catches_tampering(registry, make_store):
    svc = TableService(make_settings(), registry, make_store())
    tid, _, token = await _bot_table(svc)
    viewer = await svc.reads.authenticate(token)
    for _ in range(100):
        loaded = await svc.reads.must_load(tid)
        if loaded.table.status == "FINISHED":
            break
        moves = loaded.legal_moves(0)
        if moves:
            await svc.moves.make(viewer, tid, "lucky-draw", moves[-1])
        else:
            await asyncio.sleep(0.01)
    loaded = await svc.reads.must_load(tid)
    assert loaded.table.status == "FINISHED"
    log = await svc.reads.moves(tid)
    report = replay(loaded.table, log, loaded.game, loaded.rules)
    assert report.ok, report.reason
    assert report.moves == len(log) > 0
    # another order of the same moves does not replay to the stored game
    swapped = [log[1], log[0], *log[2:]]
    assert not replay(loaded.table, swapped, loaded.game, loaded.rules).ok
    # nor does a forged seed
    from dataclasses import replace

    forged = replace(loaded.table, revealed_seed="00" * 32)
    bad = replay(forged, log, loaded.game, loaded.rules)
    assert not bad.ok and "commitment" in bad.reason
    await svc.close()


@pytest.mark.redis
async def test_tables_expire_after_the_idle_ttl(registry, redis_url, redis_prefix):
    from tablestate.store.redis import RedisStore

    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    svc = TableService(make_settings(idle_ttl=1), registry, store)
    loaded, _ = await svc.operations.create("lucky-draw", [], None, 2)
    assert await svc.reads.load(loaded.table.id) is not None
    await asyncio.sleep(1.3)
    assert await svc.reads.load(loaded.table.id) is None
    await store.close()


async def test_no_commit_leaves_a_bot_turn_unrecorded(registry, make_store):
    from tablestate.errors import ApiError
    from tablestate.store.base import StoreUnavailable

    svc = TableService(make_settings(bot_delay=5.0), registry, make_store())
    tid, _, token = await _bot_table(svc)
    before = await svc.reads.must_load(tid)
    real = svc.store.schedule

    async def unreachable(*args, **kwargs):  # the due-index write fails
        raise StoreUnavailable("down")

    svc.store.schedule = unreachable  # type: ignore[method-assign]
    with pytest.raises(ApiError) as info:
        await _human_move(svc, tid, token)
    assert info.value.code == "UNAVAILABLE"
    assert (await svc.reads.must_load(tid)).version == before.version  # nothing committed
    svc.store.schedule = real  # type: ignore[method-assign]
    await _human_move(svc, tid, token)
    assert (await svc.reads.must_load(tid)).to_act() == (1,)
    await svc.close()


async def test_a_slow_commit_does_not_lose_the_bot_turn_it_creates(registry, make_store):
    """The entry written before a commit must not be claimed, found early and dropped
    while that commit is still on its way."""
    settings = make_settings(bot_delay=0.05, bot_lease=1.0)
    slow = TableService(settings, registry, make_store())
    worker = TableService(settings, registry, slow.store)
    tid, _, token = await _bot_table(slow)
    before = await slow.reads.must_load(tid)
    real = slow.store.commit

    async def late(*args, **kwargs):  # the commit lands 0.3 s after the entry is written
        await asyncio.sleep(0.3)
        return await real(*args, **kwargs)

    slow.store.commit = late  # type: ignore[method-assign]
    worker.start_worker(0.01)
    try:
        await _human_move(slow, tid, token)
        for _ in range(200):
            now = await worker.reads.must_load(tid)
            if now.version >= before.version + 2:
                break
            await asyncio.sleep(0.02)
        assert now.version == before.version + 2  # the human's move, then the bot's
        assert now.to_act() == (0,)
    finally:
        await worker.close()
        await slow.close()


async def test_moves_beyond_the_admission_bound_wait_their_turn(registry: Registry, make_store):
    """With ``moves_in_flight`` 2, eight moves sent at once on eight tables all land, and
    never more than two of them are at the store together."""
    svc = TableService(make_settings(moves_in_flight=2), registry, make_store())
    tables = []
    for _ in range(8):
        loaded, host = await svc.operations.create("lucky-draw", [], None, 2)
        tid = loaded.table.id
        _, _, token = await svc.operations.join(None, tid, "Ann", 0, None)
        await svc.operations.join(None, tid, "Bob", 1, None)
        await svc.operations.start(await svc.reads.authenticate(host), tid)
        tables.append((tid, token))
    at_store = peak = 0
    commit = svc.store.commit

    async def slow_commit(*args, **kwargs):
        nonlocal at_store, peak
        at_store += 1
        peak = max(peak, at_store)
        try:
            await asyncio.sleep(0.05)
            return await commit(*args, **kwargs)
        finally:
            at_store -= 1

    svc.store.commit = slow_commit  # type: ignore[method-assign]
    try:
        before = {tid: (await svc.reads.must_load(tid)).version for tid, _ in tables}
        await asyncio.gather(*(_human_move(svc, tid, token) for tid, token in tables))
        assert peak == 2
        for tid, _ in tables:
            assert (await svc.reads.must_load(tid)).version == before[tid] + 1
    finally:
        await svc.close()


async def test_a_replayed_idempotency_key_answers_its_first_outcome_on_any_replica(
    registry, make_store
):
    """The record is read only when the rules refuse the move again (the table moved on) or
    met in the commit (they accept it again): either way the first outcome, nothing applied
    twice, and another move under the key is BAD_INPUT."""
    from tablestate.errors import ApiError

    settings = make_settings()
    first_store = make_store()
    a = TableService(settings, registry, first_store)
    memory = "Memory" in type(first_store).__name__
    b = TableService(settings, registry, first_store if memory else make_store())
    loaded, host = await a.operations.create("lucky-draw", [], None, 2)
    tid = loaded.table.id
    tokens = [(await a.operations.join(None, tid, name, i, None))[2] for i, name in
              enumerate(["Ann", "Bob"])]  # fmt: skip
    await a.operations.start(await a.reads.authenticate(host), tid)
    table = await a.reads.must_load(tid)
    (mover,) = table.to_act()
    viewer = await a.reads.authenticate(tokens[mover])
    move = table.legal_moves(mover)[0]
    done, events = await a.moves.make(viewer, tid, "lucky-draw", move, idempotency_key="k1")
    assert done.version == table.version + 1 and events
    for replica in (a, b, a):  # a warm cache, a cold one
        again, replayed = await replica.moves.make(
            await replica.reads.authenticate(tokens[mover]), tid, "lucky-draw", move,
            idempotency_key="k1",
        )  # fmt: skip
        assert replayed == events and again.version == done.version
    # the other player moves: the first mover's key is still its first outcome
    (other,) = done.to_act()
    assert other != mover
    other_viewer = await b.reads.authenticate(tokens[other])
    await b.moves.make(other_viewer, tid, "lucky-draw", done.legal_moves(other)[0])
    _, replayed = await a.moves.make(viewer, tid, "lucky-draw", move, idempotency_key="k1")
    assert replayed == events
    # a move the rules accept now, under the recorded key: the commit meets the record
    turn = await a.reads.must_load(tid)
    others = [m for m in turn.legal_moves(mover) if m != move]
    assert others, turn.legal_moves(mover)
    with pytest.raises(ApiError) as refused:
        await a.moves.make(viewer, tid, "lucky-draw", others[0], idempotency_key="k1")
    assert refused.value.code == "BAD_INPUT" and "another move" in str(refused.value)
    now = (await a.reads.must_load(tid)).version
    with pytest.raises(ApiError) as refused:
        await b.moves.make(viewer, tid, "lucky-draw", {"nothing": 1}, idempotency_key="k1")
    assert refused.value.code == "BAD_INPUT" and "another move" in str(refused.value)
    assert (await a.reads.must_load(tid)).version == now


async def test_each_store_call_is_timed_under_the_name_its_caller_gives(
    registry: Registry, make_store
) -> None:
    """``tablestate_store_seconds{op}``: named by the caller, the store method's name, for
    any awaitable (a task too, which has no code of a coroutine to read a name from)."""
    svc = TableService(make_settings(), registry, make_store())
    seconds = "tablestate_store_seconds"
    loaded, _ = await svc.operations.create("lucky-draw", [], None, 2)
    assert svc.metrics.get(seconds, op="create") == 1
    before = svc.metrics.get(seconds, op="load")
    await svc.reads.load(loaded.table.id)
    assert svc.metrics.get(seconds, op="load") == before + 1
    task = asyncio.ensure_future(svc.store.moves(loaded.table.id))
    assert await svc.reads.call("moves", task) == ()
    assert svc.metrics.get(seconds, op="moves") == 1
