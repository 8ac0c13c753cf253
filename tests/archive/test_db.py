"""The archive's contract, held on SQLite and on PostgreSQL alike (the ``archive`` fixture)."""

from __future__ import annotations

import asyncio
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from redis_server import free_port
from sqlalchemy.ext.asyncio import create_async_engine

from tablestate.archive import _migrations
from tablestate.archive._tables import metadata
from tablestate.archive.db import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Archive,
    ArchivedSeat,
    ArchivedTable,
    ArchiveUnavailable,
    Player,
    Rating,
    Standing,
    database_url,
)

ALICE, BOB, CAROL = Player("user", "alice"), Player("user", "bob"), Player("user", "carol")
EASY = Player("bot", "easy")


def table(table_id="t1", *, users=("alice", "bob"), host=None, created=100.0, version=7, **kw):
    seats = tuple(
        ArchivedSeat(i, "HUMAN" if u else "BOT", f"seat {i}", u, 10 * i)
        for i, u in enumerate(users)
    )
    fields = {
        "table_id": table_id,
        "game_id": "lucky-draw",
        "status": "FINISHED",
        "variant": "",
        "host_user": host,
        "created_at": created,
        "finished_at": created + 60.5,
        "version": version,
        "snapshot": '{"board":[1,2,3],"é":"ü"}',
        "events": ('{"cursor":"1-0","type":"joined"}', '{"cursor":"2-0","text":"a\\nb"}'),
        "moves": ('{"type":"draw"}',),
        "seats": seats,
    }
    return ArchivedTable(**{**fields, **kw})


def winner_up(before, ranks):
    """A fake rater: the first-ranked player gains 1 mu, everyone's sigma shrinks by 1."""
    out = []
    for was, rank in zip(before, ranks, strict=True):
        mu, sigma = was or (DEFAULT_MU, DEFAULT_SIGMA)
        out.append((mu + 1 if rank == 1 else mu, sigma - 1))
    return out


def duel(winner=ALICE, loser=BOB):
    return [Standing(0, winner, 1), Standing(1, loser, 2)]


