"""bench/edge.py --quick: the edge's figures in seconds, end to end.

It starts ``tablestate serve`` (memory store), sends a few oversized frames, floods
pings and holds idle connections from one loopback address while another client queries.
The test checks that the three figures were printed, well formed and valid, never how fast
anything was; and that ``--only`` runs one attack alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> tuple[str, dict[str, dict]]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "edge.py"), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = {
        r["figure"]: r
        for r in (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))
    }
    return done.stdout, rows


def test_quick_edge_run_prints_every_figure():
    stdout, rows = _run()
    assert set(rows) == {"oversized_frames", "ping_flood", "idle_connections"}
    frames = rows["oversized_frames"]
    assert frames["frames"] == 4 and frames["frame_mib"] == 2
    assert 0 < frames["rss_before_mib"] <= frames["peak_after_mib"]
    assert frames["peak_before_mib"] <= frames["peak_after_mib"]
    flood = rows["ping_flood"]
    for phase in ("idle", "during"):
        latency = flood[phase]
        assert latency["n"] > 0
        assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["max_ms"]
    for kind in ("message", "frame"):
        counts = flood["flood"][kind]
        assert counts["pings"] > 0 and counts["sockets"] >= 1, counts
    idle = rows["idle_connections"]
    assert idle["connections"] == 100 and idle["server_nofile"] == 1024
    assert 0 < idle["server_files_idle"] <= idle["server_files_most"]
    for phase in ("before", "during", "after"):
        assert idle[phase]["answered"] + idle[phase]["failed"] > 0, idle
    attacker = idle["attacker"]
    assert attacker["opened"] >= 1 and set(attacker) == {
        "opened",
        "closed_by_server",
        "refused_429",
        "failed_to_open",
    }
    assert "| figure | value |" in stdout


def test_only_runs_one_attack():
    _, rows = _run("--only", "idle")
    assert set(rows) == {"idle_connections"}
