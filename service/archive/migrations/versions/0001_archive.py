"""The archive: finished tables, their seats, players' ratings and each table's changes.

Revision ID: 0001
Revises:
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "archive_tables",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("host_user", sa.String(64), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("finished_at", sa.Double(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("snapshot", sa.Text(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_archive_tables"),
    )
    op.create_index(
        "ix_archive_tables_host", "archive_tables", ["host_user", "created_at", "table_id"]
    )
    op.create_table(
        "archive_seats",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["archive_tables.table_id"], name="fk_archive_seats_table_id"
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_archive_seats"),
    )
    op.create_index("ix_archive_seats_user", "archive_seats", ["user_id", "created_at", "table_id"])
    op.create_table(
        "archive_ratings",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("ordinal", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint(
            "game_id", "variant", "kind", "player_id", name="pk_archive_ratings"
        ),
    )
    op.create_index(
        "ix_archive_ratings_board",
        "archive_ratings",
        ["game_id", "variant", "kind", sa.text("ordinal DESC"), "player_id"],
    )
    op.create_table(
        "archive_rating_changes",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("mu_before", sa.Double(), nullable=False),
        sa.Column("sigma_before", sa.Double(), nullable=False),
        sa.Column("mu_after", sa.Double(), nullable=False),
        sa.Column("sigma_after", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["archive_tables.table_id"], name="fk_archive_rating_changes_table_id"
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_archive_rating_changes"),
    )


def downgrade() -> None:
    op.drop_table("archive_rating_changes")
    op.drop_index("ix_archive_ratings_board", table_name="archive_ratings")
    op.drop_table("archive_ratings")
    op.drop_index("ix_archive_seats_user", table_name="archive_seats")
    op.drop_table("archive_seats")
    op.drop_index("ix_archive_tables_host", table_name="archive_tables")
    op.drop_table("archive_tables")
