"""gql, a Python GraphQL client nobody here wrote, does what the Node conformance test does,
over HTTP (httpx) and WebSocket (graphql-transport-ws) against the real server: a full
game of each bundled game with random legal moves followed live, a subscription resumed
from its cursor, and the error codes. Documents are validated against the server's
schema by gql itself (fetch_schema_from_transport)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportConnectionFailed, TransportQueryError
from gql.transport.httpx import HTTPXAsyncTransport
from gql.transport.websockets import WebsocketsTransport
from websockets.exceptions import ConnectionClosed

GAMES = [
    ("five-crowns", {"rounds": 1}),
    ("all-fives", {"targetScore": 15}),
    ("five-by-five", None),
]

CREATE = """mutation($game: ID!, $options: JSON, $seats: Int, $rules: [ID!]) {
  createTable(gameId: $game, options: $options, seats: $seats, houseRules: $rules) {
    hostToken table { id shuffleCommitment } } }"""
JOIN = """mutation($t: ID!, $name: String!, $seed: String) {
  joinTable(tableId: $t, name: $name, clientSeed: $seed) { seat playerToken } }"""
ADD_BOT = "mutation($t: ID!) { addBot(tableId: $t) { version } }"
LEAVE = "mutation($t: ID!) { leaveTable(tableId: $t) { version } }"
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
NOW = """query($t: ID!) { table(id: $t) {
  status version cursor state { gameId toAct } legalMoves } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
  makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) {
    table { version } events { cursor version type } } }"""
EVENTS = """query($t: ID!, $after: String) { table(id: $t) {
  events(after: $after, first: 1000) { cursor version type seat data } } }"""
FINISHED = """query($t: ID!) { table(id: $t) {
  status cursor shuffleCommitment shuffleSeed result { winners scores } } }"""
FOLLOW = """subscription($t: ID!, $after: String) {
  tableEvents(tableId: $t, after: $after) { cursor version type seat data } }"""


class Api:
    """gql sessions over HTTP, one per token, sharing the schema fetched once."""

    def __init__(self, url: str, stack: contextlib.AsyncExitStack) -> None:
        self.url = url
        self.stack = stack
        self.sessions: dict[str | None, Any] = {}
        self.schema: Any = None

    async def session(self, token: str | None = None) -> Any:
        if token not in self.sessions:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            transport = HTTPXAsyncTransport(url=self.url + "/graphql", headers=headers)
            client = Client(
                transport=transport,
                schema=self.schema,
                fetch_schema_from_transport=self.schema is None,
            )
            self.sessions[token] = await self.stack.enter_async_context(client)
            self.schema = self.schema or client.schema
        return self.sessions[token]

    async def q(self, doc: str, token: str | None = None, **variables: Any) -> Any:
        session = await self.session(token)
        return await session.execute(gql(doc), variable_values=variables)

    async def code(self, doc: str, token: str | None = None, **variables: Any) -> str:
        with pytest.raises(TransportQueryError) as info:
            await self.q(doc, token, **variables)
        errors = info.value.errors or []
        return str(errors[0]["extensions"]["code"])

    async def all_events(self, table_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after = None
        while True:
            page = (await self.q(EVENTS, t=table_id, after=after))["table"]["events"]
            out += page
            if len(page) < 1000:
                return out
            after = page[-1]["cursor"]


@pytest.fixture
async def api(server_url: str) -> AsyncIterator[Api]:
    async with contextlib.AsyncExitStack() as stack:
        yield Api(server_url, stack)


def ws_client(url: str, token: str | None = None) -> Client:
    transport = WebsocketsTransport(
        url=url.replace("http", "ws", 1) + "/graphql",
        init_payload={"authToken": token} if token else {},
        subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL],
    )
    return Client(transport=transport)


async def follow(
    url: str, table_id: str, into: list[dict[str, Any]], token: str | None = None, after=None
) -> None:
    """Append the table's events to ``into`` until cancelled."""
    async with ws_client(url, token) as session:
        variables = {"t": table_id, "after": after}
        async for result in session.subscribe(gql(FOLLOW), variable_values=variables):
            into.append(result["tableEvents"])


