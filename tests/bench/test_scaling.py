"""bench/scaling.py --quick: the scaling curves' seconds-long smoke version, end to end.

It starts its own redis-server and ``tablestate serve`` per point and drives them with the
Node loadgen (1 and 2 tables, 3 subscribers, 10 subscriptions for the memory figure). The
test checks every point ran and printed well-formed, valid figures, never a timing. Needs
node, redis-server and ``npm ci --prefix bench/peers``: without them the test is skipped,
and fails when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"


def _need_tools() -> None:
    missing = [t for t in ("node", "redis-server") if shutil.which(t) is None]
    if not (PEERS / "node_modules" / "graphql-ws").is_dir():
        missing.append("npm ci --prefix bench/peers")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the scaling smoke test: missing {missing}")
        pytest.skip(f"missing {missing}")


def test_quick_scaling_run_prints_every_point(tmp_path):
    _need_tools()
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "scaling.py"),
        "--quick",
        "--out-dir",
        str(tmp_path),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "scaling.jsonl").read_text().splitlines()]
    printed = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert printed == rows
    assert [(r["curve"], r["n"]) for r in rows] == [
        ("tables", 1), ("tables", 2), ("fanout", 3),
        ("memory_1_per_ws", 10), ("memory_100_per_ws", 100),
    ]  # fmt: skip
    for r in rows:
        assert "error" not in r, r
        assert r["quick"] is True and r["workers"] == 1 and r["commit"]
        assert r["move_errors"] == 0 and r["subscription_errors"] == 0, r.get("first_error")
    tables = [r for r in rows if r["curve"] == "tables"]
    for r in tables:
        assert r["matches"] == r["n"] and r["moves_acked"] > 0 and r["per_match_moves_min"] > 0
        assert r["moves_per_s"] > 0 and r["latency"]["n"] == r["moves_acked"]
        assert 0 < r["latency"]["p50_ms"] <= r["latency"]["p99_ms"] <= r["latency"]["max_ms"]
        assert len(r["server_pids"]) >= 2  # the serve process and redis-server at least
        samples = json.loads((tmp_path / "samples" / f"tables_{r['n']}.json").read_text())
        assert len(samples["latency"]) == r["latency"]["n"]
    fanout = next(r for r in rows if r["curve"] == "fanout")
    assert fanout["spectators"] == 3 and fanout["moves"] == 5
    assert fanout["deliveries"] == fanout["expected_deliveries"] == 15
    assert fanout["incomplete_moves"] == 0 and fanout["final_list_len"] == 5
    for r in rows[3:]:
        assert (
            r["subscriptions"] == r["n"] and r["deliveries"] == r["expected_deliveries"] == r["n"]
        )
        assert r["server_rss_before_mb"] > 0 and r["server_rss_after_mb"] > 0
        assert isinstance(r["bytes_per_subscription"], int)
    assert "| curve | N | figures |" in done.stdout


def test_quick_workers_curve_prints_the_cost_of_a_move_at_each_count(tmp_path):
    _need_tools()
    cmd = [sys.executable, str(ROOT / "bench" / "scaling.py"), "--quick", "--only", "workers",
           "--out-dir", str(tmp_path)]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "scaling.jsonl").read_text().splitlines()]
    assert [(r["curve"], r["n"], r["workers"]) for r in rows] == [
        ("workers", 1, 1), ("workers", 2, 2)
    ]  # fmt: skip
    for r in rows:
        assert "error" not in r, r
        assert r["move_errors"] == 0 and r["subscription_errors"] == 0, r.get("first_error")
        assert r["matches"] == 2 and r["moves_acked"] > 0
        assert 0 < r["redis_cpu_us_per_move"] < r["cpu_us_per_move"]
        assert r["server_cpu_us_per_move"] + r["redis_cpu_us_per_move"] == pytest.approx(
            r["cpu_us_per_move"], abs=0.2
        )
        # redis-server's own account: the commit script ran about once a move
        assert r["redis_commands"]["evalsha"][0] >= 1
        # every worker process and redis-server measured: serve, its workers, redis-server
        assert [c for c, _ in r["procs_cpu_pct"]].count("redis-server") == 1
        assert len(r["procs_cpu_pct"]) >= 2 + r["workers"] - (r["workers"] == 1)
    assert "| workers | runs | moves/s |" in done.stdout