def test_database_url_names_the_drivers():
    assert database_url("postgres://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("postgresql://h/db") == "postgresql+psycopg://h/db"
    assert database_url("sqlite:////var/x.db") == "sqlite+aiosqlite:////var/x.db"
    assert database_url("postgresql+psycopg://h/db") == "postgresql+psycopg://h/db"
    for bad in ("mysql://h/db", "redis://h", "nonsense"):
        with pytest.raises(ValueError):
            database_url(bad)


async def test_record_then_load_round_trips_every_field(archive):
    t = table(host="carol", events=tuple(f'{{"n":{i},"pad":"{"x" * 500}"}}' for i in range(400)))
    recorded = await archive.record(t, [], None)
    assert recorded.first and recorded.changes == ()
    assert await archive.load("t1") == t
    assert await archive.load("nope") is None
    empty = table("t2", users=(), events=(), moves=())
    await archive.record(empty, [], None)
    assert await archive.load("t2") == empty


async def test_a_second_record_keeps_ratings_and_takes_only_a_higher_version(archive):
    first = await archive.record(table(), duel(), winner_up)
    assert first.first and [c.player for c in first.changes] == [ALICE, BOB]
    again = await archive.record(
        table(snapshot='{"old":1}', version=6), duel(BOB, ALICE), winner_up
    )
    assert not again.first and again.changes == first.changes
    assert (await archive.load("t1")).snapshot == table().snapshot
    newer = table(snapshot='{"rematch":1}', version=8, events=("{}",), finished_at=999.0)
    assert not (await archive.record(newer, duel(BOB, ALICE), winner_up)).first
    assert await archive.load("t1") == newer
    alice = await archive.rating("lucky-draw", "", ALICE)
    assert (alice.mu, alice.games) == (DEFAULT_MU + 1, 1)
    assert await archive.changes("t1") == first.changes


async def test_two_replicas_recording_at_once_archive_and_rate_once(archive, archive_url):
    other = Archive(archive_url)
    try:
        results = await asyncio.gather(
            archive.record(table(), duel(), winner_up), other.record(table(), duel(), winner_up)
        )
    finally:
        await other.close()
    assert sorted(r.first for r in results) == [False, True]
    assert results[0].changes == results[1].changes and len(results[0].changes) == 2
    assert (await archive.rating("lucky-draw", "", ALICE)).games == 1


async def test_two_tables_of_the_same_players_at_once_both_count(archive, archive_url):
    other = Archive(archive_url)
    try:
        await asyncio.gather(
            archive.record(table("a"), duel(), winner_up),
            other.record(table("b"), duel(BOB, ALICE), winner_up),
        )
    finally:
        await other.close()
    alice = await archive.rating("lucky-draw", "", ALICE)
    bob = await archive.rating("lucky-draw", "", BOB)
    assert (alice.games, bob.games) == (2, 2)
    assert (alice.mu, bob.mu) == (DEFAULT_MU + 1, DEFAULT_MU + 1)  # no lost update
    assert alice.sigma == pytest.approx(DEFAULT_SIGMA - 2)


async def test_ratings_are_upserted_and_games_counted(archive):
    seen = []

    def rater(before, ranks):
        seen.append((list(before), list(ranks)))
        return winner_up(before, ranks)

    await archive.record(table("a"), duel(), rater)
    await archive.record(
        table("b", users=("alice", None)), [*duel(BOB, ALICE), Standing(2, EASY, 1)], rater
    )
    assert seen[0] == ([None, None], [1, 2])
    assert seen[1] == (
        [(DEFAULT_MU, DEFAULT_SIGMA - 1), (DEFAULT_MU + 1, DEFAULT_SIGMA - 1), None],
        [1, 2, 1],
    )
    bob = await archive.rating("lucky-draw", "", BOB)
    assert bob == Rating(
        "lucky-draw", "", BOB, DEFAULT_MU + 1, DEFAULT_SIGMA - 2, 2, bob.updated_at, "seat 0"
    )  # named as at the newest rated table
    assert bob.ordinal == pytest.approx(bob.mu - 3 * bob.sigma)
    changes = await archive.changes("b")
    assert [(c.seat, c.player, c.mu_before, c.mu_after) for c in changes] == [
        (0, BOB, DEFAULT_MU, DEFAULT_MU + 1),
        (1, ALICE, DEFAULT_MU + 1, DEFAULT_MU + 1),
        (2, EASY, DEFAULT_MU, DEFAULT_MU + 1),
    ]
    assert await archive.rating("lucky-draw", "+other", BOB) is None


async def test_anonymous_standings_are_rated_but_get_no_rows(archive):
    seen = []

    def rater(before, ranks):
        seen.append(list(before))
        return winner_up(before, ranks)

    recorded = await archive.record(table(), [Standing(0, None, 1), Standing(1, BOB, 2)], rater)
    assert seen == [[None, None]] and [c.seat for c in recorded.changes] == [1]
    assert [r.player for r in await archive.leaderboard("lucky-draw", "", 10, None)] == [BOB]
    only_anonymous = await archive.record(table("t2"), [Standing(0, None, 1)], rater)
    assert only_anonymous.first and only_anonymous.changes == () and len(seen) == 1
    assert (await archive.record(table("t3"), duel(), None)).changes == ()
    assert (await archive.rating("lucky-draw", "", ALICE)) is None


async def test_a_failing_rater_archives_nothing(archive):
    def broken(before, ranks):
        return [(1.0, 1.0)]

    with pytest.raises(ValueError, match="1 ratings for 2 seats"):
        await archive.record(table(), duel(), broken)
    assert await archive.load("t1") is None
    assert await archive.ratings(ALICE) == []


async def test_user_tables_pages_newest_first_by_seat_and_host(archive):
    await archive.record(table("a", created=1.0), [], None)
    await archive.record(table("b", created=2.0, users=("bob",), host="alice"), [], None)
    await archive.record(table("c", created=2.0, users=("alice", "alice")), [], None)
    await archive.record(table("d", created=3.0, users=("bob",)), [], None)
    await archive.record(table("e", created=4.0, users=("carol",), host="carol"), [], None)
    assert await archive.user_tables("alice", 10, None) == [("c", 2.0), ("b", 2.0), ("a", 1.0)]
    page = await archive.user_tables("alice", 2, None)
    assert page == [("c", 2.0), ("b", 2.0)]
    last_id, last_created = page[-1]
    assert await archive.user_tables("alice", 2, (last_created, last_id)) == [("a", 1.0)]
    assert await archive.user_tables("alice", 2, (2.0, "c")) == [("b", 2.0), ("a", 1.0)]
    assert await archive.user_tables("carol", 10, None) == [("e", 4.0)]
    assert await archive.user_tables("nobody", 10, None) == []


async def test_leaderboard_pages_by_ordinal_then_id_and_filters_by_kind(archive):
    fixed = {"u1": (30.0, 5.0), "u2": (20.0, 1.0), "u3": (30.0, 5.0), "u0": (10.0, 1.0)}
    standings = [Standing(i, Player("user", p), i + 1) for i, p in enumerate(fixed)]
    await archive.record(
        table("a", users=tuple(fixed)), standings, lambda b, r: list(fixed.values())
    )
    await archive.record(table("b"), [Standing(0, EASY, 1)], lambda b, r: [(50.0, 1.0)])
    await archive.record(
        table("c", variant="x"), [Standing(0, ALICE, 1)], lambda b, r: [(99.0, 1.0)]
    )
    board = await archive.leaderboard("lucky-draw", "", 10, None)
    # ordinals: u2 17, u1 15, u3 15, u0 7
    assert [r.player.id for r in board] == ["u2", "u1", "u3", "u0"]
    page = await archive.leaderboard("lucky-draw", "", 2, None)
    assert [r.player.id for r in page] == ["u2", "u1"]
    after = (page[-1].ordinal, page[-1].player.id)
    assert [r.player.id for r in await archive.leaderboard("lucky-draw", "", 2, after)] == [
        "u3",
        "u0",
    ]
    bots = await archive.leaderboard("lucky-draw", "", 10, None, kind="bot")
    assert [r.player for r in bots] == [EASY]
    assert [r.player for r in await archive.leaderboard("lucky-draw", "x", 10, None)] == [ALICE]


async def test_ratings_of_a_player_list_every_game_and_variant(archive):
    for i, (game, variant) in enumerate([("b-game", ""), ("a-game", "z"), ("a-game", "")]):
        t = table(f"t{i}", game_id=game, variant=variant)
        await archive.record(t, duel(), winner_up)
    found = await archive.ratings(ALICE)
    assert [(r.game_id, r.variant) for r in found] == [
        ("a-game", ""),
        ("a-game", "z"),
        ("b-game", ""),
    ]
    assert all(r.player == ALICE and r.games == 1 for r in found)
    assert await archive.ratings(CAROL) == []


async def test_the_migration_and_the_metadata_agree(archive, archive_url):
    engine = create_async_engine(database_url(archive_url))

    def compare(connection):
        context = MigrationContext.configure(connection, opts={"version_table": "archive_version"})
        return compare_metadata(context, metadata), context.get_current_revision()

    try:
        async with engine.connect() as conn:
            diff, revision = await conn.run_sync(compare)
    finally:
        await engine.dispose()
    assert diff == []
    assert revision == _migrations.head() == "0001"


MIGRATE = "import asyncio, sys; from tablestate.archive.db import Archive; asyncio.run(Archive(sys.argv[1]).migrate())"


async def test_two_processes_migrating_at_once_both_succeed(archive_url):
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", MIGRATE, archive_url)
        for _ in range(2)
    ]
    assert [await p.wait() for p in procs] == [0, 0]
    archives = [Archive(archive_url), Archive(archive_url)]
    try:
        await asyncio.gather(*(a.migrate() for a in archives))  # and two in one process
        await archives[0].record(table(), [], None)
        assert await archives[1].load("t1") == table()
    finally:
        for a in archives:
            await a.close()


