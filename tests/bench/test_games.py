"""bench/games.py: the bundled games played by bots in process, and a table's Redis bytes.

A smoke run (two games per game, a Redis table stopped after a few moves) on the tests'
Redis; it checks the figures are there and consistent, never how fast anything was.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("all-fives", "five-by-five", "five-crowns")


def _games_module():
    spec = importlib.util.spec_from_file_location("bench_games", ROOT / "bench" / "games.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_games"] = module
    spec.loader.exec_module(module)
    return module


def test_engine_figures_every_bundled_game_plays_to_the_end(capsys):
    games = _games_module()
    assert games.main(["--games", "2", "--no-redis"]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert sorted({r["game"] for r in rows}) == list(GAMES)
    for r in rows:
        assert r["figure"] == "engine" and r["games"] == 2
        assert r["moves"] > 0 and r["moves_per_game_median"] > 0
        assert r["games_per_s"] > 0 and r["moves_per_s"] > 0 and r["us_per_move"] > 0
    assert {r["snapshot_per_move"] for r in rows} == {False, True}
    # the same seeds play the same games, with or without the snapshot
    by = {(r["game"], r["snapshot_per_move"]): r["moves"] for r in rows}
    assert all(by[(g, False)] == by[(g, True)] for g in GAMES)
    assert "| game | seats | games |" in out


@pytest.mark.redis
def test_redis_bytes_of_a_table_mid_game(redis_url, redis_prefix, tmp_path, capsys):
    games = _games_module()
    out_file = tmp_path / "games.jsonl"
    argv = ["--quick", "--redis", redis_url, "--prefix", redis_prefix, "--out", str(out_file)]
    assert games.main(argv) == 0
    printed = capsys.readouterr().out
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    red = [r for r in rows if r["figure"] == "redis"]
    assert sorted((r["game"], r["snapshots"]) for r in red) == [
        (g, written) for g in GAMES for written in ("difference", "whole")
    ]
    for r in red:
        assert r["sent_bytes_per_move"] > 0
        # differences are looked for only when written so (and a table is long enough)
        assert (r["difference_us_per_move"] > 0) is (r["snapshots"] == "difference")
        assert r["moves"] == 6 and r["finished"] is False and r["mid_move"] == 3
        # the snapshot hash, the event stream and the move log exist mid-game
        assert {"s", "e", "m"} <= set(r["keys_mid"])
        assert r["bytes_mid"] == sum(r["keys_mid"].values()) > 0
        # a table's bytes need not grow move by move (a hand played out, a hash re-encoded),
        # so the end is not compared with the middle; the largest seen bounds both
        assert r["bytes_end"] == sum(r["keys_end"].values()) > 0
        assert r["bytes_max"] >= max(r["bytes_end"], r["bytes_mid"])
        assert r["snapshot_json_bytes_end"] > 0 and r["listing_keys_bytes"] > 0
    assert "Redis bytes at mid-game" in printed
