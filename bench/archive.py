"""The archive of finished tables: bytes per finished game, and archive writes per second.

Two figures for each database (``--sqlite``, a file in a temporary folder, the default;
``--postgres URL``, a database of the script's own created in that server and dropped after):

- ``bytes``: N tables (default 10, ``--quick`` 1) of each bundled game (five-crowns,
  all-fives, five-by-five) played to the end through ``TableService`` (no HTTP) on a
  ``MemoryStore`` with ``Settings(database_url=...)``, their seats joined as players who move
  what the bot would (as ``bench/games.py`` plays them), so that the service's own
  ``Archiver`` archives each one; the script waits until ``Archive.load`` finds each table.
  Per game: moves and events per table, and the archived row's bytes as ``ArchivedTable``
  holds them (the snapshot's JSON text, the event texts, the move log's texts: UTF-8 bytes,
  summed; the total is their sum), then the database's growth per table, each game in a
  database of its own beyond the same database empty and migrated: SQLite, the file's size
  after a WAL checkpoint and ``VACUUM``; PostgreSQL, ``pg_total_relation_size`` (indexes and
  TOAST included, TOAST compressed) of the ``archive_*`` tables after ``VACUUM ANALYZE``.
  The games' seeds are fixed (``bench-<game>-<i>``), so reruns play the same games.
- ``writes``: ``Archive.record`` of ready-made ``ArchivedTable`` s (copies of the archived
  ones under new ids, two signed-in players and a bot each, rated by ``ratings.rate`` with
  the standings the Archiver would give), for ``--seconds`` each (default 5, ``--quick``
  0.5): one at a time, and ``--concurrency`` (default 8) at once with (a) no player shared
  between writes (each write's bot a level of its own), (b) distinct users but the same bot
  level, as real tables with bots are, (c) the same two users and bot in every write.
  Writes that share a player wait for each other on its rating row (PostgreSQL), and every
  SQLite writer waits for the one before (one write lock). Writes/s and p50/p99 latency.

Without ``--sqlite`` or ``--postgres``: SQLite, and PostgreSQL too where its binaries are
found (a throwaway server, started by the tests' ``tests/pg_server.py`` but with fsync on,
as a deployment's); otherwise it says PostgreSQL was skipped.

    python bench/archive.py                          # SQLite, and PostgreSQL if installed
    python bench/archive.py --quick --sqlite         # seconds
    python bench/archive.py --postgres postgresql://user@host/postgres --json

Each figure is one JSON line (also appended to ``--out``); a table is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import os
import pwd
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import uuid4

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(BENCH)]

import psycopg  # noqa: E402
from games import MAX_MOVES, SEATS, emitter  # noqa: E402

from tablestate.archive import ratings  # noqa: E402
from tablestate.archive.db import Archive, ArchivedSeat, ArchivedTable, Player, Standing  # noqa: E402
from tablestate.config import Settings  # noqa: E402
from tablestate.engine import fairness  # noqa: E402
from tablestate.engine import table as eng  # noqa: E402
from tablestate.engine.bots import NORMAL, choose  # noqa: E402
from tablestate.engine.rng import Rng  # noqa: E402
from tablestate.plugins import Registry, load  # noqa: E402
from tablestate.store.memory import MemoryStore  # noqa: E402
from tablestate.tables import Loaded, TableService  # noqa: E402
from tablestate.tables.operations import new_table_id  # noqa: E402
from tablestate.tables.play import Seeds  # noqa: E402

SECRET = b"bench-archive-secret"
ARCHIVED_WITHIN = 30.0  # seconds a finished table may take to reach the archive
ARCHIVE_TABLES = ("archive_tables", "archive_seats", "archive_ratings", "archive_rating_changes")
MODES = ("sequential", "distinct", "shared-bot", "shared")
OWN_SERVER = "a throwaway server of the bench's own (initdb's defaults: fsync on)"


class BenchSeeds(Seeds):
    """The service's seeds, but fixed by the bench's name of each table rather than by its
    random id and nonce, so that a rerun deals the same cards. (Its tables' commitments,
    made from the random ones, then do not verify: nobody replays them.)"""

    def __init__(self, secret: bytes) -> None:
        super().__init__(secret)
        self.names: dict[str, str] = {}

    def server(self, table: eng.Table) -> bytes:
        return fairness.server_seed(self.secret, self.names.get(table.id, table.id), "bench")


@dataclasses.dataclass(frozen=True)
class Played:
    """A table played to its end, as the archive holds it."""

    archived: ArchivedTable
    result: Mapping[str, Any]


def _service(registry: Registry, url: str) -> tuple[TableService, BenchSeeds]:
    settings = Settings(secret=SECRET, idle_ttl=3600, finished_ttl=3600, database_url=url)
    service = TableService(settings, registry, MemoryStore())
    seeds = BenchSeeds(SECRET)
    service.seeds = service.play.seeds = service.operations.seeds = seeds
    return service, seeds


async def play_table(service: TableService, seeds: BenchSeeds, game_id: str, seed: str) -> Loaded:
    """One table of ``game_id`` to its end through the service, its seats joined as players
    who move what the bot would (``bench/games.py``'s way); the finished table."""
    seats = SEATS[game_id]
    loaded, host_token = await service.operations.create(game_id, [], None, seats)
    table_id = loaded.table.id
    seeds.names[table_id] = seed
    tokens = {}
    for i in range(seats):
        _, seat, token = await service.operations.join(None, table_id, f"p{i}", None, None)
        tokens[seat] = token
    await service.operations.start(await service.reads.authenticate(host_token), table_id)
    callers = {seat: await service.reads.authenticate(token) for seat, token in tokens.items()}
    rng = Rng(seed.encode() + b"bot")
    for _ in range(MAX_MOVES):
        cur = await service.reads.must_load(table_id)
        if cur.table.status != eng.PLAYING:
            return cur
        seat = cur.to_act()[0]
        move = dict(choose(cur.game, cur.state, seat, NORMAL, rng, cur.rules))
        await service.moves.make(callers[seat], table_id, game_id, move)
    raise RuntimeError(f"{game_id} {seed}: no end after {MAX_MOVES} moves")


async def archived(archive: Archive, table_id: str, version: int) -> ArchivedTable:
    """The table once the service's Archiver has written its final version."""
    deadline = time.monotonic() + ARCHIVED_WITHIN
    while True:
        found = await archive.load(table_id)
        if found is not None and found.version >= version:
            return found
        if time.monotonic() > deadline:
            raise RuntimeError(f"table {table_id} was not archived within {ARCHIVED_WITHIN} s")
        await asyncio.sleep(0.01)


def text_bytes(table: ArchivedTable) -> dict[str, int]:
    """The archived texts' UTF-8 bytes: the snapshot, the events, the moves."""
    return {
        "snapshot": len(table.snapshot.encode()),
        "events": sum(len(e.encode()) for e in table.events),
        "moves": sum(len(m.encode()) for m in table.moves),
    }


# -- the databases ---------------------------------------------------------------------


class Database:
    """A kind of database the bench makes throwaway databases in."""

    name = ""
    growth = ""
    server = ""  # which server, and how durable

    def fresh(self) -> contextlib.AbstractContextManager[str]:
        """A new, empty database's URL, removed at exit."""
        raise NotImplementedError

    def size(self, url: str) -> int:
        """The database's bytes, as ``growth`` says."""
        raise NotImplementedError


class SqliteDatabase(Database):
    name = "sqlite"
    growth = "file size after a WAL checkpoint and VACUUM"
    server = "a file in a temporary folder (WAL, synchronous FULL: the defaults)"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextlib.contextmanager
    def fresh(self) -> Iterator[str]:
        path = self.folder / f"archive-{uuid4().hex[:8]}.db"
        try:
            yield f"sqlite:///{path}"
        finally:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

    def size(self, url: str) -> int:
        path = url.removeprefix("sqlite:///")
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        return os.path.getsize(path)


class PostgresDatabase(Database):
    name = "postgresql"
    growth = "pg_total_relation_size of the archive_* tables (TOAST, indexes) after VACUUM ANALYZE"

    def __init__(self, url: str, server: str) -> None:
        self.url = url
        self.server = server

    @contextlib.contextmanager
    def fresh(self) -> Iterator[str]:
        sys.path.insert(0, str(ROOT / "tests"))  # the tests' own way to make one
        from pg_server import fresh_database

        with fresh_database(self.url, "bench_archive_") as url:
            yield url

    def size(self, url: str) -> int:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            row = conn.execute(
                "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r' "
                "AND c.relname = ANY(%s)",
                (list(ARCHIVE_TABLES),),
            ).fetchone()
        return int(row[0] or 0) if row else 0


@contextlib.contextmanager
def own_postgres() -> Iterator[str | None]:
    """A throwaway PostgreSQL from the system's binaries (``tests/pg_server.py``), or None
    where there are none (or none this user can run)."""
    tests = ROOT / "tests"
    if not (tests / "pg_server.py").exists():
        yield None
        return
    sys.path.insert(0, str(tests))
    try:
        import pg_server
        from pg_server import USER, NoPostgres, find_bindir, postgres_process
    except ImportError:
        yield None
        return
    bindir = find_bindir()
    if bindir is None:
        yield None
        return
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(USER)
        except KeyError:
            yield None
            return
    # A durable server, as a deployment's: the tests' own runs without fsync, and takes
    # its options when it starts.
    fast = pg_server.FAST
    pg_server.FAST = ()  # type: ignore[assignment]
    try:
        server = postgres_process(bindir)
        url = server.__enter__()
    except NoPostgres:
        yield None
        return
    finally:
        pg_server.FAST = fast
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


# -- the figures -----------------------------------------------------------------------


async def bytes_figures(
    registry: Registry, db: Database, game_id: str, tables: int
) -> tuple[dict[str, Any], list[Played]]:
    """``tables`` tables of ``game_id`` played and archived in a database of their own."""
    with db.fresh() as url:
        archive = Archive(url)
        await archive.migrate()
        await archive.close()
        empty = db.size(url)
        service, seeds = _service(registry, url)
        played: list[Played] = []
        archive = Archive(url)
        try:
            for i in range(tables):
                done = await play_table(service, seeds, game_id, f"bench-{game_id}-{i}")
                if done.table.status != eng.FINISHED or done.table.result is None:
                    raise RuntimeError(f"{game_id} {i}: ended {done.table.status}")
                kept = await archived(archive, done.table.id, done.table.version)
                played.append(Played(kept, done.table.result))
        finally:
            await service.close()
            await archive.close()
        grown = db.size(url) - empty
    n = len(played)
    sums = {
        k: sum(text_bytes(p.archived)[k] for p in played) for k in ("snapshot", "events", "moves")
    }
    per = {k: round(v / n) for k, v in sums.items()}
    row: dict[str, Any] = {
        "bench": "archive", "figure": "bytes", "database": db.name, "game": game_id,
        "seats": SEATS[game_id], "tables": n,
        "moves_per_table": round(sum(len(p.archived.moves) for p in played) / n, 1),
        "events_per_table": round(sum(len(p.archived.events) for p in played) / n, 1),
        "snapshot_bytes": per["snapshot"], "events_bytes": per["events"],
        "moves_bytes": per["moves"], "total_bytes": sum(per.values()),
        "database_bytes_per_table": round(grown / n), "database_empty_bytes": empty,
        "database_growth": db.growth, "server": db.server,
    }  # fmt: skip
    return row, played


def copy_of(played: Played, i: int, mode: str) -> tuple[ArchivedTable, tuple[Standing, ...]]:
    """A copy of an archived table under a new id, its first two seats signed-in users and
    its third a bot (a seat added where the game has two), and its standings as the
    Archiver would give them. ``mode``: which players it shares with the other copies."""
    table = played.archived
    if mode == "shared":
        users = ("bench-ann", "bench-bob")
    else:
        users = (f"bench-{i}-a", f"bench-{i}-b")
    bot = f"bench-{i}" if mode == "distinct" else "normal"
    old = {s.index: s for s in table.seats}
    seats: list[ArchivedSeat] = []
    for index in range(max(3, len(table.seats))):
        score = old[index].score if index in old else 0
        if index < 2:
            seats.append(ArchivedSeat(index, eng.HUMAN, f"u{index}", users[index], score))
        elif index == 2:
            seats.append(ArchivedSeat(index, eng.BOT, "bot", None, score))
        else:
            seats.append(ArchivedSeat(index, eng.HUMAN, f"p{index}", None, score))
    players: list[Player | None] = [Player("user", users[0]), Player("user", users[1])]
    players += [Player("bot", bot)] + [None] * (len(seats) - 3)
    places = ratings.ranks(played.result, [s.index for s in seats])
    standings = tuple(
        Standing(s.index, p, place) for s, p, place in zip(seats, players, places, strict=True)
    )
    copy = dataclasses.replace(
        table, table_id=new_table_id(), host_user=users[0], seats=tuple(seats)
    )
    return copy, standings


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


async def write_figures(
    db: Database, played: Sequence[Played], mode: str, concurrency: int, seconds: float
) -> dict[str, Any]:
    """``Archive.record`` of copies of ``played`` for ``seconds``, ``concurrency`` at once."""
    with db.fresh() as url:
        archive = Archive(url)
        try:
            await archive.migrate()
            latencies: list[float] = []
            counter = itertools.count()

            async def writer(deadline: float) -> None:
                while time.perf_counter() < deadline:
                    i = next(counter)
                    # Made outside the write's own time: a copy is cheap next to a write.
                    table, standings = copy_of(played[i % len(played)], i, mode)
                    start = time.perf_counter()
                    recorded = await archive.record(table, standings, ratings.rate)
                    latencies.append(time.perf_counter() - start)
                    if not recorded.first or len(recorded.changes) != 3:
                        raise RuntimeError(f"{table.table_id}: {recorded}")

            # Warm the pool's connections and the players' rating rows first.
            warm = time.perf_counter() + min(0.2, seconds / 5)
            await asyncio.gather(*(writer(warm) for _ in range(concurrency)))
            latencies.clear()
            start = time.perf_counter()
            deadline = start + seconds
            await asyncio.gather(*(writer(deadline) for _ in range(concurrency)))
            elapsed = time.perf_counter() - start
        finally:
            await archive.close()
    latencies.sort()
    n = len(latencies)
    return {
        "bench": "archive", "figure": "writes", "database": db.name, "mode": mode,
        "concurrency": concurrency, "seconds": round(elapsed, 3), "writes": n,
        "writes_per_s": round(n / elapsed, 1),
        "p50_ms": _ms(statistics.median(latencies)),
        "p99_ms": _ms(latencies[min(n - 1, int(n * 0.99))]),
        "cpus": os.cpu_count(), "server": db.server,
    }  # fmt: skip


# -- output ----------------------------------------------------------------------------


def table(rows: list[dict[str, Any]]) -> str:
    out: list[str] = []
    sized = [r for r in rows if r["figure"] == "bytes"]
    if sized:
        out += [
            "Bytes per finished table (means over the tables played; texts: UTF-8 bytes of "
            "what ArchivedTable holds; database: growth per table beyond an empty migrated one)",
            "| database | game | seats | tables | moves | events | snapshot B | events B | "
            "moves B | texts total B | database B | database measured as |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in sized:
            out.append(
                f"| {r['database']} | {r['game']} | {r['seats']} | {r['tables']} | "
                f"{r['moves_per_table']} | {r['events_per_table']} | {r['snapshot_bytes']} | "
                f"{r['events_bytes']} | {r['moves_bytes']} | {r['total_bytes']} | "
                f"{r['database_bytes_per_table']} | {r['database_growth']} |"
            )
    wrote = [r for r in rows if r["figure"] == "writes"]
    if wrote:
        cpus = wrote[0]["cpus"]
        out += [
            "",
            f"Archive.record per second on this machine ({cpus} CPUs), each table rated "
            "(two users and a bot)",
            "| database | writes | at once | players shared | writes/s | p50 ms | p99 ms |",
            "|---|---|---|---|---|---|---|",
        ]
        shared = {
            "sequential": "-",
            "distinct": "none",
            "shared-bot": "the bot",
            "shared": "all three",
        }
        for r in wrote:
            out.append(
                f"| {r['database']} | {r['writes']} | {r['concurrency']} | {shared[r['mode']]} | "
                f"{r['writes_per_s']} | {r['p50_ms']} | {r['p99_ms']} |"
            )
    servers = {r["database"]: r["server"] for r in rows if "server" in r}
    out += ["", *(f"{name}: {server}" for name, server in servers.items())]
    for r in rows:
        if r["figure"] == "skipped":
            out += ["", f"{r['database']} skipped: {r['why']}"]
    return "\n".join(out)


@contextlib.asynccontextmanager
async def databases(args: argparse.Namespace, folder: Path) -> AsyncIterator[list[Database | str]]:
    """The databases to measure; a string says why PostgreSQL was skipped."""
    found: list[Database | str] = []
    if args.sqlite or not args.postgres:
        found.append(SqliteDatabase(folder))
    with contextlib.ExitStack() as stack:
        if args.postgres:
            found.append(PostgresDatabase(args.postgres, "the server given (--postgres)"))
        elif not args.sqlite:
            url = stack.enter_context(own_postgres())
            found.append(
                PostgresDatabase(url, OWN_SERVER)
                if url is not None
                else "no --postgres URL, and no PostgreSQL binaries (initdb, pg_ctl) to start one"
            )
        yield found


async def amain(args: argparse.Namespace) -> int:
    registry = load(bundled_only=True)
    games = args.game or sorted(SEATS)
    rows: list[dict[str, Any]] = []
    emit = emitter(rows, args.out)

    with tempfile.TemporaryDirectory(prefix="tsarchive.") as tmp:
        async with databases(args, Path(tmp)) as found:
            for db in found:
                if isinstance(db, str):
                    emit({"bench": "archive", "figure": "skipped", "database": "postgresql",
                          "why": db})  # fmt: skip
                    continue
                played: list[Played] = []
                for g in games:
                    row, tables = await bytes_figures(registry, db, g, args.tables)
                    emit(row)
                    played += tables
                for mode in MODES:
                    at_once = 1 if mode == "sequential" else args.concurrency
                    emit(await write_figures(db, played, mode, at_once, args.seconds))
    if not args.json:
        print()
        print(table(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file (the default)")
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL server's URL")
    parser.add_argument("--tables", type=int, default=10, help="tables per bundled game")
    parser.add_argument("--game", action="append", choices=sorted(SEATS), help="only this game")
    parser.add_argument("--seconds", type=float, help="seconds per write figure (default 5)")
    parser.add_argument("--concurrency", type=int, default=8, help="writes at once")
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke version")
    parser.add_argument("--json", action="store_true", help="JSON lines only, no table")
    parser.add_argument("--out", help="also append the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables = 1
    if args.seconds is None:
        args.seconds = 0.5 if args.quick else 5.0
    return asyncio.run(amain(args))


if __name__ == "__main__":
    sys.exit(main())
