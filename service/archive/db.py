"""The archive: finished tables and players' ratings, kept in a relational database.

The live store (Redis, or memory) forgets a finished table after a while; before it does,
the table is written here, whole, with one row per seat so that a user's tables can be
listed. Ratings are per game and variant, rated once per table: ``record`` archives a table
and rates it in one transaction, so two replicas archiving the same table at once archive
it once and rate it once.

SQLAlchemy's core on its async engine, PostgreSQL (psycopg) or SQLite (aiosqlite): both run
the same statements, and both are held to the same tests. The schema is Alembic's
(``migrate``); ``_tables.py`` describes it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, final

from sqlalchemy import Row, and_, func, or_, select, text, tuple_, union, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from tablestate import _json
from tablestate.archive import _migrations
from tablestate.archive._engine import (
    READ_ONLY,
    ArchiveUnavailable,
    create_engine,
    database_url,
    parse,
    retryable,
)
from tablestate.archive._records import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    ArchivedSeat,
    ArchivedTable,
    Player,
    Rater,
    Rating,
    RatingChange,
    Recorded,
    Standing,
)
from tablestate.archive._tables import rating_changes, ratings, seats, tables

__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "Archive",
    "ArchiveUnavailable",
    "ArchivedSeat",
    "ArchivedTable",
    "Player",
    "Rater",
    "Rating",
    "RatingChange",
    "Recorded",
    "Standing",
    "database_url",
]


@final
class Archive:
    """The archive on one database.

    Every method raises ``ArchiveUnavailable`` when the database cannot be reached, or
    refuses for a reason that retrying may cure (a lock, a serialization failure).
    """

    def __init__(self, url: str) -> None:
        """Args:
        url: a user's DATABASE_URL (see ``database_url``). Nothing is connected yet; for
            SQLite, the file's folder is created.
        """
        self._url = parse(url)
        self.dialect: str = self._url.get_backend_name()
        self._insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        path = self._url.database
        if self.dialect == "sqlite" and path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._engine = create_engine(self._url)

    async def migrate(self) -> None:
        """Bring the schema up to date (Alembic's ``upgrade head``)."""
        url = self._url.render_as_string(hide_password=False)
        async with self._reach():
            await asyncio.to_thread(_migrations.upgrade, url)

    async def ping(self) -> None:
        """Return when the database answers; raise ``ArchiveUnavailable`` otherwise."""
        async with self._begin(read_only=True) as conn:
            await conn.execute(text("SELECT 1"))

    async def record(
        self, table: ArchivedTable, standings: Sequence[Standing], rater: Rater | None
    ) -> Recorded:
        """Archive ``table`` and, the first time, rate it: one transaction.

        Args:
            table: the table as the live store holds it.
            standings: its seats as the ratings see them.
            rater: computes the new ratings; None: the table is not rated.

        Returns:
            ``first`` is False when the table was archived already: then only a higher
            version (or the same with more events) replaces its snapshot, events, moves
            and finish time, no rating changes, and ``changes`` are those stored the
            first time.
        """
        async with self._begin() as conn:
            inserted = await conn.execute(
                self._insert(tables)
                .values(_table_row(table))
                .on_conflict_do_nothing(index_elements=[tables.c.table_id])
                .returning(tables.c.table_id)
            )
            if inserted.first() is None:
                # A later version, or the same with more events (appended after the first
                # write: chat after the game, the ratings' own event): the log only grows.
                events = _json.dumps(list(table.events))
                newer = or_(
                    tables.c.version < table.version,
                    and_(
                        tables.c.version == table.version,
                        func.length(tables.c.events) < len(events),
                    ),
                )
                await conn.execute(
                    update(tables)
                    .where(tables.c.table_id == table.table_id, newer)
                    .values(
                        snapshot=table.snapshot,
                        events=events,
                        moves=_json.dumps(list(table.moves)),
                        version=table.version,
                        finished_at=table.finished_at,
                    )
                )
                return Recorded(False, await _changes(conn, table.table_id))
            if table.seats:
                await conn.execute(seats.insert(), [_seat_row(table, seat) for seat in table.seats])
            if rater is None or all(s.player is None for s in standings):
                return Recorded(True, ())
            return Recorded(True, await self._rate(conn, table, standings, rater))

    async def _rate(
        self,
        conn: AsyncConnection,
        table: ArchivedTable,
        standings: Sequence[Standing],
        rater: Rater,
    ) -> tuple[RatingChange, ...]:
        key = (table.game_id, table.variant)
        players = sorted({s.player for s in standings if s.player}, key=_player_key)
        now = time.time()
        # A row for each player first (games 0: "no rating yet", replaced below in this
        # transaction), so that every player's row can be locked, new or not; locked in
        # one order, so that two tables sharing players wait for each other, not deadlock.
        # SQLite has no row locks: its writers queue at BEGIN IMMEDIATE.
        await conn.execute(
            self._insert(ratings)
            .values([_rating_row(key, p, (DEFAULT_MU, DEFAULT_SIGMA), 0, now) for p in players])
            .on_conflict_do_nothing()
        )
        found = await conn.execute(
            select(ratings)
            .where(*_rating_key(key), or_(*(_is_player(p) for p in players)))
            .order_by(ratings.c.kind, ratings.c.player_id)
            .with_for_update()
        )
        current = {Player(r.kind, r.player_id): r for r in found}
        before = [_before(current[s.player]) if s.player else None for s in standings]
        after = list(rater(before, [s.rank for s in standings]))
        if len(after) != len(standings):
            raise ValueError(f"the rater gave {len(after)} ratings for {len(standings)} seats")
        changes: list[RatingChange] = []
        names = {s.index: s.name for s in table.seats}
        for standing, was, (mu, sigma) in zip(standings, before, after, strict=True):
            if standing.player is None:
                continue
            named = {"name": names[standing.seat]} if names.get(standing.seat) else {}
            await conn.execute(
                update(ratings)
                .where(*_rating_key(key), _is_player(standing.player))
                .values(
                    mu=mu,
                    sigma=sigma,
                    ordinal=mu - 3 * sigma,
                    games=ratings.c.games + 1,
                    updated_at=now,
                    **named,
                )
            )
            mu0, sigma0 = was or (DEFAULT_MU, DEFAULT_SIGMA)
            changes.append(
                RatingChange(
                    table.table_id, *key, standing.seat, standing.player, mu0, sigma0, mu, sigma
                )
            )
        await conn.execute(rating_changes.insert(), [_change_row(c) for c in changes])
        return tuple(sorted(changes, key=lambda c: c.seat))

    async def load(self, table_id: str) -> ArchivedTable | None:
        """The archived table ``table_id``, or None."""
        async with self._begin(read_only=True) as conn:
            row = (await conn.execute(select(tables).where(tables.c.table_id == table_id))).first()
            if row is None:
                return None
            found = await conn.execute(
                select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)
            )
            return _table(row, tuple(_seat(s) for s in found))

    async def user_tables(
        self, user_id: str, first: int, after: tuple[float, str] | None
    ) -> list[tuple[str, float]]:
        """The archived tables where ``user_id`` held a seat or is the host: (table id,
        created_at), newest first by (created_at, table id), after ``after`` (exclusive),
        at most ``first``."""
        seated = select(seats.c.table_id, seats.c.created_at).where(seats.c.user_id == user_id)
        hosted = select(tables.c.table_id, tables.c.created_at).where(tables.c.host_user == user_id)
        if after is not None:
            seated = seated.where(tuple_(seats.c.created_at, seats.c.table_id) < after)
            hosted = hosted.where(tuple_(tables.c.created_at, tables.c.table_id) < after)
        both = union(seated, hosted).subquery()
        query = (
            select(both.c.table_id, both.c.created_at)
            .order_by(both.c.created_at.desc(), both.c.table_id.desc())
            .limit(first)
        )
        async with self._begin(read_only=True) as conn:
            return [(r.table_id, r.created_at) for r in await conn.execute(query)]

    async def ratings(self, player: Player) -> list[Rating]:
        """Every rating of ``player``, by game id then variant."""
        query = (
            select(ratings).where(_is_player(player)).order_by(ratings.c.game_id, ratings.c.variant)
        )
        async with self._begin(read_only=True) as conn:
            return [_rating(r) for r in await conn.execute(query)]

    async def rating(self, game_id: str, variant: str, player: Player) -> Rating | None:
        """``player``'s rating at ``game_id`` and ``variant``, or None if unrated."""
        query = select(ratings).where(*_rating_key((game_id, variant)), _is_player(player))
        async with self._begin(read_only=True) as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _rating(row)

    async def leaderboard(
        self,
        game_id: str,
        variant: str,
        first: int,
        after: tuple[float, str] | None,
        kind: str = "user",
    ) -> list[Rating]:
        """The ratings of ``kind`` players at ``game_id`` and ``variant``, by ordinal
        descending then player id: at most ``first``, after ``after`` (the ordinal and
        player id of the previous page's last row)."""
        query = select(ratings).where(*_rating_key((game_id, variant)), ratings.c.kind == kind)
        if after is not None:
            ordinal, player_id = after
            query = query.where(
                or_(
                    ratings.c.ordinal < ordinal,
                    and_(ratings.c.ordinal == ordinal, ratings.c.player_id > player_id),
                )
            )
        query = query.order_by(ratings.c.ordinal.desc(), ratings.c.player_id).limit(first)
        async with self._begin(read_only=True) as conn:
            return [_rating(r) for r in await conn.execute(query)]

    async def changes(self, table_id: str) -> tuple[RatingChange, ...]:
        """The rating changes of table ``table_id``, by seat (none if it was not rated)."""
        async with self._begin(read_only=True) as conn:
            return await _changes(conn, table_id)

    async def close(self) -> None:
        """Close the connections."""
        await self._engine.dispose()

    @asynccontextmanager
    async def _reach(self) -> AsyncIterator[None]:
        try:
            yield
        except Exception as error:  # only to sort it: a retryable one is ArchiveUnavailable
            if retryable(error):
                raise ArchiveUnavailable(f"{self.dialect}: {error}") from error
            raise

    @asynccontextmanager
    async def _begin(self, *, read_only: bool = False) -> AsyncIterator[AsyncConnection]:
        async with self._reach(), self._engine.connect() as conn:
            if read_only:
                await conn.execution_options(**{READ_ONLY: True})
            async with conn.begin():
                yield conn


