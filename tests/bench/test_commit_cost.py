"""bench/commit_cost.py: redis-server's cost of a commit by snapshot size, a seconds-long
run against a real redis-server: well-formed figures, never a timing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_quick_run_prints_each_size(tmp_path):
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs redis-server")
        pytest.skip("redis-server is missing")
    cmd = [sys.executable, str(ROOT / "bench" / "commit_cost.py"), "--sizes", "100", "3000",
           "--commits", "40"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [(r["snapshot_bytes"], r["written"]) for r in rows] == [
        (100, "whole"),
        (100, "difference"),
        (3000, "whole"),
        (3000, "difference"),
    ]
    for r in rows:
        assert r["commits"] == 40
        assert 0 < r["script_calls_us_per_commit"] < r["script_us_per_commit"]
        # the script's calls as redis-server counted them: one stream entry a commit
        assert "xadd" in r["commands_us_per_commit"] and "hmget" in r["commands_us_per_commit"]
        assert r["entry_us_per_call"] > 0 and r["bare_calls_us_per_call"] > 0
    assert "| snapshot bytes |" in done.stdout
