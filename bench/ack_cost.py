"""What ``TABLESTATE_REDIS_ACK`` costs a commit: the Redis store's commit latency on a
primary with one replica (loopback), acknowledged by the primary and by the replica.

    python bench/ack_cost.py --moves 2000 --tables 50 --seconds 10

Like the peer benchmark's phases, at the store: "A" makes ``--moves`` commits on one table,
one after another; "B" commits on ``--tables`` tables at once for ``--seconds``. Prints
commits/s and latency percentiles of each phase for each setting.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]
sys.path.append(str(ROOT / "tests"))

from support.replicas import RedisProcess  # noqa: E402

from tablestate.store.base import Idempotency, NewEvent, TableMeta  # noqa: E402
from tablestate.store.redis import RedisStore  # noqa: E402

META = TableMeta("bench", "PLAYING", 0.0)
SNAPSHOT = "x" * 2000  # about a small game's snapshot


def _event(i: int) -> list[NewEvent]:
    return [NewEvent("card.played", "2026-01-01T00:00:00Z", {"n": i}, 0)]


async def _commits(store: RedisStore, table_id: str, until: float | int, out: list[float]) -> None:
    """Commit on one table until a time (float) or a count (int) is reached."""
    version = 1
    while (time.monotonic() < until) if isinstance(until, float) else (version <= until):
        began = time.perf_counter()
        result = await store.commit(
            table_id, version, SNAPSHOT, META, _event(version), ttl=3600.0,
            idempotency=Idempotency(0, f"k{version}", "h"),
        )  # fmt: skip
        out.append(time.perf_counter() - began)
        assert result.ok, result
        version += 1


def _line(phase: str, ack: str, samples: list[float], seconds: float) -> str:
    ms = sorted(s * 1000 for s in samples)
    p = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731
    return (
        f"{phase} ack={ack:<8} commits/s {len(ms) / seconds:8.0f}  latency ms p50 "
        f"{statistics.median(ms):.3f} p99 {p(0.99):.3f} max {ms[-1]:.3f}"
    )


async def measure(url: str, ack: str, args: argparse.Namespace) -> list[str]:
    store = RedisStore.from_url(url, prefix=f"ack:{ack}:", ack=ack, ack_timeout=1000)
    try:
        ids = [f"b{i}" for i in range(args.tables)]
        for table_id in ids:
            await store.create(table_id, SNAPSHOT, META, _event(0), ttl=3600.0)
        a: list[float] = []
        began = time.monotonic()
        await _commits(store, ids[0], args.moves, a)
        lines = [_line("A", ack, a, time.monotonic() - began)]
        for table_id in ids:  # a fresh start for B
            await store._redis.delete(*store._keys(table_id))
            await store.create(table_id, SNAPSHOT, META, _event(0), ttl=3600.0)
        b: list[float] = []
        began = time.monotonic()
        until = began + args.seconds
        await asyncio.gather(*(_commits(store, t, until, b) for t in ids))
        lines.append(_line("B", ack, b, time.monotonic() - began))
        return lines
    finally:
        await store.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "p").mkdir()
        (Path(folder) / "r").mkdir()
        primary = RedisProcess(Path(folder) / "p", "--appendonly", "no").start()
        replica = RedisProcess(
            Path(folder) / "r", "--appendonly", "no", "--replicaof", "127.0.0.1",
            str(primary.port),
        ).start()  # fmt: skip
        try:
            for _ in range(200):
                if "master_link_status:up" in replica_info(replica.port):
                    break
                await asyncio.sleep(0.05)
            for ack in ("primary", "replica"):
                for line in await measure(primary.url, ack, args):
                    print(line, flush=True)
        finally:
            replica.stop()
            primary.stop()
    return 0


def replica_info(port: int) -> str:
    import redis

    with redis.Redis(port=port) as c:
        return "\n".join(f"{k}:{v}" for k, v in c.info("replication").items())


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
