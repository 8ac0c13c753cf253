"""OpenTelemetry spans (``TABLESTATE_TRACING``): a move's steps and its store calls in the
trace its HTTP request's ``traceparent`` names; and nothing of OpenTelemetry when off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.lucky import MOVE, TABLE, open_table
from support.server import make_settings, serve

from tablestate import tracing
from tablestate.config import ConfigError, Settings
from tablestate.store.memory import MemoryStore

ROOT = Path(__file__).resolve().parents[3]
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


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
            body = {"query": MOVE, "variables": {"t": t.table_id, "m": move}}
            r = await c.http.post("/graphql", json=body, headers=headers)
            assert "errors" not in r.json(), r.json()
        finally:
            tracing.configure("off")
    found = [s for s in spans.get_finished_spans() if f"{s.context.trace_id:032x}" == TRACE]
    by_name = {s.name: s for s in found}
    server = by_name["POST /graphql"]
    assert f"{server.parent.span_id:016x}" == PARENT  # the caller's span is its parent
    commit = by_name["tablestate.commit"]
    assert commit.attributes["tablestate.kind"] == "move"
    steps = [s.name for s in found if s.parent and s.parent.span_id == commit.context.span_id]
    assert steps == ["load", "rules", "write", "fan_out"], steps
    stores = [s for s in found if s.name == "tablestate.store"]
    assert "commit" in {s.attributes["op"] for s in stores}


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
