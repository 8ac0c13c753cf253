"""The edge under two attacks, against a real ``tablestate serve`` (memory store) on loopback:

- **oversized frames**: ``--frames`` WebSocket messages of ``--frame-mib`` MiB at once (each
  on its own connection, its payload streamed from one small buffer until the server hangs
  up): the server's resident memory before, after, and at its peak;
- **a ping flood**: ``--ping-sockets`` WebSockets from one address sending pings as fast as
  they can for ``--seconds`` (half of them graphql-transport-ws ``ping`` messages, half
  WebSocket ping frames; a socket the server closes is opened again), in a process of its
  own, while another client, from another address, asks a small query every 50 ms: its
  latency (p50, p95, worst) before and during the flood, and what the flood got answered.

The attacker connects from 127.0.0.2, the ordinary client from 127.0.0.3 (loopback
addresses, distinct clients to the server). Every figure is one JSON line; a table at the
end.

    python bench/edge.py                      # 32 frames of 15 MiB, 8 sockets for 8 s
    python bench/edge.py --quick              # seconds: a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # before tests/, whose service/ folder must not shadow the package
sys.path.append(str(ROOT / "tests"))

import httpx  # noqa: E402
from support.raw_ws import PING, TEXT, RawSocket, frame, header  # noqa: E402

ATTACKER, ORDINARY = "127.0.0.2", "127.0.0.3"
QUERY = "query($t: ID!) { table(id: $t) { id version status seats { index name kind } } }"
PING_MESSAGE = frame(TEXT, b'{"type":"ping"}')
INIT = json.dumps({"type": "connection_init", "payload": {}})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def memory(pid: int) -> dict[str, float]:
    """Resident memory now and at its peak, in MiB."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return {"rss_mib": found["VmRSS"], "peak_mib": found["VmHWM"]}


@contextlib.contextmanager
def server(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``tablestate serve`` of this checkout, memory store, default limits."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    env.pop("REDIS_URL", None)
    env.update(TABLESTATE_LOG_LEVEL="warning", PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile() as log:
        cmd = [sys.executable, "-m", "tablestate.cli", "serve", "--port", str(port)]
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=log)
        try:
            for _ in range(400):
                if proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError("the server did not start: " + log.read().decode()[-2000:])
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError("the server did not answer /healthz")
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def _connect(port: int, source: str) -> RawSocket:
    return await RawSocket.open("127.0.0.1", port, source=source)


# -- oversized frames ---------------------------------------------------------------------


async def _oversized(port: int, size: int) -> int:
    """One message of ``size`` bytes in one frame: the bytes the server took before it hung
    up (what it read, or what waits in the kernel's buffers)."""
    ws = await _connect(port, ATTACKER)
    chunk = bytes(2**17)
    sent = 0
    try:
        ws.writer.write(header(TEXT, size))
        while sent < size:
            ws.writer.write(chunk[: size - sent])
            await ws.writer.drain()
            sent += min(len(chunk), size - sent)
    except (ConnectionError, OSError):
        pass
    finally:
        ws.abort()
    return sent


async def frames(port: int, pid: int, count: int, mib: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        await http.post("/graphql", json={"query": "{ games { id } }"})
    await _oversized(port, 300 * 1024)  # warm: one refused, so that lazy imports are done
    await asyncio.sleep(0.5)
    before = memory(pid)
    start = time.perf_counter()
    sent = await asyncio.gather(*(_oversized(port, mib * 2**20) for _ in range(count)))
    seconds = time.perf_counter() - start
    await asyncio.sleep(0.5)
    after = memory(pid)
    return {
        "figure": "oversized_frames",
        "frames": count,
        "frame_mib": mib,
        "rss_before_mib": before["rss_mib"],
        "rss_after_mib": after["rss_mib"],
        "peak_before_mib": before["peak_mib"],
        "peak_after_mib": after["peak_mib"],
        "mib_taken_before_hang_up_median": round(statistics.median(sent) / 2**20, 2),
        "seconds": round(seconds, 2),
    }


# -- a ping flood ---------------------------------------------------------------------------


async def _flood_one(port: int, kind: str, until: float, out: dict[str, int]) -> None:
    """Pings on one socket as fast as it can, reopened whenever the server closes it."""
    batch = (PING_MESSAGE if kind == "message" else frame(PING, b"")) * 100
    while time.monotonic() < until:
        try:
            ws = await _connect(port, ATTACKER)
        except (TimeoutError, ConnectionError, OSError, AssertionError):
            out["refused_handshakes"] += 1
            await asyncio.sleep(0.05)
            continue
        out["sockets"] += 1

        async def read(ws: RawSocket = ws) -> None:
            with contextlib.suppress(Exception):
                while True:
                    opcode, payload = await ws.read_frame(30)
                    if opcode == 0xA or b'"pong"' in payload:
                        out["pongs"] += 1
                    elif opcode == 0x8:
                        out["closed_by_server"] += 1
                        return

        reader = asyncio.ensure_future(read())
        try:
            ws.writer.write(frame(TEXT, INIT.encode()))
            while time.monotonic() < until and not reader.done():
                ws.writer.write(batch)
                await ws.writer.drain()
                out["pings"] += 100
        except (ConnectionError, OSError):
            pass
        finally:
            ws.abort()
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader


async def _flood(port: int, sockets: int, seconds: float) -> dict[str, Any]:
    until = time.monotonic() + seconds
    counts = {k: {"pings": 0, "pongs": 0, "sockets": 0, "closed_by_server": 0,
                  "refused_handshakes": 0} for k in ("message", "frame")}  # fmt: skip
    await asyncio.gather(
        *(
            _flood_one(port, "message" if i % 2 == 0 else "frame", until, counts[kind])
            for i in range(sockets)
            for kind in ["message" if i % 2 == 0 else "frame"]
        )
    )
    return counts


async def _ordinary(port: int, table: str, seconds: float) -> list[float]:
    """The ordinary client's latencies, one query every 50 ms, from its own address."""
    transport = httpx.AsyncHTTPTransport(local_address=ORDINARY)
    samples: list[float] = []
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=30
    ) as http:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            start = time.perf_counter()
            r = await http.post("/graphql", json={"query": QUERY, "variables": {"t": table}})
            samples.append(time.perf_counter() - start)
            body = r.json()
            assert r.status_code == 200 and not body.get("errors"), body
            await asyncio.sleep(0.05)  # 20 a second: within its address's limit
    return samples


def _latency(samples: list[float]) -> dict[str, float | int]:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50_ms": round(ordered[len(ordered) // 2] * 1000, 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


async def pings(port: int, sockets: int, seconds: float) -> dict[str, Any]:
    create = 'mutation { createTable(gameId: "five-crowns", seats: 2) { table { id } } }'
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        table = (await http.post("/graphql", json={"query": create})).json()
    table_id = table["data"]["createTable"]["table"]["id"]
    idle = await _ordinary(port, table_id, min(seconds, 2.0))
    cmd = [sys.executable, __file__, "--flood", str(port), str(sockets), str(seconds)]
    flooder = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE)
    await asyncio.sleep(0.2)  # the flood is under way
    during = await _ordinary(port, table_id, seconds - 0.4)
    out, _ = await flooder.communicate()
    flood = json.loads(out.decode().strip().splitlines()[-1])
    return {
        "figure": "ping_flood",
        "sockets": sockets,
        "seconds": seconds,
        "idle": _latency(idle),
        "during": _latency(during),
        "flood": flood,
    }


