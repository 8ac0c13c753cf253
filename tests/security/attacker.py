"""An attacker in a process of its own, so that its client work does not slow the server
under test (which runs in the test's process). Reads one JSON attack a line on stdin,
floods for its duration, writes the codes of the answers as one JSON line on stdout.

An attack: ``{"url": ..., "body": <text>, "headers": {...}, "rotate": bool, "workers": n,
"seconds": s}``; with ``rotate`` each request comes from another address
(``X-Forwarded-For``). Codes: ``OK`` (no errors), the first error's code, or ``HTTP_<n>``
for an answer without one.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from typing import Any

import httpx


def code_of(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return f"HTTP_{r.status_code}"
    if isinstance(body, dict) and body.get("errors"):
        try:
            return str(body["errors"][0]["extensions"]["code"])
        except (KeyError, IndexError, TypeError):
            return f"HTTP_{r.status_code}"
    return "OK" if r.status_code == 200 else f"HTTP_{r.status_code}"


async def attack(spec: dict[str, Any]) -> dict[str, int]:
    codes: Counter[str] = Counter()
    body = spec["body"].encode()
    headers = {"Content-Type": "application/json", **spec.get("headers", {})}
    deadline = time.monotonic() + float(spec["seconds"])
    limits = httpx.Limits(
        max_connections=spec["workers"], max_keepalive_connections=spec["workers"]
    )
    async with httpx.AsyncClient(base_url=spec["url"], timeout=30, limits=limits) as http:

        async def worker(w: int) -> None:
            n = w
            while time.monotonic() < deadline:
                extra = (
                    {"X-Forwarded-For": f"203.0.113.{n % 250 + 1}"} if spec.get("rotate") else {}
                )
                try:
                    r = await http.post("/graphql", content=body, headers={**headers, **extra})
                    codes[code_of(r)] += 1
                except httpx.HTTPError as exc:
                    codes[type(exc).__name__] += 1
                n += spec["workers"]

        await asyncio.gather(*(worker(w) for w in range(spec["workers"])))
    return dict(codes)


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    print(json.dumps({"ready": True}), flush=True)
    while line := await reader.readline():
        result = await attack(json.loads(line))
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
