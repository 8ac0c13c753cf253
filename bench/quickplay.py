"""Quick play: the time to match, the matcher's CPU, and fairness, at 10, 100 and 1,000 waiting.

For each N (10, 100, 1000; ``--quick``: 10 and 100) and each arrival (``all``: the N tickets
enqueued at once, then the matcher runs; ``steady``: ``--rate`` tickets a second (200), the
tickets due enqueued before each round of the matcher, so a long round delays the next
ones), N tickets of one 2-player wish (all-fives, players 2 to 2, no bots) go through
``TableService.quick`` (no HTTP) on a Redis store (a fresh redis-server unless ``--redis
URL``; ``--memory``: the memory store instead). Half the tickets are anonymous, half
signed-in users with ratings drawn evenly at random over 0..``--spread`` (40), so that the
rating window matters; which arrive when is shuffled (seeded). The users' ratings come from
the bench's own table of them, given to the service in place of its archive lookup
(``QuickPlay._rating``), so the tickets are made by ``enqueue`` as the API makes them and
the store is never written to by hand. The matcher's rounds (``run_due_once``) run until
every ticket is matched; ``quick.grace`` is set high, as if every holder listened.

Figures per (store, arrival, N):

- time to match: from each ticket's enqueue (its ``at``) to the store call that settled it
  MATCHED returning: p50, p99, max (ms);
- the matcher's CPU (``time.process_time`` around the rounds only, not the enqueues) per
  table made and per round, tables made per second of the rounds' wall time;
- Redis' CPU (``INFO cpu``, used_cpu_sys + used_cpu_user) over the rounds, per table (with
  ``steady`` the enqueues between rounds are counted in it too);
- fairness: the longest wait and its arrival rank; Spearman's rank correlation between the
  arrival order and the match order (tickets of one table tie); ``passed_over``: tickets
  matched while an older ticket still waited that could have taken their seat (its rating
  near every other player of that table at the round's start), which ``plan`` never does
  (should be 0), and of them the anonymous ones; ``before_older_near``: tickets matched
  while an older ticket near them still waited (allowed: their table was made by a ticket
  older still, which that one did not suit).

Then ``plan()`` alone on 10, 100, 1000 and 10000 waiting tickets of the same mix, all made
within the last N milliseconds (``--quick``: 10, 100, 1000): microseconds per round and
the tables it finds (the mean over ``--plan-seconds`` of repeats, and the fastest), to tell
the planning from the making of tables.

    python bench/quickplay.py                   # Redis, both arrivals, N = 10, 100, 1000
    python bench/quickplay.py --quick           # seconds
    python bench/quickplay.py --memory --arrival all --json

Each figure is one JSON line (also appended to ``--out``); a table is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import random
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(BENCH)]

from games import emitter, fresh_redis  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

from tablestate.config import Settings  # noqa: E402
from tablestate.engine import matching  # noqa: E402
from tablestate.engine.matching import MATCHED, Ticket  # noqa: E402
from tablestate.engine.rights import User  # noqa: E402
from tablestate.plugins import Registry, load  # noqa: E402
from tablestate.store.base import QuickPlayQueue  # noqa: E402
from tablestate.store.memory import MemoryStore  # noqa: E402
from tablestate.store.redis import RedisStore  # noqa: E402
from tablestate.tables import TableService  # noqa: E402
from tablestate.tables.quickplay import Wish  # noqa: E402

GAME = "all-fives"
SECRET = b"bench-quickplay-secret"
ROUNDS_MAX = 100_000  # a bound on the matcher's rounds per run, far above any real run
IDLE = 0.02  # seconds the bench sleeps after a round that made nothing


class Recorder:
    """The store's quick play queue, noting when each ticket was settled MATCHED and in
    which call (the match order)."""

    def __init__(self, inner: QuickPlayQueue) -> None:
        self.inner = inner
        self.matched: dict[str, tuple[float, int]] = {}  # ticket id: (when, settle number)
        self.settles = 0

    async def enqueue(
        self, pool: str, ticket_id: str, ticket: str, at: float, *, limit: int, ttl: float
    ) -> bool:
        return await self.inner.enqueue(pool, ticket_id, ticket, at, limit=limit, ttl=ttl)

    async def ticket(self, ticket_id: str) -> str | None:
        return await self.inner.ticket(ticket_id)

    async def waiting(self, pool: str) -> tuple[tuple[str, float], ...]:
        return await self.inner.waiting(pool)

    async def seen(self, ticket_id: str, at: float) -> bool:
        return await self.inner.seen(ticket_id, at)

    async def settle(self, pool: str, outcomes: Mapping[str, str], *, ttl: float) -> bool:
        done = await self.inner.settle(pool, outcomes, ttl=ttl)
        when = time.time()
        if done:
            self.settles += 1
            for ticket_id, text in outcomes.items():
                if json.loads(text).get("status") == MATCHED:
                    self.matched[ticket_id] = (when, self.settles)
        return done

    async def pools(self) -> tuple[str, ...]:
        return await self.inner.pools()

    async def lease(self, name: str, owner: str, ttl: float) -> bool:
        return await self.inner.lease(name, owner, ttl)


@dataclass
class Arrivals:
    """Who arrives, in order: half of them anonymous, half signed in with a rating, in an
    order shuffled by ``seed`` (so that signed-in players arrive in runs and meet each other,
    not only the anonymous player next in line)."""

    n: int
    spread: float
    seed: str
    ratings: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        signed = [i % 2 == 1 for i in range(self.n)]
        rng.shuffle(signed)
        for i in range(self.n):
            if signed[i]:
                self.ratings[self.user_id(i)] = round(rng.uniform(0.0, self.spread), 2)

    @staticmethod
    def user_id(i: int) -> str:
        return f"bench#u{i}"

    def caller(self, i: int) -> User | None:
        if self.user_id(i) not in self.ratings:
            return None
        return User(self.user_id(i), f"u{i}", time.time() + 86_400, time.time)


def wish(i: int) -> Wish:
    return Wish(GAME, (), None, 2, 2, False, 0, f"p{i}")


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0..100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def ranks(keys: Sequence[float]) -> list[float]:
    """1-based ranks of ``keys``, ties given their average rank."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    out = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's of the (tie-averaged) ranks."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else 1.0


