"""The bundled games with bots in every seat: games/s in process, and Redis bytes per table.

Two figures per bundled game (five-crowns, all-fives, five-by-five):

- ``engine``: N games (seeds ``bench-0`` ... ``bench-<N-1>``) played in this process through
  the pure engine (``tablestate.testing.GameDriver``: shape check, turn check, the game's
  ``apply``), every seat a bot choosing with the game's own ``bot`` function, as the service's
  bots do. Games/s and moves/s, and the same again with the snapshot the store would write
  after each move (``json.dumps(game.encode(state))``) to show what encoding costs.
- ``redis``: one table played to the end through ``TableService`` (the service's table
  operations, no HTTP) on a Redis store, its seats joined as players who move what the bot
  would. After every move ``MEMORY USAGE <key> SAMPLES 0`` of each of the table's keys
  (``<prefix>{t:<id>}:s`` snapshot hash, ``:e`` event stream, ``:i`` idempotency records,
  ``:m`` move log): the bytes at mid-game (the move half-way to the end), at the end, and the
  largest seen; the bytes sent to Redis per move, and the time the store spent finding the
  differences of its snapshots from their bases (``store/_deltas.py``), with its snapshots
  written as differences and whole. A fresh redis-server is started for it unless
  ``--redis`` names one.

    python bench/games.py                     # 20 games per game, the Redis figure
    python bench/games.py --quick             # seconds: 2 games each, Redis on 3 moves' worth
    python bench/games.py --games 50 --json   # JSON lines only

Each figure is one JSON line (also appended to ``--out``) and a table is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from redis.asyncio import Redis  # noqa: E402

from tablestate.engine.bots import NORMAL, choose  # noqa: E402
from tablestate.engine.rng import Rng  # noqa: E402
from tablestate.plugins import Registry, load  # noqa: E402
from tablestate.store import _deltas  # noqa: E402
from tablestate.store.redis import RedisStore  # noqa: E402
from tablestate.tables import TableService  # noqa: E402
from tablestate.testing import GameDriver  # noqa: E402

# Seats per game: a usual table of each.
SEATS = {"five-crowns": 4, "all-fives": 2, "five-by-five": 2}
MAX_MOVES = 20_000  # per game: a bound, far above any real game


def play_engine(registry: Registry, game_id: str, seats: int, seed: str, snapshot: bool) -> int:
    """One game to the end with bots in every seat; the number of moves."""
    game = registry.games[game_id]
    d = GameDriver(game, players=seats, rules=registry.ruleset(game_id), seed=seed)
    bot_rng = Rng(seed.encode() + b"bot")
    for moves in range(MAX_MOVES):
        if d.result() is not None:
            return moves
        seat = d.to_act()[0]
        d.move(seat, dict(choose(game, d.state, seat, NORMAL, bot_rng, d.rules)))
        if snapshot:
            json.dumps(game.encode(d.state))
    raise RuntimeError(f"{game_id} seed {seed}: no end after {MAX_MOVES} moves")


def engine_figures(registry: Registry, game_id: str, n: int, snapshot: bool) -> dict[str, Any]:
    seats = SEATS[game_id]
    start = time.perf_counter()
    counts = [play_engine(registry, game_id, seats, f"bench-{i}", snapshot) for i in range(n)]
    elapsed = time.perf_counter() - start
    counts.sort()
    return {
        "bench": "games", "figure": "engine", "game": game_id, "seats": seats,
        "snapshot_per_move": snapshot, "games": n, "moves": sum(counts),
        "moves_per_game_median": counts[len(counts) // 2], "seconds": round(elapsed, 3),
        "games_per_s": round(n / elapsed, 2), "moves_per_s": round(sum(counts) / elapsed),
        "us_per_move": round(elapsed / sum(counts) * 1e6, 1),
    }  # fmt: skip


async def _usage(redis: Redis, keys: list[str]) -> dict[str, int]:
    out = {}
    for key in keys:
        used = await redis.memory_usage(key, samples=0)
        if used is not None:
            out[key.rsplit(":", 1)[1]] = int(used)
    return out


@contextlib.contextmanager
def _timing_differences() -> Iterator[list[float]]:
    """``Base.delta`` timed while inside: the seconds it took, in the list's one item."""
    spent = [0.0]
    delta = _deltas.Base.delta

    def timed(self: _deltas.Base, new: str) -> str | None:
        start = time.perf_counter()
        try:
            return delta(self, new)
        finally:
            spent[0] += time.perf_counter() - start

    _deltas.Base.delta = timed  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        _deltas.Base.delta = delta  # type: ignore[method-assign]


