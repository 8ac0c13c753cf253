"""The service on a three-master Redis Cluster started here, on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.lucky import START, TABLE
from support.replicas import RedisProcess, cluster_port, replica_env, replicas

from .test_replicas import EVENTS, MOVE, client, follow, new_table, play


@contextlib.contextmanager
def cluster(folder: Path) -> Iterator[str]:
    nodes = []
    try:
        for i in range(3):
            (folder / str(i)).mkdir()
            nodes.append(
                RedisProcess(
                    folder / str(i), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--appendonly", "no", port=cluster_port(),
                ).start()
            )  # fmt: skip
        addresses = [f"127.0.0.1:{n.port}" for n in nodes]
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *addresses,
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        for _ in range(100):  # every node, not the first only: each serves its slots
            infos = [
                subprocess.run(
                    ["redis-cli", "-p", str(n.port), "cluster", "info"],
                    capture_output=True,
                    text=True,
                ).stdout
                for n in nodes
            ]
            if all("cluster_state:ok" in info for info in infos):
                break
            time.sleep(0.1)
        yield nodes[0].url
    finally:
        for n in nodes:
            n.stop()


async def test_full_games_and_atomic_commits_on_a_cluster(tmp_path):
    if subprocess.run(["which", "redis-cli"], capture_output=True).returncode != 0:
        pytest.fail("redis-cli is needed to make the cluster")
    with cluster(tmp_path) as url:
        env = replica_env(url, "cl:", TABLESTATE_REDIS_CLUSTER="1")
        with replicas(env, 2) as (a, b):
            async with client(a) as ca, client(b) as cb:
                tables = [await new_table(ca, humans=1, bots=1) for _ in range(6)]
                for t in tables:
                    await cb.q(START, t.host, t=t.table_id)
                seen: list[dict] = []
                follower = asyncio.ensure_future(follow(b, tables[0].table_id, None, seen))
                await asyncio.gather(*(play(ca, t) for t in tables))
                await asyncio.wait_for(follower, 20)
                stored = (await cb.q(EVENTS, t=tables[0].table_id))["table"]["events"]
                assert [e["cursor"] for e in seen] == [e["cursor"] for e in stored]
                # racing moves on one table across both replicas: exactly one lands
                t = await new_table(ca)
                await ca.q(START, t.host, t=t.table_id)
                view = (await ca.q(TABLE, t.tokens[0], t=t.table_id))["table"]
                results = await asyncio.gather(
                    *(
                        c.raw(MOVE, t.tokens[0], t=t.table_id, m=m, v=view["version"])
                        for m in view["legalMoves"]
                        for c in (ca, cb)
                    )
                )
                assert sum(1 for r in results if not r.get("errors")) == 1
                listed = await ca.q(
                    '{ tables(gameId: "lucky-draw", status: FINISHED, first: 50) { nodes { id } } }'
                )
                assert {x.table_id for x in tables} <= {n["id"] for n in listed["tables"]["nodes"]}
        replay = subprocess.run(
            [sys.executable, "-m", "tablestate.cli", "replay", tables[0].table_id],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert replay.returncode == 0 and replay.stdout.startswith("MATCH"), (
            replay.stdout + replay.stderr
        )


async def test_every_cluster_node_connection_tells_a_lost_transport_by_class(tmp_path):
    """The store's Cluster client opens every node's connections (the startup node's and
    those it meets in the slot map) with ``_wire.Guarded``'s I/O."""
    from tablestate.store import NewEvent, RedisStore, TableMeta
    from tablestate.store._wire import Guarded

    with cluster(tmp_path) as url:
        store = RedisStore.from_url(url, prefix="g:", cluster=True)
        try:
            for n in range(12):  # tables on every node's slots
                await store.create(
                    f"t{n}", "s", TableMeta("g", "OPEN", 1.0), [NewEvent("a", "x")], ttl=60
                )
                assert await store.load(f"t{n}") == ("s", 1)
            nodes = store._redis.get_nodes()
            assert len(nodes) == 3
            for node in nodes:
                assert issubclass(node.connection_class, Guarded), node
        finally:
            await store.close()
