"""Relay and normalizing caches: ``Node`` with ``node(id:)``/``nodes(ids:)``, ids unique
across types on every object a client may cache, connections with edges and full
``pageInfo`` for tables and events (docs/clients.md)."""

from __future__ import annotations

import base64

import pytest
import strawberry
from support.lucky import CREATE, open_table, play_out
from support.server import make_settings, serve

from tablestate.engine.schema import GameState
from tablestate.store.memory import MemoryStore

IDS = """query($t: ID!) {
  game(id: "lucky-draw") { id houseRules { id } }
  viewer(tableId: $t) { id }
  plugins { id }
  table(id: $t) {
    id seats { id } result { id } events(first: 1000) { id }
    state { id ... on LuckyDrawState { players { id seat } } }
  }
}"""
NODE = """query($i: ID!) { node(id: $i) { __typename id
  ... on Table { status } ... on Seat { index seatName: name } ... on Game { name }
} }"""
NODES = "query($i: [ID!]!) { nodes(ids: $i) { __typename id } }"
PAGE = """query($t: ID!, $f: Int, $a: String, $l: Int) { table(id: $t) {
  eventsConnection(first: $f, after: $a, last: $l) {
    edges { cursor node { id cursor type } }
    nodes { cursor }
    pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
  }
} }"""
TABLES = """query($f: Int!, $a: String) { tables(gameId: "lucky-draw", first: $f, after: $a) {
  edges { cursor node { id } }
  nodes { id }
  pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
} }"""


async def test_every_cached_object_has_an_id_unique_across_types(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2)
        await play_out(c, t)
        seen = await c.q(IDS, t.tokens[0], t=t.table_id)
        table = seen["table"]
        ids = [
            seen["game"]["id"],
            *(r["id"] for r in seen["game"]["houseRules"]),
            seen["viewer"]["id"],
            *(p["id"] for p in seen["plugins"]),
            table["id"],
            *(s["id"] for s in table["seats"]),
            table["result"]["id"],
            *(e["id"] for e in table["events"]),
            table["state"]["id"],
            *(p["id"] for p in table["state"]["players"]),
        ]
        assert len(ids) == len(set(ids)), "an id names two objects"
        assert table["id"] == t.table_id and seen["game"]["id"] == "lucky-draw"
        # the new ids are opaque: base64 of Type:key
        for found in (table["seats"][0]["id"], table["state"]["id"]):
            assert base64.b64decode(found).decode().split(":")[0] in ("Seat", "LuckyDrawState")
        # a state's id is of its version and its viewer: each cache keeps states whole
        other = (await c.q(IDS, t.tokens[1], t=t.table_id))["table"]["state"]
        spectator = (await c.q(IDS, t=t.table_id))["table"]["state"]
        assert len({table["state"]["id"], other["id"], spectator["id"]}) == 3
        player_ids = {p["id"] for s in (table, {"state": other}) for p in s["state"]["players"]}
        assert len(player_ids) == 2 * len(other["players"])


async def test_node_refetches_tables_seats_games_and_house_rules(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2, start=False)
        table = (await c.q(IDS, t=t.table_id))["table"]
        rule = "lucky-draw/allow-pass"
        for node_id, typename in (
            (t.table_id, "Table"),
            (table["seats"][1]["id"], "Seat"),
            ("lucky-draw", "Game"),
            (rule, "HouseRule"),
        ):
            found = (await c.q(NODE, i=node_id))["node"]
            assert found["__typename"] == typename and found["id"] == node_id
        assert (await c.q(NODE, i=table["seats"][1]["id"]))["node"]["index"] == 1
        for unknown in ("no-such-table", table["events"][0]["id"], "U2VhdDp4", "x" * 300):
            assert (await c.q(NODE, i=unknown))["node"] is None
        both = (await c.q(NODES, i=[t.table_id, "nope", "lucky-draw"]))["nodes"]
        assert [n and n["__typename"] for n in both] == ["Table", None, "Game"]
        assert await c.code(NODES, i=["x"] * 101) == "BAD_INPUT"
        assert await c.code(NODE, "not-a-token", i=t.table_id) == "UNAUTHENTICATED"


