"""A Redis primary killed mid-game (SIGKILL), on a Cluster with replicas and under Sentinel:
with ``TABLESTATE_REDIS_ACK=replica`` no acknowledged move is lost, every subscriber's
stream is whole once resumed, and every table replays from its seeds; with ``primary``
the losses are counted and printed (nothing guarantees there are none)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.failover import Load, Report, check, clients
from support.replicas import replica_env, replicas
from support.topologies import Topology, cluster_with_replicas, sentinel_with_replicas

TABLES = 20
# Seconds the dying primary's replica is stopped before the kill: it dies with commits its
# replica never got, as under replication lag (loopback replicates in microseconds).
LAG = 0.3
PREFIX = "fo:"


@contextlib.contextmanager
def _topology(kind: str, folder: Path) -> Iterator[Topology]:
    with (cluster_with_replicas if kind == "cluster" else sentinel_with_replicas)(folder) as t:
        yield t


async def _through_failover(topology: Topology, ack: str, *, bounded: bool) -> Report:
    env = replica_env(
        topology.url, PREFIX, TABLESTATE_REDIS_ACK=ack, TABLESTATE_REDIS_ACK_TIMEOUT="500",
        TABLESTATE_BOT_DELAY="0", TABLESTATE_BOT_LEASE="1", **topology.env,
    )  # fmt: skip
    with replicas(env, 2) as running:
        async with clients(running) as cs:
            load = Load(cs, running)
            tables = [await load.new_table() for _ in range(TABLES)]
            followers = [asyncio.ensure_future(load.follow(t)) for t in tables]
            players = [asyncio.ensure_future(load.play(t, pause=0)) for t in tables]
            while len(load.acked) < TABLES * 2:
                await asyncio.sleep(0.01)
            key = f"{PREFIX}{{t:{tables[0].table_id}}}:s"
            await asyncio.to_thread(topology.fail_over, key, LAG)
            # With primary acknowledgement a client may be stuck for good (its subscriber's
            # cursor names an event the failover dropped): what is not done is counted.
            done, pending = await asyncio.wait(
                [*players, *followers], timeout=45 if bounded else 15
            )
            for task in pending:
                task.cancel()
            failed = sum(1 for task in done if task.exception() is not None) + len(pending)
            if not bounded:
                # The service follows the new primary by itself: a table made after the
                # failover plays to its end (the tables of before may all be stuck, each
                # with a client whose cursor or turn names a commit the failover dropped).
                fresh = await load.new_table()
                await asyncio.wait_for(load.play(fresh, pause=0), 30)
            if bounded:
                logs = "\n".join(
                    line for r in running for line in r.log(10**8).splitlines() if '"error"' in line
                )[-6000:]
                assert not pending, f"tables or subscribers stalled after the failover:\n{logs}"
                for task in done:
                    assert task.exception() is None, f"{task.exception()}\n{logs}"
    report = await check(load, topology.url, PREFIX, cluster="TABLESTATE_REDIS_CLUSTER" in env)
    print(f"\n{ack} acknowledgement: {report.line()}; moves answered UNAVAILABLE and sent "
          f"again: {load.unavailable}; subscriptions resumed: {load.resumed}; clients that "
          f"gave up or were stuck: {failed}")  # fmt: skip
    return report


@pytest.mark.parametrize("kind", ["cluster", "sentinel"])
async def test_replica_ack_loses_no_acknowledged_move(kind, tmp_path):
    with _topology(kind, tmp_path) as topology:
        report = await _through_failover(topology, "replica", bounded=True)
    assert report.acked > TABLES * 2
    assert report.lost == 0, report.details
    assert report.broken == 0, report.details
    assert report.finished == report.replayed == TABLES, report.details


async def test_primary_ack_counts_what_a_failover_loses(tmp_path):
    with _topology("sentinel", tmp_path) as topology:
        report = await _through_failover(topology, "primary", bounded=False)
    # Only this is guaranteed: the service follows the new primary by itself (a table made
    # after the failover finished), and whatever finished replays from its seeds (a lost
    # move is lost whole, with its log entry).
    assert report.finished > 0
    assert report.replayed == report.finished, report.details
