"""Alembic's environment for the archive: the async engine of ``tablestate.archive``.

``Archive.migrate`` runs Alembic's ``upgrade`` in a thread with the database's URL in
``config.attributes["url"]``. Two processes may migrate at once (replicas starting
together): each migration runs in one transaction, which on PostgreSQL first takes an
advisory lock and on SQLite begins IMMEDIATE (the write lock), so the second one waits,
then finds the schema up to date and does nothing.
"""

from __future__ import annotations

import asyncio
from typing import Final

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from tablestate.archive._engine import create_engine, parse
from tablestate.archive._tables import metadata

VERSION_TABLE: Final = "archive_version"
LOCK_KEY: Final = 0x7461626C65  # "table": the advisory lock of this schema's migrations


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        # SQLite's DDL is transactional too: one transaction for the whole upgrade.
        transactional_ddl=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Released with the transaction.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        context.run_migrations()


async def run_async_migrations(url: str) -> None:
    engine = create_engine(parse(url))
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


url = context.config.attributes.get("url") or context.config.get_main_option("sqlalchemy.url")
if not url:
    raise RuntimeError("no database URL: set config.attributes['url']")
asyncio.run(run_async_migrations(url))
