"""What only Five by Five shows through the real API: its refusals, each with its stable
code. Every game's random full games through the API are the shared
``tests/plugins/test_api.py``."""

from __future__ import annotations

from support.api_play import CREATE, MOVE, START, VERSION, open_table, server

from tablestate_five_by_five.rules import REGULAR_IDS

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


SET_OPTIONS = "mutation($t: ID!, $o: JSON!) { setOptions(tableId: $t, options: $o) { version } }"
THIN = {"objectiveCounts": dict.fromkeys(REGULAR_IDS, 0) | {"line-all-odd": 5}}


async def test_options_too_thin_for_the_hands_are_refused_when_the_table_is_made() -> None:
    """5 objective cards cannot deal 3 to each of 2 seats: createTable and setOptions answer
    BAD_INPUT naming both options, and the table's options stay; enough cards are taken."""
    async with server() as srv:
        c = srv.client
        body = await c.raw(CREATE, g="five-by-five", o=THIN, s=2)
        (error,) = body["errors"]
        assert error["extensions"]["code"] == "BAD_INPUT" and body["data"] is None
        assert "objectiveCounts" in error["message"] and "objectiveHandSize" in error["message"]
        assert "5 cards" in error["message"] and "6 needed" in error["message"]
        # one seat fewer, or one card fewer a hand: dealt in full
        await c.q(CREATE, g="five-by-five", o=THIN, s=1)
        await c.q(CREATE, g="five-by-five", o=THIN | {"objectiveHandSize": 2}, s=2)
        made = await c.q(CREATE, g="five-by-five", s=2)
        table_id, host = made["createTable"]["table"]["id"], made["createTable"]["hostToken"]
        version = (await c.q(VERSION, t=table_id))["table"]["version"]
        body = await c.raw(SET_OPTIONS, host, t=table_id, o=THIN)
        assert body["errors"][0]["extensions"]["code"] == "BAD_INPUT"
        assert "objectiveCounts" in body["errors"][0]["message"]
        assert (await c.q(VERSION, t=table_id))["table"]["version"] == version
