"""``tablestate serve --workers 2`` on Redis: a scrape of ``/metrics``, whichever worker
answers it, counts every worker's requests (prometheus_client's multiprocess mode), and
has the process and garbage-collector metrics."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict
from support.server import free_port

ROOT = Path(__file__).resolve().parents[2]
MAX_REQUESTS = 400


def _queries_by_worker(folder: Path) -> list[float]:
    """Each worker's count of queries, as it wrote it to its own file."""
    counts = []
    for path in sorted(folder.glob("counter_*.db")):
        values = MmapedDict.read_all_values_from_file(str(path))
        counts.append(
            sum(v for key, v, *_ in values if "tablestate_requests_total" in key and "query" in key)
        )
    return counts


def _total(text: str, name: str, label: str) -> float:
    found = re.search(rf"^{name}\{{{label}\}} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


@pytest.mark.redis
def test_a_scrape_counts_both_workers(redis_url, redis_prefix, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLESTATE_", "PROMETHEUS"))}
    env.update(
        REDIS_URL=redis_url,
        TABLESTATE_REDIS_PREFIX=redis_prefix,
        TABLESTATE_SECRET="metrics-test-secret",
        TABLESTATE_METRICS_DIR=str(tmp_path / "metrics"),
        TABLESTATE_LOG_LEVEL="warning",
    )
    cmd = [sys.executable, "-m", "tablestate.cli", "serve", "--port", str(port), "--workers", "2"]
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the workers did not start in 60 s"
            time.sleep(0.2)
        # every request on a connection of its own, until both workers have served some
        sent = 0
        while sent < 10 or not all(_queries_by_worker(tmp_path / "metrics")):
            assert sent < MAX_REQUESTS, _queries_by_worker(tmp_path / "metrics")
            r = httpx.post(f"{url}/graphql", json={"query": "{ games { id } }"}, timeout=10)
            assert r.status_code == 200
            sent += 1
        assert len(_queries_by_worker(tmp_path / "metrics")) == 2
        for _ in range(4):  # whichever worker answers the scrape, it counts both
            text = httpx.get(f"{url}/metrics", timeout=10).text
            assert _total(text, "tablestate_requests_total", 'type="query"') == sent
        assert "process_resident_memory_bytes" in text
        assert "python_gc_collections_total" in text
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
