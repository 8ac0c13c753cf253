"""bench/profile_move.py: py-spy's samples of a server under phase A, by layer.

The attribution is checked on stacks written here in py-spy's raw format; the quick run
(300 moves against a real server) checks that the script prints well-formed figures. The run
needs py-spy (the test extra) and node: without them it is skipped, and fails when ``CI`` is set.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(
        "bench_profile_move", ROOT / "bench" / "profile_move.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_profile_move"] = module
    spec.loader.exec_module(module)
    return module


def test_samples_go_to_the_innermost_known_layer(tmp_path):
    pm = _module()
    raw = tmp_path / "move.raw"
    raw.write_text(
        "run (asyncio/runners.py:118);execute (graphql/execution/executor.py:10);"
        "make_move (service/api/schema.py:5);move (service/tables.py:456);"
        "commit (service/store/redis.py:283);dumps (json/__init__.py:231) 3\n"
        "run (asyncio/runners.py:118);apply (tablestate_bench/__init__.py:40) 2\n"
        "run (asyncio/runners.py:118);send (uvicorn/protocols/websockets/impl.py:506) 4\n"
        "run (asyncio/runners.py:118) 1\n"
        "<module> (sitecustomize.py:1) 1\n"
        "not a stack line\n"
    )
    stacks = pm.read_raw(raw)
    assert sum(stacks.values()) == 11
    assert pm.by_layer(stacks) == {
        "WebSocket/HTTP (uvicorn, websockets, starlette)": 4,
        "JSON encode/decode": 3,
        "game rules (plugin)": 2,
        "asyncio event loop (and uvloop's C: I/O, callbacks)": 1,
        pm.OTHER: 1,
    }
    inc = pm.inclusive(stacks)
    assert inc["asyncio event loop (and uvloop's C: I/O, callbacks)"] == 10
    assert inc["GraphQL (strawberry, graphql-core, service/api)"] == 3
    assert inc["Redis client (redis-py, service/store)"] == 3
    assert inc["table service (service/tables, bots)"] == 3
    assert pm.top_functions(Counter(stacks), 1) == [
        ("send (uvicorn/protocols/websockets/impl.py:506)", 4)
    ]


def test_quick_profile_run(tmp_path):
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    missing = [t for t in ("node", "redis-server") if shutil.which(t) is None]
    if not Path(spy).exists():
        missing.append("py-spy")
    if not (ROOT / "bench" / "peers" / "node_modules" / "graphql-ws").is_dir():
        missing.append("npm ci --prefix bench/peers")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the profile smoke test: missing {missing}")
        pytest.skip(f"missing {missing}")
    out = tmp_path / "profile.jsonl"
    env = {**os.environ, "PATH": f"{Path(spy).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}  # fmt: skip
    cmd = [sys.executable, str(ROOT / "bench" / "profile_move.py"), "--quick", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    line = json.loads(out.read_text())
    assert line["moves"] == 300 and line["latency"]["n"] == 300
    assert line["samples"] > 0
    assert abs(sum(line["layers_pct"].values()) - 100) < 1
    assert set(line["cpu_us_per_move"]) >= {"redis-server"}
    assert "| layer |" in done.stdout
