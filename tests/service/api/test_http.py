"""Every operation of API.md over HTTP, through uvicorn, on both stores."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from support.jwts import Issuer, Key, sign_in_settings, token
from support.lucky import (
    ADD_BOT,
    CREATE,
    JOIN,
    MOVE,
    SET_RULE,
    START,
    TABLE,
    open_table,
    play_out,
)
from support.server import Client, make_settings, serve

from tablestate.engine.fairness import verify


async def test_games_and_game(client: Client):
    data = await client.q(
        "{ games { id name summary minPlayers maxPlayers options eventTypes "
        "houseRules { id gameId name description conflictsWith minPlayers maxPlayers } } "
        'game(id: "lucky-draw") { id } missing: game(id: "nope") { id } }'
    )
    lucky = next(g for g in data["games"] if g["id"] == "lucky-draw")
    assert lucky["minPlayers"] == 2 and lucky["maxPlayers"] == 4
    assert lucky["options"]["properties"]["handSize"]["default"] == 3
    assert "table.created" in lucky["eventTypes"] and "card.played" in lucky["eventTypes"]
    rules = {r["id"]: r for r in lucky["houseRules"]}
    assert rules["lucky-draw/odd-bonus"]["conflictsWith"] == ["lucky-draw/double-evens"]
    assert rules["lucky-draw/allow-pass"]["maxPlayers"] == 3
    assert data["game"] == {"id": "lucky-draw"} and data["missing"] is None


async def test_full_game_between_two_humans(client: Client):
    t = await open_table(client, humans=2)
    table = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
    assert table["status"] == "PLAYING" and table["state"]["toAct"] == [0]
    assert len(table["state"]["myHand"]) == 3
    final = await play_out(client, t)
    assert final["status"] == "FINISHED"
    assert sum(final["result"]["scores"]) == 110  # every card 1..10 twice, played once
    assert final["shuffleSeed"] and verify(final["shuffleSeed"], final["shuffleCommitment"])
    assert [s["score"] for s in final["seats"]] == final["result"]["scores"]
    assert final["state"]["toAct"] == [] and final["legalMoves"] == []


async def test_full_game_against_bots(client: Client):
    t = await open_table(client, humans=1, bots=2)
    final = await play_out(client, t)
    assert final["status"] == "FINISHED"
    assert [s["kind"] for s in final["seats"]] == ["HUMAN", "BOT", "BOT"]
    events = (
        await client.q(
            "query($t: ID!) { table(id: $t) { events(first: 1000) { type seat version cursor } } }",
            t=t.table_id,
        )
    )["table"]["events"]
    versions = [e["version"] for e in events]
    assert versions == sorted(versions)
    assert {e["seat"] for e in events if e["type"] == "card.played"} == {0, 1, 2}


async def test_bots_alone_finish_the_game(client: Client):
    made = (await client.q(CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]
    tid, host = made["table"]["id"], made["hostToken"]
    await client.q(ADD_BOT, host, t=tid)
    await client.q(ADD_BOT, host, t=tid)
    await client.q(START, host, t=tid)
    for _ in range(200):
        table = (await client.q(TABLE, t=tid))["table"]
        if table["status"] == "FINISHED":
            break
        await asyncio.sleep(0.02)
    assert table["status"] == "FINISHED"


async def test_viewer_join_leave_and_host_seat(client: Client):
    made = (await client.q(CREATE, g="lucky-draw", r=[], o={"handSize": 2}, s=3))["createTable"]
    tid, host = made["table"]["id"], made["hostToken"]
    assert made["table"]["version"] == 1 and made["table"]["status"] == "OPEN"
    assert (await client.q("{ viewer { seat } }"))["viewer"] is None
    v = (await client.q("{ viewer { tableId seat isHost } }", host))["viewer"]
    assert v == {"tableId": tid, "seat": None, "isHost": True}
    joined = (await client.q(JOIN, host, t=tid, n="Host", s=2))["joinTable"]
    assert joined["seat"] == 2
    v = (await client.q("{ viewer { seat isHost } }", joined["playerToken"]))["viewer"]
    assert v == {"seat": 2, "isHost": True}
    other = (await client.q(JOIN, t=tid, n="Guest"))["joinTable"]
    assert other["seat"] == 0
    left = await client.q(
        "mutation($t: ID!) { leaveTable(tableId: $t) { seats { kind } version } }",
        other["playerToken"],
        t=tid,
    )
    assert [s["kind"] for s in left["leaveTable"]["seats"]] == ["EMPTY", "EMPTY", "HUMAN"]
    # the token of a seat that was left is no longer known
    assert await client.code("{ viewer { seat } }", other["playerToken"]) == "UNAUTHENTICATED"
    # the host's seat token keeps host rights: it can seat a bot and start
    await client.q(ADD_BOT, joined["playerToken"], t=tid)
    started = (await client.q(START, joined["playerToken"], t=tid))["startGame"]
    assert started["status"] == "PLAYING"
    table = (await client.q(TABLE, joined["playerToken"], t=tid))["table"]
    assert len(table["state"]["myHand"]) == 2


async def test_tables_listing_and_paging(client: Client):
    ids = []
    for _ in range(5):
        made = (await client.q(CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]
        ids.append(made["table"]["id"])
    q = """query($a: String, $s: TableStatus) {
      tables(gameId: "lucky-draw", status: $s, first: 2, after: $a) {
        nodes { id status } pageInfo { endCursor hasNextPage } } }"""
    seen: list[str] = []
    after = None
    for _ in range(10):
        page = (await client.q(q, a=after, s="OPEN"))["tables"]
        seen += [n["id"] for n in page["nodes"]]
        after = page["pageInfo"]["endCursor"]
        if not page["pageInfo"]["hasNextPage"]:
            break
    assert set(ids) <= set(seen) and len(seen) == len(set(seen))
    playing = (await client.q(q, a=None, s="PLAYING"))["tables"]["nodes"]
    assert not set(ids) & {n["id"] for n in playing}


async def test_events_query_after_first_last(client: Client):
    t = await open_table(client, humans=2)
    q = "query($t: ID!, $a: String, $f: Int, $l: Int) { table(id: $t) { cursor events(after: $a, first: $f, last: $l) { cursor version type } } }"
    everything = (await client.q(q, t=t.table_id, f=1000))["table"]
    cursors = [e["cursor"] for e in everything["events"]]
    assert everything["cursor"] == cursors[-1]
    for i, c in enumerate(cursors):
        rest = (await client.q(q, t=t.table_id, a=c, f=1000))["table"]["events"]
        assert [e["cursor"] for e in rest] == cursors[i + 1 :]
    two = (await client.q(q, t=t.table_id, l=2))["table"]["events"]
    assert [e["cursor"] for e in two] == cursors[-2:]
    one = (await client.q(q, t=t.table_id, f=1))["table"]["events"]
    assert [e["cursor"] for e in one] == cursors[:1]


async def test_house_rule_toggle_is_per_table(client: Client):
    a = await open_table(client, humans=2, start=False)
    b = await open_table(client, humans=2, start=False)
    on = await client.q(SET_RULE, a.host, t=a.table_id, r="lucky-draw/double-evens", e=True)
    assert on["setHouseRule"]["houseRules"] == [{"id": "lucky-draw/double-evens"}]
    tb = (await client.q(TABLE, t=b.table_id))["table"]
    assert tb["houseRules"] == []
    for t in (a, b):
        await client.q(START, t.host, t=t.table_id)
    # Play the highest card each turn: doubled evens make A's total differ from B's rules.
    fa = await play_out(client, a)
    fb = await play_out(client, b)
    assert sum(fb["result"]["scores"]) == 110
    assert sum(fa["result"]["scores"]) == 110 + 2 * (2 + 4 + 6 + 8 + 10)


async def test_house_rule_added_move_kind_only_where_enabled(client: Client):
    a = await open_table(client, humans=2, rules=["lucky-draw/allow-pass"])
    b = await open_table(client, humans=2)
    ta = (await client.q(TABLE, a.tokens[0], t=a.table_id))["table"]
    assert {"luckyDraw": {"pass": True}} in ta["legalMoves"]
    tb = (await client.q(TABLE, b.tokens[0], t=b.table_id))["table"]
    assert {"luckyDraw": {"pass": True}} not in tb["legalMoves"]
    m = {"luckyDraw": {"pass": True}}
    assert await client.code(MOVE, b.tokens[0], t=b.table_id, m=m) == "ILLEGAL_MOVE"
    done = (await client.q(MOVE, a.tokens[0], t=a.table_id, m=m))["makeMove"]
    assert done["events"][0]["type"] == "turn.passed"


async def test_rule_conflict_and_unknown_rules(client: Client):
    code = await client.code(
        CREATE, g="lucky-draw", r=["lucky-draw/double-evens", "lucky-draw/odd-bonus"], o=None, s=2
    )
    assert code == "RULE_CONFLICT"
    assert (
        await client.code(CREATE, g="lucky-draw", r=["lucky-draw/nope"], o=None, s=2) == "NOT_FOUND"
    )
    # allow-pass is for 2 or 3 players only
    assert (
        await client.code(CREATE, g="lucky-draw", r=["lucky-draw/allow-pass"], o=None, s=4)
        == "RULE_CONFLICT"
    )
    t = await open_table(client, humans=2, start=False)
    await client.q(SET_RULE, t.host, t=t.table_id, r="lucky-draw/odd-bonus", e=True)
    before = (await client.q(TABLE, t=t.table_id))["table"]["version"]
    assert (
        await client.code(SET_RULE, t.host, t=t.table_id, r="lucky-draw/double-evens", e=True)
        == "RULE_CONFLICT"
    )
    assert (
        await client.code(SET_RULE, t.host, t=t.table_id, r="lucky-draw/zzz", e=True) == "NOT_FOUND"
    )
    assert (
        await client.code(SET_RULE, t.tokens[1], t=t.table_id, r="lucky-draw/odd-bonus", e=False)
        == "FORBIDDEN"
    )
    after = (await client.q(TABLE, t=t.table_id))["table"]
    assert after["version"] == before and after["houseRules"] == [{"id": "lucky-draw/odd-bonus"}]


Players = tuple[Client, list[str] | None, Callable[[int], str] | None]


@pytest.fixture(params=["tokens", "signed-in"])
async def players(
    request: pytest.FixtureRequest, registry: Any, make_store: Any, tmp_path: Any
) -> AsyncIterator[Players]:
    """A server, the credentials its two players act with (None: their seat tokens), and
    for signed-in players a JWT of each player's other device."""
    if request.param == "tokens":
        async with serve(make_settings(), registry, make_store()) as c:
            yield c, None, None
        return
    issuer = Issuer(tmp_path)
    issuer.publish(Key.rsa("rsa-1"), Key.ec("ec-1"))
    settings = make_settings(**sign_in_settings(str(issuer.file)))
    async with serve(settings, registry, make_store()) as c:
        devices = [token(issuer.keys[0], f"p{i}") for i in range(2)]
        yield c, devices, lambda i: token(issuer.keys[1], f"p{i}")