async def redis_cpu(redis: Redis | None) -> float:
    if redis is None:
        return 0.0
    info = await redis.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


@dataclass
class Round:
    start: float  # the clock when the round began (about the ``now`` plan was given)
    settles: int  # settle calls made before it


async def run_once(
    registry: Registry, url: str | None, n: int, arrival: str, args: argparse.Namespace
) -> dict[str, Any]:
    """N tickets through quick play on one store, matched to the last; the figures."""
    prefix = f"benchqp:{arrival}:{n}:{time.time_ns()}:"
    store: Any = MemoryStore() if url is None else RedisStore.from_url(url, prefix=prefix)
    redis = None if url is None else Redis.from_url(url)
    settings = Settings(secret=SECRET, idle_ttl=3600, finished_ttl=3600)
    svc = TableService(settings, registry, store)
    people = Arrivals(n, args.spread, f"bench-quickplay-{n}")

    async def rating(user: User | None, game_id: str, rules: tuple[str, ...]) -> float | None:
        return None if user is None else people.ratings.get(user.id)

    svc.quick._rating = rating  # type: ignore[method-assign]
    recorder = Recorder(svc.quick.queue)
    svc.quick.queue = recorder
    svc.quick.grace = 1e9  # every holder listens throughout
    tickets: list[Ticket] = []
    rounds: list[Round] = []
    made = 0
    cpu = wall = 0.0
    enqueue_wall = 0.0

    async def arrive(i: int) -> None:
        nonlocal enqueue_wall
        t0 = time.perf_counter()
        tickets.append(await svc.quick.enqueue(people.caller(i), wish(i), f"10.0.{i // 250}.1"))
        enqueue_wall += time.perf_counter() - t0

    async def one_round() -> int:
        nonlocal cpu, wall
        rounds.append(Round(time.time(), recorder.settles))
        c0, w0 = time.process_time(), time.perf_counter()
        got = await svc.quick.run_due_once()
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        return got

    try:
        if arrival == "all":
            for i in range(n):
                await arrive(i)
        redis0 = await redis_cpu(redis)
        begun = time.perf_counter()
        while len(recorder.matched) < n and len(rounds) < ROUNDS_MAX:
            if arrival == "steady":
                elapsed = time.perf_counter() - begun
                while len(tickets) < n and len(tickets) <= elapsed * args.rate:
                    await arrive(len(tickets))
                if len(tickets) == len(recorder.matched):  # nobody waits: until the next one
                    await asyncio.sleep(max(0.0, len(tickets) / args.rate - elapsed))
                    continue
            got = await one_round()
            made += got
            if not got:
                await asyncio.sleep(IDLE)
        redis_used = await redis_cpu(redis) - redis0
    finally:
        await svc.close()
        await store.close()
        if redis is not None:
            await redis.aclose()
    if len(recorder.matched) < n:
        raise RuntimeError(f"quickplay: {n - len(recorder.matched)} of {n} never matched")
    return figures(n, arrival, url, tickets, recorder, rounds, made, cpu, wall, redis_used) | {
        "enqueue_ms_per_ticket": round(enqueue_wall / n * 1e3, 3),
        "rate_per_s": args.rate if arrival == "steady" else None,
        "spread": args.spread,
    }


