"""Real ``tablestate serve`` processes for the system tests, and a Redis of their own."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import redis

from support.server import free_port

SECRET = "system-test-secret"


class Replica:
    """One ``tablestate serve`` process on a free port."""

    def __init__(self, env: dict[str, str], port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/graphql"
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self._log = tempfile.TemporaryFile()

    def start(self, wait: bool = True) -> Replica:
        cmd = [sys.executable, "-m", "tablestate.cli", "serve", "--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=self._log, stderr=self._log)
        if wait:
            self.wait_up()
        return self

    def wait_up(self, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            assert self.proc is not None and self.proc.poll() is None, self.log()
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"replica on {self.port} did not come up: {self.log()}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def term(self, wait: bool = True) -> int | None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(20) if wait else None

    def log(self, tail: int = 4000) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-tail:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


def replica_env(redis_url: str, prefix: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    env.update(
        REDIS_URL=redis_url,
        TABLESTATE_SECRET=SECRET,
        TABLESTATE_REDIS_PREFIX=prefix,
        TABLESTATE_REDIS_TIMEOUT="1.0",
        TABLESTATE_LOG_LEVEL="warning",
    )
    env.update(extra)
    return env


@contextlib.contextmanager
def replicas(env: dict[str, str], n: int) -> Iterator[list[Replica]]:
    started = [Replica(env).start(wait=False) for _ in range(n)]
    try:
        for r in started:
            r.wait_up()
        yield started
    finally:
        for r in started:
            r.stop()


def cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free and valid too."""
    for _ in range(100):
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


class RedisProcess:
    """A redis-server of the test's own, in a folder that survives its restarts."""

    def __init__(self, folder: Path, *args: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.folder = folder
        self.args = args
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisProcess:
        cmd = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.folder), "--save", "", *self.args,
        ]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            for _ in range(250):
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server on port {self.port} exited at start")
                try:
                    if client.ping():
                        return self
                except (redis.ConnectionError, redis.TimeoutError):
                    time.sleep(0.02)
            raise RuntimeError(f"redis-server on port {self.port} did not answer")
        finally:
            client.close()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
