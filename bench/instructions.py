"""Instructions per move of the server process: phase A (or C) under valgrind's callgrind.

Times on a shared machine wander with what else runs; instruction counts do not (the same
binary, inputs and environment count the same, whatever the other cores do). This starts a
fresh redis-server and ``tablestate serve`` (one worker) of a checkout under
``valgrind --tool=callgrind``, plays the peer benchmark's phase A (one table, two players,
``bench/peers/tablestate/loadgen.js``) with a few moves and with more, and prints the server
process's instructions per move: the difference of the two runs over the difference of their
moves, so start-up and shut-down cancel out. redis-server is not counted.

    python bench/instructions.py                         # this checkout, 60 and 260 moves
    python bench/instructions.py --checkout ../other     # another checkout of the project
    python bench/instructions.py --repeat 2              # each count twice (to see the spread)
    python bench/instructions.py --phase C --spectators 50   # phase C: per move, and per delivery
    python bench/instructions.py --phase B --workers 2   # phase B (6 tables, 20 and 60 s of
                                                         # play), every worker counted

Phase B measures the work of a move without the contention for the machine's cores that a
timing sees (``bench/scaling.py --only workers``): whether a second worker adds work to a
move, or only waits for a core. With ``--workers N`` every process of the server (the
supervisor and its workers) is counted.

In phase C the loadgen adds spectators to the table, and the figure of interest is the
server's instructions per delivery (a move's instructions over the subscribers it reaches:
the spectators and both players).

Under callgrind a move takes some tens of milliseconds and start-up about a minute: a run
of the defaults takes a few minutes. Needs valgrind, node and the loadgen's packages
(``npm ci --prefix bench/peers``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling import free_port, install_bench_game, package_path

ROOT = Path(__file__).resolve().parents[1]
LOADGEN = ROOT / "bench" / "peers" / "tablestate" / "loadgen.js"


def wait_ready(port: int, proc: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server ended while starting (exit {proc.returncode})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the server did not get ready in time")


def totals(folder: Path) -> int:
    """The instructions callgrind counted, over every process it wrote a file for."""
    count = 0
    for out in folder.glob("callgrind.out.*"):
        for line in out.read_text(errors="replace").splitlines():
            if line.startswith(("totals:", "summary:")):
                count += int(line.split()[1])
                break
    return count


def run(
    checkout: Path,
    moves: int,
    work: Path,
    site: Path,
    phase: str = "A",
    spectators: int = 0,
    workers: int = 1,
    matches: int = 6,
) -> tuple[int, int]:
    """Instructions of the server and the moves the loadgen saw acknowledged, one run."""
    folder = Path(tempfile.mkdtemp(dir=work))
    rport, port = free_port(), free_port()
    redis = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(rport),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "PYTHONPATH": f"{package_path(checkout, work)}:{site}:{checkout}",
        "REDIS_URL": f"redis://127.0.0.1:{rport}/0",
        "TABLESTATE_SECRET": "bench-instructions",
        "TABLESTATE_REDIS_PREFIX": "bench:",
        "TABLESTATE_LOG_LEVEL": "warning",
    }
    server = subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            "--trace-children=yes",
            f"--callgrind-out-file={folder}/callgrind.out.%p",
            sys.executable,
            "-c",
            "from tablestate.cli import main; raise SystemExit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env=env,
        # ``python -c`` puts the working directory first on sys.path, before PYTHONPATH:
        # run in the checkout measured, or a checkout there would be measured instead.
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    phase_b = ["--matches", str(matches), "--duration", str(moves), "--hard-s", "3000"]
    try:
        wait_ready(port, server, 600)
        done = subprocess.run(
            [
                "node",
                str(LOADGEN),
                phase,
                "--port",
                str(port),
                "--transport",
                "ws",
                *(["--moves", str(moves)] if phase != "B" else []),
                # phase B: ``moves`` is the seconds its tables play
                *(phase_b if phase == "B" else []),
                "--server-pids",
                str(server.pid),
                *(["--spectators", str(spectators)] if phase == "C" else []),
            ],
            capture_output=True,
            text=True,
            timeout=1800,
            check=True,
        )
        result = json.loads(done.stdout.strip().splitlines()[-1])
        acked = int(result["moves_acked"] if phase == "B" else result["moves"])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=600)
        redis.terminate()
        redis.wait(timeout=30)
    return totals(folder), acked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--few", type=int, default=60)
    parser.add_argument("--many", type=int, default=260)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phase", choices=("A", "B", "C"), default="A")
    parser.add_argument("--spectators", type=int, default=50, help="phase C only")
    parser.add_argument("--workers", type=int, default=1,
                        help="workers of the server (more than one: every process counted)")  # fmt: skip
    parser.add_argument("--matches", type=int, default=6, help="phase B only: its tables")
    args = parser.parse_args()
    if args.phase == "B" and args.few == 60 and args.many == 260:
        args.few, args.many = 20, 60  # seconds of play: B runs by time
    checkout = args.checkout.resolve()
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site = install_bench_game(work)
        per_move = []
        for _ in range(args.repeat):
            kinds = (args.phase, args.spectators, args.workers, args.matches)
            few, few_moves = run(checkout, args.few, work, site, *kinds)
            many, many_moves = run(checkout, args.many, work, site, *kinds)
            per_move.append((many - few) / (many_moves - few_moves))
            line = {
                "checkout": str(checkout.name),
                "commit": commit,
                "phase": args.phase,
                "workers": args.workers,
                "few": [few_moves, few],
                "many": [many_moves, many],
                "instructions_per_move": round(per_move[-1]),
            }
            if args.phase == "C":
                line["spectators"] = args.spectators
                line["instructions_per_delivery"] = round(per_move[-1] / (args.spectators + 2))
            print(json.dumps(line), flush=True)
    median = sorted(per_move)[len(per_move) // 2]
    print(f"{commit}: {median:,.0f} instructions per move (median)")
    if args.phase == "C":
        reached = args.spectators + 2
        print(
            f"{commit}: {median / reached:,.0f} instructions per delivery ({reached} subscribers)"
        )


if __name__ == "__main__":
    main()
