"""OpenTelemetry spans (``TABLESTATE_TRACING``): a move's steps and its store calls in the
trace its HTTP request's ``traceparent`` names; and nothing of OpenTelemetry when off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from support.lucky import MOVE, TABLE, open_table
from support.server import make_settings, serve

from tablestate import tracing
from tablestate.config import ConfigError, Settings
from tablestate.store.memory import MemoryStore
from tablestate.store.redis import RedisStore

ROOT = Path(__file__).resolve().parents[3]
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
HTTP_ATTRIBUTES = (
    "http.request.method",
    "http.route",
    "url.path",
    "url.scheme",
    "http.response.status_code",
)
TABLE_OF = "query($t: ID!) { table(id: $t) { id } }"
START_NONE = 'mutation { startGame(tableId: "nope") { id } }'


async def test_a_move_is_traced_step_by_step_in_its_callers_trace(registry):
    spans = InMemorySpanExporter()
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2)
        token, move = None, None
        for tok in t.tokens.values():
            moves = (await c.q(TABLE, tok, t=t.table_id))["table"]["legalMoves"]
            if moves:
                token, move = tok, moves[0]
        tracing.configure("console", exporter=spans)  # the app turned it off: on for now
        try:
            headers = {
                "traceparent": f"00-{TRACE}-{PARENT}-01",
                "authorization": f"Bearer {token}",
            }
            named = MOVE.replace("mutation(", "mutation Move(", 1)
            body = {"query": named, "variables": {"t": t.table_id, "m": move}}
            r = await c.http.post("/graphql", json=body, headers=headers)
            assert "errors" not in r.json(), r.json()
        finally:
            tracing.configure("off")
    found = [s for s in spans.get_finished_spans() if f"{s.context.trace_id:032x}" == TRACE]
    by_name = {s.name: s for s in found}
    server = by_name["POST /graphql"]
    assert f"{server.parent.span_id:016x}" == PARENT  # the caller's span is its parent
    assert server.kind is SpanKind.SERVER and server.status.status_code is StatusCode.UNSET
    assert {k: server.attributes[k] for k in HTTP_ATTRIBUTES} == {
        "http.request.method": "POST",
        "http.route": "/graphql",
        "url.path": "/graphql",
        "url.scheme": "http",
        "http.response.status_code": 200,
    }
    assert server.attributes["graphql.operation.type"] == "mutation"
    assert server.attributes["graphql.operation.name"] == "Move"
    commit = by_name["tablestate.commit"]
    assert commit.attributes["tablestate.kind"] == "move"
    steps = [s.name for s in found if s.parent and s.parent.span_id == commit.context.span_id]
    assert steps == ["load", "rules", "write", "fan_out"], steps
    stores = [s for s in found if s.kind is SpanKind.CLIENT]
    assert "commit" in {s.name for s in stores}
    assert all(s.attributes["db.operation.name"] == s.name for s in stores)
    assert not any("db.system" in s.attributes for s in stores)  # the memory store: no database


@pytest.mark.redis
async def test_store_calls_name_redis_and_a_graphql_error_is_an_error(
    registry, redis_url, redis_prefix
):
    spans = InMemorySpanExporter()
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    async with serve(make_settings(), registry, store) as c:
        t = await open_table(c, humans=2)
        tracing.configure("console", exporter=spans)
        try:
            r = await c.http.post(
                "/graphql", json={"query": TABLE_OF, "variables": {"t": t.table_id}}
            )
            assert "errors" not in r.json()
            r = await c.http.post("/graphql", json={"query": START_NONE})
            assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        finally:
            tracing.configure("off")
    finished = spans.get_finished_spans()
    loads = [s for s in finished if s.kind is SpanKind.CLIENT]
    assert loads and all(s.attributes["db.system"] == "redis" for s in loads)
    assert all(s.attributes["db.system.name"] == "redis" for s in loads)
    servers = [s for s in finished if s.kind is SpanKind.SERVER]
    good, bad = servers[0], servers[-1]
    assert good.status.status_code is StatusCode.UNSET
    assert good.attributes["graphql.operation.type"] == "query"
    assert "graphql.operation.name" not in good.attributes  # an anonymous operation
    assert (
        bad.status.status_code is StatusCode.ERROR and bad.status.description == "UNAUTHENTICATED"
    )
    assert bad.attributes["error.type"] == "UNAUTHENTICATED"
    assert bad.attributes["http.response.status_code"] == 200


def test_tracing_off_imports_nothing_of_opentelemetry():
    code = """
import sys
from starlette.testclient import TestClient
from tablestate.app import create_app
from tablestate.config import Settings
with TestClient(create_app(Settings(secret=b"x"))) as client:
    made = client.post("/graphql", json={"query": 'mutation { createTable(gameId: "lucky-draw", seats: 2) { table { id } } }'})
    assert "errors" not in made.json(), made.json()
loaded = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
assert not loaded, loaded
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_setting_is_checked():
    assert Settings.from_env({}).tracing == "off"
    assert Settings.from_env({"TABLESTATE_TRACING": "OTLP"}).tracing == "otlp"
    with pytest.raises(ConfigError, match="TABLESTATE_TRACING"):
        Settings.from_env({"TABLESTATE_TRACING": "jaeger"})
