"""The archive's tables, as SQLAlchemy core metadata.

The first migration (``migrations/versions/0001_archive.py``) creates exactly these, and a
test compares the two, so a change here needs a new migration. Every index and constraint
is named: a migration can then drop or alter it by that name on every database.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

ID: Final = 64
"""The longest table id, user id or player id the archive keeps."""

metadata = MetaData(
    naming_convention={
        "pk": "pk_%(table_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ix": "ix_%(table_name)s_%(column_0_name)s",
    }
)

tables = Table(
    "archive_tables",
    metadata,
    Column("table_id", String(ID), primary_key=True),
    Column("game_id", String(ID), nullable=False),
    Column("status", String(16), nullable=False),
    Column("variant", Text, nullable=False),
    Column("host_user", String(ID)),
    Column("created_at", Double, nullable=False),
    Column("finished_at", Double, nullable=False),
    Column("version", Integer, nullable=False),
    Column("snapshot", Text, nullable=False),
    # JSON arrays of the JSON texts, so that each one comes back exactly as it was given.
    Column("events", Text, nullable=False),
    Column("moves", Text, nullable=False),
    # A host's tables, newest first (user_tables).
    Index("ix_archive_tables_host", "host_user", "created_at", "table_id"),
)

seats = Table(
    "archive_seats",
    metadata,
    Column("table_id", ForeignKey(tables.c.table_id), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("name", Text),
    Column("user_id", String(ID)),
    Column("score", Integer),
    # The table's created_at again, so that a user's tables, newest first, are one index scan.
    Column("created_at", Double, nullable=False),
    Index("ix_archive_seats_user", "user_id", "created_at", "table_id"),
)

ratings = Table(
    "archive_ratings",
    metadata,
    Column("game_id", String(ID), primary_key=True),
    Column("variant", Text, primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("player_id", String(ID), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    # mu - 3 * sigma, kept as a column of its own so that a leaderboard is an index scan.
    Column("ordinal", Double, nullable=False),
    # 0 only inside the transaction that rates a player for the first time (see record).
    Column("games", Integer, nullable=False),
    Column("updated_at", Double, nullable=False),
    # The name the player last sat under at a rated table of this game (shown beside it).
    Column("name", Text),
)
# A leaderboard: by ordinal descending, then player id ascending (an index scan, forward).
Index(
    "ix_archive_ratings_board",
    ratings.c.game_id,
    ratings.c.variant,
    ratings.c.kind,
    ratings.c.ordinal.desc(),
    ratings.c.player_id,
)

rating_changes = Table(
    "archive_rating_changes",
    metadata,
    Column("table_id", ForeignKey(tables.c.table_id), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("game_id", String(ID), nullable=False),
    Column("variant", Text, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("player_id", String(ID), nullable=False),
    Column("mu_before", Double, nullable=False),
    Column("sigma_before", Double, nullable=False),
    Column("mu_after", Double, nullable=False),
    Column("sigma_after", Double, nullable=False),
)
