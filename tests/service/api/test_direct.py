"""makeMove and tableEvents run directly (api/direct.py) answer exactly as Strawberry's
executor does: the same messages, data and errors, for every viewer and selection; what the
direct path cannot run goes the slow path."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from graphql import parse
from support.lucky import MOVE, TABLE, Seated, open_table
from support.server import Client, make_settings, serve, ws_init, ws_next

from tablestate.api.plans import SLOW as _SLOW
from tablestate.api.plans import Plan, plan_of
from tablestate.api.schema import build_schema

MOVES = [
    (MOVE, None),
    (
        """mutation($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
          m: makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) {
            __typename t: table { __typename id version status } events { __typename at type v: version seat }
          }
        }""",
        None,
    ),
    (
        """query Other { games { id } }
        mutation Play($t: ID!, $m: MoveInput!, $v: Int, $k: String) {
          makeMove(tableId: $t, move: $m, expectedVersion: $v, idempotencyKey: $k) { events { data seat cursor } }
        }""",
        "Play",
    ),
]
EVENTS = [
    "subscription($t: ID!, $a: String) { tableEvents(tableId: $t, after: $a) { cursor version type seat data } }",
    """subscription Watch($t: ID!, $a: String) {
      e: tableEvents(tableId: $t, after: $a) { __typename at data v: version type }
    }""",
]
# Documents the direct path leaves to the executor (fragments, directives, nested objects).
SLOW = [
    "subscription($t: ID!) { tableEvents(tableId: $t) { ... on TableEvent { type } } }",
    "subscription($t: ID!) { tableEvents(tableId: $t) { type table { version } } }",
    "subscription($t: ID!, $x: Boolean!) { tableEvents(tableId: $t) { type @include(if: $x) } }",
    "subscription($t: ID!) { tableEvents(tableId: $t) { type type } }",
    "subscription($t: ID!) { tableEvents(tableId: $t) { type } lobbyEvents { type } }",
    "subscription($t: ID!) { lobbyEvents { type } }",
    "mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { seats { name } } } }",
    "mutation($t: ID!) { startGame(tableId: $t) { version } }",
    "fragment F on TableEvent { type } subscription($t: ID!) { tableEvents(tableId: $t) { type } }",
]


def _direct(c: Client) -> Any:
    return c.app.state.graphql.direct


async def _run(
    c: Client,
    token: str | None,
    query: str,
    variables: dict[str, Any],
    direct: bool,
    name: str | None = None,
) -> list[dict[str, Any]]:
    """The messages of one operation until it ends (``complete`` or ``error``)."""
    _direct(c).enabled = direct
    async with c.ws() as conn:
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        payload = {"query": query, "variables": variables, "operationName": name}
        await conn.send(json.dumps({"id": "op", "type": "subscribe", "payload": payload}))
        out = []
        while True:
            msg = await ws_next(conn, 10)
            out.append(msg)
            if msg["type"] in ("complete", "error"):
                return out


async def _both(c: Client, token: str | None, query: str, variables: dict[str, Any], name=None):
    """The same operation the slow way, then directly (the slow path checks a document
    first); the direct one must have run directly."""
    slow = await _run(c, token, query, variables, False, name)
    runs = _direct(c).runs
    fast = await _run(c, token, query, variables, True, name)
    assert _direct(c).runs == runs + 1, f"not run directly: {query[:60]}"
    return slow, fast


async def _to_act(c: Client, t: Seated) -> tuple[int, dict[str, Any], int]:
    """The seat to act, its first legal move and the table version."""
    for _ in range(100):
        for seat, token in t.tokens.items():
            table = (await c.q(TABLE, token, t=t.table_id))["table"]
            if table["legalMoves"]:
                return seat, table["legalMoves"][0], table["version"]
        await asyncio.sleep(0.02)
    raise AssertionError("nobody to act")


async def test_refused_moves_answer_alike(client: Client):
    t = await open_table(client, humans=2)
    seat, move, version = await _to_act(client, t)
    other = t.tokens[1 - seat]
    mine = t.tokens[seat]
    for query, name in MOVES:
        cases = [
            (other, {"t": t.table_id, "m": move}),  # not this seat's turn
            (None, {"t": t.table_id, "m": move}),  # a spectator
            (mine, {"t": "no-such-table", "m": move}),
            (mine, {"t": t.table_id, "m": move, "v": version + 5}),  # stale expectation
            (mine, {"t": t.table_id, "m": {"luckyDraw": {"play": {"card": "nonsense"}}}}),
            (mine, {"t": t.table_id, "m": move, "k": ""}),  # an empty idempotency key
        ]
        for token, variables in cases:
            slow, fast = await _both(client, token, query, variables, name)
            assert slow == fast
            assert fast[0]["type"] == "next" and fast[0]["payload"]["data"] is None
            assert fast[0]["payload"]["errors"][0]["extensions"]["code"]
        # Variables that do not coerce: the slow path answers, directly or not.
        bad = {"t": t.table_id, "m": "not an object"}
        assert await _run(client, mine, query, bad, False, name) == await _run(
            client, mine, query, bad, True, name
        )
    assert (await client.q(TABLE, mine, t=t.table_id))["table"]["version"] == version


async def test_moves_answer_alike(client: Client):
    """A move made directly and the same move again the slow way (its idempotency key
    answers it from the record) answer alike, and the other way round."""
    t = await open_table(client, humans=2)
    for query, name in MOVES:  # each document once the slow way first
        seat, move, _ = await _to_act(client, t)
        await _run(client, t.tokens[1 - seat], query, {"t": t.table_id, "m": move}, False, name)
    for i in range(12):
        seat, move, version = await _to_act(client, t)
        query, name = MOVES[i % len(MOVES)]
        variables = {"t": t.table_id, "m": move, "k": f"key-{i}", "v": version}
        first = await _run(client, t.tokens[seat], query, variables, i % 2 == 0, name)
        again = await _run(client, t.tokens[seat], query, variables, i % 2 == 1, name)
        assert first == again
        assert first[0]["type"] == "next" and "errors" not in first[0]["payload"], first
        assert first[1] == {"id": "op", "type": "complete"}
        table = (await client.q(TABLE, t.tokens[seat], t=t.table_id))["table"]
        if table["status"] == "FINISHED":
            break


async def _watch(c: Client, token: str | None, query: str, table_id: str, direct: bool, conns):
    _direct(c).enabled = direct
    conn = await c.ws().__aenter__()
    conns.append(conn)
    assert (await ws_init(conn, token))["type"] == "connection_ack"
    payload = {"query": query, "variables": {"t": table_id, "a": None}}
    await conn.send(json.dumps({"id": "w", "type": "subscribe", "payload": payload}))
    return conn


async def _until_finished(conn) -> list[dict[str, Any]]:
    out = []
    while True:
        msg = await ws_next(conn, 10)
        out.append(msg)
        event = next(iter(msg["payload"]["data"].values()))
        if event["type"] == "game.finished":
            return out


async def test_live_events_alike_for_every_viewer(client: Client, monkeypatch):
    """Every viewer's live events, from the executor and from the direct path, whose
    subscriptions take them where they are delivered (the hub's sink)."""
    from tablestate.hub import Hub

    taken: list[bool] = []
    sink = Hub._sink

    def spy(self: Hub, *args: Any) -> bool:
        taken.append(sink(self, *args))
        return taken[-1]

    monkeypatch.setattr(Hub, "_sink", spy)
    t = await open_table(client, humans=2)
    for query in EVENTS:  # each document once the slow way first
        await _run(client, None, query, {"t": "no-such-table"}, False)
    viewers = {"seat 0": t.tokens[0], "seat 1": t.tokens[1], "host": t.host, "spectator": None}
    conns: list[Any] = []
    try:
        pairs = {}
        runs = _direct(client).runs
        for who, token in viewers.items():
            for n, query in enumerate(EVENTS):
                slow = await _watch(client, token, query, t.table_id, False, conns)
                fast = await _watch(client, token, query, t.table_id, True, conns)
                pairs[(who, n)] = (slow, fast)
        assert _direct(client).runs == runs + len(viewers) * len(EVENTS)
        _direct(client).enabled = True
        from support.lucky import play_out

        await play_out(client, t)
        for (who, n), (slow, fast) in pairs.items():
            got_slow, got_fast = await _until_finished(slow), await _until_finished(fast)
            assert got_slow == got_fast, (who, n)
            assert len(got_fast) > 3
        assert sum(taken) > len(viewers) * len(EVENTS)  # live events, sent as delivered
    finally:
        for conn in conns:
            await conn.close()


async def test_refused_subscriptions_answer_alike(client: Client):
    t = await open_table(client, humans=2)
    for query in EVENTS:
        for variables in ({"t": "no-such-table"}, {"t": t.table_id, "a": "not-a-cursor"}):
            slow, fast = await _both(client, t.tokens[0], query, variables)
            assert slow == fast
            assert fast[0]["payload"]["errors"][0]["extensions"]["code"] in (
                "NOT_FOUND",
                "BAD_INPUT",
            )
            assert fast[-1]["type"] == "complete"


def test_which_documents_run_directly(registry):
    schema = build_schema(registry)
    for query, name in MOVES:
        assert isinstance(plan_of(schema, parse(query), name), Plan)
    for query in EVENTS:
        assert isinstance(plan_of(schema, parse(query), None), Plan)
    for query in SLOW:
        assert plan_of(schema, parse(query), None) is _SLOW, query
    assert plan_of(schema, parse(MOVES[2][0]), None) is _SLOW  # two operations, no name
    assert plan_of(schema, parse(MOVES[2][0]), "Other") is _SLOW


def test_coerced_arguments_are_kept_by_value_and_type(registry):
    """Plain variables' coercion is kept per plan; a value equal to another of another type
    (True == 1) is coerced on its own, and refused as the executor would refuse it."""
    from tablestate.api.checks import Checks
    from tablestate.api.direct import Direct

    schema = build_schema(registry)
    checks = next(e for e in schema.extensions if isinstance(e, type) and issubclass(e, Checks))
    direct = Direct(schema, checks)
    query = """mutation($t: ID!, $v: Int, $c: String!) {
      makeMove(tableId: $t, move: {luckyDraw: {play: {card: $c}}}, expectedVersion: $v) { events { type } }
    }"""
    plan = plan_of(schema, parse(query), None)
    assert isinstance(plan, Plan)
    first = direct.prepare(plan, {"t": "T", "v": 1, "c": "7A"}, None)
    assert first is not None and first[0]["expectedVersion"] == 1
    assert first[0]["move"] == {"luckyDraw": {"play": {"card": "7A"}}}
    assert direct.prepare(plan, {"t": "T", "v": 1, "c": "7A"}, None) is first  # kept
    assert direct.prepare(plan, {"t": "T", "v": True, "c": "7A"}, None) is None  # not an Int
    assert direct.prepare(plan, {"t": "T", "v": 2, "c": None}, None) is None  # String!
    other = direct.prepare(plan, {"t": "T", "v": 2, "c": "8B"}, None)
    assert other is not None and other[0]["move"] == {"luckyDraw": {"play": {"card": "8B"}}}


async def _post(c: Client, token: str | None, query: str, variables: dict, direct: bool, name=None):
    """A request over HTTP POST: its status and JSON body."""
    _direct(c).enabled = direct
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = {"query": query, "variables": variables, "operationName": name}
    r = await c.http.post("/graphql", json=body, headers=headers)
    return r.status_code, r.json()


async def test_moves_over_http_answer_alike(client: Client):
    """Over HTTP POST too: refusals alike, and a move made directly answers as its replay
    through the executor (by its idempotency key)."""
    t = await open_table(client, humans=2)
    seat, move, version = await _to_act(client, t)
    for query, name in MOVES:
        variables = {"t": t.table_id, "m": move}
        slow = await _post(client, t.tokens[1 - seat], query, variables, False, name)
        runs = _direct(client).runs
        fast = await _post(client, t.tokens[1 - seat], query, variables, True, name)
        assert _direct(client).runs == runs + 1
        assert slow == fast and fast[1]["data"] is None
        assert fast[1]["errors"][0]["extensions"]["code"]
    for i in range(6):
        seat, move, version = await _to_act(client, t)
        query, name = MOVES[i % len(MOVES)]
        variables = {"t": t.table_id, "m": move, "k": f"http-{i}", "v": version}
        first = await _post(client, t.tokens[seat], query, variables, i % 2 == 0, name)
        again = await _post(client, t.tokens[seat], query, variables, i % 2 == 1, name)
        assert first == again and first[0] == 200 and "errors" not in first[1], first
    # a GET may not mutate, directly or not
    _direct(client).enabled = True
    r = await client.http.get("/graphql", params={"query": MOVES[0][0]})
    assert r.status_code >= 400


@pytest.mark.parametrize("store_kind", ["memory"])
@pytest.mark.parametrize("transport", ["ws", "http"])
async def test_rate_limited_moves_answer_alike(registry, make_store, transport):
    settings = make_settings(rate_exempt=(), rate_address=0, rate_token=0.01, rate_token_burst=2)
    send = _run if transport == "ws" else _post
    async with serve(settings, registry, make_store()) as c:
        t = await open_table(c, humans=2)
        seat, move, _ = await _to_act(c, t)
        query, _ = MOVES[0]
        variables = {"t": t.table_id, "m": move}
        other = t.tokens[1 - seat]
        for _ in range(2):  # the document checked; the burst spent
            await send(c, other, query, variables, False)
        slow = await send(c, other, query, variables, False)
        fast = await send(c, other, query, variables, True)
        assert _direct(c).runs == 1
        seconds = re.compile(r"retry in [0-9.]+ s")
        assert json.loads(seconds.sub("", json.dumps(slow))) == json.loads(
            seconds.sub("", json.dumps(fast))
        )
        if transport == "ws":  # refused before it runs: one ``error`` message
            assert fast[0]["type"] == "error" and len(fast) == 1
            assert fast[0]["payload"][0]["extensions"]["code"] == "RATE_LIMITED"
        else:
            assert fast[1]["errors"][0]["extensions"]["code"] == "RATE_LIMITED"


async def test_a_new_document_runs_directly_from_its_first_operation(client: Client):
    """A document nobody sent before is checked by the direct path itself (the slow path's
    checks and rules), runs there at once, and answers as the slow path then does."""
    t = await open_table(client, humans=2)
    query = EVENTS[0].replace("seat data", "seat data first: type")  # never sent before
    runs = _direct(client).runs
    fast = await _first_event(client, t, query, direct=True)
    assert _direct(client).runs == runs + 1
    slow = await _first_event(client, t, query, direct=False)
    assert fast == slow


async def _first_event(c: Client, t: Seated, query: str, direct: bool):
    conns: list[Any] = []
    try:
        conn = await _watch(c, t.tokens[0], query, t.table_id, direct, conns)
        return await ws_next(conn, 10)
    finally:
        for conn in conns:
            await conn.__aexit__(None, None, None)


@pytest.mark.parametrize(
    "query, code",
    [
        (
            "subscription($t: ID!) { tableEvents(tableId: $t) { nope } }",
            "BAD_INPUT",
        ),
        (
            "subscription($t: ID!) { tableEvents(tableId: $t) { "
            + " ".join(f"a{i}: type" for i in range(40))
            + " } }",
            "QUERY_TOO_COMPLEX",
        ),
    ],
    ids=["an unknown field", "too many aliases"],
)
async def test_a_new_document_that_fails_a_check_is_refused_alike(client: Client, query, code):
    t = await open_table(client, humans=2)
    first = await _run(client, t.tokens[0], query, {"t": t.table_id}, True)
    again = await _run(client, t.tokens[0], query, {"t": t.table_id}, False)
    assert first == again and first[0]["type"] == "error", first
    assert first[0]["payload"][0]["extensions"]["code"] == code


def test_the_direct_path_checks_by_the_slow_paths_rules(registry, monkeypatch):
    from tablestate.api.checks import Checks

    schema = build_schema(registry)
    checks = next(e for e in schema.extensions if isinstance(e, type) and issubclass(e, Checks))
    seen: list[tuple[Any, ...]] = []
    verdict = checks._verdict.__func__

    def recording(cls, graphql_schema, document, rules):
        seen.append(rules)
        return verdict(cls, graphql_schema, document, rules)

    monkeypatch.setattr(checks, "_verdict", classmethod(recording))
    result = asyncio.run(schema.execute("{ __typename }"))
    assert not result.errors and seen == [checks.validation_rules()]


async def test_an_operation_starts_where_its_message_is_read(client: Client, monkeypatch):
    """A ``subscribe`` read while the message loop waits starts its operation there (no
    queue, no loop step); the answers are the loop's, as a message it leaves shows."""
    from tablestate.api.sockets import TransportWS

    taken: list[bool] = []
    take = TransportWS.take_now

    def spy(self: TransportWS, text: str) -> bool:
        taken.append(take(self, text))
        return taken[-1]

    monkeypatch.setattr(TransportWS, "take_now", spy)
    t = await open_table(client, humans=2)
    seat, move, _ = await _to_act(client, t)
    query, name = MOVES[0]
    got = await _run(client, t.tokens[seat], query, {"t": t.table_id, "m": move}, True, name)
    assert got[0]["type"] == "next" and "errors" not in got[0]["payload"], got
    assert True in taken  # the move's subscribe, taken where it was read
    _direct(client).enabled = True
    async with client.ws() as conn:  # a ping, then a subscribe: answered in order
        assert (await ws_init(conn, None))["type"] == "connection_ack"
        payload = {"query": EVENTS[0], "variables": {"t": t.table_id, "a": None}}
        subscribe = {"id": "s", "type": "subscribe", "payload": payload}
        await conn.send(json.dumps({"type": "ping"}))
        await conn.send(json.dumps(subscribe))
        answers = [json.loads(await asyncio.wait_for(conn.recv(), 10)) for _ in range(2)]
        assert [a["type"] for a in answers] == ["pong", "next"], answers