async def redis_figures(
    registry: Registry,
    url: str,
    game_id: str,
    max_moves: int | None,
    prefix: str,
    deltas: bool = True,
) -> dict[str, Any]:
    """One table through the service on Redis, to the end (or ``max_moves``); its bytes,
    and the bytes sent to Redis per move, with its snapshots written as differences
    (``deltas``, the default) or whole."""
    store = RedisStore.from_url(url, prefix=prefix, snapshot_deltas=deltas)
    redis = Redis.from_url(url)
    service = TableService(_settings(), registry, store)
    try:
        seats = SEATS[game_id]
        loaded, host_token = await service.operations.create(game_id, [], None, seats)
        table_id = loaded.table.id
        tokens = {}
        for i in range(seats):
            _, seat, token = await service.operations.join(None, table_id, f"p{i}", None, None)
            tokens[seat] = token
        await service.operations.start(await service.reads.authenticate(host_token), table_id)
        callers = {seat: await service.reads.authenticate(token) for seat, token in tokens.items()}
        keys = store._keys(table_id)[:4]  # the snapshot hash, events, idempotency, move log
        series: list[dict[str, int]] = [await _usage(redis, keys)]
        rng = Rng(b"bench-redis-bot")
        moves = 0
        sent = int((await redis.info("stats"))["total_net_input_bytes"])
        with _timing_differences() as searched:
            while moves < (max_moves if max_moves is not None else MAX_MOVES):
                cur = await service.reads.must_load(table_id)
                if cur.table.status != "PLAYING":
                    break
                seat = cur.to_act()[0]
                move = dict(choose(cur.game, cur.state, seat, NORMAL, rng, cur.rules))
                await service.moves.make(callers[seat], table_id, game_id, move)
                moves += 1
                series.append(await _usage(redis, keys))
            sent = int((await redis.info("stats"))["total_net_input_bytes"]) - sent
        final = await service.reads.must_load(table_id)
        totals = [sum(s.values()) for s in series]
        mid = len(series) // 2
        listing = 0
        async for key in redis.scan_iter(match=f"{prefix}tables:*", count=100):
            listing += int(await redis.memory_usage(key, samples=0) or 0)
        return {
            "bench": "games", "figure": "redis", "game": game_id, "seats": seats,
            "moves": moves, "finished": final.table.status == "FINISHED",
            "mid_move": mid, "bytes_mid": totals[mid], "keys_mid": series[mid],
            "bytes_end": totals[-1], "keys_end": series[-1], "bytes_max": max(totals),
            "listing_keys_bytes": listing,
            "snapshot_json_bytes_end": len(final.table.encode()),
            "snapshots": "difference" if deltas else "whole",
            # everything sent to Redis while playing (the moves' loads and commits, and
            # this bench's MEMORY USAGE of each key after each move), per move
            "sent_bytes_per_move": round(sent / max(1, moves)),
            "difference_us_per_move": round(searched[0] / max(1, moves) * 1e6, 1),
        }  # fmt: skip
    finally:
        await redis.aclose()
        await store.close()


def _settings() -> Any:
    from tablestate.config import Settings

    return Settings(secret=b"bench-games-secret", idle_ttl=3600, finished_ttl=3600)