@pytest.fixture
async def unreachable():
    archive = Archive(f"postgresql://nobody@127.0.0.1:{free_port()}/nothing")
    yield archive
    await archive.close()


async def test_every_method_raises_unavailable_when_the_database_does_not_answer(unreachable):
    calls = [
        unreachable.migrate(),
        unreachable.ping(),
        unreachable.record(table(), duel(), winner_up),
        unreachable.load("t1"),
        unreachable.user_tables("alice", 10, None),
        unreachable.ratings(ALICE),
        unreachable.rating("lucky-draw", "", ALICE),
        unreachable.leaderboard("lucky-draw", "", 10, None),
        unreachable.changes("t1"),
    ]
    for call in calls:
        with pytest.raises(ArchiveUnavailable, match="postgresql"):
            await call


async def test_a_locked_sqlite_database_is_unavailable(tmp_path, monkeypatch):
    from tablestate.archive import _engine

    monkeypatch.setattr(_engine, "BUSY_TIMEOUT", 0.1)
    url = f"sqlite:///{tmp_path / 'a.db'}"
    holder, waiter = Archive(url), Archive(url)
    try:
        await holder.migrate()
        async with holder._begin() as conn:  # holds the write lock
            await conn.exec_driver_sql("DELETE FROM archive_tables")
            with pytest.raises(ArchiveUnavailable, match="locked"):
                await waiter.record(table(), [], None)
            assert await waiter.load("t1") is None  # readers are not held up
    finally:
        await holder.close()
        await waiter.close()


def test_a_sqlite_archive_makes_its_folder(tmp_path):
    Archive(f"sqlite:///{tmp_path / 'deep' / 'er' / 'a.db'}")
    assert (tmp_path / "deep" / "er").is_dir()
    assert Archive("postgres://h/db").dialect == "postgresql"
