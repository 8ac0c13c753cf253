"""Two seats of one table never carry the same name, as a person would read it."""

from __future__ import annotations

from support.lucky import CREATE, JOIN
from support.server import Client

REPLACE = """mutation($t: ID!, $s: Int!, $n: String!) {
  replaceSeat(tableId: $t, seat: $s, name: $n) { seat }
}"""
SEATS = "query($t: ID!) { table(id: $t) { version seats { name } } }"


async def test_a_name_taken_at_the_table_is_refused(client: Client):
    made = (await client.q(CREATE, g="lucky-draw", r=[], o=None, s=3))["createTable"]
    table_id, host = made["table"]["id"], made["hostToken"]
    await client.q(JOIN, t=table_id, n="Ann")
    before = (await client.q(SEATS, t=table_id))["table"]
    for name in ("Ann", "aNN", "\uff21\uff4e\uff4e"):  # the last one in full-width letters
        assert await client.code(JOIN, t=table_id, n=name) == "BAD_INPUT", name
    assert (await client.q(SEATS, t=table_id))["table"] == before  # nothing changed
    await client.q(JOIN, t=table_id, n="Bea")
    assert await client.code(REPLACE, host, t=table_id, s=1, n="ANN") == "BAD_INPUT"
    assert (await client.q(REPLACE, host, t=table_id, s=1, n="Bee"))["replaceSeat"]["seat"] == 1
