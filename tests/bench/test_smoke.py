"""A seconds-long smoke run of the peer benchmark (bench/peers): the Node load generator
plays shortened phases A, B and C against a real ``tablestate serve`` on the tests' Redis,
with the benchmark game loaded by module path (``TABLESTATE_PLUGINS``, nothing installed).

Asserts validity only (every move acked, every delivery made, no refused move), never a
timing. Needs node and ``npm ci --prefix bench/peers``: without them the test is skipped,
and fails when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
import redis
from support.replicas import Replica, replica_env

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"
LOADGEN = PEERS / "tablestate" / "loadgen.js"
GAME_SRC = ROOT / "bench" / "bench_game"

pytestmark = pytest.mark.redis


def _need_node() -> str:
    node = shutil.which("node")
    missing = None
    if node is None:
        missing = "node is not installed"
    elif not (PEERS / "node_modules" / "graphql-ws").is_dir():
        missing = "the load generator's npm packages are missing (npm ci --prefix bench/peers)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the benchmark smoke test: {missing}")
        pytest.skip(missing)
    assert node is not None
    return node


@pytest.fixture(scope="module")
def server(redis_handle) -> Iterator[Replica]:
    """One ``tablestate serve`` with the bench game, on a key prefix of its own."""
    prefix = f"test:bench:{uuid4().hex[:8]}:"
    pythonpath = os.pathsep.join(p for p in (str(GAME_SRC), os.environ.get("PYTHONPATH")) if p)
    env = replica_env(
        redis_handle.url, prefix, PYTHONPATH=pythonpath, TABLESTATE_PLUGINS="tablestate_bench"
    )
    replica = Replica(env)
    try:  # stopped even when it fails to start: its log file is closed, never left to GC
        yield replica.start()
    finally:
        replica.stop()
        if not redis_handle.owned:
            client = redis.Redis.from_url(redis_handle.url)
            try:
                keys = list(client.scan_iter(match=f"{prefix}*", count=500))
                if keys:
                    client.delete(*keys)
            finally:
                client.close()


def run_phase(server: Replica, phase: str, transport: str, *flags: str) -> dict:
    node = _need_node()
    assert server.proc is not None
    cmd = [node, str(LOADGEN), phase, "--port", str(server.port), "--transport", transport]
    cmd += ["--server-pids", str(server.proc.pid), *flags]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=90, check=False)
    assert done.returncode == 0, f"loadgen rc={done.returncode}\n{done.stderr}\n{server.log()}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["phase"] == phase and result["transport"] == transport
    assert result["move_errors"] == 0, result.get("first_error")
    assert result["subscription_errors"] == 0, result.get("first_error")
    assert result["server_cpu_pct"] >= 0 and result["server_rss_end_mb"] > 0
    return result


@pytest.mark.parametrize("transport", ["ws", "http"])
def test_phase_a_every_move_acked_in_order(server, transport):
    r = run_phase(server, "A", transport, "--moves", "50")
    assert r["moves"] == 50
    assert r["latency"]["n"] == 50
    assert r["final_list_len"] == 50 and r["final_list_ok"] is True
    assert r["events_list_len"] == 50


def test_phase_b_every_match_progresses_and_drains(server):
    r = run_phase(server, "B", "ws", "--matches", "5", "--duration", "2")
    assert r["matches"] == 5
    assert r["moves_acked"] > 0 and r["per_match_moves_min"] > 0
    assert r["matches_undrained"] == 0
    assert r["moves_sent"] >= r["moves_acked"]


@pytest.mark.parametrize("transport", ["ws", "http"])
def test_phase_c_every_spectator_gets_every_move(server, transport):
    r = run_phase(server, "C", transport, "--moves", "10", "--spectators", "10")
    assert r["expected_deliveries"] == 100
    assert r["deliveries"] == 100
    assert r["incomplete_moves"] == 0
    assert r["mover_latency"]["n"] == 10
    assert r["final_list_len"] == 10
