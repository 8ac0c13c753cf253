"""Soak: replicas sharing Redis for minutes, with bots playing hundreds of tables,
subscribers joining, dropping and resuming elsewhere, and replicas killed and restarted.
Afterwards every finished table must replay from its revealed seed, and every subscriber
must have seen every event of its table exactly once, in order.

    python bench/soak.py --seconds 180 --tables 300 --replicas 3

Starts its own redis-server (AOF) in a temporary folder unless --redis is given (then it
uses a key prefix of its own). Prints its figures; exits 1 if anything was lost.

Failover mode: Redis with replicas of its own (``--topology sentinel``: a primary, two
replicas and a Sentinel; ``cluster``: three primaries, three replicas), whose primary of a
random table is killed (SIGKILL) every ``--kill-primary-every`` seconds and started again
as a replica once a replica took over. Tables of one human and one bot are played (the
human's moves resent with their idempotency keys while ``UNAVAILABLE``) and followed by
subscribers that resume from their cursors; it prints how many acknowledged moves the log
lost, how many subscribers' streams have a gap or a repeat, and how many finished tables
replay from their seeds. Exits 1 on a loss only with ``--ack replica`` (``primary``
promises none):

    python bench/soak.py --topology sentinel --ack replica --seconds 60 --kill-primary-every 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # before tests/, whose service/ folder must not shadow the package
sys.path.append(str(ROOT / "tests"))

import httpx  # noqa: E402
from support.failover import Load, check, clients  # noqa: E402
from support.replicas import SECRET, RedisProcess, Replica, replica_env  # noqa: E402
from support.topologies import cluster_with_replicas, sentinel_with_replicas  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import WebSocketException  # noqa: E402

from tablestate.config import Settings  # noqa: E402
from tablestate.engine.replay import replay  # noqa: E402
from tablestate.plugins import load  # noqa: E402
from tablestate.store.redis import RedisStore  # noqa: E402
from tablestate.tables import TableService  # noqa: E402

GAMES = {
    "lucky-draw": ({"handSize": 5}, 4),
    "all-fives": ({"targetScore": 15}, 3),
    "five-crowns": ({"rounds": 2}, 4),
}
SUB = "subscription($t: ID!, $a: String) { tableEvents(tableId: $t, after: $a) { cursor type } }"


async def gql(
    http: httpx.AsyncClient,
    url: str,
    query: str,
    token: str | None = None,
    done: str | None = None,
    **v: object,
) -> dict:
    """Send until a replica answers. ``done``: the refusal code that means a retry found its
    first attempt landed (its answer was lost with a restarted replica)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for _ in range(50):  # the replica may be restarting: try another moment
        try:
            r = await http.post(
                url + "/graphql", json={"query": query, "variables": v}, headers=headers
            )
            body = r.json()
            if body.get("errors"):
                if done is not None and body["errors"][0]["extensions"]["code"] == done:
                    return {}
                raise RuntimeError(json.dumps(body["errors"]))
            return body["data"]  # type: ignore[no-any-return]
        except (httpx.TransportError, json.JSONDecodeError):
            await asyncio.sleep(0.2)
    raise RuntimeError("no replica answered")


def _code(msg: dict) -> str | None:
    payload = msg.get("payload")
    errors = payload if isinstance(payload, list) else (payload or {}).get("errors") or []
    return errors[0].get("extensions", {}).get("code") if errors else None