def figures(
    n: int,
    arrival: str,
    url: str | None,
    tickets: list[Ticket],
    recorder: Recorder,
    rounds: list[Round],
    made: int,
    cpu: float,
    wall: float,
    redis_used: float,
) -> dict[str, Any]:
    by_id = {t.id: t for t in tickets}
    waits = [recorder.matched[t.id][0] - t.at for t in tickets]
    longest = max(range(n), key=lambda i: waits[i])
    seq = {tid: s for tid, (_, s) in recorder.matched.items()}
    groups: dict[int, list[Ticket]] = {}
    for tid, s in seq.items():
        groups.setdefault(s, []).append(by_id[tid])

    def round_of(s: int) -> Round:  # the round that made settle number s
        return max((r for r in rounds if r.settles < s), key=lambda r: r.settles)

    passed_over = passed_anon = before_near = 0
    for i, t in enumerate(tickets):
        s = seq[t.id]
        now = round_of(s).start
        others = [o for o in groups[s] if o.id != t.id]
        older_waiting = [o for o in tickets[:i] if seq[o.id] > s]
        if any(all(matching.near(o, x, now) for x in others) for o in older_waiting):
            passed_over += 1
            passed_anon += t.user is None
        if any(matching.near(o, t, now) for o in older_waiting):
            before_near += 1
    tables_s = made / wall if wall else 0.0
    return {
        "bench": "quickplay", "figure": "match", "store": "memory" if url is None else "redis",
        "arrival": arrival, "waiting": n, "tables": made, "rounds": len(rounds),
        "p50_ms": round(percentile(waits, 50) * 1e3, 1),
        "p99_ms": round(percentile(waits, 99) * 1e3, 1),
        "max_ms": round(waits[longest] * 1e3, 1),
        "longest_rank": longest + 1, "longest_user": tickets[longest].user is not None,
        "longest_rating": tickets[longest].rating,
        "matcher_cpu_s": round(cpu, 4), "rounds_wall_s": round(wall, 4),
        "cpu_ms_per_table": round(cpu / made * 1e3, 3) if made else None,
        "cpu_ms_per_round": round(cpu / len(rounds) * 1e3, 3),
        "redis_cpu_ms_per_table": (round(redis_used / made * 1e3, 3)
                                   if url is not None and made else None),
        "tables_per_s": round(tables_s, 1),
        "spearman": round(spearman(list(range(n)), [seq[t.id] for t in tickets]), 4),
        "passed_over": passed_over, "passed_over_anonymous": passed_anon,
        "before_older_near": before_near,
    }  # fmt: skip


