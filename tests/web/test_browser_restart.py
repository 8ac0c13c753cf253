"""The web client when the server restarts under it (tests/node/browser-restart.test.mjs):
a server of its own on a free port, stopped and started again when the Node test asks
(through files in a temporary folder), so that its memory store forgets the table a page
is playing at."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from support.server import free_port

NODE_DIR = Path(__file__).resolve().parents[1] / "node"


def test_web_client_when_the_server_restarts(node, chromium, artifacts, serve_at, tmp_path: Path):
    serve = serve_at
    port = free_port()
    log_path = artifacts / "server-restart.log"
    log_path.write_text("")
    report = tmp_path / "report.txt"
    server = serve(port, log_path)
    url = server.__enter__()
    proc = None
    try:
        env = {
            **os.environ,
            "TABLESTATE_URL": url,
            "TABLESTATE_ARTIFACTS": str(artifacts),
            "TABLESTATE_RESTART_DIR": str(tmp_path),
            "CHROMIUM": chromium,
        }
        cmd = [node, "--test", "--test-reporter=spec", "browser-restart.test.mjs"]
        with report.open("w") as out:
            proc = subprocess.Popen(
                cmd, cwd=NODE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 180
        while proc.poll() is None:
            assert time.monotonic() < deadline, "the restart test did not end in 180 s"
            if (tmp_path / "stop").exists() and not (tmp_path / "stopped").exists():
                server.__exit__(None, None, None)
                server = None
                (tmp_path / "stopped").touch()
            if (tmp_path / "start").exists() and not (tmp_path / "started").exists():
                server = serve(port, log_path)
                server.__enter__()
                (tmp_path / "started").touch()
            time.sleep(0.05)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        if server is not None:
            server.__exit__(None, None, None)
    text = report.read_text()
    print(text)
    assert proc.returncode == 0, text[-6000:]
    assert re.search(r"^\S+ pass 1$", text, re.M), text[-3000:]