async def test_idempotent_move(players: Players):
    client, joiners, other_device = players
    t = await open_table(client, humans=2, joiners=joiners)
    table = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
    m = table["legalMoves"][0]
    first = (await client.q(MOVE, t.tokens[0], t=t.table_id, m=m, k="key-1"))["makeMove"]
    again = (await client.q(MOVE, t.tokens[0], t=t.table_id, m=m, k="key-1"))["makeMove"]
    assert again["events"] == first["events"]
    assert again["table"]["version"] == first["table"]["version"] == table["version"] + 1
    if other_device is not None:  # a key is the seat's: the user's other device retries it
        retried = await client.q(MOVE, other_device(0), t=t.table_id, m=m, k="key-1")
        assert retried["makeMove"]["events"] == first["events"]
    other = {"luckyDraw": {"draw": True}}
    assert await client.code(MOVE, t.tokens[0], t=t.table_id, m=other, k="key-1") == "BAD_INPUT"
    # racing retries of one key apply once
    table = (await client.q(TABLE, t.tokens[1], t=t.table_id))["table"]
    m = table["legalMoves"][0]
    outs = await asyncio.gather(
        *(client.raw(MOVE, t.tokens[1], t=t.table_id, m=m, k="race") for _ in range(8))
    )
    versions = {o["data"]["makeMove"]["table"]["version"] for o in outs if o.get("data")}
    now = (await client.q(TABLE, t=t.table_id))["table"]["version"]
    assert now == table["version"] + 1 and versions <= {now}


