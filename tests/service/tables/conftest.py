"""The table service's tests with an archive: each store kind is paired with one database
(the memory store with SQLite, as the embedded default; Redis with PostgreSQL, as in
production), rather than every store with every database: the archive's own contract runs
on both databases (tests/archive), and these tests are about what lies between."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pg_server import archive_database

PAIRED = {"memory": "sqlite", "redis": "postgresql"}


@pytest.fixture
def archive_url(store_kind: str, request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with archive_database(PAIRED[store_kind], request, tmp_path) as url:
        yield url
