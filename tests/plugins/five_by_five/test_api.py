"""What only Five by Five shows through the real API: its refusals, each with its stable
code. Every game's random full games through the API are the shared
``tests/plugins/test_api.py``."""

from __future__ import annotations

from support.api_play import MOVE, START, VERSION, open_table, server

TO_ACT = "query($t: ID!) { table(id: $t) { version state { toAct } } }"


async def test_refusals_carry_stable_codes() -> None:
    async with server() as srv:
        c = srv.client
        g = await open_table(
            srv, "five-by-five", {"id": "refusals", "seats": 2, "seated": [0, 1], "seed": 0}
        )
        await c.q(START, g.host, t=g.table_id)
        table = (await c.q(TO_ACT, t=g.table_id))["table"]
        (seat,) = table["state"]["toAct"]
        other = next(s for s in g.tokens if s != seat)
        me, them = g.tokens[seat], g.tokens[other]
        swap = {"first": {"row": 0, "col": 0}, "second": {"row": 0, "col": 1}}
        square = {"row": 0, "col": 0}
        refusals = [
            (me, {"fiveByFive": {"plusMinus": {"square": square, "delta": 3}}}, "BAD_INPUT"),
            (me, {"fiveByFive": {"done": True, "swap": swap}}, "BAD_INPUT"),
            (me, {"fiveByFive": {"playObjective": {"objective": "no-such-card"}}}, "BAD_INPUT"),
            (me, {"fiveCrowns": {"discard": {"card": "KH"}}}, "BAD_INPUT"),
            (them, {"fiveByFive": {"swap": swap}}, "NOT_YOUR_TURN"),
            (me, {"fiveByFive": {"swap": swap}}, "ILLEGAL_MOVE"),
            (me, {"fiveByFive": {"done": True}}, "ILLEGAL_MOVE"),
            (
                me,
                {"fiveByFive": {"claimSpecial": {"objective": "special-large-straight"}}},
                "ILLEGAL_MOVE",
            ),
        ]
        for token, move, code in refusals:
            assert await c.code(MOVE, token, t=g.table_id, m=move) == code, move
        assert (await c.q(VERSION, t=g.table_id))["table"]["version"] == table["version"]
        body = await c.raw(MOVE, me, t=g.table_id, m={"fiveByFive": {"swap": swap}})
        assert body["errors"][0]["extensions"]["reason"]
