"""The edge under three attacks, against a real ``tablestate serve`` (memory store) on loopback:

- **oversized frames**: ``--frames`` WebSocket messages of ``--frame-mib`` MiB at once (each
  on its own connection, its payload streamed from one small buffer until the server hangs
  up): the server's resident memory before, after, and at its peak;
- **a ping flood**: ``--ping-sockets`` WebSockets from one address sending pings as fast as
  they can for ``--seconds`` (half of them graphql-transport-ws ``ping`` messages, half
  WebSocket ping frames; a socket the server closes is opened again), in a process of its
  own, while another client, from another address, asks a small query every 50 ms: its
  latency (p50, p95, worst) before and during the flood, and what the flood got answered;
- **idle connections**: ``--idle`` connections from one address that send
  ``POST /graphql HTTP/1.1`` and nothing more (one the server closes is opened again), in a
  process of its own, for ``--seconds``, while another client, from another address, asks
  a small query every 50 ms on a new connection each time (as new visitors do): how many
  of its queries were answered, how many failed, their latency, and how many connections
  the attacker held. The server runs with ``--nofile`` open files at most (1024, a common
  default), as a replica in a container would.

The attacker connects from 127.0.0.2, the ordinary client from 127.0.0.3 (loopback
addresses, distinct clients to the server). Every figure is one JSON line; a table at the
end.

    python bench/edge.py                      # 32 frames of 15 MiB, 8 sockets for 8 s, 1100 idle
    python bench/edge.py --only idle          # one attack (frames, pings or idle)
    python bench/edge.py --quick              # seconds: a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
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
ATTACKS = ("frames", "pings", "idle")
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


def _files(limit: int) -> None:
    """At most ``limit`` open files in this process (its soft limit)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(limit, hard), hard))


