"""The archive's engine: URLs, connection settings and what counts as "try again".

Shared by ``db.py`` and the migrations' ``env.py``, so that both talk to the database the
same way: SQLite writers take the write lock when their transaction begins, and a server
that does not answer is given up on within seconds.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

CONNECT_TIMEOUT: Final = 5
"""Seconds to wait for a PostgreSQL server to accept a connection."""

BUSY_TIMEOUT: Final = 10.0
"""Seconds a SQLite writer waits for another one to finish before "database is locked"."""

READ_ONLY: Final = "archive_read_only"
"""Execution option of a connection whose transactions only read: on SQLite they begin
deferred, so that they never wait for a writer (WAL lets readers and a writer overlap)."""

DRIVERS: Final = {"postgres": "postgresql+psycopg", "postgresql": "postgresql+psycopg"}


class ArchiveUnavailable(Exception):
    """The database cannot be reached (or refused for a reason that retrying may cure)."""


def database_url(url: str) -> str:
    """The SQLAlchemy URL of a user's DATABASE_URL: postgres:// and postgresql:// become
    postgresql+psycopg://, sqlite:///path becomes sqlite+aiosqlite:///path; a URL naming a
    driver already is kept. ValueError for any other scheme."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    dialect, plus, _driver = scheme.partition("+")
    if dialect not in ("postgres", "postgresql", "sqlite"):
        raise ValueError(f"unsupported database {scheme!r}: use postgresql:// or sqlite:///")
    if plus:
        return url
    driver = DRIVERS.get(dialect, "sqlite+aiosqlite")
    return f"{driver}://{rest}"


def parse(url: str) -> URL:
    """The SQLAlchemy URL of a user's URL (see ``database_url``)."""
    return make_url(database_url(url))


def create_engine(url: URL) -> AsyncEngine:
    """An async engine on ``url`` (a SQLAlchemy URL naming its driver)."""
    if url.get_backend_name() == "sqlite":
        engine = create_async_engine(url, connect_args={"timeout": BUSY_TIMEOUT})
        _sqlite_transactions(engine)
        return engine
    return create_async_engine(
        url,
        connect_args={"connect_timeout": CONNECT_TIMEOUT},
        # A connection the server dropped (a restart, a failover) is replaced, not reported.
        pool_pre_ping=True,
    )


def _sqlite_transactions(engine: AsyncEngine) -> None:
    # The sqlite3 module begins a transaction only before a write, so two writers could
    # both read before either writes (and DDL would run outside any transaction). The
    # driver is told to leave transactions alone, and each one begins here instead:
    # IMMEDIATE takes the write lock at once, so writers queue, and a read-only one does
    # not (SQLAlchemy's documented recipe for pysqlite and aiosqlite).
    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: object) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Connection) -> None:
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def retryable(error: BaseException) -> bool:
    """Whether ``error`` means the database cannot be reached now, or refused for a reason
    that retrying may cure (a lock, a serialization failure, a deadlock, a timeout)."""
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True
    # OSError and TimeoutError: a socket's own, where the driver lets them through.
    return isinstance(
        error, exc.OperationalError | exc.InterfaceError | exc.TimeoutError | TimeoutError | OSError
    )
