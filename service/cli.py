"""The ``tablestate`` command: serve, plugins, export-schema, replay, migrate."""
# The parser's texts are what a user reads in a terminal: plain words, no reStructuredText.

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import TYPE_CHECKING

from tablestate import plugins
from tablestate.config import ConfigError, Settings

if TYPE_CHECKING:
    from tablestate.archive.db import Archive

STARTUP_FAILURE = 3


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from tablestate.server import options

    settings = settings.with_overrides(host=args.host, port=args.port, workers=args.workers)
    if settings.workers > 1 and not settings.redis_url:
        print(
            "tablestate: the memory store lives in one process; set REDIS_URL to run more "
            "than one worker",
            file=sys.stderr,
        )
        return 2
    # The plugins (and each game's contract with the API) are checked here, before the
    # server starts, so that a bad one stops `serve` with its message and status 2; the
    # app's factory loads them again in each worker.
    plugins.load(settings.plugins, settings.disable)
    made = None
    if settings.workers > 1:
        # Every worker writes its metrics to one folder, so that a scrape answered by any
        # of them adds up all of them (service/metrics.py).
        from tablestate.metrics import multiprocess_dir, remove_dir

        made = multiprocess_dir(settings.metrics_dir)
    config = uvicorn.Config(
        "tablestate.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
        log_config=None,
        **options(settings),
    )
    try:
        if settings.workers > 1:
            # One process accepts and hands each connection to the worker of its table
            # (service/workers.py): a table's players then share one worker's cache.
            from tablestate import workers

            workers.serve(config, settings.workers)
        else:
            server = uvicorn.Server(config)
            server.run()
            if not server.started:
                return STARTUP_FAILURE  # the app's start-up failed (uvicorn.run's status)
    finally:
        if made is not None and settings.metrics_dir is None:
            remove_dir(made)
    return 0


def _plugins(args: argparse.Namespace, settings: Settings) -> int:
    reg = plugins.load(settings.plugins, settings.disable)
    for info in reg.plugins:
        what = ", ".join([*info.games, *info.house_rules]) or "-"
        print(f"{info.name}\t{info.source}\t{what}\thooks: {', '.join(info.hooks)}")
    return 0


def export_sdl(bundled_only: bool = True) -> str:
    """The SDL of the schema: of the bundled plugins only, unless told otherwise."""
    from tablestate.api.schema import build_schema

    reg = plugins.load(bundled_only=bundled_only)
    return build_schema(reg).as_str() + "\n"


def _export(args: argparse.Namespace, settings: Settings) -> int:
    sdl = export_sdl(bundled_only=not args.all)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(sdl)
    else:
        sys.stdout.write(sdl)
    return 0


async def _replay_async(table_id: str, settings: Settings) -> tuple[bool, str]:
    from tablestate.app import open_store
    from tablestate.engine.replay import replay
    from tablestate.tables import TableService

    reg = plugins.load(settings.plugins, settings.disable)
    store = open_store(settings)
    tables = TableService(settings, reg, store)  # reads the archive too, when there is one
    try:
        loaded = await tables.reads.load(table_id)
        if loaded is None:
            where = "the store or the archive" if tables.archiver else "the store"
            return False, f"no table {table_id!r} in {where}"
        moves = await tables.reads.moves(table_id)
        report = replay(loaded.table, moves, loaded.game, loaded.rules)
        return report.ok, f"{report.reason} ({report.moves} moves)"
    finally:
        if tables.archiver is not None:
            await tables.archiver.archive.close()
        await store.close()


def _replay(args: argparse.Namespace, settings: Settings) -> int:
    ok, message = asyncio.run(_replay_async(args.table_id, settings))
    print(("MATCH: " if ok else "MISMATCH: ") + message)
    return 0 if ok else 1


async def _migrate_async(archive: Archive) -> str:
    from tablestate.archive import _migrations

    try:
        await archive.migrate()
    finally:
        await archive.close()
    return f"archive schema at revision {_migrations.head()} ({archive.dialect})"


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    from tablestate.archive.db import Archive, ArchiveUnavailable

    url = args.database or settings.database_url
    if not url:
        print(
            "tablestate: no archive database: set DATABASE_URL (or pass --database URL)",
            file=sys.stderr,
        )
        return 2
    try:
        archive = Archive(url)
    except ValueError as exc:  # a URL of a kind the archive does not speak
        print(f"tablestate: {exc}", file=sys.stderr)
        return 2
    try:
        print(asyncio.run(_migrate_async(archive)))
    except ArchiveUnavailable as exc:
        print(f"tablestate: the archive's database cannot be reached: {exc}", file=sys.stderr)
        return STARTUP_FAILURE
    return 0


SERVE_EPILOG = """\
Everything else is set by environment variables (TABLESTATE_*, REDIS_URL, ...), each with its
default, in the Settings table of the README (README.md, section "Settings"). With none set,
the service keeps its tables in memory; REDIS_URL=redis://HOST:PORT keeps them in Redis."""


def _version() -> str:
    try:
        return metadata.version("tablestate")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tablestate",
        description="Tablestate: a GraphQL game-state service for tabletop games.",
        epilog="Run 'tablestate COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"tablestate {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = sub.add_parser(
        "serve",
        help="run the service",
        description="Run the service: the GraphQL API, the web page and /metrics.",
        epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host", help="address to bind (TABLESTATE_HOST)")
    serve.add_argument("--port", type=int, help="port (TABLESTATE_PORT)")
    serve.add_argument("--workers", type=int, help="worker processes (TABLESTATE_WORKERS)")
    serve.set_defaults(func=_serve)
    sub.add_parser("plugins", help="list the plugins found").set_defaults(func=_plugins)
    export = sub.add_parser("export-schema", help="print the GraphQL SDL")
    export.add_argument(
        "--all", action="store_true", help="every installed plugin, not only the bundled ones"
    )
    export.add_argument("-o", "--output", help="write to this file")
    export.set_defaults(func=_export)
    rep = sub.add_parser("replay", help="re-run a finished table from its revealed seed")
    rep.add_argument("table_id")
    rep.set_defaults(func=_replay)
    mig = sub.add_parser(
        "migrate",
        help="bring the archive's database up to date",
        description="Bring the archive's database (DATABASE_URL) up to the newest schema.",
    )
    mig.add_argument("--database", metavar="URL", help="this database instead of DATABASE_URL's")
    mig.set_defaults(func=_migrate)
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
        return int(args.func(args, settings))
    except (ConfigError, plugins.PluginError) as exc:
        print(f"tablestate: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