async def test_node_hides_a_table_its_caller_may_not_watch(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        made = await c.q(CREATE, g="lucky-draw", r=[], o={"spectators": False}, s=2)
        tid = made["createTable"]["table"]["id"]
        assert (await c.q(NODE, i=tid))["node"] is None
        host = made["createTable"]["hostToken"]
        assert (await c.q(NODE, host, i=tid))["node"]["__typename"] == "Table"


async def test_events_connection_pages_forward_and_from_the_end(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        t = await open_table(c, humans=2)
        await play_out(c, t)
        q = "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor } } }"
        every = [e["cursor"] for e in (await c.q(q, t.tokens[0], t=t.table_id))["table"]["events"]]
        got: list[str] = []
        after = None
        while True:
            page = (await c.q(PAGE, t.tokens[0], t=t.table_id, f=7, a=after))["table"]
            conn = page["eventsConnection"]
            info = conn["pageInfo"]
            cursors = [e["cursor"] for e in conn["edges"]]
            assert cursors == [e["node"]["cursor"] for e in conn["edges"]]
            assert cursors == [n["cursor"] for n in conn["nodes"]]
            assert info["startCursor"] == cursors[0] and info["endCursor"] == cursors[-1]
            assert info["hasPreviousPage"] == (after is not None)
            got += cursors
            if not info["hasNextPage"]:
                break
            after = info["endCursor"]
        assert got == every
        newest = (await c.q(PAGE, t=t.table_id, l=3))["table"]["eventsConnection"]
        assert [e["cursor"] for e in newest["edges"]] == every[-3:]
        assert newest["pageInfo"]["hasPreviousPage"] and not newest["pageInfo"]["hasNextPage"]
        assert await c.code(PAGE, t=t.table_id, f=2, l=2) == "BAD_INPUT"
        assert await c.code(PAGE, t=t.table_id, f=1001) == "BAD_INPUT"
        assert await c.code(PAGE, t=t.table_id, a="bad") == "BAD_INPUT"


@pytest.mark.parametrize("kind", ["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def test_tables_connection_has_edges_with_their_own_cursors(registry, kind, request):
    store = MemoryStore()
    if kind == "redis":
        from tablestate.store.redis import RedisStore

        url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("redis_prefix")
        store = RedisStore.from_url(url, prefix=prefix)
    async with serve(make_settings(), registry, store) as c:
        made = [
            (await c.q(CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]["table"]["id"]
            for _ in range(5)
        ]
        first = (await c.q(TABLES, f=3))["tables"]
        assert [e["node"]["id"] for e in first["edges"]] == [n["id"] for n in first["nodes"]]
        assert first["pageInfo"]["hasNextPage"] and not first["pageInfo"]["hasPreviousPage"]
        assert first["pageInfo"]["startCursor"] == first["edges"][0]["cursor"]
        # any edge's cursor starts the page after it
        after_second = (await c.q(TABLES, f=2, a=first["edges"][1]["cursor"]))["tables"]
        assert after_second["nodes"][0]["id"] == first["nodes"][2]["id"]
        rest = (await c.q(TABLES, f=100, a=first["pageInfo"]["endCursor"]))["tables"]
        assert rest["pageInfo"]["hasPreviousPage"] and not rest["pageInfo"]["hasNextPage"]
        assert rest["pageInfo"]["endCursor"] == rest["edges"][-1]["cursor"]
        seen = [n["id"] for n in first["nodes"] + rest["nodes"]]
        assert set(made) <= set(seen) and len(seen) == len(set(seen))


async def test_a_connection_costs_its_page_size_times_what_its_edges_select(registry):
    deep = """query { tables(first: 100) { edges { node {
      eventsConnection(first: 1000) { edges { node { table { id } } } } } } } }"""
    async with serve(make_settings(), registry, MemoryStore()) as c:
        assert await c.code(deep) == "QUERY_TOO_COMPLEX"


@strawberry.type
class ToyPart:
    id: str


def test_a_game_type_of_its_own_id_is_refused():
    with pytest.raises(ValueError, match="declares an `id`"):

        @strawberry.type
        class ToyState(GameState):
            parts: list[ToyPart]
