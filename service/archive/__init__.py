"""The archive of finished tables and the players' ratings, in a relational database
(PostgreSQL, or a SQLite file for one process): ``db.Archive``. Its schema is migrated by
Alembic (``migrations/``; ``tablestate migrate``)."""

from __future__ import annotations
