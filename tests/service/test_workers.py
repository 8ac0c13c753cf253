"""``tablestate serve --workers N``: the supervisor hands every connection of one table to
one worker (the routing key ``?table=ID``), the others in turn, and starts a dead worker
again. Which worker served a request is read from the workers' own metrics files
(prometheus_client's multiprocess mode: one file per worker process)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.workers import queries_by_worker, serve_workers
from websockets.sync.client import connect

from tablestate.workers import route_key, worker_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("head", "key"),
    [
        (b"GET /graphql?table=T1 HTTP/1.1\r\nHost: x\r\n\r\n", b"T1"),
        (b"POST /graphql?x=1&table=abc%2Fd&y=2 HTTP/1.1\r\n", b"abc/d"),
        (b"GET /graphql?tables=T1&table= HTTP/1.1\r\n", None),
        (b"GET /graphql HTTP/1.1\r\n", None),
        (b"GET /graphql?table=T1 HTTP/1.1", b"T1"),  # the line whole, its end still coming
        (b"\x16\x03\x01\x02\x00", None),  # a TLS hello: no request line at all
        (b"GET /graphql?table=T1\r\n", None),  # not HTTP/1.x
    ],
)
def test_route_key_reads_the_table_parameter_of_the_request_line(head, key):
    assert route_key(head) == key


def test_a_table_id_has_one_worker_and_ids_spread_over_all():
    ids = [f"t{i}".encode() for i in range(400)]
    for count in (2, 3, 8):
        chosen = [worker_of(i, count) for i in ids]
        assert chosen == [worker_of(i, count) for i in ids]
        assert set(chosen) == set(range(count))


def _wait(what: str, check, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.05)


@pytest.fixture
def served(redis_url, redis_prefix, tmp_path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``tablestate serve --workers 2`` on Redis: (its URL, its process)."""
    with serve_workers(redis_url, redis_prefix, tmp_path) as running:
        yield running


def _query(url: str, path: str = "/graphql") -> None:
    """One query on a connection of its own."""
    r = httpx.post(f"{url}{path}", json={"query": "{ games { id } }"}, timeout=10)
    assert r.status_code == 200 and r.json()["data"]["games"], r.text


def _both_serving(url: str, folder: Path) -> dict[int, float]:
    """Without a key, connections go to the workers in turn: both serve some."""
    for _ in range(4):
        _query(url)
    return _wait("both workers to serve", lambda: (c := queries_by_worker(folder)) and
                 len(c) == 2 and all(c.values()) and c)  # fmt: skip


@pytest.mark.redis
def test_every_connection_of_a_table_reaches_one_worker(served, tmp_path):
    url, _ = served
    folder = tmp_path / "metrics"
    before = _both_serving(url, folder)
    for table in ("T-one", "T-two", "T-three", "T-four"):
        start = queries_by_worker(folder)
        for _ in range(6):
            _query(url, f"/graphql?table={table}")
        grown = {pid: n - start.get(pid, 0) for pid, n in queries_by_worker(folder).items()}
        assert sorted(grown.values()) == [0, 6], (table, grown)
    assert set(queries_by_worker(folder)) == set(before)


@pytest.mark.redis
def test_a_subscription_with_the_routing_key_is_served(served):
    url, _ = served
    ws_url = url.replace("http://", "ws://") + "/graphql?table=T-sub"
    with connect(ws_url, subprotocols=["graphql-transport-ws"], open_timeout=10) as ws:  # type: ignore[list-item]
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(ws.recv(10))["type"] == "connection_ack"
        ws.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "{ games { id } }"}})
        )
        answer = json.loads(ws.recv(10))
        assert answer["type"] == "next" and answer["payload"]["data"]["games"]


@pytest.mark.redis
def test_a_dead_worker_is_started_again_and_its_tables_served_meanwhile(served, tmp_path):
    url, proc = served
    folder = tmp_path / "metrics"
    start = _both_serving(url, folder)
    _query(url, "/graphql?table=T-victim")
    victim = next(pid for pid, n in queries_by_worker(folder).items() if n > start[pid])
    os.kill(victim, signal.SIGKILL)
    _wait("the worker to die", lambda: not Path(f"/proc/{victim}").exists() or
          "zombie" in Path(f"/proc/{victim}/status").read_text())  # fmt: skip
    _query(url, "/graphql?table=T-victim")  # served by the other worker meanwhile
    _wait("a new worker", lambda: len(queries_by_worker(folder)) == 3 or _query(url))
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
