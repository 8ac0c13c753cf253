"""What only All Fives shows through the real API: its refusals and the player counts its
house rules need. Every game's random full games through the API are the shared
``tests/plugins/test_api.py``."""

from __future__ import annotations

import pytest
from support.api_play import CREATE, JOIN, MOVE, SET_RULE, START, VERSION, open_table, server

from .support import BUNCH, GIFT_ALL, PARTNERS

TO_ACT = "query($t: ID!) { table(id: $t) { version state { toAct } } }"


async def test_refusals_carry_the_stable_codes():
    async with server() as srv:
        c = srv.client
        case = {
            "id": "refusals",
            "seats": 2,
            "seated": [0, 1],
            "seed": 0,
            "options": {"targetScore": 15},
        }
        g = await open_table(srv, "all-fives", case)
        await c.q(START, g.host, t=g.table_id)
        table = (await c.q(TO_ACT, t=g.table_id))["table"]
        (seat,) = table["state"]["toAct"]
        other = next(s for s in g.tokens if s != seat)
        me, them = g.tokens[seat], g.tokens[other]
        refusals = [
            (me, {"allFives": {"play": {"card": "TD"}}}, "BAD_INPUT"),
            (me, {"allFives": {"stand": True, "beg": True}}, "BAD_INPUT"),
            (me, {"allFives": {"stand": False}}, "BAD_INPUT"),
            (me, {"fiveCrowns": {"discard": {"card": "KH"}}}, "BAD_INPUT"),
            (them, {"allFives": {"stand": True}}, "NOT_YOUR_TURN"),
            (me, {"allFives": {"giveOne": True}}, "ILLEGAL_MOVE"),
            (me, {"allFives": {"play": {"card": "AS"}}}, "ILLEGAL_MOVE"),
            (me, {"allFives": {"discard": {"card": "AS"}}}, "ILLEGAL_MOVE"),  # house rule off
            (me, {"allFives": {"bunch": True}}, "ILLEGAL_MOVE"),  # house rule off
        ]
        for token, move, code in refusals:
            assert await c.code(MOVE, token, t=g.table_id, m=move) == code, move
        assert (await c.q(VERSION, t=g.table_id))["table"]["version"] == table["version"]
        body = await c.raw(MOVE, me, t=g.table_id, m={"allFives": {"giveOne": True}})
        assert body["errors"][0]["extensions"]["reason"]


@pytest.mark.parametrize(
    "seats, rules, code",
    [
        pytest.param(4, [], "BAD_INPUT", id="four-without-partnerships"),
        pytest.param(3, [PARTNERS], "RULE_CONFLICT", id="partnerships-with-three"),
        pytest.param(2, [GIFT_ALL], "RULE_CONFLICT", id="gift-2p"),
        pytest.param(3, [BUNCH], "RULE_CONFLICT", id="bunch-3p"),
    ],
)
async def test_house_rules_must_fit_the_player_count(seats, rules, code):
    async with server() as srv:
        c = srv.client
        made = (await c.q(CREATE, g="all-fives", o=None, s=4, r=[]))["createTable"]
        tid, host = made["table"]["id"], made["hostToken"]  # rules set while open
        for rule in rules:
            await c.q(SET_RULE, host, t=tid, r=rule)
        for i in range(seats):
            await c.q(JOIN, t=tid, n=f"P{i}")
        assert await c.code(START, host, t=tid) == code
        if seats < 4:  # at creation, with the number of seats fixed
            assert (
                await c.code(CREATE, g="all-fives", o=None, s=seats, r=rules or [PARTNERS])
                == "RULE_CONFLICT"
            )
