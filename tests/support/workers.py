"""``tablestate serve --workers N`` on Redis in a subprocess, and which worker served what:
each worker's count of queries, read from its own metrics file (prometheus_client's
multiprocess mode writes one file per worker process, named by its pid)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from prometheus_client.mmap_dict import MmapedDict

from support.server import free_port

ROOT = Path(__file__).resolve().parents[2]


def queries_by_worker(folder: Path) -> dict[int, float]:
    """Each worker's count of queries answered, by its pid."""
    counts = {}
    for path in folder.glob("counter_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        values = MmapedDict.read_all_values_from_file(str(path))
        counts[pid] = sum(
            v for key, v, *_ in values if "tablestate_requests_total" in key and "query" in key
        )
    return counts


@contextlib.contextmanager
def serve_workers(
    redis_url: str, redis_prefix: str, folder: Path, workers: int = 2
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The server, ready: (its URL, its process). Metrics go to ``folder``/metrics, its
    output to ``folder``/server.log; it is stopped with SIGTERM at the end."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLESTATE_", "PROMETHEUS"))}
    env.update(
        REDIS_URL=redis_url,
        TABLESTATE_REDIS_PREFIX=redis_prefix,
        TABLESTATE_SECRET="workers-test-secret",
        TABLESTATE_METRICS_DIR=str(folder / "metrics"),
        TABLESTATE_LOG_LEVEL="warning",
    )
    cmd = [sys.executable, "-m", "tablestate.cli", "serve", "--port", str(port), "--workers",
           str(workers)]  # fmt: skip
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (folder / "server.log").read_text()
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the workers did not start in 60 s"
            time.sleep(0.2)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()
