"""What one commit costs redis-server, by the size of the table's snapshot.

Starts a fresh redis-server (``appendonly yes``, ``appendfsync everysec``, no RDB snapshots,
in a temporary folder), and for each snapshot size commits ``--commits`` moves to one table
through ``RedisStore.commit`` (one event, a move-log entry and an idempotency key each, as a
move of the benchmark's phase B with ``--retry-unavailable``), one after the other. Prints
redis-server's own account of each size (``INFO commandstats``: the commit script's
microseconds per call, and those of the commands it called) and its CPU per commit over the
whole run (``/proc``: the script, the network and the AOF together).

    python bench/commit_cost.py                       # 100 B, 2 KB, 10 KB and 30 KB
    python bench/commit_cost.py --sizes 100 --commits 50   # a seconds-long smoke run

Each size is measured with the snapshot written whole (``TABLESTATE_SNAPSHOT_DELTAS=0``)
and as its difference from a base (the default; its last characters change at every
commit, as a game's state that grows at its end): written whole, the size of the state is
the size of this cost (docs/performance.md, "Scaling out").

Each row also gives the floor under the script: the arguments of the table's next commit
given as many times to a script that returns at once (what entering Lua with them costs)
and to one that makes the commit's calls with them and nothing else (``BARE``): the commit
script's own checks and branches are the difference between that and its figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling import free_port, stop  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


# The floor under the commit script (``floor``): a script that returns at once, and one that
# makes the commit's calls with its arguments and nothing else (no checks, no branches).
ENTRY = "return {1, 0, '', ''}"
BARE = """
redis.call('HMGET', KEYS[1], 'v', 'status', 'e', 'a', 'i:' .. ARGV[9], 'b')
redis.call('PTTL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[4], 'i:' .. ARGV[9], ARGV[10])
redis.call('XADD', KEYS[2], '*', 'e', ARGV[16])
redis.call('RPUSH', KEYS[4], string.sub(ARGV[8], 2))
redis.call('RPUSH', KEYS[6], ARGV[9])
redis.call('SPUBLISH', KEYS[5], ARGV[15])
return {1, 0, '', ''}
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


async def measure(port: int, pid: int, size: int, commits: int, deltas: bool) -> dict[str, Any]:
    import redis.asyncio as aioredis

    from tablestate.store.base import Idempotency, NewEvent, TableMeta
    from tablestate.store.redis import RedisStore

    admin = aioredis.from_url(f"redis://127.0.0.1:{port}/0")
    store = RedisStore.from_url(
        f"redis://127.0.0.1:{port}/0", prefix="bench:", timeout=5, snapshot_deltas=deltas
    )
    meta = TableMeta("bench-counter", "PLAYING", 1.0, False)

    def snapshot(v: int) -> str:  # its last characters change at every commit
        return "s" * max(0, size - 12) + f"{v:012d}"[-size:]

    at = "2026-01-01T00:00:00Z"
    try:
        table_id = f"t{size}{'d' if deltas else 'w'}"
        await store.create(table_id, snapshot(0), meta, [NewEvent("x", at)], ttl=3600)
        await admin.config_resetstat()
        cpu0 = cpu_seconds(pid)
        for v in range(1, commits + 1):
            done = await store.commit(
                table_id, v, snapshot(v), meta, [NewEvent("number.played", at, data={"n": v})],
                ttl=3600, idempotency=Idempotency(0, f"k{v}", "h"), log='{"seat":0}',
            )  # fmt: skip
            assert done.ok, done
        cpu = cpu_seconds(pid) - cpu0
        stats = await admin.info("commandstats")
        floor = await floors(admin, store, table_id, commits, meta)
    finally:
        await store.close()
        await admin.aclose()
    script = stats.get("cmdstat_evalsha", {"calls": 0, "usec": 0})
    inner = {
        name[len("cmdstat_") :]: round(s["usec"] / commits, 2)
        for name, s in stats.items()
        if name != "cmdstat_evalsha" and name.startswith("cmdstat_")
    }
    return {
        "bench": "commit_cost",
        "snapshot_bytes": size,
        "written": "difference" if deltas else "whole",
        "commits": commits,
        "script_us_per_commit": round(script["usec"] / max(1, script["calls"]), 1),
        "script_calls_us_per_commit": round(sum(inner.values()), 1),
        "redis_cpu_us_per_commit": round(cpu / commits * 1e6, 1),
        "commands_us_per_commit": dict(sorted(inner.items(), key=lambda kv: -kv[1])),
        **floor,
    }


async def floors(
    admin: Any, store: Any, table_id: str, commits: int, meta: Any
) -> dict[str, float]:
    """What is left of a commit without the script's logic: the arguments of the table's
    next commit (captured on their way to Redis, not sent) given ``commits`` times, one at a
    time, to ``ENTRY`` and to ``BARE`` (on keys of their own): redis-server's microseconds
    a call for each."""
    from tablestate.store.base import Idempotency, NewEvent

    tables = store.commit.__self__
    sent: list[tuple[list[str], list[Any]]] = []

    async def capture(keys: list[str], args: list[Any], ttl: float, stored: Any) -> Any:
        sent.append((keys, args))
        return [0, 0]  # a conflict: nothing written

    tables._send = capture
    loaded = await store.load(table_id)
    assert loaded is not None
    snapshot, version = loaded
    event = NewEvent("number.played", "2026-01-01T00:00:00Z", data={"n": version})
    await store.commit(
        table_id, version, snapshot[:-1] + "x", meta, [event], ttl=3600,
        idempotency=Idempotency(0, f"k{version}", "h"), log='{"seat":0}',
    )  # fmt: skip
    keys, args = sent[0]
    keys = [k.replace(table_id, f"{table_id}-floor") for k in keys]
    out = {}
    for name, script in (("entry", ENTRY), ("bare_calls", BARE)):
        sha = await admin.script_load(script)
        await admin.config_resetstat()
        for _ in range(commits):
            await admin.evalsha(sha, len(keys), *keys, *args)
        stats = await admin.info("commandstats")
        out[f"{name}_us_per_call"] = round(stats["cmdstat_evalsha"]["usec_per_call"], 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[100, 2000, 10000, 30000])
    parser.add_argument("--commits", type=int, default=2000, help="commits per size")
    parser.add_argument(
        "--written",
        nargs="+",
        choices=["whole", "difference"],
        default=["whole", "difference"],
        help="each snapshot whole, or as its difference from a base (TABLESTATE_SNAPSHOT_DELTAS)",
    )
    args = parser.parse_args(argv)
    if shutil.which("redis-server") is None:
        print("commit_cost: redis-server is missing", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="tscommit.") as folder:
        port = free_port()
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", folder,
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("redis-server failed to start") from None
                    time.sleep(0.05)
            for size in args.sizes:
                for written in args.written:
                    deltas = written == "difference"
                    row = asyncio.run(measure(port, redis.pid, size, args.commits, deltas))
                    print(json.dumps(row), flush=True)
                    rows.append(row)
        finally:
            stop(redis)
    print(
        "\n| snapshot bytes | written | script µs/commit | of which its calls "
        "| redis-server CPU µs/commit | a script that returns at once | one that makes "
        "the same calls bare |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['snapshot_bytes']:,} | {r['written']} | {r['script_us_per_commit']} | "
              f"{r['script_calls_us_per_commit']} | {r['redis_cpu_us_per_commit']} | "
              f"{r['entry_us_per_call']} | {r['bare_calls_us_per_call']} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
