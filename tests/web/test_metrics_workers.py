"""``tablestate serve --workers 2`` on Redis: a scrape of ``/metrics``, whichever worker
answers it, counts every worker's requests (prometheus_client's multiprocess mode), and
has the process and garbage-collector metrics."""

from __future__ import annotations

import re

import httpx
import pytest
from support.workers import queries_by_worker, serve_workers

MAX_REQUESTS = 400


def _total(text: str, name: str, label: str) -> float:
    found = re.search(rf"^{name}\{{{label}\}} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


@pytest.mark.redis
def test_a_scrape_counts_both_workers(redis_url, redis_prefix, tmp_path):
    with serve_workers(redis_url, redis_prefix, tmp_path) as (url, _):
        # every request on a connection of its own, until both workers have served some
        sent = 0
        while sent < 10 or not all(queries_by_worker(tmp_path / "metrics").values()):
            assert sent < MAX_REQUESTS, queries_by_worker(tmp_path / "metrics")
            r = httpx.post(f"{url}/graphql", json={"query": "{ games { id } }"}, timeout=10)
            assert r.status_code == 200
            sent += 1
        assert len(queries_by_worker(tmp_path / "metrics")) == 2
        for _ in range(4):  # whichever worker answers the scrape, it counts both
            text = httpx.get(f"{url}/metrics", timeout=10).text
            assert _total(text, "tablestate_requests_total", 'type="query"') == sent
        assert "process_resident_memory_bytes" in text
        assert "python_gc_collections_total" in text