async def until(done: Callable[[], bool], seconds: float = 20) -> None:
    async with asyncio.timeout(seconds):
        while not done():
            await asyncio.sleep(0.02)


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled(), "the subscription ended by itself"


def same_events(seen: list[dict[str, Any]], stored: list[dict[str, Any]]) -> None:
    assert [e["cursor"] for e in seen] == [e["cursor"] for e in stored]
    versions = [e["version"] for e in seen]
    assert versions == sorted(versions)


async def open_table(api: Api, game: str, options: Any, seats: int = 2) -> tuple[str, str, str]:
    made = (await api.q(CREATE, game=game, options=options, seats=seats))["createTable"]
    return made["table"]["id"], made["hostToken"], made["table"]["shuffleCommitment"]


async def join(api: Api, table_id: str, name: str, token: str | None = None) -> dict[str, Any]:
    joined = await api.q(JOIN, token, t=table_id, name=name, seed=uuid.uuid4().hex)
    return {"seat": joined["joinTable"]["seat"], "token": joined["joinTable"]["playerToken"]}


async def play_one(api: Api, table_id: str, players: list[dict[str, Any]]) -> bool:
    """One random legal move of whoever is to act; False once the table is finished."""
    for p in players:
        now = (await api.q(NOW, p["token"], t=table_id))["table"]
        if now["status"] == "FINISHED":
            return False
        if p["seat"] not in now["state"]["toAct"]:
            continue
        assert now["legalMoves"], "a seat to act always has a legal move"
        move = random.choice(now["legalMoves"])
        made = await api.q(
            MOVE, p["token"], t=table_id, m=move, v=now["version"], k=uuid.uuid4().hex
        )
        assert made["makeMove"]["table"]["version"] == now["version"] + 1
        return True
    await asyncio.sleep(0.005)  # a bot is to act and moves by itself
    return True


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
async def test_gql_plays_a_full_game_followed_live(api: Api, server_url: str, game, options):
    schema = (await api.q("query($g: ID!) { game(id: $g) { options } }", g=game))["game"]
    if "prefilledSquares" in schema["options"].get("properties", {}):
        options = {"prefilledSquares": 12}  # a shorter Five by Five, to a full board
    table_id, host, commitment = await open_table(api, game, options)
    ada = await join(api, table_id, "Ada", host)
    bob = await join(api, table_id, "Bob")
    watched: list[dict[str, Any]] = []
    mine: list[dict[str, Any]] = []
    watcher = asyncio.create_task(follow(server_url, table_id, watched))
    follower = asyncio.create_task(follow(server_url, table_id, mine, ada["token"]))
    try:
        await api.q(START, ada["token"], t=table_id)
        for _ in range(5000):
            if not await play_one(api, table_id, [ada, bob]):
                break
        else:
            pytest.fail("random legal play did not end the game")
        done = (await api.q(FINISHED, t=table_id))["table"]
        assert done["status"] == "FINISHED" and len(done["result"]["scores"]) == 2
        seed = bytes.fromhex(done["shuffleSeed"])
        assert hashlib.sha256(seed).hexdigest() == commitment == done["shuffleCommitment"]
        await until(lambda: bool(watched) and watched[-1]["cursor"] == done["cursor"])
        await until(lambda: bool(mine) and mine[-1]["cursor"] == done["cursor"])
    finally:
        await stop(watcher)
        await stop(follower)
    stored = await api.all_events(table_id)
    same_events(watched, stored)
    same_events(mine, stored)
    assert not any("private" in e["data"] for e in watched)
    assert any("private" in e["data"] for e in mine)


