"""Bad input of every kind gets the right code and changes nothing."""

from __future__ import annotations

import pytest
from support.lucky import CREATE, JOIN, MOVE, SET_RULE, START, TABLE, open_table, play_out
from support.server import Client

VERSION = "query($t: ID!) { table(id: $t) { version status } }"


async def _version(c: Client, table_id: str) -> int:
    return int((await c.q(VERSION, t=table_id))["table"]["version"])


async def test_malformed_http_bodies(client: Client):
    for body, ctype in [
        (b"{not json", "application/json"),
        (b'{"query": 5}', "application/json"),
        (b"[]", "application/json"),
        (b"", "application/json"),
    ]:
        r = await client.http.post("/graphql", content=body, headers={"Content-Type": ctype})
        assert r.status_code in (200, 400), r.text
        assert r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT", r.text


async def test_huge_body_refused(client: Client):
    big = "x" * (300 * 1024)
    r = await client.http.post(
        "/graphql", json={"query": "{ games { id } }", "variables": {"x": big}}
    )
    assert r.status_code == 413
    assert r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT"


async def test_validation_and_coercion_errors_are_bad_input(client: Client):
    t = await open_table(client, humans=2)
    v = await _version(client, t.table_id)
    cases = [
        ("{ nope }", {}),
        ("query($t: ID!) { table(id: $t) { id } }", {"t": {"an": "object"}}),
        (MOVE, {"t": t.table_id, "m": {"luckyDraw": {"draw": True}, "other": 1}}),
        (MOVE, {"t": t.table_id, "m": {"luckyDraw": {"play": {"card": 7}}}}),
        (MOVE, {"t": t.table_id, "m": {"luckyDraw": {"play": {"card": "7A"}, "draw": True}}}),
        (MOVE, {"t": t.table_id, "m": {}}),
        (MOVE, {"t": t.table_id, "m": "draw"}),
        ('mutation { createTable(gameId: 5, seats: "two") { hostToken } }', {}),
        ("{ games { id } ", {}),
    ]
    for query, variables in cases:
        assert await client.code(query, t.tokens[0], **variables) == "BAD_INPUT", (query, variables)
    assert await _version(client, t.table_id) == v


async def test_query_limits(client: Client):
    nested = "{ id }"
    for _ in range(8):
        nested = "{ events { table " + nested + " } }"
    nested = "query($t: ID!) { table(id: $t) " + nested + " }"
    t = await open_table(client, humans=2, start=False)
    assert await client.code(nested, t=t.table_id) == "QUERY_TOO_COMPLEX"
    aliases = "{ " + " ".join(f"a{i}: games {{ id }}" for i in range(50)) + " }"
    assert await client.code(aliases) == "QUERY_TOO_COMPLEX"
    tokens = "{ " + " ".join("games { id }" for _ in range(2000)) + " }"
    assert await client.code(tokens) == "QUERY_TOO_COMPLEX"


async def test_huge_strings(client: Client):
    t = await open_table(client, humans=2, start=False)
    v = await _version(client, t.table_id)
    assert await client.code(JOIN, t=t.table_id, n="n" * 10_000) == "BAD_INPUT"
    assert await client.code(JOIN, t=t.table_id, n="") == "BAD_INPUT"
    assert await client.code(JOIN, t=t.table_id, n="bad\x00name") == "BAD_INPUT"
    assert await client.code(JOIN, t=t.table_id, n="ok", c="s" * 1000) == "BAD_INPUT"
    assert (await client.q(TABLE, t="t" * 5000))["table"] is None
    assert await client.code(CREATE, g="g" * 10_000, r=[], o=None, s=2) == "NOT_FOUND"
    assert (
        await client.code(CREATE, g="lucky-draw", r=[], o={"handSize": "x" * 20_000}, s=2)
        == "BAD_INPUT"
    )
    assert await _version(client, t.table_id) == v


async def test_unknown_ids(client: Client):
    t = await open_table(client, humans=2, start=False)
    assert (await client.q(TABLE, t="nope"))["table"] is None
    assert await client.code(CREATE, g="chess", r=[], o=None, s=2) == "NOT_FOUND"
    assert await client.code(JOIN, t="nope", n="x") == "NOT_FOUND"
    assert await client.code(JOIN, t=t.table_id, n="x", s=9) == "NOT_FOUND"
    assert await client.code(JOIN, t=t.table_id, n="x", s=0) == "TABLE_FULL"
    assert await client.code(START, t.host, t="nope") == "NOT_FOUND"
    assert (
        await client.code(SET_RULE, t.host, t=t.table_id, r="lucky-draw/nope", e=True)
        == "NOT_FOUND"
    )
    assert (
        await client.code(MOVE, t.tokens[0], t="nope", m={"luckyDraw": {"draw": True}})
        == "NOT_FOUND"
    )


@pytest.mark.parametrize(
    "options",
    [{"handSize": 0}, {"handSize": 9}, {"handSize": "3"}, {"handSize": True}, {"colour": 1}, [1]],
)
async def test_bad_options(client: Client, options):
    assert await client.code(CREATE, g="lucky-draw", r=[], o=options, s=2) == "BAD_INPUT"


async def test_bad_seat_counts(client: Client):
    for seats in (0, 1, 5, -1, 10**9):
        assert await client.code(CREATE, g="lucky-draw", r=[], o=None, s=seats) == "BAD_INPUT"


