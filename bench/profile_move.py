"""Where one move's time goes, by layer: py-spy against ``tablestate serve`` under phase A load.

Starts a fresh redis-server and ``tablestate serve`` (1 worker, as ``bench/scaling.py`` does),
plays the peer benchmark's phase A (one table, two players alternating, each move sent when
the mover's subscription shows it is to act) with ``--moves`` moves, and samples the server
process with ``py-spy record --format raw`` meanwhile (idle threads left out, so every sample
is the server working). Each sample is given to the first layer found walking its stack from
the innermost frame outwards (a frame of the standard library's json counts as JSON, wherever
it was called from); the shares are the server CPU of a move, by layer ("self"). The
"inclusive" share of a layer counts every sample with one of its frames anywhere on the stack
(a GraphQL resolver calling the store counts for both). The server's and
redis-server's CPU per move come from the loadgen (``/proc`` ticks over the window).

    python bench/profile_move.py                     # 4,000 moves (about 15 s)
    python bench/profile_move.py --quick             # 300 moves
    python bench/profile_move.py --flamegraph docs/performance/move_flamegraph.svg

Needs py-spy (``pip install py-spy``; the ``bench`` extra) and ptrace rights on the server
(root, or ``kernel.yama.ptrace_scope=0``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling import code_version, install_bench_game, loadavg, server, wait_quiet

ROOT = Path(__file__).resolve().parents[1]
LOADGEN = ROOT / "bench" / "peers" / "tablestate" / "loadgen.js"

# (layer, substrings of a frame's "function (file:line)"), tried in this order per frame.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("game rules (plugin)", ("tablestate_bench", "/plugins/")),
    ("engine (service/engine)", ("/service/engine/",)),
    ("JSON encode/decode", ("/json/", "/orjson")),
    ("Redis client (redis-py, service/store)", ("/redis/", "/service/store/", "hiredis")),
    ("fan-out (service/hub)", ("/service/hub.py",)),
    ("table service (service/tables, bots)", ("/service/tables.py", "/service/bots.py")),
    (
        "GraphQL (strawberry, graphql-core, service/api)",
        ("/strawberry/", "/graphql/", "/service/api/"),
    ),
    (
        "WebSocket/HTTP (uvicorn, websockets, starlette)",
        ("/uvicorn/", "/websockets/", "/starlette/", "/h11/", "/httptools/", "wsproto"),
    ),
    ("logging, metrics", ("/logging/", "/service/logs.py", "/service/metrics.py")),
    ("asyncio event loop (and uvloop's C: I/O, callbacks)", ("/asyncio/", "uvloop")),
]
OTHER = "other (stdlib, interpreter)"


def _path(frame: str) -> str:
    """``func (pkg/module.py:12)`` -> ``/pkg/module.py:12`` (py-spy names files from their
    import root), so that ``/json/`` matches the json package and not a name containing it."""
    return "/" + frame[frame.rfind("(") + 1 :]


def _layer(frame: str) -> str | None:
    path = _path(frame)
    for name, needles in LAYERS:
        if any(n in path for n in needles):
            return name
    return None


def layer_of(stack: str) -> str:
    for frame in reversed(stack.split(";")):
        found = _layer(frame)
        if found is not None:
            return found
    return OTHER


def inclusive(stacks: Counter[str]) -> dict[str, int]:
    """Per layer, the samples with at least one of its frames anywhere on the stack."""
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        for name in {_layer(f) for f in stack.split(";")} - {None}:
            out[str(name)] += n
    return dict(out.most_common())


def read_raw(path: Path) -> Counter[str]:
    """py-spy's raw (collapsed) output: ``frame;frame;... count`` per line."""
    stacks: Counter[str] = Counter()
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks[stack] += int(count)
    return stacks


