"""Denial of service: each attack runs for a moment while an ordinary client, from an
address of its own, keeps asking a small query. Every attacking request is refused with
its code (``QUERY_TOO_COMPLEX``, ``RATE_LIMITED``, ``BAD_INPUT``), never a 5xx, and every
ordinary request succeeds within ``kit.ORDINARY_BOUND``; the latencies are printed at the
end of the run."""

from __future__ import annotations

import asyncio
import json
import socket
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from support.lucky import ADD_BOT, START
from support.lucky import CREATE as LUCKY_CREATE
from support.server import Client, make_settings, overflowed, serve, subscribed, ws_init, ws_next
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tablestate.store.memory import MemoryStore

from .kit import Attacker, under_attack, xff

SETTINGS = make_settings(max_subscriptions_per_connection=10, max_ws_per_address=8)
GAMES = "{ games { id } }"
CREATE = """mutation($g: ID!, $s: Int) { createTable(gameId: $g, seats: $s) { hostToken table { id } } }"""
JOIN = (
    """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { seat playerToken } }"""
)
TABLE = "query($t: ID!) { table(id: $t) { version status legalMoves state { toAct } } }"
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { version } } }"""


@pytest.fixture
async def api(registry) -> AsyncIterator[Client]:
    async with serve(SETTINGS, registry, MemoryStore()) as c:
        yield c


@pytest.fixture(scope="module")
def attacker() -> Iterator[Attacker]:
    made = Attacker()
    yield made
    made.close()


def post(c: Client, query: str, n: int, token: str | None = None, **variables: Any) -> Any:
    headers = xff(n)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return c.http.post("/graphql", json={"query": query, "variables": variables}, headers=headers)


async def test_request_flood_from_one_address(api: Client, attacker: Attacker):
    c = api
    body = json.dumps({"query": GAMES})

    # Long enough that even a busy machine sends more than the burst and the rate allow
    # (a quiet one sends thousands).
    seconds = 4.0

    async def attack(stop: asyncio.Event) -> Counter[str]:
        return await attacker.run(c.url, body, seconds, workers=12, headers=xff(0))

    codes = await under_attack(c, "request flood, one address", attack)
    assert set(codes) == {"OK", "RATE_LIMITED"}, codes
    # a burst of 100, then 50 a second
    allowed = SETTINGS.rate_address_burst + SETTINGS.rate_address * (seconds + 1.5)
    assert codes["OK"] <= allowed, codes
    answers = await asyncio.gather(*(post(c, GAMES, 0) for _ in range(150)))
    refused = [r for r in answers if r.status_code == 429]
    assert refused and all(int(r.headers["Retry-After"]) >= 1 for r in refused)
    assert refused[0].json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    assert (await post(c, GAMES, 1)).status_code == 200  # another address is served


async def test_move_flood_by_one_seat(api: Client, attacker: Attacker):
    """The seat to act floods makeMove, each request from another address: its token's
    limit holds (and only legal moves ever apply)."""
    c = api
    made = (await c.q(CREATE, g="five-crowns", s=2))["createTable"]
    tid, host = made["table"]["id"], made["hostToken"]
    tokens = [(await c.q(JOIN, t=tid, n=f"P{i}"))["joinTable"]["playerToken"] for i in range(2)]
    await c.q(START, host, t=tid)
    view = (await c.q(TABLE, t=tid))["table"]
    seat = view["state"]["toAct"][0]
    move = (await c.q(TABLE, tokens[seat], t=tid))["table"]["legalMoves"][0]
    other = (await c.q(CREATE, g="five-crowns", s=2))["createTable"]["table"]["id"]
    body = json.dumps({"query": MOVE, "variables": {"t": tid, "m": move}})

    async def attack(stop: asyncio.Event) -> Counter[str]:
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        return await attacker.run(c.url, body, 1.5, workers=8, headers=auth, rotate=True)

    codes = await under_attack(c, "move flood, one seat", attack, query=TABLE, t=other)
    assert codes["RATE_LIMITED"] > 0, codes
    assert set(codes) <= {"OK", "RATE_LIMITED", "NOT_YOUR_TURN", "ILLEGAL_MOVE"}, codes
    answered = sum(n for code, n in codes.items() if code != "RATE_LIMITED")
    # a burst of 40, then 20 a second
    assert answered <= SETTINGS.rate_token_burst + SETTINGS.rate_token * 3, codes
    assert (await c.q(TABLE, t=tid))["table"]["version"] == view["version"] + codes["OK"]


def _deep(levels: int) -> str:
    inner = "{ id }"
    for _ in range(levels):
        inner = "{ events { table " + inner + " } }"
    return 'query { table(id: "x") ' + inner + " }"


ATTACKS = {
    "deep queries": (_deep(40), "QUERY_TOO_COMPLEX"),
    "list fan-out (cost)": (
        "{ tables(first: 100) { nodes { events(first: 1000) { table { events(first: 1000) { cursor } } } } } }",
        "QUERY_TOO_COMPLEX",
    ),
    "store reads under a list (cost)": (
        '{ table(id: "x") { events(first: 1000) { table { id } } } }',
        "QUERY_TOO_COMPLEX",
    ),
    "many aliases": (
        "{ " + " ".join(f"a{i}: games {{ id }}" for i in range(200)) + " }",
        "QUERY_TOO_COMPLEX",
    ),
    "overlapping fields": (
        "{ " + " ".join(f'game(id: "g{i}") {{ id }}' for i in range(400)) + " }",
        "QUERY_TOO_COMPLEX",
    ),
    "fragment bomb": (
        "{ ...F0 } "
        + " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(14))
        + " fragment F14 on Query { games { id houseRules { id } } }",
        "QUERY_TOO_COMPLEX",
    ),
    "fragment chain": (
        "{ ...F0 } "
        + " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}" for i in range(300))
        + " fragment F300 on Query { games { id } }",
        "QUERY_TOO_COMPLEX",
    ),
    "deep introspection": (
        "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }",
        "QUERY_TOO_COMPLEX",
    ),
    "many tokens": (
        "{ " + " ".join("games { id }" for _ in range(3000)) + " }",
        "QUERY_TOO_COMPLEX",
    ),
    "many mutations": (
        "mutation { "
        + " ".join(f'm{i}: createTable(gameId: "five-crowns") {{ hostToken }}' for i in range(20))
        + " }",
        "QUERY_TOO_COMPLEX",
    ),
}


async def test_costly_documents_from_many_addresses(api: Client, attacker: Attacker):
    """Documents built to cost the server much, each from many addresses (so that no rate
    limit helps): refused cheaply by the query limits."""
    c = api
    for attack, (query, code) in sorted(ATTACKS.items()):
        body = json.dumps({"query": query})

        async def flood(stop: asyncio.Event, body: str = body) -> Counter[str]:
            return await attacker.run(c.url, body, 0.5, workers=6, rotate=True)

        codes = await under_attack(c, attack, flood, seconds=0.5)
        assert set(codes) <= {code, "RATE_LIMITED"} and codes[code] > 0, (attack, codes)


RAW_ATTACKS: dict[str, tuple[Callable[[], bytes], set[str]]] = {
    "huge body": (
        lambda: json.dumps({"query": GAMES, "variables": {"x": "x" * 400_000}}),
        {"BAD_INPUT"},
    ),
    "huge variable": (
        lambda: json.dumps(
            {
                "query": 'mutation($n: String!) { joinTable(tableId: "x", name: $n) { seat } }',
                "variables": {"n": "n" * 250_000},
            }
        ),
        {"BAD_INPUT", "NOT_FOUND"},
    ),
    "deeply nested variables": (
        lambda: (
            '{"query": "mutation($o: JSON) { createTable(gameId: \\"five-crowns\\", options: $o) { hostToken } }", "variables": {"o": '
            + "[" * 60_000
            + "]" * 60_000
            + "}}"
        ),
        {"BAD_INPUT"},
    ),
    "batch of 2000": (lambda: json.dumps([{"query": GAMES}] * 2000), {"BAD_INPUT"}),
    "not an object": (lambda: "[[[[1]]]]", {"BAD_INPUT"}),
}


async def test_huge_and_batched_bodies(api: Client, attacker: Attacker):
    c = api
    for attack, (make, allowed) in sorted(RAW_ATTACKS.items()):
        body = make()

        async def flood(stop: asyncio.Event, body: str = body) -> Counter[str]:
            return await attacker.run(c.url, body, 0.5, workers=4, rotate=True)

        codes = await under_attack(c, attack, flood, seconds=0.5)
        assert set(codes) <= allowed | {"RATE_LIMITED"}, (attack, codes)
        assert sum(codes[a] for a in allowed) > 0, (attack, codes)


async def test_too_many_subscriptions_on_one_connection(api: Client):
    c = api
    made = (await c.q(CREATE, g="five-crowns", s=2))["createTable"]
    tid = made["table"]["id"]
    sub = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor } }"

    async def attack(stop: asyncio.Event) -> Counter[str]:
        codes: Counter[str] = Counter()
        async with connect(
            c.url.replace("http", "ws") + "/graphql",
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            additional_headers=xff(3),
        ) as conn:
            await ws_init(conn)
            for i in range(40):
                payload = {"query": sub, "variables": {"t": tid}}
                await conn.send(json.dumps({"id": str(i), "type": "subscribe", "payload": payload}))
            while sum(codes.values()) < 40:
                msg = await ws_next(conn, 5)
                if msg["type"] == "error":
                    codes[msg["payload"][0]["extensions"]["code"]] += 1
                elif msg["type"] == "next" and msg["id"] not in codes:
                    codes[msg["id"]] = 1
            await stop.wait()
        return codes

    codes = await under_attack(c, "subscriptions on one connection", attack, seconds=1.0)
    started = sum(1 for k in codes if k.isdigit())
    assert started == SETTINGS.max_subscriptions_per_connection, codes
    assert codes["RATE_LIMITED"] == 40 - started, codes


async def test_many_connections_from_one_address(api: Client):
    c = api
    url = c.url.replace("http", "ws") + "/graphql"
    cap = SETTINGS.max_ws_per_address

    async def attack(stop: asyncio.Event) -> Counter[str]:
        codes: Counter[str] = Counter()
        held = []
        try:
            for _ in range(cap + 6):
                try:
                    conn = await connect(
                        url, subprotocols=["graphql-transport-ws"], additional_headers=xff(5)
                    )  # type: ignore[list-item]
                except InvalidStatus as exc:
                    assert exc.response.status_code == 429
                    assert b"RATE_LIMITED" in exc.response.body
                    codes["RATE_LIMITED"] += 1
                    continue
                held.append(conn)
                assert (await ws_init(conn))["type"] == "connection_ack"
                codes["OK"] += 1
            # another address still gets in
            async with connect(
                url, subprotocols=["graphql-transport-ws"], additional_headers=xff(6)
            ) as conn:  # type: ignore[list-item]
                assert (await ws_init(conn))["type"] == "connection_ack"
            await stop.wait()
        finally:
            for conn in held:
                await conn.close()
        return codes

    codes = await under_attack(c, "connections from one address", attack, seconds=1.0)
    assert codes == {"OK": cap, "RATE_LIMITED": 6}, codes
    # once they close, the address may connect again
    async with connect(
        url, subprotocols=["graphql-transport-ws"], additional_headers=xff(5)
    ) as conn:  # type: ignore[list-item]
        assert (await ws_init(conn))["type"] == "connection_ack"


async def test_operation_flood_over_one_websocket(api: Client):
    c = api

    async def attack(stop: asyncio.Event) -> Counter[str]:
        codes: Counter[str] = Counter()
        async with connect(
            c.url.replace("http", "ws") + "/graphql",
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            additional_headers=xff(9),
        ) as conn:
            await ws_init(conn)
            sent = 0
            while not stop.is_set() and sent < 400:
                await conn.send(
                    json.dumps({"id": f"q{sent}", "type": "subscribe", "payload": {"query": GAMES}})
                )
                sent += 1
                if sent % 20 == 0:
                    await asyncio.sleep(0.01)
            while sum(codes.values()) < sent:
                msg = await ws_next(conn, 5)
                if msg["type"] == "error":
                    codes[msg["payload"][0]["extensions"]["code"]] += 1
                elif msg["type"] == "next":
                    codes["OK"] += 1
        return codes

    codes = await under_attack(c, "operation flood on one WebSocket", attack, seconds=1.0)
    assert codes["RATE_LIMITED"] > 0 and codes["OK"] > 0, codes
    assert set(codes) <= {"OK", "RATE_LIMITED"}, codes


# Each message repeats the table's history: a few dozen events weigh megabytes, more than the
# socket buffers between the server and a reader that does not read hold.
HEAVY = (
    "subscription($t: ID!) { tableEvents(tableId: $t) { cursor type "
    + " ".join(
        f"h{i}: table {{ events(first: 1000) {{ cursor type seat data at version }} }}"
        for i in range(12)
    )
    + " } }"
)


async def test_a_reader_that_stops_reading(registry):
    settings = make_settings(subscriber_queue=4, rate_address=0)
    async with serve(settings, registry, MemoryStore()) as c:
        made = (await c.q(LUCKY_CREATE, g="lucky-draw", r=[], o={"handSize": 5}, s=4))[
            "createTable"
        ]
        tid, host = made["table"]["id"], made["hostToken"]
        for _ in range(4):
            await c.q(ADD_BOT, host, t=tid)
        port = int(c.url.rsplit(":", 1)[1])
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", port))
        url = c.url.replace("http", "ws") + "/graphql"
        async with connect(
            url, subprotocols=["graphql-transport-ws"], sock=sock, max_queue=1, close_timeout=0.5
        ) as slow:  # type: ignore[list-item]
            await ws_init(slow)
            sub = {"query": HEAVY, "variables": {"t": tid}}
            await slow.send(json.dumps({"id": "1", "type": "subscribe", "payload": sub}))
            await subscribed(c)

            async def attack(stop: asyncio.Event) -> None:
                await c.q(START, host, t=tid)  # four bots play the whole game at once
                await stop.wait()

            await under_attack(
                c, "a reader that stops reading", attack, seconds=2.0, query=TABLE, t=tid
            )
            await overflowed(c)
            raw = slow.transport.get_extra_info("socket")
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
            while True:
                msg = json.loads(await asyncio.wait_for(slow.recv(), 20))
                if msg["type"] != "next" or msg["payload"].get("errors"):
                    break
            errors = msg["payload"] if msg["type"] == "error" else msg["payload"]["errors"]
            assert errors[0]["extensions"]["code"] == "SLOW_CONSUMER"
        assert (await c.q(TABLE, t=tid))["table"]["status"] == "FINISHED"
