"""bench/archive.py: bytes per finished game in the archive, and archive writes per second.

A smoke run (``--quick``: one table of each bundled game; a fifth of a second per write
figure) on a SQLite file and on the tests' PostgreSQL; it checks the figures are there and
consistent, never how fast anything was.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pg_server import PostgresHandle

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("all-fives", "five-by-five", "five-crowns")
MODES = ("sequential", "distinct", "shared-bot", "shared")


def _archive_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_archive", ROOT / "bench" / "archive.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_archive"] = module
    spec.loader.exec_module(module)
    return module


def _check(rows: list[dict[str, Any]], database: str) -> None:
    sized = [r for r in rows if r["figure"] == "bytes"]
    assert sorted(r["game"] for r in sized) == list(GAMES)
    for r in sized:
        assert r["database"] == database and r["tables"] == 1
        assert r["moves_per_table"] > 0 and r["events_per_table"] > r["moves_per_table"]
        parts = (r["snapshot_bytes"], r["events_bytes"], r["moves_bytes"])
        assert all(p > 0 for p in parts)
        assert r["total_bytes"] == sum(parts)
        assert r["database_bytes_per_table"] > 0 and r["database_empty_bytes"] > 0
        assert r["database_growth"]
    wrote = [r for r in rows if r["figure"] == "writes"]
    assert [r["mode"] for r in wrote] == list(MODES)
    for r in wrote:
        assert r["database"] == database and r["writes"] > 0 and r["writes_per_s"] > 0
        assert 0 < r["p50_ms"] <= r["p99_ms"]
        assert r["concurrency"] == (1 if r["mode"] == "sequential" else 8)


def _run(argv: list[str], tmp_path: Path) -> list[dict[str, Any]]:
    out_file = tmp_path / "archive.jsonl"
    argv = [*argv, "--quick", "--seconds", "0.2", "--out", str(out_file)]
    assert _archive_module().main(argv) == 0
    return [json.loads(line) for line in out_file.read_text().splitlines()]


def test_quick_on_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _run(["--sqlite"], tmp_path)
    _check(rows, "sqlite")
    printed = capsys.readouterr().out
    assert "Bytes per finished table" in printed and "| sqlite | five-crowns |" in printed
    assert "Archive.record per second" in printed


def test_quick_on_postgresql(postgres_handle: PostgresHandle, tmp_path: Path) -> None:
    import psycopg

    def databases() -> set[str]:
        with psycopg.connect(postgres_handle.url) as conn:
            return {r[0] for r in conn.execute("SELECT datname FROM pg_database")}

    before = databases()
    _check(_run(["--postgres", postgres_handle.url, "--json"], tmp_path), "postgresql")
    # the bench's own databases are dropped again
    assert databases() == before
