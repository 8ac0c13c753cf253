"""A real Redis for the tests, found in this order: the ``REDIS_URL`` environment variable;
a testcontainer (only when a Docker engine answers); a ``redis-server`` of our own, on a
free port in a temporary directory (installed with apt-get if missing and possible)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

IMAGE = "redis:7.4-alpine"


class NoRedis(Exception):
    """No Redis could be had; the message says what was tried."""


@dataclass(frozen=True)
class RedisHandle:
    url: str
    owned: bool  # started by the tests: nobody else uses it, clients may be killed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_ping(url: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            if client.ping():
                return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
        finally:
            client.close()


def find_redis_server() -> str | None:
    found = shutil.which("redis-server")
    if found or not shutil.which("apt-get"):
        return found
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["apt-get", "install", "-y", "redis-server"],
            capture_output=True,
            timeout=600,
            check=False,
        )
    return shutil.which("redis-server")


def docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, timeout=15, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@contextlib.contextmanager
def redis_server_process(binary: str) -> Iterator[str]:
    """A ``redis-server`` with no persistence, killed (and its directory removed) at exit."""
    workdir = Path(tempfile.mkdtemp(prefix="tablestate-redis-"))
    try:
        for _ in range(3):  # the free port may be taken by someone else meanwhile
            port = free_port()
            with (workdir / "redis.log").open("ab") as logfile:
                args = ["--save", "", "--appendonly", "no", "--port", str(port)]
                args += ["--bind", "127.0.0.1", "--dir", str(workdir)]
                proc = subprocess.Popen(
                    [binary, *args],
                    stdout=logfile,
                    stderr=subprocess.STDOUT,
                )
            url = f"redis://127.0.0.1:{port}/0"
            try:
                wait_for_ping(url)
            except redis.RedisError:
                _stop(proc)
                continue
            try:
                yield url
            finally:
                _stop(proc)
            return
        log = (workdir / "redis.log").read_text(errors="replace")[-2000:]
        raise NoRedis(f"redis-server did not answer PING; its log ends with:\n{log}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def _container() -> Iterator[str]:
    from testcontainers.community.redis import RedisContainer

    with RedisContainer(IMAGE) as container:
        host = container.get_container_host_ip()
        url = f"redis://{host}:{container.get_exposed_port(6379)}/0"
        wait_for_ping(url)
        yield url


@contextlib.contextmanager
def provide_redis(environ: dict[str, str] | None = None) -> Iterator[RedisHandle]:
    """Yield a Redis the tests may use; raise ``NoRedis`` if there is none."""
    environ = dict(os.environ) if environ is None else environ
    if environ.get("REDIS_URL"):
        yield RedisHandle(environ["REDIS_URL"], owned=False)
        return

    def local(tried: list[str]) -> contextlib.AbstractContextManager[str]:
        binary = find_redis_server()
        if binary is None:
            tried.append(f"no redis-server on PATH and {apt_get_said()}")
            raise NoRedis("; ".join(tried))
        return redis_server_process(binary)

    with owned_server(_container, local) as url:
        yield RedisHandle(url, owned=True)


def apt_get_said() -> str:
    """Why a missing server was not installed, in words."""
    return "apt-get could not install it" if shutil.which("apt-get") else "no apt-get"


@contextlib.contextmanager
def owned_server(
    container: Callable[[], contextlib.AbstractContextManager[str]],
    local: Callable[[list[str]], contextlib.AbstractContextManager[str]],
) -> Iterator[str]:
    """The URL of a server of the tests' own: in a container where a Docker engine answers,
    else started here by ``local(tried)``, which raises its own error naming ``tried`` (what
    was tried before) when it cannot."""
    tried: list[str] = []
    with contextlib.ExitStack() as stack:
        url: str | None = None
        if docker_answers():
            try:
                url = stack.enter_context(container())
            except Exception as exc:  # any failure of Docker just means: try the next way
                tried.append(f"testcontainers: {exc}")
        else:
            tried.append("no Docker engine answers `docker info`")
        if url is None:
            url = stack.enter_context(local(tried))
        yield url
