"""How well the bot levels play, what a move costs at each, and what 20 thinking strong bots
do to another table's moves.

- ``pairings``: for each bundled game, two-player games (seeds ``bots-<game>-<i>``, seats
  swapped every other game) of strong vs normal, normal vs easy and easy vs a uniformly
  random player, every move through ``tablestate.engine.bots.choose`` with the table's
  generator as the service seeds it. A win is the first player's: alone among the winners
  (a shared win counts a half); in Five Crowns that is the lower total. Win rate with its
  95% Wilson interval.
- ``move_ms``: the time of each level's choices in those games, p50 and p99.
- ``latency``: one table of two players moving through ``TableService`` (the service's own
  table operations on the memory store, no HTTP) while 20 tables whose seats are all strong
  bots play; the players' move latency, p50 and p99, against the same without the bots.

    python bench/bots.py                         # 200 games per pairing and game
    python bench/bots.py --games 40 --iterations 48
    python bench/bots.py --smoke                 # seconds: 2 games each, no latency figure
    python bench/bots.py --only-latency          # the latency figure alone

Each figure is one JSON line (also appended to ``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tablestate.engine.bots import (  # noqa: E402
    EASY,
    NORMAL,
    STRONG,
    Budget,
    choose,
    random_move,
    view_for,
)
from tablestate.engine.rng import Rng  # noqa: E402
from tablestate.plugins import Registry, load  # noqa: E402
from tablestate.testing import GameDriver  # noqa: E402

RANDOM = "random"
PAIRINGS = ((STRONG, NORMAL), (NORMAL, EASY), (EASY, RANDOM))
# Short games, so that 200 of each pairing stay within an evening.
OPTIONS: dict[str, dict[str, Any]] = {
    "five-crowns": {"rounds": 3},
    "all-fives": {"targetScore": 31},
    "five-by-five": {},
}
MAX_MOVES = 5_000


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, mid - half), min(1.0, mid + half))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def move(game: Any, d: GameDriver, seat: int, level: str, rng: Rng, budget: Budget) -> Any:
    if level == RANDOM:
        return random_move(view_for(game, d.state, seat, d.rules, rng), rng)
    return choose(game, d.state, seat, level, rng, d.rules, budget)


def play(
    registry: Registry, game_id: str, levels: dict[int, str], seed: str, budget: Budget,
    times: dict[str, list[float]],
) -> tuple[int, ...]:  # fmt: skip
    """One game with ``levels[seat]`` in each seat; its winners."""
    game = registry.games[game_id]
    d = GameDriver(game, (0, 1), OPTIONS.get(game_id, {}), registry.ruleset(game_id), seed)
    for version in range(MAX_MOVES):
        result = d.result()
        if result is not None:
            return tuple(result.winners)
        seat = d.to_act()[0]
        rng = Rng(seed.encode() + b"bot", version)
        start = time.perf_counter()
        chosen = move(game, d, seat, levels[seat], rng, budget)
        times[levels[seat]].append((time.perf_counter() - start) * 1000)
        d.move(seat, chosen)
    raise RuntimeError(f"{game_id} {seed}: no end after {MAX_MOVES} moves")


def pairing(
    registry: Registry, game_id: str, first: str, second: str, n: int, budget: Budget,
    times: dict[str, list[float]], start: int = 0,
) -> dict[str, Any]:  # fmt: skip
    wins = 0.0
    for i in range(start, start + n):
        seat = i % 2  # the first player's seat, swapped every other game
        levels = {seat: first, 1 - seat: second}
        winners = play(registry, game_id, levels, f"bots-{game_id}-{i}", budget, times)
        if seat in winners:
            wins += 1.0 / len(winners) if len(winners) > 1 else 1.0
    lo, hi = wilson(wins, n)
    return {
        "figure": "pairing", "game": game_id, "first": first, "second": second, "games": n,
        "seeds_from": start,
        "first_wins": wins, "win_rate": round(wins / n, 3), "ci95": [round(lo, 3), round(hi, 3)],
    }  # fmt: skip


async def latency(registry: Registry, bots: int, moves: int, iterations: int) -> dict[str, Any]:
    """Two players' move latency at one table while ``bots`` strong-bot tables play."""
    from tablestate.config import Settings
    from tablestate.store.memory import MemoryStore
    from tablestate.tables import TableService

    settings = Settings(secret=b"bench-bots-secret", bot_iterations=iterations)
    service = TableService(settings, registry, MemoryStore())
    ops, game_id = service.operations, "five-crowns"
    try:
        for _ in range(bots):
            loaded, host = await ops.create(game_id, [], {"rounds": 11}, 2)
            caller = await service.reads.authenticate(host)
            for _ in range(2):
                await ops.add_bot(caller, loaded.table.id, None, STRONG)
            await ops.start(caller, loaded.table.id)
        loaded, host = await ops.create(game_id, [], {"rounds": 11}, 2)
        table_id, tokens = loaded.table.id, {}
        for i in range(2):
            _, seat, token = await ops.join(None, table_id, f"p{i}", None, None)
            tokens[seat] = await service.reads.authenticate(token)
        await ops.start(await service.reads.authenticate(host), table_id)
        waits: list[float] = []
        rng = Rng(b"bench-bots-players")
        for _ in range(moves):
            cur = await service.reads.must_load(table_id)
            if cur.table.status != "PLAYING":
                break
            seat = cur.to_act()[0]
            chosen = dict(choose(cur.game, cur.state, seat, NORMAL, rng, cur.rules))
            start = time.perf_counter()
            await service.moves.make(tokens[seat], table_id, game_id, chosen)
            waits.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.01)  # a player's think time: the bots get the loop
        bot_moves = service.committer.metrics.get("tablestate_bot_moves_total")
    finally:
        await service.close()
    return {
        "figure": "latency", "strong_bot_tables": bots, "moves": len(waits),
        "p50_ms": round(pct(waits, 0.5), 2), "p99_ms": round(pct(waits, 0.99), 2),
        "bot_moves_meanwhile": bot_moves,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per pairing and game")
    ap.add_argument("--iterations", type=int, default=96, help="a strong bot's playouts")
    ap.add_argument("--first", type=int, default=0, help="the first game's seed index")
    ap.add_argument("--game", action="append", help="only this game (repeatable)")
    ap.add_argument("--pairing", action="append", help="only first:second (repeatable)")
    ap.add_argument("--smoke", action="store_true", help="2 games each, no latency figure")
    ap.add_argument("--no-latency", action="store_true")
    ap.add_argument("--only-latency", action="store_true", help="the latency figure alone")
    ap.add_argument("--latency-moves", type=int, default=200, help="the players' moves")
    ap.add_argument("--out", type=Path, help="append the JSON lines to this file")
    args = ap.parse_args(argv)
    registry = load()
    n = 2 if args.smoke else args.games
    iterations = 8 if args.smoke else args.iterations
    budget = Budget(iterations)
    games = args.game or sorted(OPTIONS)
    pairs = [tuple(p.split(":")) for p in args.pairing] if args.pairing else PAIRINGS
    rows: list[dict[str, Any]] = []

    def emit(row: dict[str, Any]) -> None:
        rows.append(row)
        line = json.dumps(row)
        print(line, flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(line + "\n")

    for game_id in [] if args.only_latency else games:
        times: dict[str, list[float]] = defaultdict(list)
        for first, second in pairs:
            emit({**pairing(registry, game_id, first, second, n, budget, times, args.first),
                  "iterations": iterations})  # fmt: skip
        for level, ms in sorted(times.items()):
            emit({
                "figure": "move_ms", "game": game_id, "level": level, "moves": len(ms),
                "p50": round(pct(ms, 0.5), 3), "p99": round(pct(ms, 0.99), 3),
                "mean": round(statistics.fmean(ms), 3),
            })  # fmt: skip
    if not (args.smoke or args.no_latency):
        for tables in (0, 20):
            emit(asyncio.run(latency(registry, tables, args.latency_moves, iterations)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
