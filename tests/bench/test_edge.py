"""bench/edge.py --quick: the edge's figures in seconds, end to end.

It starts ``tablestate serve`` (memory store), sends a few oversized frames and floods
pings from one loopback address while another client queries. The test checks that both
figures were printed, well formed and valid, never how fast anything was.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_edge_run_prints_both_figures():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "edge.py"), "--quick"],
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
    assert set(rows) == {"oversized_frames", "ping_flood"}
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
    assert "| figure | value |" in done.stdout