class Soak:
    def __init__(self, args: argparse.Namespace, replicas: list[Replica]) -> None:
        self.args = args
        self.replicas = replicas
        self.rng = random.Random(args.seed)
        self.tables: dict[str, str] = {}
        self.seen: dict[str, list[str]] = {}
        self.stats: Counter[str] = Counter()
        self.stalled: list[str] = []
        self.stop = False

    def replica(self) -> Replica:
        return self.rng.choice(self.replicas)

    async def make_tables(self, http: httpx.AsyncClient, n: int) -> None:
        for _ in range(n):
            await self.new_table(http)

    async def new_table(self, http: httpx.AsyncClient) -> str:
        """A table of bots only, started; its id."""
        game = list(GAMES)[len(self.tables) % len(GAMES)]
        options, seats = GAMES[game]
        url = self.replica().url
        q = "mutation($g: ID!, $o: JSON, $s: Int) { createTable(gameId: $g, options: $o, seats: $s) { hostToken table { id } } }"
        made = (await gql(http, url, q, g=game, o=options, s=seats))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]
        for _ in range(seats):
            await gql(
                http,
                self.replica().url,
                "mutation($t: ID!) { addBot(tableId: $t) { id } }",
                host,
                "TABLE_FULL",
                t=tid,
            )
        await gql(
            http,
            self.replica().url,
            "mutation($t: ID!) { startGame(tableId: $t) { id } }",
            host,
            "TABLE_NOT_OPEN",
            t=tid,
        )
        self.tables[tid] = game
        self.stats["tables"] += 1
        return tid

    async def follow(self, tid: str) -> None:
        """Follow a table to its end, dropping now and then and resuming elsewhere."""
        seen = self.seen.setdefault(tid, [])
        progress, counted = time.monotonic(), -1
        while True:
            if len(seen) != counted:
                progress, counted = time.monotonic(), len(seen)
            if time.monotonic() - progress > 90:
                self.stalled.append(tid)  # no new event for 90 s: the table is stuck
                return
            replica = self.replica()
            try:
                async with connect(
                    replica.ws_url, subprotocols=["graphql-transport-ws"], open_timeout=5
                ) as ws:
                    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                    await asyncio.wait_for(ws.recv(), 5)
                    after = seen[-1] if seen else None
                    sub = {"query": SUB, "variables": {"t": tid, "a": after}}
                    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
                    drop_after = self.rng.randint(5, 60)
                    for _ in range(drop_after):
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
                        if msg["type"] != "next" or msg["payload"].get("errors"):
                            code = _code(msg)
                            if code not in ("UNAVAILABLE", "SLOW_CONSUMER"):
                                raise RuntimeError(f"subscription refused: {msg}")
                            # what a client does: resubscribe from its cursor
                            self.stats[f"subscriptions ended with {code}"] += 1
                            break
                        event = msg["payload"]["data"]["tableEvents"]
                        seen.append(event["cursor"])
                        self.stats["events received"] += 1
                        if event["type"] == "game.finished":
                            return
                    self.stats["subscriber drops"] += 1
            except (WebSocketException, OSError, TimeoutError):
                self.stats["subscriptions cut by restarts"] += 1
                await asyncio.sleep(0.1)

    async def chaos(self) -> None:
        while not self.stop:
            await asyncio.sleep(self.args.restart_every)
            if self.stop:
                return
            victim = self.rng.choice(self.replicas)
            if self.rng.random() < 0.5:
                victim.kill()
                self.stats["replicas killed"] += 1
            else:
                await asyncio.to_thread(victim.term)
                self.stats["replicas stopped"] += 1
            victim.start(wait=False)
            await asyncio.to_thread(victim.wait_up)

    async def follower(self, http: httpx.AsyncClient, deadline: float) -> None:
        """Open a table, follow it to its end; again, until the deadline."""
        while time.monotonic() < deadline:
            await self.follow(await self.new_table(http))

    async def run(self) -> int:
        start = time.monotonic()
        deadline = start + self.args.seconds
        async with httpx.AsyncClient(timeout=10) as http:
            await self.make_tables(http, max(0, self.args.tables - self.args.followers))
            chaos = asyncio.ensure_future(self.chaos())
            try:
                await asyncio.gather(
                    *(self.follower(http, deadline) for _ in range(self.args.followers))
                )
            finally:
                self.stop = True
                chaos.cancel()
        elapsed = time.monotonic() - start
        await asyncio.sleep(5)  # let the last bot turns land
        return await self.check(elapsed)

    async def check(self, elapsed: float) -> int:
        settings = Settings(secret=SECRET.encode(), redis_prefix=self.args.prefix)
        store = RedisStore.from_url(self.args.redis_url, prefix=self.args.prefix)
        svc = TableService(settings, load(), store)
        lost = 0
        finished = replayed = moves = 0
        for tid in self.tables:
            loaded = await svc.reads.load(tid)
            if loaded is None or loaded.table.status != "FINISHED":
                self.stats["tables still playing at the end"] += 1
                continue
            finished += 1
            log = await svc.reads.moves(tid)
            moves += len(log)
            report = replay(loaded.table, log, loaded.game, loaded.rules)
            replayed += report.ok
            if not report.ok:
                print(f"table {tid}: {report.reason}")
            if tid in self.seen:
                stored = [e.cursor for e in await svc.reads.events(tid, None, 1000, None)]
                if self.seen[tid] != stored:
                    lost += 1
                    print(
                        f"table {tid}: a subscriber saw {len(self.seen[tid])} events of {len(stored)}"
                    )
        await store.close()
        print(f"ran {elapsed:.0f} s with {len(self.replicas)} replicas")
        for key, value in sorted(self.stats.items()):
            print(f"{key}: {value}")
        print(f"finished tables: {finished}, moves: {moves} ({moves / elapsed:.0f}/s)")
        print(f"replayed exactly from their seeds: {replayed} of {finished}")
        print(f"followed tables whose subscriber missed or repeated an event: {lost}")
        print(f"followed tables that stalled (no event for 90 s): {len(self.stalled)}")
        ok = lost == 0 and not self.stalled and replayed == finished and finished > 0
        return 0 if ok else 1