def _player_key(player: Player) -> tuple[str, str]:
    return (player.kind, player.id)


def _is_player(player: Player) -> Any:
    return and_(ratings.c.kind == player.kind, ratings.c.player_id == player.id)


def _rating_key(key: tuple[str, str]) -> tuple[Any, Any]:
    return (ratings.c.game_id == key[0], ratings.c.variant == key[1])


def _before(row: Row[Any]) -> tuple[float, float] | None:
    return (row.mu, row.sigma) if row.games > 0 else None


def _table_row(table: ArchivedTable) -> dict[str, object]:
    return {
        "table_id": table.table_id,
        "game_id": table.game_id,
        "status": table.status,
        "variant": table.variant,
        "host_user": table.host_user,
        "created_at": table.created_at,
        "finished_at": table.finished_at,
        "version": table.version,
        "snapshot": table.snapshot,
        "events": _json.dumps(list(table.events)),
        "moves": _json.dumps(list(table.moves)),
    }


def _table(row: Row[Any], seated: tuple[ArchivedSeat, ...]) -> ArchivedTable:
    return ArchivedTable(
        table_id=row.table_id,
        game_id=row.game_id,
        status=row.status,
        variant=row.variant,
        host_user=row.host_user,
        created_at=row.created_at,
        finished_at=row.finished_at,
        version=row.version,
        snapshot=row.snapshot,
        events=tuple(_json.loads(row.events)),
        moves=tuple(_json.loads(row.moves)),
        seats=seated,
    )