def plan_figure(n: int, spread: float, budget: float) -> dict[str, Any]:
    """``plan()`` alone on N waiting tickets of the bench's mix, made in the last N ms."""
    people = Arrivals(n, spread, f"bench-quickplay-plan-{n}")
    now = time.time()
    pool = matching.pool_of(GAME, (), None)
    waiting = [
        Ticket(
            id=f"{pool}.{i:08d}", pool=pool, game_id=GAME, house_rules=(), options=None,
            min=2, max=2, bots=False, after=0.0, at=now - (n - i) * 1e-3, name=f"p{i}",
            user=people.user_id(i) if people.user_id(i) in people.ratings else None,
            rating=people.ratings.get(people.user_id(i)),
        )
        for i in range(n)
    ]  # fmt: skip
    repeats, spent, best = 0, 0.0, math.inf
    groups: list[matching.Group] = []
    while repeats == 0 or spent < budget:
        t0 = time.perf_counter()
        groups = matching.plan(waiting, now)
        took = time.perf_counter() - t0
        spent, best, repeats = spent + took, min(best, took), repeats + 1
    return {
        "bench": "quickplay", "figure": "plan", "waiting": n, "repeats": repeats,
        "us_per_round": round(spent / repeats * 1e6, 1), "us_per_round_min": round(best * 1e6, 1),
        "us_per_ticket": round(spent / repeats / n * 1e6, 2),
        "tables_found": len(groups), "left_waiting": n - sum(len(g.tickets) for g in groups),
    }  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| store | arrival | waiting | tables | rounds | to match p50 / p99 / max ms | "
           "matcher CPU ms/table | ms/round | Redis CPU ms/table | tables/s | "
           "longest wait: rank | Spearman | passed over (anon.) | before an older near |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in (r for r in rows if r["figure"] == "match"):
        who = "user" if r["longest_user"] else "anon."
        redis_cpu_ = "-" if r["redis_cpu_ms_per_table"] is None else r["redis_cpu_ms_per_table"]
        rate = f" {r['rate_per_s']}/s" if r["rate_per_s"] else ""
        out.append(f"| {r['store']} | {r['arrival']}{rate} | {r['waiting']} | {r['tables']} | "
                   f"{r['rounds']} | {r['p50_ms']} / {r['p99_ms']} / {r['max_ms']} | "
                   f"{r['cpu_ms_per_table']} | {r['cpu_ms_per_round']} | {redis_cpu_} | "
                   f"{r['tables_per_s']} | {r['longest_rank']} ({who}) | {r['spearman']} | "
                   f"{r['passed_over']} ({r['passed_over_anonymous']}) | "
                   f"{r['before_older_near']} |")  # fmt: skip
    plans = [r for r in rows if r["figure"] == "plan"]
    if plans:
        out += ["", "| plan() alone: waiting | µs/round (mean) | fastest | µs/ticket | "
                "tables found | left |", "|---|---|---|---|---|---|"]  # fmt: skip
        for r in plans:
            out.append(f"| {r['waiting']} | {r['us_per_round']} | {r['us_per_round_min']} | "
                       f"{r['us_per_ticket']} | "
                       f"{r['tables_found']} | {r['left_waiting']} |")  # fmt: skip
    return "\n".join(out)


async def amain(args: argparse.Namespace) -> int:
    registry = load(bundled_only=True)
    rows: list[dict[str, Any]] = []
    emit = emitter(rows, args.out)
    arrivals = ("all", "steady") if args.arrival == "both" else (args.arrival,)
    if args.memory:
        url_cm: Any = contextlib.nullcontext(None)
    elif args.redis:
        url_cm = contextlib.nullcontext(args.redis)
    else:
        if shutil.which("redis-server") is None:
            print("quickplay: redis-server is missing (or pass --redis URL)", file=sys.stderr)
            return 2
        url_cm = fresh_redis()
    async with url_cm as url:
        for n in args.waiting:
            for arrival in arrivals:
                emit(await run_once(registry, url, n, arrival, args))
    for n in args.plan:
        emit(plan_figure(n, args.spread, args.plan_seconds))
    if not args.json:
        print()
        print(table(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiting", type=int, action="append", help="N tickets (repeatable)")
    parser.add_argument("--arrival", choices=("all", "steady", "both"), default="both")
    parser.add_argument("--rate", type=float, default=200.0, help="steady: tickets a second")
    parser.add_argument("--spread", type=float, default=40.0, help="ratings over 0..spread")
    parser.add_argument("--plan", type=int, action="append", help="plan() alone at N waiting")
    parser.add_argument("--plan-seconds", type=float, default=1.0, help="time per plan figure")
    parser.add_argument("--redis", help="a Redis URL (default: a fresh redis-server)")
    parser.add_argument("--memory", action="store_true", help="the memory store, not Redis")
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke version")
    parser.add_argument("--json", action="store_true", help="JSON lines only, no table")
    parser.add_argument("--out", help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.waiting = args.waiting or [10, 100]
        args.plan = args.plan or [10, 100, 1000]
        args.plan_seconds = min(args.plan_seconds, 0.05)
    args.waiting = args.waiting or [10, 100, 1000]
    args.plan = args.plan or [10, 100, 1000, 10000]
    return asyncio.run(amain(args))


if __name__ == "__main__":
    sys.exit(main())
