"""How the cost grows: tables, subscribers and memory per subscription, over the real stack.

Each point starts a fresh redis-server (``appendonly yes``, ``appendfsync everysec``, no RDB
snapshots, in a temporary folder) and a fresh ``tablestate serve`` (the code of this checkout,
the benchmark game ``bench-counter`` of ``bench/bench_game``), drives it with the peer
benchmark's Node loadgen (``bench/peers/tablestate/loadgen.js``: the official ``graphql-ws``
client; one process) and stops both. Three curves:

- ``tables``: N tables at once, each strictly sequential (its two players alternate, each move
  sent when the mover's subscription shows it is to act), for ``--duration`` seconds: total
  moves/s and the move latency p50/p99 (send -> the mover's own subscription delivers it).
  The loadgen's phase B with ``--matches N --retry-unavailable``: a move refused with
  UNAVAILABLE (the server's answer when a store call waits past its timeout, e.g. for a pooled
  Redis connection) is sent again after 50 ms with the same idempotency key, as a client told
  "retry later" would; its latency counts from the first send, and the resends are counted
  (``moves_retried_unavailable``). Every move carries an idempotency key at every N.
- ``fanout``: one table, N spectators subscribed, ``--fanout-moves`` moves (100; fewer where
  N x moves would pass ``--fanout-deliveries``, 100,000: 20 moves at 5,000) one at a time (the
  next once every spectator has the last): the delivery latency p50/p99 over every (move,
  spectator). The loadgen's phase C with ``--spectators N``.
- ``workers``: phase B (``--workers-tables`` tables, 50 by default) served by 1, 2, ...
  workers (``--workers-curve``), the points interleaved (1, 2, 1, 2, ...) ``--runs`` times:
  moves/s, p99, and the CPU per move of the server (the serve process and its workers) and
  of redis-server apart, in microseconds: the cost of a move, which a second worker should not
  raise. The loadgen opens each player's connection at ``/graphql?table=<id>`` (the routing
  key of docs/clients.md), unless ``--no-route``.
- ``memory``: the server's RSS (uvicorn workers + redis-server, summed) before and after N
  subscriptions open, after a 2 s settle each: bytes per subscription, with one subscription
  per WebSocket, and with 100 per WebSocket (the cost of a subscription alone). Phase M.

Every point is one JSON line (``--out-dir``/scaling.jsonl, replaced at each invocation; raw
latency samples in ``--out-dir``/samples/), and a table is printed at the end.

    python bench/scaling.py                  # the full curves (5 to 15 minutes on 2 vCPUs)
    python bench/scaling.py --quick          # seconds: 1-2 tables, 3 spectators, 10 subscriptions
    python bench/scaling.py --only tables --tables 1 10 --duration 5
    python bench/scaling.py --only workers --runs 3   # the workers curve of docs/performance.md

Before each point it waits (at most ``--quiet-wait`` seconds) for the machine to be quiet, as
the peer benchmark does, and records the busy value it saw and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "bench" / "peers"
LOADGEN = PEERS / "tablestate" / "loadgen.js"
WAIT_QUIET = PEERS / "lib" / "wait_quiet.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", *args], cwd=ROOT, capture_output=True, timeout=10
        )
        return out.stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def code_version() -> dict[str, str]:
    """The commit measured, and whether service/ or plugins/ had uncommitted changes."""
    diff = git("diff", "HEAD", "--stat", "--", "service", "plugins")
    return {"commit": git("rev-parse", "--short", "HEAD") or "unknown", "uncommitted": diff[-60:]}


def wait_quiet(max_s: int) -> int | None:
    """The machine's busy % (100 = one core) once quiet, or after ``max_s`` seconds."""
    if max_s <= 0:
        return None
    out = subprocess.run(
        ["bash", str(WAIT_QUIET), str(max_s), "20"], capture_output=True, timeout=max_s + 30
    )
    text = out.stdout.decode().strip()
    return int(text) if text.isdigit() else None


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def stop(proc: subprocess.Popen[bytes]) -> None:
    """TERM, up to 15 s, then KILL."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def install_bench_game(work: Path) -> Path:
    """``bench/bench_game`` installed with pip into a folder only the benchmarked server sees."""
    src = work / "bench_game_src"
    shutil.copytree(
        ROOT / "bench" / "bench_game", src, ignore=shutil.ignore_patterns("build", "*.egg-info")
    )
    site = work / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site)]
    # Built with this environment's setuptools when it has one (no download); else isolated.
    done = subprocess.run(
        [*cmd, "--no-build-isolation", str(src)], capture_output=True, timeout=180
    )
    if done.returncode != 0:
        subprocess.run([*cmd, str(src)], check=True, timeout=180)
    return site


def package_path(checkout: Path, work: Path) -> Path:
    """A folder whose ``tablestate`` is the checkout's ``service/`` and whose bundled games
    are its ``plugins/`` (the folders in the repository have other names than the imports:
    pyproject.toml's package-dir maps one to the other), so that the checkout measured is
    the one imported, not the one installed: the service and its games from one commit."""
    shim = work / f"import.{checkout.name}"
    shim.mkdir(exist_ok=True)
    with (checkout / "pyproject.toml").open("rb") as f:
        folders = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    for name, folder in folders.items():
        link = shim / name
        if not link.exists():
            link.symlink_to(checkout / folder, target_is_directory=True)
    return shim


@contextlib.contextmanager
def server(work: Path, site: Path, workers: int) -> Iterator[tuple[int, list[int], int]]:
    """A fresh redis-server and ``tablestate serve``: (HTTP port, [serve pid, redis pid],
    Redis port)."""
    run = Path(tempfile.mkdtemp(dir=work, prefix="point."))
    (run / "redis").mkdir()
    rport, port = free_port(), free_port()
    redis_log = (run / "redis.log").open("wb")
    redis = subprocess.Popen(
        ["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--dir", str(run / "redis"),
         "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
        stdout=redis_log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    serve: subprocess.Popen[bytes] | None = None
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", rport), 1):
                break
            if time.monotonic() > deadline or redis.poll() is not None:
                raise RuntimeError("redis-server failed to start")
            time.sleep(0.1)
        env = dict(os.environ)
        env.update(
            PYTHONPATH=os.pathsep.join(map(str, (package_path(ROOT, work), site, ROOT))),
            REDIS_URL=f"redis://127.0.0.1:{rport}/0",
            TABLESTATE_SECRET=f"bench-secret-{os.getpid()}-{time.time_ns()}",
            TABLESTATE_REDIS_PREFIX="bench:",
            TABLESTATE_LOG_LEVEL="warning",
        )
        serve_log = (run / "serve.log").open("wb")
        serve = subprocess.Popen(
            [sys.executable, "-m", "tablestate.cli", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--workers", str(workers)],
            env=env, cwd=ROOT, stdout=serve_log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        break
            if time.monotonic() > deadline or serve.poll() is not None:
                tail = (run / "serve.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"tablestate serve failed to start:\n{tail}")
            time.sleep(0.1)
        yield port, [serve.pid, redis.pid], rport
    finally:
        if serve is not None:
            stop(serve)
        stop(redis)
        shutil.rmtree(run / "redis", ignore_errors=True)


def loadgen(
    phase: str, port: int, pids: list[int], args: list[str], timeout: float
) -> dict[str, Any]:
    """One loadgen run; its JSON result (or ``{"error": ...}``)."""
    cmd = ["node", str(LOADGEN), phase, "--port", str(port), "--server-pids",
           ",".join(map(str, pids)), *args]  # fmt: skip
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"loadgen timed out after {timeout:.0f} s"}
    if out.returncode != 0:
        return {"error": f"loadgen rc={out.returncode}: {out.stderr.decode()[-500:]}"}
    lines = [ln for ln in out.stdout.decode().splitlines() if ln.startswith("{")]
    if not lines:
        return {"error": "loadgen printed no result"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


Point = tuple[str, int, str, list[str], float, int]


def points(args: argparse.Namespace) -> list[Point]:
    """(curve, N, loadgen phase, loadgen flags, timeout s, workers) for every point asked
    for. N is the tables, subscribers or subscriptions of the point; for ``workers``, the
    workers."""
    out: list[Point] = []
    samples = Path(args.out_dir) / "samples"
    hard = 600
    if "tables" in args.only:
        for n in args.tables:
            flags = ["--matches", str(n), "--duration", str(args.duration),
                     "--setup-batch", "20", "--hard-s", str(hard), "--retry-unavailable",
                     "--samples-out", str(samples / f"tables_{n}.json")]  # fmt: skip
            out.append(("tables", n, "B", flags, hard + 30, args.workers))
    if "fanout" in args.only:
        for n in args.subscribers:
            moves = max(5, min(args.fanout_moves, args.fanout_deliveries // n))
            flags = ["--spectators", str(n), "--moves", str(moves), "--hard-s",
                     str(hard), "--samples-out", str(samples / f"fanout_{n}.json")]  # fmt: skip
            out.append(("fanout", n, "C", flags, hard + 30, args.workers))
    if "memory" in args.only:
        for n in args.memory:
            for per in (1, 100):
                conns = max(1, n // per)
                flags = ["--connections", str(conns), "--subs-per-conn", str(per),
                         "--hard-s", str(hard)]  # fmt: skip
                out.append((f"memory_{per}_per_ws", conns * per, "M", flags, hard + 30,
                            args.workers))  # fmt: skip
    if "workers" in args.only:
        for run in range(args.runs):
            for w in args.workers_curve:
                flags = ["--matches", str(args.workers_tables), "--duration",
                         str(args.duration), "--setup-batch", "20", "--hard-s", str(hard),
                         "--retry-unavailable",
                         "--samples-out", str(samples / f"workers_{w}_run{run}.json")]  # fmt: skip
                if args.no_route:
                    flags.append("--no-route")
                out.append(("workers", w, "B", flags, hard + 30, w))
    return out


def redis_commands(rport: int, r: dict[str, Any]) -> dict[str, list[float]]:
    """redis-server's own account of the point (``INFO commandstats``, since its start, the
    setup included): each command's [calls per move, µs per move], the costliest first."""
    moves = r.get("moves_acked") or 0
    try:
        out = subprocess.run(["redis-cli", "-p", str(rport), "INFO", "commandstats"],
                             capture_output=True, timeout=10, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return {}
    stats: dict[str, list[float]] = {}
    for line in out.stdout.decode().splitlines():
        if not line.startswith("cmdstat_") or not moves:
            continue
        name, _, fields = line[len("cmdstat_") :].partition(":")
        kv = dict(f.split("=", 1) for f in fields.split(","))
        stats[name] = [round(int(kv["calls"]) / moves, 2), round(int(kv["usec"]) / moves, 1)]
    return dict(sorted(stats.items(), key=lambda kv: -kv[1][1]))


def cpu_per_move(r: dict[str, Any]) -> dict[str, float]:
    """Microseconds of CPU per move: of the server's processes (every one but
    redis-server) and of redis-server, from the loadgen's per-process figures."""
    rate = r.get("moves_per_s") or 0
    procs = r.get("server_procs") or []
    if not rate or not procs:
        return {}
    redis = sum(p["cpu_pct"] for p in procs if p.get("comm") == "redis-server")
    server = sum(p["cpu_pct"] for p in procs if p.get("comm") != "redis-server")
    return {
        "server_cpu_us_per_move": round(server / 100 / rate * 1e6, 1),
        "redis_cpu_us_per_move": round(redis / 100 / rate * 1e6, 1),
        "cpu_us_per_move": round((server + redis) / 100 / rate * 1e6, 1),
    }


def summary_row(curve: str, n: int, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {curve} | {n} | ERROR {r['error'][:80]} |"
    if curve == "tables":
        lat = r["latency"]
        return (f"| tables | {n} | {r['moves_per_s']:.0f} moves/s | p50 {lat['p50_ms']} ms | "
                f"p99 {lat['p99_ms']} ms | server CPU {r['server_cpu_pct']} % | "
                f"client CPU {r['client_cpu_pct']} % | errors {r['move_errors']}+"
                f"{r['subscription_errors']} | UNAVAILABLE resent "
                f"{r.get('moves_retried_unavailable', 0)} |")  # fmt: skip
    if curve == "workers":
        return (f"| workers | {n} | {r['moves_per_s']:.0f} moves/s | p99 "
                f"{r['latency']['p99_ms']} ms | CPU/move {r.get('cpu_us_per_move')} µs | "
                f"server {r.get('server_cpu_us_per_move')} µs | redis-server "
                f"{r.get('redis_cpu_us_per_move')} µs | errors {r['move_errors']}+"
                f"{r['subscription_errors']} |")  # fmt: skip
    if curve == "fanout":
        fan = r["fanout"]
        return (f"| fanout | {n} | p50 {fan['p50_ms']} ms | p99 {fan['p99_ms']} ms | "
                f"max {fan['max_ms']} ms | deliveries {r['deliveries']}/"
                f"{r['expected_deliveries']} | server CPU {r['server_cpu_pct']} % | "
                f"client CPU {r['client_cpu_pct']} % |")  # fmt: skip
    return (f"| {curve} | {n} | {r['bytes_per_subscription']} B/subscription | RSS "
            f"{r['server_rss_before_mb']} -> {r['server_rss_after_mb']} MB | deliveries "
            f"{r['deliveries']}/{r['expected_deliveries']} |")  # fmt: skip


def workers_summary(rows: list[dict[str, Any]]) -> str:
    """The workers curve's medians over its runs, and each count's CPU per move against
    one worker's."""
    if not rows:
        return ""
    by: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["n"], []).append(r)

    def med(rs: list[dict[str, Any]], key: str) -> float:
        vals = sorted(float(r[key]) for r in rs if r.get(key) is not None)
        return vals[len(vals) // 2] if vals else float("nan")

    base = med(by[min(by)], "cpu_us_per_move")
    lines = ["\n| workers | runs | moves/s | p99 ms | CPU µs/move | x one worker's | "
             "server µs/move | redis-server µs/move |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for w in sorted(by):
        rs = by[w]
        cpu = med(rs, "cpu_us_per_move")
        lines.append(f"| {w} | {len(rs)} | {med(rs, 'moves_per_s'):.0f} | "
                     f"{med([r['latency'] for r in rs], 'p99_ms')} | {cpu} | "
                     f"{cpu / base:.2f} | {med(rs, 'server_cpu_us_per_move')} | "
                     f"{med(rs, 'redis_cpu_us_per_move')} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a seconds-long smoke version")
    parser.add_argument("--only", nargs="+", default=["tables", "fanout", "memory"],
                        choices=["tables", "fanout", "memory", "workers"])  # fmt: skip
    parser.add_argument("--tables", nargs="+", type=int, default=[1, 10, 100, 1000])
    parser.add_argument("--subscribers", nargs="+", type=int, default=[10, 100, 1000, 5000])
    parser.add_argument("--memory", nargs="+", type=int, default=[1000],
                        help="subscriptions opened for the memory figure")  # fmt: skip
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per table point")
    parser.add_argument("--fanout-moves", type=int, default=100, help="moves per fan-out point")
    parser.add_argument("--fanout-deliveries", type=int, default=100_000,
                        help="fewer moves where N subscribers x moves would exceed this")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1,
                        help="workers of the tables, fanout and memory points")  # fmt: skip
    parser.add_argument("--workers-curve", nargs="+", type=int, default=[1, 2],
                        help="the workers of the workers curve")  # fmt: skip
    parser.add_argument("--workers-tables", type=int, default=50,
                        help="tables at once in each point of the workers curve")  # fmt: skip
    parser.add_argument("--runs", type=int, default=3,
                        help="interleaved runs of the workers curve")  # fmt: skip
    parser.add_argument("--no-route", action="store_true",
                        help="the workers curve's connections without the routing key")  # fmt: skip
    parser.add_argument("--quiet-wait", type=int, default=60,
                        help="max seconds to wait for a quiet machine before each point (0: no wait)")  # fmt: skip
    parser.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.subscribers, args.memory = [1, 2], [3], [10]
        args.workers_tables, args.runs = 2, 1
        args.duration, args.fanout_moves, args.quiet_wait = 1.0, 5, 0
    for tool in ("node", "redis-server"):
        if shutil.which(tool) is None:
            print(f"scaling: {tool} is missing", file=sys.stderr)
            return 2
    if not (PEERS / "node_modules" / "graphql-ws").is_dir():
        subprocess.run(["npm", "ci", "--prefix", str(PEERS), "--no-audit", "--no-fund"],
                       check=True, timeout=600)  # fmt: skip
    out_dir = Path(args.out_dir)
    (out_dir / "samples").mkdir(parents=True, exist_ok=True)
    out_file = out_dir / "scaling.jsonl"
    out_file.write_text("")
    version = code_version()
    rows: list[str] = []
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tsscale.") as tmp:
        work = Path(tmp)
        site = install_bench_game(work)
        for curve, n, phase, flags, timeout, workers in points(args):
            busy = wait_quiet(args.quiet_wait)
            load = loadavg()
            try:
                with server(work, site, workers) as (port, pids, rport):
                    result = loadgen(phase, port, pids, flags, timeout)
                    if curve == "workers":
                        result["redis_commands"] = redis_commands(rport, result)
            except RuntimeError as exc:
                result = {"error": str(exc)[-500:]}
            result.update(cpu_per_move(result))
            procs = result.pop("server_procs", None) or []
            if curve == "workers":  # each process's share: the workers' balance
                result["procs_cpu_pct"] = [[p.get("comm"), p.get("cpu_pct")] for p in procs]
            line = {"bench": "scaling", "curve": curve, "n": n, "workers": workers,
                    "quick": args.quick, "pre_run_busy_pct": busy, "loadavg_1m": load,
                    **version, **result}  # fmt: skip
            failed += "error" in result
            with out_file.open("a") as fh:
                fh.write(json.dumps(line) + "\n")
            print(json.dumps(line), flush=True)
            rows.append(summary_row(curve, n, result))
    print("\n| curve | N | figures |\n|---|---|---|")
    print("\n".join(rows))
    curve = [json.loads(ln) for ln in out_file.read_text().splitlines()]
    print(workers_summary([r for r in curve if r["curve"] == "workers" and "error" not in r]))
    print(f"\nresults: {out_file}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