@contextlib.contextmanager
def server(port: int, nofile: int) -> Iterator[subprocess.Popen[bytes]]:
    """``tablestate serve`` of this checkout, memory store, default limits, at most
    ``nofile`` open files."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_")}
    env.pop("REDIS_URL", None)
    env.update(TABLESTATE_LOG_LEVEL="warning", PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile() as log:
        cmd = [sys.executable, "-m", "tablestate.cli", "serve", "--port", str(port)]
        proc = subprocess.Popen(
            cmd,
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=log,
            preexec_fn=lambda: _files(nofile),
        )
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


async def _new_table(port: int) -> str:
    create = 'mutation { createTable(gameId: "five-crowns", seats: 2) { table { id } } }'
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        table = (await http.post("/graphql", json={"query": create})).json()
    return str(table["data"]["createTable"]["table"]["id"])


async def pings(port: int, sockets: int, seconds: float) -> dict[str, Any]:
    table_id = await _new_table(port)
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


# -- idle connections -----------------------------------------------------------------------

PARTIAL = b"POST /graphql HTTP/1.1\r\n"


async def _hold_one(port: int, until: float, out: dict[str, int]) -> None:
    """One connection that never finishes its request, opened again whenever the server
    closes it (a refusal, 429 or not, counts as closed)."""
    while time.monotonic() < until:
        sock = socket.socket()
        sock.setblocking(False)
        writer = None
        try:
            sock.bind((ATTACKER, 0))
            await asyncio.wait_for(
                asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port)), 5
            )
            reader, writer = await asyncio.open_connection(sock=sock)
            writer.write(PARTIAL)
            out["opened"] += 1
            try:
                answer = await asyncio.wait_for(reader.read(), until - time.monotonic())
            except TimeoutError:
                return  # still open when the attack ends
            out["refused_429" if answer.startswith(b"HTTP/1.1 429") else "closed_by_server"] += 1
        except (TimeoutError, ConnectionError, OSError):
            out["failed_to_open"] += 1
            sock.close()
        finally:
            if writer is not None:
                writer.close()
        await asyncio.sleep(0.05)


async def _hold(port: int, connections: int, seconds: float) -> dict[str, int]:
    _files(resource.getrlimit(resource.RLIMIT_NOFILE)[1])  # the attacker's own: all it may
    until = time.monotonic() + seconds
    out = dict.fromkeys(("opened", "closed_by_server", "refused_429", "failed_to_open"), 0)
    await asyncio.gather(*(_hold_one(port, until, out) for _ in range(connections)))
    return out


async def _visitors(port: int, table: str, seconds: float) -> dict[str, Any]:
    """New visitors from the ordinary client's address: a query every 50 ms, each on a
    connection of its own; the latencies of those answered, and how many were not."""
    transport = httpx.AsyncHTTPTransport(
        local_address=ORDINARY, limits=httpx.Limits(max_keepalive_connections=0)
    )
    samples: list[float] = []
    failed = 0
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=5
    ) as http:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            start = time.perf_counter()
            try:
                r = await http.post("/graphql", json={"query": QUERY, "variables": {"t": table}})
                if r.status_code == 200 and not r.json().get("errors"):
                    samples.append(time.perf_counter() - start)
                else:
                    failed += 1
            except httpx.HTTPError:
                failed += 1
            await asyncio.sleep(0.05)
    return {"answered": len(samples), "failed": failed, **(_latency(samples) if samples else {})}


async def _open_files(pid: int, stop: asyncio.Event) -> int:
    """The most files the server held open, sampled every 50 ms until ``stop``."""
    most = 0
    while not stop.is_set():
        with contextlib.suppress(OSError):
            most = max(most, len(os.listdir(f"/proc/{pid}/fd")))
        await asyncio.sleep(0.05)
    return most


async def idle(
    port: int, pid: int, connections: int, seconds: float, nofile: int
) -> dict[str, Any]:
    table = await _new_table(port)
    before = await _visitors(port, table, min(seconds, 2.0))
    quiet = len(os.listdir(f"/proc/{pid}/fd"))
    cmd = [sys.executable, __file__, "--hold", str(port), str(connections), str(seconds)]
    holder = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE)
    stop = asyncio.Event()
    files = asyncio.ensure_future(_open_files(pid, stop))
    await asyncio.sleep(min(1.0, seconds / 4))  # the connections are being opened
    during = await _visitors(port, table, seconds - min(1.0, seconds / 4) - 0.2)
    out, _ = await holder.communicate()
    stop.set()
    held = json.loads(out.decode().strip().splitlines()[-1])
    after = await _visitors(port, table, min(seconds, 2.0))
    return {
        "figure": "idle_connections",
        "connections": connections,
        "seconds": seconds,
        "server_nofile": nofile,
        "server_files_idle": quiet,
        "server_files_most": await files,
        "before": before,
        "during": during,
        "after": after,
        "attacker": held,
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
        elif r["figure"] == "idle_connections":
            a = r["attacker"]
            lines.append(
                f"| {r['connections']} idle connections from one address ({r['seconds']} s, "
                f"server at {r['server_nofile']} open files at most) | the server held "
                f"{r['server_files_idle']} files idle, {r['server_files_most']} at most during "
                f"the attack; the attacker opened {a['opened']}, "
                f"{a['closed_by_server']} closed by the "
                f"server, {a['refused_429']} refused with 429, {a['failed_to_open']} failed "
                "to open |"
            )
            for phase in ("before", "during", "after"):
                v = r[phase]
                latency = (
                    f"; p50 {v['p50_ms']} ms, p95 {v['p95_ms']} ms, worst {v['max_ms']} ms"
                    if v["answered"]
                    else ""
                )
                lines.append(
                    f"| new visitors' queries, {phase} | {v['answered']} answered, "
                    f"{v['failed']} failed{latency} |"
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
    with server(port, args.nofile) as proc:
        if "frames" in args.only:
            rows.append(await frames(port, proc.pid, args.frames, args.frame_mib))
            print(json.dumps(rows[-1]), flush=True)
        if "pings" in args.only:
            rows.append(await pings(port, args.ping_sockets, args.seconds))
            print(json.dumps(rows[-1]), flush=True)
        if "idle" in args.only:
            rows.append(await idle(port, proc.pid, args.idle, args.seconds, args.nofile))
            print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=32, help="oversized messages at once")
    parser.add_argument("--frame-mib", type=int, default=15, help="MiB of each")
    parser.add_argument("--ping-sockets", type=int, default=8, help="flooding WebSockets")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of the flood")
    parser.add_argument("--idle", type=int, default=1100, help="idle connections")
    parser.add_argument("--nofile", type=int, default=1024, help="the server's open files")
    parser.add_argument(
        "--only", action="append", choices=ATTACKS, help="this attack only (may be repeated)"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of seconds")
    parser.add_argument("--flood", nargs=3, help=argparse.SUPPRESS)  # the attacker process
    parser.add_argument("--hold", nargs=3, help=argparse.SUPPRESS)  # the idle attacker
    args = parser.parse_args(argv)
    args.only = tuple(args.only or ATTACKS)
    if args.quick:
        args.frames, args.frame_mib, args.ping_sockets, args.seconds = 4, 2, 2, 1.5
        args.idle = 100
    return args


if __name__ == "__main__":
    options = parse()
    if options.flood:
        port, sockets, seconds = options.flood
        counts = asyncio.run(_flood(int(port), int(sockets), float(seconds)))
        print(json.dumps(counts))
        sys.exit(0)
    if options.hold:
        port, connections, seconds = options.hold
        print(json.dumps(asyncio.run(_hold(int(port), int(connections), float(seconds)))))
        sys.exit(0)
    sys.exit(asyncio.run(main(options)))