async def failover(args: argparse.Namespace) -> int:
    """The failover mode (see the module)."""
    make = cluster_with_replicas if args.topology == "cluster" else sentinel_with_replicas
    with tempfile.TemporaryDirectory() as folder, make(Path(folder)) as topology:
        env = replica_env(
            topology.url,
            args.prefix,
            TABLESTATE_REDIS_ACK=args.ack,
            TABLESTATE_BOT_DELAY=str(args.bot_delay),
            TABLESTATE_BOT_LEASE="1",
            **topology.env,
        )
        replicas = [Replica(env) for _ in range(args.replicas)]
        try:
            for r in replicas:
                r.start()
            start = time.monotonic()
            deadline = start + args.seconds
            stats: Counter[str] = Counter()
            async with clients(replicas) as cs:
                load = Load(cs, replicas, random.Random(args.seed))

                async def tables() -> None:
                    while time.monotonic() < deadline:
                        try:
                            t = await load.new_table()
                            await asyncio.gather(load.play(t, 0.0), load.follow(t))
                        except Exception as exc:  # counted and printed: the soak goes on
                            stats[f"tables abandoned ({str(exc)[:120]})"] += 1

                async def kill() -> None:
                    while True:
                        await asyncio.sleep(args.kill_primary_every)
                        if not load.tables or time.monotonic() > deadline:
                            return
                        key = f"{args.prefix}{{t:{load.rng.choice(load.tables).table_id}}}:s"
                        began = time.monotonic()
                        await asyncio.to_thread(topology.fail_over, key, args.replica_lag)
                        stats["primaries killed"] += 1
                        stats["seconds from each kill to the server back as a replica, summed"] += (
                            round(time.monotonic() - began)
                        )

                killer = asyncio.ensure_future(kill())
                await asyncio.gather(*(tables() for _ in range(args.followers)))
                killer.cancel()
            elapsed = time.monotonic() - start
            report = await check(
                load, topology.url, args.prefix, cluster=args.topology == "cluster"
            )
            for r in replicas:  # what the replicas logged as errors, by the exception's last line
                for line in r.log(1 << 30).splitlines():
                    if '"level": "error"' in line:
                        tail = json.loads(line).get("exc", "").strip().splitlines()
                        stats[f"replica errors: {(tail or ['?'])[-1][:160]}"] += 1
        finally:
            for r in replicas:
                r.stop()
    print(f"ran {elapsed:.0f} s on {args.topology} with {args.replicas} replicas, ack={args.ack}")
    for key, value in sorted(stats.items()):
        print(f"{key}: {value}")
    print(f"moves answered UNAVAILABLE and sent again: {load.unavailable}")
    print(f"subscriptions resumed from their cursor: {load.resumed}")
    print(report.line())
    for line in report.details[:20]:
        print(line)
    if args.ack == "primary":
        return 0
    whole = report.lost == 0 and report.broken == 0 and report.replayed == report.finished
    return 0 if whole and report.finished > 0 else 1


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--followers", type=int, default=60)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--restart-every", type=float, default=10)
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--redis", help="a Redis URL (default: a redis-server of its own)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="leave its redis-server running")
    parser.add_argument("--topology", choices=["single", "sentinel", "cluster"], default="single")
    parser.add_argument("--ack", choices=["primary", "replica"], default="primary")
    parser.add_argument("--kill-primary-every", type=float, default=10)
    parser.add_argument(
        "--replica-lag",
        type=float,
        default=0.3,
        help="seconds the dying primary's replicas are stopped before it is killed",
    )
    args = parser.parse_args()
    args.prefix = f"soak:{int(time.time())}:"
    if args.topology != "single":
        return await failover(args)
    with tempfile.TemporaryDirectory() as folder:
        server = None
        if args.redis:
            args.redis_url = args.redis
        else:
            server = RedisProcess(Path(folder), "--appendonly", "yes").start()
            args.redis_url = server.url
        env = replica_env(
            args.redis_url,
            args.prefix,
            TABLESTATE_REDIS_TIMEOUT="2.0",
            TABLESTATE_BOT_DELAY=str(args.bot_delay),
            TABLESTATE_BOT_LEASE="2",
        )
        replicas = [Replica(env) for _ in range(args.replicas)]
        try:
            for r in replicas:
                r.start()
            return await Soak(args, replicas).run()
        finally:
            for r in replicas:
                r.stop()
            if server is not None and not args.keep:
                server.stop()
            elif server is not None:
                print(f"redis-server left running at {server.url}, prefix {args.prefix}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
