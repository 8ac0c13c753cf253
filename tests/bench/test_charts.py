"""bench/charts.py draws its PNGs from a peer run's files and the scaling curves.

The inputs are written here in the formats the loadgens and bench/scaling.py write (a few
samples each); the test checks that every chart is drawn as a PNG, and that nothing is drawn
from nothing.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _charts_module():
    spec = importlib.util.spec_from_file_location("bench_charts", ROOT / "bench" / "charts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_charts"] = module
    spec.loader.exec_module(module)
    return module


def _write_inputs(tmp: Path) -> tuple[Path, Path]:
    pick = random.Random(7)
    run = tmp / "run"
    (run / "samples").mkdir(parents=True)
    ms = lambda k: [round(pick.lognormvariate(0, 0.5) * k, 3) for _ in range(300)]  # noqa: E731
    for server, file_name in (("tablestate (ws moves)", "tablestate_ws"), ("bgio", "bgio"),
                              ("colyseus", "colyseus")):  # fmt: skip
        for phase in "AB":
            body = {"server": server, "phase": phase, "latency": ms(2)}
            (run / "samples" / f"{file_name}_{phase}_1_1.json").write_text(json.dumps(body))
        body = {"server": server, "phase": "C", "fanout": ms(5), "mover_latency": ms(1)}
        (run / "samples" / f"{file_name}_C_1_1.json").write_text(json.dumps(body))
    peers = [
        {"server": "boardgame.io@0.50.2", "phase": "B", "moves_per_s": 2300,
         "latency": {"p50_ms": 20, "p99_ms": 40}},
        {"server": "colyseus@0.16 (immediate patch)", "phase": "C",
         "fanout": {"p50_ms": 3, "p99_ms": 10}},
        {"summary_median_over_runs": {}},
    ]  # fmt: skip
    (run / "bgio.jsonl").write_text("\n".join(json.dumps(r) for r in peers) + "\n")
    scaling = tmp / "scaling"
    (scaling / "samples").mkdir(parents=True)
    lines = []
    for n in (1, 10):
        lines.append({"curve": "tables", "n": n, "moves_per_s": 300.0 * n,
                      "latency": {"p50_ms": 3.0 * n, "p99_ms": 9.0 * n}})  # fmt: skip
        (scaling / "samples" / f"tables_{n}.json").write_text(json.dumps({"latency": ms(n)}))
        lines.append({"curve": "fanout", "n": n, "fanout": {"p50_ms": 2.0 * n, "p99_ms": 5.0 * n}})
    lines.append({"curve": "tables", "n": 100, "error": "loadgen rc=3"})
    (scaling / "scaling.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return run, scaling / "scaling.jsonl"


def test_every_chart_is_drawn(tmp_path, capsys):
    charts = _charts_module()
    run, scaling = _write_inputs(tmp_path)
    out = tmp_path / "png"
    argv = ["--peers-run", str(run), "--scaling", str(scaling), "--out", str(out)]
    assert charts.main(argv) == 0
    names = {"latency_cdf.png", "scaling_tables.png", "scaling_fanout.png",
             "scaling_tables_cdf.png"}  # fmt: skip
    assert {p.name for p in out.iterdir()} == names
    for name in names:
        data = (out / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000
    assert set(capsys.readouterr().out.split()) == {str(out / n) for n in names}


def test_nothing_to_draw_is_an_error(tmp_path):
    charts = _charts_module()
    argv = ["--scaling", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "png")]
    assert charts.main(argv) == 1
    assert list((tmp_path / "png").iterdir()) == []
