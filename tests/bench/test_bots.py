"""bench/bots.py: the bot levels against each other. A smoke run (two games per pairing, a
tiny strong budget, no latency figure) that checks the figures are there and consistent,
never how fast anything was nor who won."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bots_module():
    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_bots"] = module
    spec.loader.exec_module(module)
    return module


def test_the_smoke_run_plays_every_pairing_and_times_every_level(capsys):
    bots = _bots_module()
    assert bots.main(["--smoke", "--game", "lucky-draw", "--game", "all-fives"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    pairs = [r for r in rows if r["figure"] == "pairing"]
    assert {(r["game"], r["first"], r["second"]) for r in pairs} == {
        (g, a, b) for g in ("lucky-draw", "all-fives") for a, b in bots.PAIRINGS
    }
    for r in pairs:
        assert r["games"] == 2 and 0 <= r["first_wins"] <= 2
        lo, hi = r["ci95"]
        assert lo <= r["win_rate"] <= hi
    timed = {(r["game"], r["level"]) for r in rows if r["figure"] == "move_ms"}
    levels = {"easy", "normal", "strong", "random"}
    assert timed == {(g, lv) for g in ("lucky-draw", "all-fives") for lv in levels}


def test_the_wilson_interval_holds_the_rate_and_narrows_with_more_games():
    bots = _bots_module()
    assert bots.wilson(0, 10)[0] == 0.0 and bots.wilson(10, 10)[1] == 1.0
    few, many = bots.wilson(7, 10), bots.wilson(140, 200)
    assert few[0] < 0.7 < few[1] and many[0] < 0.7 < many[1]
    assert many[1] - many[0] < few[1] - few[0]
