"""bench/quickplay.py: the time to match, the matcher's CPU and fairness of quick play.

A smoke run (``--quick``: 10 and 100 waiting tickets, both arrivals, ``plan()`` alone at
10, 100 and 1000) on a fresh redis-server, and one on the memory store; it checks the
figures are there and consistent (every ticket matched, nobody passed over), never how
fast anything was.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_quickplay", ROOT / "bench" / "quickplay.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_quickplay"] = module
    spec.loader.exec_module(module)
    return module


def _run(argv: list[str], tmp_path: Path) -> list[dict[str, Any]]:
    out_file = tmp_path / "quickplay.jsonl"
    assert _module().main([*argv, "--quick", "--plan-seconds", "0.01", "--out", str(out_file)]) == 0
    return [json.loads(line) for line in out_file.read_text().splitlines()]


def _check(rows: list[dict[str, Any]], store: str) -> None:
    matched = [r for r in rows if r["figure"] == "match"]
    assert [(r["waiting"], r["arrival"]) for r in matched] == [
        (10, "all"),
        (10, "steady"),
        (100, "all"),
        (100, "steady"),
    ]
    for r in matched:
        assert r["store"] == store
        assert r["tables"] == r["waiting"] // 2 and r["rounds"] >= 1
        assert 0 <= r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
        assert 1 <= r["longest_rank"] <= r["waiting"]
        assert r["cpu_ms_per_table"] > 0 and r["cpu_ms_per_round"] > 0
        assert (r["redis_cpu_ms_per_table"] is None) == (store == "memory")
        assert -1 <= r["spearman"] <= 1
        assert r["passed_over"] == 0 and r["passed_over_anonymous"] == 0
    plans = [r for r in rows if r["figure"] == "plan"]
    assert [r["waiting"] for r in plans] == [10, 100, 1000]
    for r in plans:
        assert 0 < r["us_per_round_min"] <= r["us_per_round"] and r["repeats"] >= 1
        assert 2 * r["tables_found"] + r["left_waiting"] == r["waiting"]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_quick_on_redis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _check(_run([], tmp_path), "redis")
    printed = capsys.readouterr().out
    assert "| redis | all | 100 | 50 |" in printed and "| plan() alone: waiting |" in printed


def test_quick_on_memory(tmp_path: Path) -> None:
    _check(_run(["--memory", "--json"], tmp_path), "memory")


def test_spearman_and_ranks() -> None:
    module = _module()
    assert module.ranks([3.0, 1.0, 1.0]) == [3.0, 1.5, 1.5]
    assert module.spearman([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)
    assert module.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