@contextlib.asynccontextmanager
async def fresh_redis() -> AsyncIterator[str]:
    """A throwaway redis-server (as the benchmark's: AOF everysec, no RDB) on a free port."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scaling import free_port, stop

    with tempfile.TemporaryDirectory(prefix="tsgames.") as tmp:
        port = free_port()
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp,
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            url = f"redis://127.0.0.1:{port}/0"
            client = Redis.from_url(url)
            for _ in range(100):
                with contextlib.suppress(OSError, Exception):
                    if await client.ping():
                        break
                await asyncio.sleep(0.1)
            await client.aclose()
            yield url
        finally:
            stop(proc)


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| game | seats | games | moves/game (median) | games/s | moves/s | µs/move | "
           "same + snapshot per move: games/s | moves/s |",
           "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    bare = {r["game"]: r for r in rows if r["figure"] == "engine" and not r["snapshot_per_move"]}
    snap = {r["game"]: r for r in rows if r["figure"] == "engine" and r["snapshot_per_move"]}
    for g, r in bare.items():
        s = snap.get(g, {})
        out.append(f"| {g} | {r['seats']} | {r['games']} | {r['moves_per_game_median']} | "
                   f"{r['games_per_s']} | {r['moves_per_s']} | {r['us_per_move']} | "
                   f"{s.get('games_per_s', '-')} | {s.get('moves_per_s', '-')} |")  # fmt: skip
    red = [r for r in rows if r["figure"] == "redis"]
    if red:
        out += ["", "| game | seats | snapshots | moves played | Redis bytes at mid-game (move) | "
                "per key | at the end | largest | snapshot JSON at the end | sent to Redis per move | "
                "µs/move finding differences |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for r in red:
            keys = ", ".join(f":{k} {v}" for k, v in r["keys_mid"].items())
            out.append(f"| {r['game']} | {r['seats']} | {r['snapshots']} | {r['moves']}"
                       f"{'' if r['finished'] else ' (stopped early)'} | {r['bytes_mid']} "
                       f"({r['mid_move']}) | {keys} | {r['bytes_end']} | {r['bytes_max']} | "
                       f"{r['snapshot_json_bytes_end']} | {r['sent_bytes_per_move']} | "
                       f"{r['difference_us_per_move']} |")  # fmt: skip
    return "\n".join(out)


def emitter(rows: list[dict[str, Any]], out: str | Path | None) -> Callable[[dict[str, Any]], None]:
    """What a bench does with each figure: prints it as a JSON line, keeps it in ``rows``
    (for the table at the end), and appends the line to ``out`` when given."""

    def emit(row: dict[str, Any]) -> None:
        rows.append(row)
        line = json.dumps(row)
        print(line, flush=True)
        if out:
            with Path(out).open("a") as fh:
                fh.write(line + "\n")

    return emit


async def amain(args: argparse.Namespace) -> int:
    registry = load(bundled_only=True)
    games = args.game or sorted(SEATS)
    rows: list[dict[str, Any]] = []
    emit = emitter(rows, args.out)

    for g in games:
        for snapshot in (False, True):
            emit(engine_figures(registry, g, args.games, snapshot))
    if not args.no_redis:
        if args.redis:
            url_cm: Any = contextlib.nullcontext(args.redis)
        else:
            if shutil.which("redis-server") is None:
                print("games: redis-server is missing (or pass --redis URL)", file=sys.stderr)
                return 2
            url_cm = fresh_redis()
        async with url_cm as url:
            for g in games:
                for deltas in (True, False):
                    emit(
                        await redis_figures(registry, url, g, args.redis_moves, args.prefix, deltas)
                    )
    if not args.json:
        print()
        print(table(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per bundled game")
    parser.add_argument("--game", action="append", choices=sorted(SEATS), help="only this game")
    parser.add_argument("--redis", help="a Redis URL (default: a fresh redis-server)")
    parser.add_argument("--prefix", default="benchgames:", help="Redis key prefix")
    parser.add_argument("--no-redis", action="store_true", help="the engine figures only")
    parser.add_argument("--redis-moves", type=int, help="stop the Redis table after N moves")
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke version")
    parser.add_argument("--json", action="store_true", help="JSON lines only, no table")
    parser.add_argument("--out", help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.redis_moves = 2, args.redis_moves or 6
    return asyncio.run(amain(args))


if __name__ == "__main__":
    sys.exit(main())