# -- main -----------------------------------------------------------------------------------


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| figure | value |", "| --- | --- |"]
    for r in rows:
        if r["figure"] == "oversized_frames":
            lines.append(
                f"| {r['frames']} frames of {r['frame_mib']} MiB | server RSS "
                f"{r['rss_before_mib']} -> {r['rss_after_mib']} MiB (peak {r['peak_before_mib']}"
                f" -> {r['peak_after_mib']} MiB); {r['mib_taken_before_hang_up_median']} MiB "
                "taken from each before the server hung up (median) |"
            )
        else:
            f = r["flood"]
            lines.append(
                f"| another client's query, idle | p50 {r['idle']['p50_ms']} ms, p95 "
                f"{r['idle']['p95_ms']} ms ({r['idle']['n']} queries) |"
            )
            lines.append(
                f"| ... during a ping flood ({r['sockets']} sockets, {r['seconds']} s) | p50 "
                f"{r['during']['p50_ms']} ms, p95 {r['during']['p95_ms']} ms, worst "
                f"{r['during']['max_ms']} ms ({r['during']['n']} queries) |"
            )
            for kind, c in f.items():
                lines.append(
                    f"| ping {kind}s | {c['pings']} sent, {c['pongs']} answered, "
                    f"{c['sockets']} sockets opened, {c['closed_by_server']} closed by the "
                    f"server, {c['refused_handshakes']} handshakes refused |"
                )
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> int:
    port = free_port()
    rows = []
    with server(port) as proc:
        rows.append(await frames(port, proc.pid, args.frames, args.frame_mib))
        print(json.dumps(rows[-1]), flush=True)
        rows.append(await pings(port, args.ping_sockets, args.seconds))
        print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=32, help="oversized messages at once")
    parser.add_argument("--frame-mib", type=int, default=15, help="MiB of each")
    parser.add_argument("--ping-sockets", type=int, default=8, help="flooding WebSockets")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of the flood")
    parser.add_argument("--quick", action="store_true", help="a smoke run of seconds")
    parser.add_argument("--flood", nargs=3, help=argparse.SUPPRESS)  # the attacker process
    args = parser.parse_args(argv)
    if args.quick:
        args.frames, args.frame_mib, args.ping_sockets, args.seconds = 4, 2, 2, 1.5
    return args


if __name__ == "__main__":
    options = parse()
    if options.flood:
        port, sockets, seconds = options.flood
        counts = asyncio.run(_flood(int(port), int(sockets), float(seconds)))
        print(json.dumps(counts))
        sys.exit(0)
    sys.exit(asyncio.run(main(options)))