def by_layer(stacks: Counter[str]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        out[layer_of(stack)] += n
    return dict(out.most_common())


def top_functions(stacks: Counter[str], n: int) -> list[tuple[str, int]]:
    """The innermost frames that took the most samples (self time)."""
    leaf: Counter[str] = Counter()
    for stack, count in stacks.items():
        leaf[stack.rsplit(";", 1)[-1]] += count
    return leaf.most_common(n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4000)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--quick", action="store_true", help="300 moves, no quiet wait")
    parser.add_argument("--quiet-wait", type=int, default=60)
    parser.add_argument("--flamegraph", help="also write py-spy's SVG flame graph there")
    parser.add_argument("--out", help="append the JSON line to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.moves, args.quiet_wait = 300, 0
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("profile_move: py-spy is missing (pip install py-spy)", file=sys.stderr)
        return 2
    busy = wait_quiet(args.quiet_wait)
    load = loadavg()
    with tempfile.TemporaryDirectory(prefix="tsprofile.") as tmp:
        work = Path(tmp)
        site = install_bench_game(work)
        with server(work, site, 1) as (port, pids, _redis_port):
            raw = work / "move.raw"
            spy_cmd = [spy, "record", "--pid", str(pids[0]), "--rate", str(args.rate),
                       "--format", "raw", "--output", str(raw), "--nonblocking"]  # fmt: skip
            recorder = subprocess.Popen(spy_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            svg = None
            if args.flamegraph:
                svg = subprocess.Popen(
                    [spy, "record", "--pid", str(pids[0]), "--rate", str(args.rate),
                     "--output", args.flamegraph, "--nonblocking"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )  # fmt: skip
            time.sleep(1.0)  # py-spy attached
            cmd = ["node", str(LOADGEN), "A", "--port", str(port), "--moves", str(args.moves),
                   "--server-pids", ",".join(map(str, pids))]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            for proc in (recorder, svg):
                if proc is not None:
                    proc.send_signal(signal.SIGINT)
                    proc.wait(30)
            if done.returncode != 0:
                print(f"loadgen failed: {done.stderr[-1000:]}", file=sys.stderr)
                return 1
            phase_a: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        if not raw.exists():
            err = recorder.stderr.read().decode() if recorder.stderr else ""
            print(f"profile_move: py-spy wrote nothing: {err[-1000:]}", file=sys.stderr)
            return 1
        stacks = read_raw(raw)
    total = sum(stacks.values())
    layers = by_layer(stacks)
    moves = phase_a["moves"]
    cpu_s = {p["comm"]: p["cpu_pct"] / 100 * phase_a["window_s"] for p in phase_a["server_procs"]}
    line = {
        "bench": "profile_move", "moves": moves, "moves_per_s": phase_a["moves_per_s"],
        "latency": phase_a["latency"], "server_cpu_pct": phase_a["server_cpu_pct"],
        "cpu_us_per_move": {k: round(v / moves * 1e6) for k, v in cpu_s.items()},
        "samples": total, "layers_pct": {k: round(v / total * 100, 1) for k, v in layers.items()},
        "layers_inclusive_pct": {k: round(v / total * 100, 1) for k, v in inclusive(stacks).items()},
        "top_functions": [[f, round(c / total * 100, 1)] for f, c in top_functions(stacks, 15)],
        "pre_run_busy_pct": busy, "loadavg_1m": load, **code_version(),
    }  # fmt: skip
    print(json.dumps(line))
    if args.out:
        with Path(args.out).open("a") as fh:
            fh.write(json.dumps(line) + "\n")
    python_us = next((v for k, v in line["cpu_us_per_move"].items() if "redis" not in k), None)
    print(f"\nphase A, {moves} moves: {phase_a['moves_per_s']} moves/s, p50 "
          f"{phase_a['latency']['p50_ms']} ms, p99 {phase_a['latency']['p99_ms']} ms; server CPU "
          f"per move: {line['cpu_us_per_move']} µs\n")  # fmt: skip
    print("| layer | self: share of server samples | self: µs per move | inclusive share |")
    print("|---|---|---|---|")
    for name, pct in line["layers_pct"].items():
        us = f"{pct / 100 * python_us:.0f}" if python_us is not None else "-"
        print(f"| {name} | {pct} % | {us} | {line['layers_inclusive_pct'].get(name, '-')} % |")
    print("\nTop functions (self time):")
    for f, pct in line["top_functions"]:
        print(f"  {pct:5.1f} %  {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
