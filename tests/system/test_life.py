"""Table life across real replicas: a clock whose only witness is killed still fires, once,
on another replica; a game with undos and timeouts still replays from its seed."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
from support.lucky import CREATE, JOIN, MOVE, START, TABLE, Seated
from support.replicas import Replica, replica_env, replicas
from support.server import Client

EVENTS = """query($t: ID!) { table(id: $t) { status events(first: 1000) {
  version type seat data } } }"""
UNDO = "mutation($t: ID!) { undoMove(tableId: $t) { table { version } } }"
TURN = 3.0  # seconds per move: long enough for three quick requests on a loaded machine


@contextlib.asynccontextmanager
async def client(replica: Replica) -> AsyncIterator[Client]:
    async with httpx.AsyncClient(base_url=replica.url, timeout=10) as http:
        yield Client(http, replica.url)


async def test_a_clock_fires_once_elsewhere_when_its_replica_dies_and_the_game_replays(
    redis_url, redis_prefix
):
    env = replica_env(redis_url, redis_prefix)
    with replicas(env, 3) as (a, b, c):
        async with client(a) as ca, client(b) as cb, client(c) as cc:
            options = {"turnSeconds": TURN, "timeoutsBeforeBot": 1, "undo": True}
            made = (await ca.q(CREATE, g="lucky-draw", r=[], o=options, s=2))["createTable"]
            t = Seated(made["table"]["id"], made["hostToken"])
            for i in range(2):
                joined = (await ca.q(JOIN, t=t.table_id, n=f"P{i}", c=f"s{i}"))["joinTable"]
                t.tokens[joined["seat"]] = joined["playerToken"]
            await ca.q(START, t.host, t=t.table_id)
            first = (await ca.q(TABLE, t=t.table_id))["table"]["state"]["toAct"][0]
            token = t.tokens[first]
            mine = (await ca.q(TABLE, token, t=t.table_id))["table"]
            play = next(m for m in mine["legalMoves"] if "play" in m["luckyDraw"])
            # Play, take it back, play again: only replica A sees these, then it dies.
            await ca.q(MOVE, token, t=t.table_id, m=play)
            await ca.q(UNDO, token, t=t.table_id)
            moved = (await ca.q(MOVE, token, t=t.table_id, m=play))["makeMove"]
            a.kill()
            waited_at = moved["table"]["version"]
            # B and C both run the due-index worker: the other seat's clock fires on one of
            # them; then the first seat's; both seats go to the bot and the game ends.
            for _ in range(600):
                table = (await cb.q(EVENTS, t=t.table_id))["table"]
                if table["status"] == "FINISHED":
                    break
                await asyncio.sleep(0.05)
            assert table["status"] == "FINISHED", b.log() + c.log()
            stored = (await cc.q(EVENTS, t=t.table_id))["table"]["events"]
            assert stored == table["events"]
            timeouts = [e for e in stored if e["type"] == "clock.timeout"]
            assert [(e["seat"], e["data"]["timeouts"]) for e in timeouts] == [
                (1 - first, 1),
                (first, 1),
            ]
            started = next(
                e
                for e in stored
                if e["type"] == "clock.started"
                and e["version"] == waited_at
                and e["seat"] == 1 - first
            )
            assert timeouts[0]["version"] == waited_at + 1
            assert timeouts[0]["data"]["deadline"] == started["data"]["deadline"]
            took = [e["seat"] for e in stored if e["type"] == "seat.bot_took_over"]
            assert sorted(took) == [0, 1]
            assert [e["type"] for e in stored].count("move.undone") == 1
            versions = sorted({e["version"] for e in stored})
            assert versions == list(range(1, versions[-1] + 1))
    out = subprocess.run(
        [sys.executable, "-m", "tablestate.cli", "replay", t.table_id],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("MATCH"), out.stdout
