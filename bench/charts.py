"""The benchmark's charts (PNG, matplotlib's Agg backend) for docs/performance.md.

Reads a peer-benchmark run (``bench/peers/results/<run>/``: the runners' JSON lines
``*.jsonl`` and the raw latency samples ``samples/*.json`` of every run, Tablestate's and the
peers') and the scaling curves (``bench/results/scaling.jsonl`` of ``bench/scaling.py``, with
its samples), and draws into ``--out``:

- ``latency_cdf.png``: the distribution (CDF, log time axis) of the move latency of phase A,
  of phase B, and of the fan-out delivery latency of phase C, Tablestate beside boardgame.io
  and Colyseus, each server's runs pooled.
- ``scaling_tables.png``: total moves/s and latency p50/p99 against the number of tables
  playing at once; the peers' phase B (50 matches) as single points.
- ``scaling_fanout.png``: delivery latency p50/p99 against the number of subscribers of one
  table; the peers' phase C (200 spectators) as single points.
- ``scaling_tables_cdf.png``: the move latency distribution at each number of tables.

    python bench/charts.py --peers-run bench/peers/results/<run> --scaling bench/results/scaling.jsonl
    python bench/charts.py --peers-run ... --out docs/performance

Whatever is missing (no peer run, no scaling file) is left out of the charts, not invented.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter

ROOT = Path(__file__).resolve().parents[1]

# Display names and colours, one per server (the same in every chart).
STYLE = {
    "tablestate (ws moves)": ("Tablestate (moves over WebSocket)", "tab:blue"),
    "tablestate (http moves)": ("Tablestate (moves over HTTP)", "tab:cyan"),
    "bgio": ("boardgame.io 0.50.2", "tab:orange"),
    "colyseus": ("Colyseus 0.16 (immediate patch)", "tab:green"),
}
ALIASES = {"boardgame.io@0.50.2": "bgio", "colyseus@0.16 (immediate patch)": "colyseus"}


def server_key(name: str) -> str:
    return ALIASES.get(name, name)


def label(key: str) -> str:
    return STYLE.get(key, (key, None))[0]


def colour(key: str) -> str | None:
    return STYLE.get(key, (key, None))[1]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text().splitlines():
        if line.strip().startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


def load_samples(folder: Path) -> dict[tuple[str, str, str], list[float]]:
    """(server, phase, kind) -> pooled samples in ms; kind: latency, fanout, mover_latency."""
    out: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    if not folder.is_dir():
        return out
    for f in sorted(folder.glob("*.json")):
        data = json.loads(f.read_text())
        server, phase = server_key(str(data.get("server", ""))), str(data.get("phase", ""))
        for kind in ("latency", "fanout", "mover_latency"):
            if isinstance(data.get(kind), list):
                out[(server, phase, kind)].extend(float(x) for x in data[kind])
    return out


def median(xs: Iterable[float | None]) -> float | None:
    v = sorted(x for x in xs if isinstance(x, int | float))
    return v[(len(v) - 1) // 2] if v else None


def percentile(sorted_ms: list[float], p: float) -> float:
    """Nearest rank, as the loadgens' stats.js."""
    i = min(len(sorted_ms) - 1, max(0, -(-len(sorted_ms) * p // 100) - 1))
    return sorted_ms[int(i)]


PLAIN = FuncFormatter(lambda v, _pos: f"{v:g}")  # 0.1, 1, 10 rather than 10^-1, 10^0, 10^1


# Minor ticks of a log axis: 2 and 5 of each decade are labelled, the rest stay blank.
MINOR = FuncFormatter(lambda v, _pos: f"{v:g}" if f"{v:e}"[0] in "25" else "")


def plain(ax: Axes, *axes: str) -> None:
    for a in axes:
        getattr(ax, f"{a}axis").set_major_formatter(PLAIN)
        getattr(ax, f"{a}axis").set_minor_formatter(MINOR)


def cdf(ax: Axes, samples: list[float], key: str) -> None:
    xs = sorted(samples)
    n = len(xs)
    # At most ~2,000 points per curve: the shape without megabytes of vector data.
    step = max(1, n // 2000)
    px = [*xs[::step], xs[-1]]
    py = [i / n for i in range(1, n + 1, step)] + [1.0]
    p50, p99 = percentile(xs, 50), percentile(xs, 99)
    ax.plot(px, py, color=colour(key), lw=1.8,
            label=f"{label(key)}: p50 {p50:.2f}, p99 {p99:.1f} ms (n={n:,})")  # fmt: skip


def draw_latency_cdf(samples: dict[tuple[str, str, str], list[float]], out: Path) -> Path | None:
    panels = [("A", "latency", "A: 1 table, 2,000 sequential moves\nmove latency"),
              ("B", "latency", "B: 50 tables at once, 20 s\nmove latency"),
              ("C", "fanout", "C: 200 spectators, 200 moves\nsend → each spectator receives")]  # fmt: skip
    present = [p for p in panels if any(k[1:] == p[:2] for k in samples)]
    if not present:
        return None
    fig, axes = plt.subplots(1, len(present), figsize=(5.2 * len(present), 4.6), squeeze=False)
    order = list(STYLE)
    for ax, (phase, kind, title) in zip(axes[0], present, strict=True):
        keys = sorted((k[0] for k in samples if k[1] == phase and k[2] == kind),
                      key=lambda s: order.index(s) if s in order else 99)  # fmt: skip
        for key in keys:
            cdf(ax, samples[(key, phase, kind)], key)
        ax.set_xscale("log")
        plain(ax, "x")
        ax.set_xlabel("milliseconds (log scale)")
        ax.set_ylabel("fraction of samples ≤ x")
        ax.set_ylim(0, 1.01)
        ax.axhline(0.99, color="grey", lw=0.6, ls=":")
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("Latency distributions, Tablestate beside the peers (same machine, same workload)",
                 fontsize=11)  # fmt: skip
    fig.tight_layout()
    path = out / "latency_cdf.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def peer_point(rows: list[dict[str, Any]], phase: str) -> dict[str, dict[str, float | None]]:
    """server -> median figures of one phase over the peers' runs (no Tablestate rows)."""
    out: dict[str, dict[str, float | None]] = {}
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("phase") == phase and not r.get("error"):
            groups[server_key(r["server"])].append(r)
    for key, rs in groups.items():
        if key.startswith("tablestate"):
            continue
        lat = [r.get("latency") or r.get("fanout") or {} for r in rs]
        out[key] = {"moves_per_s": median(r.get("moves_per_s") for r in rs),
                    "p50": median(x.get("p50_ms") for x in lat),
                    "p99": median(x.get("p99_ms") for x in lat)}  # fmt: skip
    return out


def curve(rows: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return sorted((r for r in rows if r.get("curve") == name and "error" not in r),
                  key=lambda r: r["n"])  # fmt: skip


def draw_tables(
    scaling: list[dict[str, Any]], peers: list[dict[str, Any]], out: Path
) -> Path | None:
    pts = curve(scaling, "tables")
    if not pts:
        return None
    ns = [r["n"] for r in pts]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    ts = "tablestate (ws moves)"
    left.plot(ns, [r["moves_per_s"] for r in pts], "o-", color=colour(ts), label=label(ts))
    right.plot(ns, [r["latency"]["p50_ms"] for r in pts], "o-", color=colour(ts),
               label=f"{label(ts)} p50")  # fmt: skip
    right.plot(ns, [r["latency"]["p99_ms"] for r in pts], "s--", color=colour(ts),
               label=f"{label(ts)} p99")  # fmt: skip
    for key, fig_b in peer_point(peers, "B").items():
        left.plot([50], [fig_b["moves_per_s"]], "D", color=colour(key), ms=8,
                  label=f"{label(key)}: phase B (50 tables)")  # fmt: skip
        right.plot(
            [50], [fig_b["p50"]], "D", color=colour(key), ms=7, label=f"{label(key)} p50 (B)"
        )
        right.plot(
            [50], [fig_b["p99"]], "^", color=colour(key), ms=8, label=f"{label(key)} p99 (B)"
        )
    for r in pts:
        left.annotate(f"{r['moves_per_s']:.0f}", (r["n"], r["moves_per_s"]), fontsize=7,
                      textcoords="offset points", xytext=(4, 4))  # fmt: skip
    left.set_title("Total moves/s, tables playing at once\n(each table strictly sequential)",
                   fontsize=10)  # fmt: skip
    left.set_ylabel("moves/s")
    right.set_title("Move latency (send → the mover's own subscription)", fontsize=10)
    right.set_ylabel("milliseconds (log scale)")
    right.set_yscale("log")
    plain(right, "y")
    for ax in (left, right):
        ax.set_xscale("log")
        plain(ax, "x")
        ax.set_xlabel("tables at once (log scale)")
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=7)
    left.set_ylim(bottom=0)
    fig.tight_layout()
    path = out / "scaling_tables.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_fanout(
    scaling: list[dict[str, Any]], peers: list[dict[str, Any]], out: Path
) -> Path | None:
    pts = curve(scaling, "fanout")
    if not pts:
        return None
    ns = [r["n"] for r in pts]
    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    ts = "tablestate (ws moves)"
    ax.plot(
        ns, [r["fanout"]["p50_ms"] for r in pts], "o-", color=colour(ts), label=f"{label(ts)} p50"
    )
    ax.plot(
        ns, [r["fanout"]["p99_ms"] for r in pts], "s--", color=colour(ts), label=f"{label(ts)} p99"
    )
    for key, fig_c in peer_point(peers, "C").items():
        ax.plot([200], [fig_c["p50"]], "D", color=colour(key), ms=7, label=f"{label(key)} p50 (C)")
        ax.plot([200], [fig_c["p99"]], "^", color=colour(key), ms=8, label=f"{label(key)} p99 (C)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain(ax, "x", "y")
    ax.set_xlabel("subscribers of one table (log scale)")
    ax.set_ylabel("milliseconds (log scale)")
    ax.set_title("Fan-out: a move's send → each subscriber receives it", fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "scaling_fanout.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def draw_tables_cdf(samples_dir: Path, out: Path) -> Path | None:
    files = sorted(samples_dir.glob("tables_*.json"), key=lambda f: int(f.stem.split("_")[1]))
    if not files:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 5.0))
    cmap = plt.get_cmap("viridis")  # up to 0.85: no pale yellow
    for i, f in enumerate(files):
        xs = sorted(json.loads(f.read_text()).get("latency", []))
        if not xs:
            continue
        n = len(xs)
        step = max(1, n // 2000)
        ax.plot([*xs[::step], xs[-1]], [j / n for j in range(1, n + 1, step)] + [1.0],
                color=cmap(0.85 * i / max(1, len(files) - 1)), lw=1.8,
                label=f"{f.stem.split('_')[1]} tables: p50 {percentile(xs, 50):.1f}, "
                      f"p99 {percentile(xs, 99):.1f} ms")  # fmt: skip
    ax.set_xscale("log")
    plain(ax, "x")
    ax.set_xlabel("milliseconds (log scale)")
    ax.set_ylabel("fraction of moves ≤ x")
    ax.set_title("Tablestate move latency by number of tables at once", fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.tight_layout()
    path = out / "scaling_tables_cdf.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers-run", help="a run folder of bench/peers/run_all.sh")
    parser.add_argument("--scaling", default=str(ROOT / "bench" / "results" / "scaling.jsonl"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    peers: list[dict[str, Any]] = []
    samples: dict[tuple[str, str, str], list[float]] = {}
    if args.peers_run:
        run = Path(args.peers_run)
        for f in sorted(run.glob("*.jsonl")):
            peers += [r for r in read_jsonl(f) if r.get("server") and r.get("phase")]
        samples = load_samples(run / "samples")
    scaling_file = Path(args.scaling)
    scaling = read_jsonl(scaling_file) if scaling_file.is_file() else []
    drawn = [
        draw_latency_cdf(samples, out),
        draw_tables(scaling, peers, out),
        draw_fanout(scaling, peers, out),
        draw_tables_cdf(scaling_file.parent / "samples", out),
    ]
    made = [str(p) for p in drawn if p is not None]
    for p in made:
        print(p)
    if not made:
        print("charts: nothing to draw (no samples, no scaling results)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
