"""Moves per second through the whole stack: HTTP, GraphQL, engine, store, commit.

Plays Lucky Draw (the example plugin: `pip install -e tests/example_plugin`) at several
tables at once against a uvicorn server in this process, and prints the figures.

    python bench/api_moves.py                       # memory store
    python bench/api_moves.py --redis redis://127.0.0.1:6379/0 --prefix bench:
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # before tests/, whose service/ folder must not shadow the package
sys.path.append(str(ROOT / "tests"))

from support.lucky import MOVE, TABLE, open_table  # noqa: E402
from support.server import Client, make_settings, serve  # noqa: E402

from tablestate.plugins import load  # noqa: E402


async def _play(c: Client, latencies: list[float]) -> int:
    t = await open_table(c, humans=2)
    moves = 0
    while True:
        for token in t.tokens.values():
            table = (await c.q(TABLE, token, t=t.table_id))["table"]
            if table["status"] == "FINISHED":
                return moves
            if table["legalMoves"]:
                start = time.perf_counter()
                await c.q(MOVE, token, t=t.table_id, m=table["legalMoves"][0])
                latencies.append(time.perf_counter() - start)
                moves += 1


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=20, help="games played at once")
    parser.add_argument("--rounds", type=int, default=3, help="games per table slot")
    parser.add_argument("--redis", help="a Redis URL (default: the memory store)")
    parser.add_argument("--prefix", default="bench:", help="Redis key prefix")
    args = parser.parse_args()
    store = None
    if args.redis:
        from tablestate.store.redis import RedisStore

        store = RedisStore.from_url(args.redis, prefix=args.prefix)
    async with serve(make_settings(), load(), store) as c:
        latencies: list[float] = []
        start = time.perf_counter()
        total = 0
        for _ in range(args.rounds):
            total += sum(await asyncio.gather(*(_play(c, latencies) for _ in range(args.tables))))
        elapsed = time.perf_counter() - start
    latencies.sort()
    print(f"store: {'redis' if args.redis else 'memory'}; tables at once: {args.tables}")
    print(f"moves: {total} in {elapsed:.2f} s = {total / elapsed:.0f} moves/s (with table reads)")
    print(
        f"makeMove latency: p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
