"""A real PostgreSQL for the tests, found in this order: the ``TEST_DATABASE_URL`` environment
variable (a server of the user's: the tests create their own databases in it and drop them);
a testcontainer (only when a Docker engine answers); a server of our own, started from the
system's binaries (installed with apt-get if missing and possible) in a temporary folder, on
a free port of 127.0.0.1, and removed at the end."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit
from uuid import uuid4

import psycopg
import pytest
from redis_server import apt_get_said, free_port, owned_server

IMAGE = "postgres:16-alpine"
USER = "postgres"  # the system user that runs our own server when the tests run as root
# Durability is of no use to a server that is deleted at the end.
FAST = ("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")


class NoPostgres(Exception):
    """No PostgreSQL could be had; the message says what was tried."""


@dataclass(frozen=True)
class PostgresHandle:
    url: str  # postgresql://..., to the server's maintenance database
    owned: bool  # started by the tests: nobody else uses it


def wait_for_connect(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _bindir(candidate: str | None) -> str | None:
    if candidate and all(os.access(Path(candidate, b), os.X_OK) for b in ("initdb", "pg_ctl")):
        return candidate
    return None


def _version(path: str) -> tuple[int, ...]:
    name = Path(path).parent.name
    return tuple(int(p) for p in name.split(".") if p.isdigit())


def find_bindir() -> str | None:
    """The folder of ``initdb`` and ``pg_ctl``: ``pg_config --bindir``, else the newest
    ``/usr/lib/postgresql/*/bin``."""
    if shutil.which("pg_config"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(
                ["pg_config", "--bindir"], capture_output=True, text=True, check=False
            )
            if found := _bindir(done.stdout.strip() or None):
                return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True):
        if found := _bindir(folder):
            return found
    return None


def install_postgres() -> str | None:
    found = find_bindir()
    if found or not shutil.which("apt-get"):
        return found
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["apt-get", "install", "-y", "postgresql"],
            capture_output=True,
            timeout=600,
            check=False,
        )
    return find_bindir()


def _as_owner(args: list[str]) -> list[str]:
    # initdb refuses to run as root; the server then belongs to the postgres user.
    return ["runuser", "-u", USER, "--", *args] if os.geteuid() == 0 else args


def _owner_exists() -> bool:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return False
    return shutil.which("runuser") is not None


@contextlib.contextmanager
def postgres_process(bindir: str) -> Iterator[str]:
    """A PostgreSQL of our own, trusting local connections, stopped and removed at exit."""
    workdir = Path(tempfile.mkdtemp(prefix="tablestate-pg-"))
    data, log = workdir / "data", workdir / "pg.log"
    try:
        if os.geteuid() == 0:
            shutil.chown(workdir, user=USER, group=None)
        initdb = [f"{bindir}/initdb", "-D", str(data), "-U", "postgres", "-A", "trust"]
        done = subprocess.run(
            _as_owner([*initdb, "-E", "UTF8", "--no-locale", "--no-sync"]),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise NoPostgres(f"initdb failed: {done.stderr.strip()[-2000:]}")
        pg_ctl = f"{bindir}/pg_ctl"
        for _ in range(3):  # the free port may be taken by someone else meanwhile
            port = free_port()
            options = ["-p", str(port), "-h", "127.0.0.1", "-k", str(workdir), *FAST]
            start = [pg_ctl, "start", "-D", str(data), "-l", str(log), "-W"]
            subprocess.run(
                _as_owner([*start, "-o", " ".join(options)]), capture_output=True, check=False
            )
            url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
            try:
                wait_for_connect(url)
            except psycopg.OperationalError:
                _stop(pg_ctl, data)
                continue
            try:
                yield url
            finally:
                _stop(pg_ctl, data)
            return
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise NoPostgres(f"PostgreSQL did not accept connections; its log ends with:\n{tail}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _stop(pg_ctl: str, data: Path) -> None:
    subprocess.run(
        _as_owner([pg_ctl, "stop", "-D", str(data), "-m", "immediate", "-w", "-t", "30"]),
        capture_output=True,
        check=False,
    )


@contextlib.contextmanager
def _container() -> Iterator[str]:
    from testcontainers.community.postgres import PostgresContainer

    with PostgresContainer(IMAGE, driver=None) as container:
        url = container.get_connection_url()
        wait_for_connect(url)
        yield url


@contextlib.contextmanager
def provide_postgres(environ: dict[str, str] | None = None) -> Iterator[PostgresHandle]:
    """Yield a PostgreSQL the tests may use; raise ``NoPostgres`` if there is none."""
    environ = dict(os.environ) if environ is None else environ
    if environ.get("TEST_DATABASE_URL"):
        yield PostgresHandle(environ["TEST_DATABASE_URL"], owned=False)
        return

    def local(tried: list[str]) -> contextlib.AbstractContextManager[str]:
        bindir = install_postgres()
        if bindir is None:
            where = "pg_config --bindir, /usr/lib/postgresql"
            tried.append(f"no initdb/pg_ctl ({where}) and {apt_get_said()}")
            raise NoPostgres("; ".join(tried))
        if os.geteuid() == 0 and not _owner_exists():
            tried.append(f"initdb refuses root, and there is no {USER} user or no runuser")
            raise NoPostgres("; ".join(tried))
        return postgres_process(bindir)

    with owned_server(_container, local) as url:
        yield PostgresHandle(url, owned=True)


@contextlib.contextmanager
def archive_database(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """``archive_url``'s database of ``kind`` ("sqlite" or "postgresql")."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.db'}"
        return
    handle: PostgresHandle = request.getfixturevalue("postgres_handle")
    with fresh_database(handle.url, "t_") as url:
        yield url


@contextlib.contextmanager
def fresh_database(server_url: str, prefix: str) -> Iterator[str]:
    """A new database on the server of ``server_url`` (named ``prefix`` and a random part),
    as a URL; dropped at the end."""
    name = f"{prefix}{uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