async def test_gql_resumes_a_subscription_from_its_cursor(api: Api, server_url: str):
    table_id, host, _ = await open_table(api, "all-fives", {"targetScore": 15})
    ada = await join(api, table_id, "Ada", host)
    await api.q(ADD_BOT, ada["token"], t=table_id)
    first: list[dict[str, Any]] = []
    task = asyncio.create_task(follow(server_url, table_id, first, ada["token"]))
    await api.q(START, ada["token"], t=table_id)
    for _ in range(3):
        await play_one(api, table_id, [ada])
    now = (await api.q(NOW, t=table_id))["table"]
    # a bot may move after `now` was read: wait for `now`, not for it to be the last
    await until(lambda: any(e["cursor"] == now["cursor"] for e in first))
    await stop(task)  # the connection is gone; the game goes on without it
    for _ in range(8):
        if not await play_one(api, table_id, [ada]):
            break
    now = (await api.q(NOW, t=table_id))["table"]
    rest: list[dict[str, Any]] = []
    task = asyncio.create_task(
        follow(server_url, table_id, rest, ada["token"], after=first[-1]["cursor"])
    )
    try:
        await until(lambda: any(e["cursor"] == now["cursor"] for e in rest))
    finally:
        await stop(task)
    assert rest, "events happened while the subscription was away"
    seen = first + rest
    same_events(seen, (await api.all_events(table_id))[: len(seen)])


async def test_gql_sees_the_error_codes(api: Api, server_url: str):
    table_id, host, _ = await open_table(api, "five-crowns", {"rounds": 1}, seats=3)
    draw = {"fiveCrowns": {"draw": {"source": "STOCK"}}}
    assert await api.code(CREATE, game="no-such-game") == "NOT_FOUND"
    assert await api.code(CREATE, game="five-crowns", options={"rounds": 99}) == "BAD_INPUT"
    assert await api.code(CREATE, game="five-crowns", rules=["all-fives/peg-out"]) == (
        "RULE_CONFLICT"
    )
    assert await api.code(JOIN, t="no-such-table", name="Ada") == "NOT_FOUND"
    assert await api.code(MOVE, t=table_id, m=draw) == "UNAUTHENTICATED"
    assert await api.code(MOVE, "not-a-token", t=table_id, m=draw) == "UNAUTHENTICATED"

    ada = await join(api, table_id, "Ada", host)
    bob = await join(api, table_id, "Bob")
    carl = await join(api, table_id, "Carl")
    assert await api.code(JOIN, t=table_id, name="Dee") == "TABLE_FULL"
    assert await api.code(ADD_BOT, bob["token"], t=table_id) == "FORBIDDEN"
    assert await api.code(MOVE, ada["token"], t=table_id, m=draw) == "TABLE_NOT_PLAYING"
    await api.q(LEAVE, carl["token"], t=table_id)
    await api.q(START, ada["token"], t=table_id)
    assert await api.code(JOIN, t=table_id, name="Dee") == "TABLE_NOT_OPEN"

    now = (await api.q(NOW, t=table_id))["table"]
    mover, waiting = (ada, bob) if ada["seat"] in now["state"]["toAct"] else (bob, ada)
    legal = (await api.q(NOW, mover["token"], t=table_id))["table"]["legalMoves"]
    assert await api.code(MOVE, waiting["token"], t=table_id, m=legal[0]) == "NOT_YOUR_TURN"
    other_game = {"allFives": {"stand": True}}
    assert await api.code(MOVE, mover["token"], t=table_id, m=other_game) == "BAD_INPUT"
    discard = {"fiveCrowns": {"discard": {"card": "3S"}}}
    assert await api.code(MOVE, mover["token"], t=table_id, m=discard) == "ILLEGAL_MOVE"
    stale = now["version"] - 1
    assert await api.code(MOVE, mover["token"], t=table_id, m=legal[0], v=stale) == (
        "VERSION_CONFLICT"
    )
    assert (await api.q(NOW, t=table_id))["table"]["version"] == now["version"]

    # A bad token on the WebSocket: the server closes the connection (4403).
    with pytest.raises(TransportConnectionFailed) as info:
        async with ws_client(server_url, "not-a-token") as session:
            async for _ in session.subscribe(gql(FOLLOW), variable_values={"t": table_id}):
                pass
    closed = info.value.__cause__
    assert isinstance(closed, ConnectionClosed) and closed.rcvd is not None, repr(closed)
    assert closed.rcvd.code == 4403