async def test_concurrent_moves_on_one_version(client: Client):
    t = await open_table(client, humans=2)
    table = (await client.q(TABLE, t.tokens[0], t=t.table_id))["table"]
    v = table["version"]
    moves = table["legalMoves"]
    outs = await asyncio.gather(
        *(client.raw(MOVE, t.tokens[0], t=t.table_id, m=m, v=v) for m in moves)
    )
    won = [o for o in outs if not o.get("errors")]
    lost = [o for o in outs if o.get("errors")]
    assert len(won) == 1
    assert {o["errors"][0]["extensions"]["code"] for o in lost} <= {"VERSION_CONFLICT"}
    assert (await client.q(TABLE, t=t.table_id))["table"]["version"] == v + 1


async def test_health_ready_metrics(client: Client):
    assert (await client.http.get("/healthz")).json() == {"status": "ok"}
    assert (await client.http.get("/readyz")).status_code == 200
    await open_table(client, humans=2)
    text = (await client.http.get("/metrics")).text
    assert 'tablestate_commits_total{kind="move"}' in text or "tablestate_commits_total" in text
    assert 'tablestate_requests_total{type="mutation"}' in text


async def test_graphiql_on_get(client: Client):
    r = await client.http.get("/graphql", headers={"Accept": "text/html"})
    assert r.status_code == 200 and "graphiql" in r.text.lower()


async def test_plugins_query(client: Client):
    data = await client.q("{ plugins { name source hooks games houseRules } }")
    names = {p["name"]: p for p in data["plugins"]}
    assert names["lucky-draw"]["games"] == ["lucky-draw"]
    assert "lucky_draw_points" in names["lucky-draw.double-evens"]["hooks"]
