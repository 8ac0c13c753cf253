"""CPU time of one move through the GraphQL layer, in process: ``makeMove`` of the peer
benchmark's game (bench-counter) through ``schema.execute``, with the service's real
schema, extensions and table service, and no network.

    python bench/move_cpu.py                  # memory store, 2,000 moves
    python bench/move_cpu.py --redis redis://127.0.0.1:6379/0 --moves 5000
    python bench/move_cpu.py --profile tottime

It reports CPU seconds (``time.process_time``), which other load on the machine skews
far less than wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench" / "bench_game")]

from tablestate.api.context import Context  # noqa: E402
from tablestate.app import create_app  # noqa: E402
from tablestate.config import Settings  # noqa: E402
from tablestate.ratelimit import Client  # noqa: E402

MOVE = "mutation($t: ID!, $n: Int!) { makeMove(tableId: $t, move: {benchCounter: {play: {n: $n}}}) { table { version } } }"
CREATE = "mutation($g: ID!) { createTable(gameId: $g, seats: 2) { hostToken table { id } } }"
JOIN = "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { seat playerToken } }"
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--redis", help="a Redis URL (default: the memory store)")
    parser.add_argument("--profile", help="print a cProfile of the moves, sorted by this")
    args = parser.parse_args()
    settings = Settings(
        redis_url=args.redis,
        secret=b"bench",
        redis_prefix="bench-cpu:",
        plugins=("tablestate_bench",),
        log_level="warning",
    )
    app = create_app(settings)
    services, schema = app.state.services, app.state.schema
    client = Client("127.0.0.1", exempt=True)

    async def q(doc: str, token: str | None = None, **variables: Any) -> Any:
        context = Context(services, token=token, client=client)
        result = await schema.execute(doc, variable_values=variables, context_value=context)
        assert not result.errors, result.errors
        return result.data

    made = (await q(CREATE, g="bench-counter"))["createTable"]
    table_id = made["table"]["id"]
    contexts = {}
    for i in range(2):
        joined = (await q(JOIN, t=table_id, n=f"p{i}"))["joinTable"]
        contexts[joined["seat"]] = Context(services, token=joined["playerToken"], client=client)
    await q(START, made["hostToken"], t=table_id)

    async def play(first: int, count: int) -> None:
        for k in range(first, first + count):
            variables = {"t": table_id, "n": k % 10}
            result = await schema.execute(
                MOVE, variable_values=variables, context_value=contexts[k % 2]
            )
            assert not result.errors, result.errors

    await play(0, 200)  # warm up
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    cpu, wall = time.process_time(), time.perf_counter()
    await play(200, args.moves)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profile is not None:
        profile.disable()
        pstats.Stats(profile).sort_stats(args.profile).print_stats(40)
    store = "redis" if args.redis else "memory"
    print(
        f"{args.moves} moves ({store} store): {cpu / args.moves * 1e6:.0f} us CPU per move, "
        f"{wall / args.moves * 1e6:.0f} us wall"
    )
    await services.tables.close()
    await services.hub.close()
    await services.tables.store.close()


if __name__ == "__main__":
    asyncio.run(main())
