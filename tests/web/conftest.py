"""The real service for the client tests: ``tablestate serve`` (uvicorn) in a subprocess on a
free port, with the memory store; and the Node.js tools the JavaScript tests need.

Without Node.js, the npm packages of ``tests/node`` or Chromium, these tests fail when ``CI``
is set and are skipped otherwise (``scripts/test`` installs all of them)."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from support.server import free_port

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "node"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The lobby shows the bundled games only (the test suite's example plugins are installed too).
EXAMPLE_PLUGINS = (
    "lucky-draw,lucky-draw.allow-pass,lucky-draw.double-evens,lucky-draw.odd-bonus,"
    "tic-tac-toe,liars-dice"
)


def missing(what: str) -> None:
    """Fail in CI, skip elsewhere: a client test never passes by not running."""
    message = f"{what} (scripts/test installs it)"
    if os.environ.get("CI"):
        pytest.fail(f"CI needs {message}")
    pytest.skip(f"missing {message}")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@contextlib.contextmanager
def serve(port: int, log_path: Path, **settings: str) -> Iterator[str]:
    """``python -m tablestate.cli serve`` on ``port`` (memory store) until the block ends; its
    output is appended to ``log_path``. ``settings`` add to or replace its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    env.pop("REDIS_URL", None)
    env.update(
        TABLESTATE_SECRET="web-test-secret",
        TABLESTATE_DISABLE=EXAMPLE_PLUGINS,
        TABLESTATE_LOG_LEVEL="warning",
        PYTHONUNBUFFERED="1",
    )
    env.update(settings)
    log = log_path.open("a")
    cmd = [
        sys.executable,
        "-m",
        "tablestate.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, f"the server exited; see {log_path}"
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start in 30 s"
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def serve_at() -> Callable[[int, Path], contextlib.AbstractContextManager[str]]:
    """``serve`` itself, for a test that stops and starts a server of its own."""
    return serve


@pytest.fixture(scope="session")
def server_url(artifacts: Path) -> Iterator[str]:
    """The service on a free port, until the session ends."""
    log = artifacts / "server.log"
    log.write_text("")
    with serve(free_port(), log) as url:
        yield url


@pytest.fixture(scope="session")
def node() -> str:
    """The ``node`` executable, with ``tests/node``'s packages installed (``npm ci``)."""
    found = shutil.which("node")
    if found is None:
        missing("Node.js (node)")
    if not (NODE_DIR / "node_modules" / "graphql-ws").is_dir():
        missing("the npm packages of tests/node (cd tests/node && npm ci)")
    return str(found)


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's Chromium, which Playwright drives by its path (no browser download)."""
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"Chromium at {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(scope="session")
def run_node(node: str) -> Callable[..., None]:
    return functools.partial(_run_node_tests, node)


def _run_node_tests(node: str, test_file: str, env: dict[str, str], timeout: float) -> None:
    """``node --test FILE`` in tests/node; fails with its report when any test fails."""
    full_env = {**os.environ, **env}
    proc = subprocess.run(
        [node, "--test", "--test-reporter=spec", test_file],
        cwd=NODE_DIR,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report = proc.stdout + proc.stderr
    print(report)
    assert proc.returncode == 0, f"node --test {test_file} failed:\n{report[-6000:]}"
    # The runner's closing summary: something passed, nothing failed.
    assert re.search(r"^\S+ pass [1-9]", report, re.M), report[-3000:]
    assert re.search(r"^\S+ fail 0$", report, re.M), report[-3000:]