def _seat_row(table: ArchivedTable, seat: ArchivedSeat) -> dict[str, object]:
    return {
        "table_id": table.table_id,
        "seat": seat.index,
        "kind": seat.kind,
        "name": seat.name,
        "user_id": seat.user_id,
        "score": seat.score,
        "created_at": table.created_at,
    }


def _seat(row: Row[Any]) -> ArchivedSeat:
    return ArchivedSeat(row.seat, row.kind, row.name, row.user_id, row.score)


def _rating_row(
    key: tuple[str, str], player: Player, rated: tuple[float, float], games: int, now: float
) -> dict[str, object]:
    mu, sigma = rated
    return {
        "game_id": key[0],
        "variant": key[1],
        "kind": player.kind,
        "player_id": player.id,
        "mu": mu,
        "sigma": sigma,
        "ordinal": mu - 3 * sigma,
        "games": games,
        "updated_at": now,
    }


def _rating(row: Row[Any]) -> Rating:
    player = Player(row.kind, row.player_id)
    return Rating(
        row.game_id, row.variant, player, row.mu, row.sigma, row.games, row.updated_at, row.name
    )


def _change_row(change: RatingChange) -> dict[str, object]:
    return {
        "table_id": change.table_id,
        "seat": change.seat,
        "game_id": change.game_id,
        "variant": change.variant,
        "kind": change.player.kind,
        "player_id": change.player.id,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu_after": change.mu_after,
        "sigma_after": change.sigma_after,
    }


async def _changes(conn: AsyncConnection, table_id: str) -> tuple[RatingChange, ...]:
    found = await conn.execute(
        select(rating_changes)
        .where(rating_changes.c.table_id == table_id)
        .order_by(rating_changes.c.seat)
    )
    return tuple(
        RatingChange(
            table_id=r.table_id,
            game_id=r.game_id,
            variant=r.variant,
            seat=r.seat,
            player=Player(r.kind, r.player_id),
            mu_before=r.mu_before,
            sigma_before=r.sigma_before,
            mu_after=r.mu_after,
            sigma_after=r.sigma_after,
        )
        for r in found
    )