async def test_tokens(client: Client):
    t = await open_table(client, humans=2, start=False)
    other = await open_table(client, humans=2, start=False)
    assert await client.code("{ viewer { seat } }", "garbage") == "UNAUTHENTICATED"
    assert await client.code("{ viewer { seat } }", f"{t.table_id}.forged") == "UNAUTHENTICATED"
    assert await client.code(TABLE, "nope.nope", t=t.table_id) == "UNAUTHENTICATED"
    r = await client.http.post(
        "/graphql", json={"query": "{ viewer { seat } }"}, headers={"Authorization": "Basic abc"}
    )
    assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    # a valid token of another table gives no rights here
    assert await client.code(START, other.host, t=t.table_id) == "FORBIDDEN"
    assert await client.code(START, t.tokens[0], t=t.table_id) == "FORBIDDEN"
    assert await client.code(START, None, t=t.table_id) == "UNAUTHENTICATED"
    assert (
        await client.code(
            "mutation($t: ID!) { addBot(tableId: $t) { id } }", t.tokens[1], t=t.table_id
        )
        == "FORBIDDEN"
    )
    assert (
        await client.code(
            "mutation($t: ID!) { leaveTable(tableId: $t) { id } }", None, t=t.table_id
        )
        == "UNAUTHENTICATED"
    )
    assert (
        await client.code(
            "mutation($t: ID!) { leaveTable(tableId: $t) { id } }", t.host, t=t.table_id
        )
        == "FORBIDDEN"
    )


async def test_moves_refused_in_order(client: Client):
    t = await open_table(client, humans=2, start=False)
    draw = {"luckyDraw": {"draw": True}}
    assert await client.code(MOVE, None, t=t.table_id, m=draw) == "UNAUTHENTICATED"
    assert await client.code(MOVE, "bad.token", t=t.table_id, m=draw) == "UNAUTHENTICATED"
    assert await client.code(MOVE, t.host, t=t.table_id, m=draw) == "FORBIDDEN"
    assert await client.code(MOVE, t.tokens[0], t=t.table_id, m=draw) == "TABLE_NOT_PLAYING"
    await client.q(START, t.host, t=t.table_id)
    v = await _version(client, t.table_id)
    assert (
        await client.code(
            MOVE, t.tokens[0], t=t.table_id, m={"luckyDraw": {"play": {"card": "ZZ"}}}
        )
        == "BAD_INPUT"
    )
    assert await client.code(MOVE, t.tokens[1], t=t.table_id, m=draw) == "NOT_YOUR_TURN"
    hand = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]["state"]["myHand"]
    missing = next(f"{r}{s}" for r in range(1, 11) for s in "AB" if f"{r}{s}" not in hand)
    body = await client.raw(
        MOVE, t.tokens[0], t=t.table_id, m={"luckyDraw": {"play": {"card": missing}}}
    )
    err = body["errors"][0]
    assert err["extensions"]["code"] == "ILLEGAL_MOVE" and err["extensions"]["reason"]
    assert missing not in err["message"] + err["extensions"]["reason"]
    assert await client.code(MOVE, t.tokens[0], t=t.table_id, m=draw, v=v - 1) == "VERSION_CONFLICT"
    assert await client.code(MOVE, t.tokens[0], t=t.table_id, m=draw, k="k" * 500) == "BAD_INPUT"
    assert await _version(client, t.table_id) == v


async def test_lifecycle_refusals(client: Client):
    t = await open_table(client, humans=2)
    v = await _version(client, t.table_id)
    assert await client.code(JOIN, t=t.table_id, n="late") == "TABLE_NOT_OPEN"
    assert (
        await client.code("mutation($t: ID!) { addBot(tableId: $t) { id } }", t.host, t=t.table_id)
        == "TABLE_NOT_OPEN"
    )
    assert (
        await client.code(SET_RULE, t.host, t=t.table_id, r="lucky-draw/odd-bonus", e=True)
        == "TABLE_NOT_OPEN"
    )
    assert await client.code(START, t.host, t=t.table_id) == "TABLE_NOT_OPEN"
    assert await _version(client, t.table_id) == v
    await play_out(client, t)
    v = await _version(client, t.table_id)
    # A playing table may be left (a bot takes the seat); a finished one may not.
    assert (
        await client.code(
            "mutation($t: ID!) { leaveTable(tableId: $t) { id } }", t.tokens[0], t=t.table_id
        )
        == "TABLE_NOT_OPEN"
    )
    assert (
        await client.code(MOVE, t.tokens[0], t=t.table_id, m={"luckyDraw": {"draw": True}})
        == "TABLE_NOT_PLAYING"
    )
    assert await _version(client, t.table_id) == v
    made = (await client.q(CREATE, g="lucky-draw", r=[], o=None, s=None))["createTable"]
    lonely = made["table"]["id"]
    await client.q(JOIN, t=lonely, n="alone")
    assert await client.code(START, made["hostToken"], t=lonely) == "BAD_INPUT"
    assert await _version(client, lonely) == 2


async def test_event_paging_limits_and_cursors(client: Client):
    t = await open_table(client, humans=2)
    q = "query($t: ID!, $a: String, $f: Int, $l: Int) { table(id: $t) { events(after: $a, first: $f, last: $l) { cursor } } }"
    assert await client.code(q, t=t.table_id, f=1001) == "BAD_INPUT"
    assert await client.code(q, t=t.table_id, f=-1) == "BAD_INPUT"
    assert await client.code(q, t=t.table_id, l=5000) == "BAD_INPUT"
    for bad in ("x", "1-", "-1", "99999-0", "1-99", "1-0-0", "a-b"):
        assert await client.code(q, t=t.table_id, a=bad) == "BAD_INPUT", bad
    tables = "query($f: Int, $a: String) { tables(first: $f, after: $a) { nodes { id } } }"
    assert await client.code(tables, f=0) == "BAD_INPUT"
    assert await client.code(tables, f=101) == "BAD_INPUT"
