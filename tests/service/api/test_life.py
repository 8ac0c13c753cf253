"""Table life through the API: turn clocks, undo, leaving, rejoining and replaced seats.

The server runs with a clock the test moves, so deadlines fall due when the test says;
its due-index worker fires them as it would on any replica.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.lucky import CREATE, JOIN, MOVE, START, Seated, open_table, play_out
from support.server import Client, make_settings, serve

from tablestate import plugins

T0 = 1_900_000_000.0

SEATS = """query($t: ID!) { table(id: $t) { version status
  seats { index kind name timeLeft reserveLeft deadline timeouts rejoinBy }
  state { toAct ... on LuckyDrawState { myHand } } legalMoves } }"""
EVENTS = """query($t: ID!) { table(id: $t) { events(first: 1000) {
  version type seat data } } }"""
UNDO = """mutation($t: ID!) { undoMove(tableId: $t) {
  table { version state { ... on LuckyDrawState { myHand } } } events { type seat data } } }"""
LEAVE = "mutation($t: ID!) { leaveTable(tableId: $t) { version seats { kind rejoinBy } } }"
REJOIN = "mutation($t: ID!) { rejoinTable(tableId: $t) { version seats { rejoinBy } } }"
REPLACE = """mutation($t: ID!, $s: Int!, $n: String!) {
  replaceSeat(tableId: $t, seat: $s, name: $n) { seat playerToken table { version } } }"""
VIEWER = "{ viewer { seat isHost } }"


class Clock:
    """The server's time, moved by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def api(registry: plugins.Registry, make_store, clock: Clock) -> AsyncIterator[Client]:
    async with serve(make_settings(), registry, make_store(), clock=clock) as c:
        yield c


async def table(c: Client, t: Seated, seat: int | None = None) -> dict[str, Any]:
    token = t.tokens[seat] if seat is not None else None
    return (await c.q(SEATS, token, t=t.table_id))["table"]  # type: ignore[no-any-return]


async def events(c: Client, t: Seated) -> list[dict[str, Any]]:
    return (await c.q(EVENTS, t=t.table_id))["table"]["events"]  # type: ignore[no-any-return]


async def past(c: Client, t: Seated, version: int) -> dict[str, Any]:
    """The table once its version is past ``version`` (the due-index worker moved it)."""
    for _ in range(400):
        now = await table(c, t)
        if now["version"] > version:
            return now
        await asyncio.sleep(0.02)
    raise AssertionError(f"the table stayed at version {version}")


async def move(c: Client, t: Seated, seat: int, kind: str = "play") -> dict[str, Any]:
    mine = await table(c, t, seat)
    chosen = next(m for m in mine["legalMoves"] if kind in m["luckyDraw"])
    return (await c.q(MOVE, t.tokens[seat], t=t.table_id, m=chosen))["makeMove"]  # type: ignore[no-any-return]


# -- options --------------------------------------------------------------------------


async def test_core_options_are_in_every_game_schema_and_validated(api: Client):
    q = "{ games { id options } }"
    for game in (await api.q(q))["games"]:
        props = game["options"]["properties"]
        assert props["turnSeconds"]["default"] == 0, game["id"]
        assert props["undo"]["default"] is False
        assert {"reserveSeconds", "timeoutsBeforeBot", "leaveGraceSeconds"} <= set(props)
    bad = [{"turnSeconds": -1}, {"undo": "yes"}, {"timeoutsBeforeBot": 1.5}]
    for options in bad:
        code = await api.code(CREATE, g="lucky-draw", r=[], o=options, s=2)
        assert code == "BAD_INPUT", options
    made = await api.q(CREATE, g="lucky-draw", r=[], o={"turnSeconds": 30}, s=2)
    tid = made["createTable"]["table"]["id"]
    opts = (await api.q("query($t: ID!) { table(id: $t) { options } }", t=tid))["table"]
    assert opts["options"]["turnSeconds"] == 30
    assert opts["options"]["handSize"] == 3 and opts["options"]["leaveGraceSeconds"] == 0


# -- clocks ---------------------------------------------------------------------------


async def test_a_clock_shows_its_deadline_and_the_reserve_is_spent_after_the_turn_time(
    api: Client, clock: Clock
):
    options = {"turnSeconds": 10, "reserveSeconds": 20}
    t = await open_table(api, humans=2, options=options)
    now = await table(api, t)
    first = now["state"]["toAct"][0]
    other = 1 - first
    seats = now["seats"]
    assert seats[first]["timeLeft"] == 30 and seats[first]["reserveLeft"] == 20
    assert seats[first]["deadline"].startswith("2030-03-17T17:47:10")
    assert seats[other]["timeLeft"] is None and seats[other]["deadline"] is None
    started = [e for e in await events(api, t) if e["type"] == "clock.started"]
    assert started == [
        {
            "version": now["version"],
            "type": "clock.started",
            "seat": first,
            "data": {"deadline": "2030-03-17T17:47:10.000Z", "seconds": 10, "reserve": 20},
        }
    ]
    clock.now += 15  # 5 seconds into the reserve
    assert (await table(api, t))["seats"][first]["reserveLeft"] == 15
    done = await move(api, t, first)
    assert [e["type"] for e in done["events"]][-1] == "clock.started"
    after = (await table(api, t))["seats"]
    assert after[first]["reserveLeft"] == 15 and after[first]["deadline"] is None
    assert after[other]["timeLeft"] == 30 and after[other]["reserveLeft"] == 20


async def test_timeouts_play_the_bot_then_hand_the_seat_over(api: Client, clock: Clock):
    options = {"turnSeconds": 10, "timeoutsBeforeBot": 2}
    t = await open_table(api, humans=2, options=options)
    now = await table(api, t)
    first = now["state"]["toAct"][0]
    other = 1 - first
    v = now["version"]
    clock.now += 9.9
    await asyncio.sleep(0.6)  # the worker runs every 0.25 s: nothing is due yet
    assert (await table(api, t))["version"] == v
    clock.now += 0.2
    now = await past(api, t, v)
    assert now["seats"][first]["timeouts"] == 1 and now["seats"][first]["kind"] == "HUMAN"
    fired = [e for e in await events(api, t) if e["version"] == v + 1]
    assert fired[0]["type"] == "clock.timeout" and fired[0]["seat"] == first
    assert fired[0]["data"] == {"timeouts": 1, "deadline": "2030-03-17T17:46:50.000Z"}
    assert fired[1]["type"] in ("card.played", "card.drawn") and fired[1]["seat"] == first
    # The other player moves in time; the first times out again and a bot takes the seat.
    await move(api, t, other)
    v = (await table(api, t))["version"]
    clock.now += 11
    now = await past(api, t, v)
    assert now["seats"][first]["kind"] == "BOT" and now["seats"][first]["timeouts"] == 2
    types = [e["type"] for e in await events(api, t) if e["version"] == v + 1]
    assert types[:2] == ["clock.timeout", "seat.bot_took_over"]
    assert await api.code(VIEWER, t.tokens[first]) == "UNAUTHENTICATED"
    # From now on the bot moves at once for that seat, without waiting for a clock.
    t.tokens.pop(first)
    done = await play_out(api, t)
    assert done["status"] == "FINISHED"
    late = [e for e in await events(api, t) if e["version"] > v + 1]
    assert not [e for e in late if e["seat"] == first and e["type"].startswith("clock.")]


# -- undo -----------------------------------------------------------------------------


async def test_undo_takes_back_a_played_card_and_keeps_secrets(api: Client):
    t = await open_table(api, humans=2, options={"undo": True})
    first = (await table(api, t))["state"]["toAct"][0]
    other = 1 - first
    hand = (await table(api, t, first))["state"]["myHand"]
    played = await move(api, t, first, "play")
    v = played["table"]["version"]
    undone = (await api.q(UNDO, t.tokens[first], t=t.table_id))["undoMove"]
    assert undone["table"]["version"] == v + 1
    assert sorted(undone["table"]["state"]["myHand"]) == sorted(hand)
    assert undone["events"] == [
        {"type": "move.undone", "seat": first, "data": {"undoneVersion": v}}
    ]
    now = await table(api, t)
    assert now["state"]["toAct"] == [first]
    # Nothing of the first player's hand reaches the other player or a spectator.
    seen = json.dumps(
        [await api.q(EVENTS, t.tokens[other], t=t.table_id), await table(api, t, other)]
    )
    shown = played["events"][0]["data"]["card"]  # played face up, then taken back
    assert [c for c in hand if f'"{c}"' in seen] == [shown]
    # Taken back once, it cannot be taken back again.
    assert await api.code(UNDO, t.tokens[first], t=t.table_id) == "ILLEGAL_MOVE"


async def test_undo_refusals(api: Client):
    t = await open_table(api, humans=2, options={"undo": True})
    first = (await table(api, t))["state"]["toAct"][0]
    other = 1 - first
    v = (await table(api, t))["version"]
    assert await api.code(UNDO, None, t=t.table_id) == "UNAUTHENTICATED"
    assert await api.code(UNDO, t.host, t=t.table_id) == "FORBIDDEN"
    assert await api.code(UNDO, t.tokens[first], t="nope") == "NOT_FOUND"
    body = await api.raw(UNDO, t.tokens[first], t=t.table_id)
    assert body["errors"][0]["extensions"]["code"] == "ILLEGAL_MOVE"
    assert "no move to take back" in body["errors"][0]["extensions"]["reason"]
    # A card drawn from the stock stands.
    await move(api, t, first, "draw")
    body = await api.raw(UNDO, t.tokens[first], t=t.table_id)
    assert body["errors"][0]["extensions"]["code"] == "ILLEGAL_MOVE"
    assert "new" in body["errors"][0]["extensions"]["reason"]
    # Someone moved since.
    await move(api, t, other, "play")
    body = await api.raw(UNDO, t.tokens[first], t=t.table_id)
    assert "someone else" in body["errors"][0]["extensions"]["reason"]
    assert (await table(api, t))["version"] == v + 2
    # The option is off: no undo at all.
    off = await open_table(api, humans=2)
    mover = (await table(api, off))["state"]["toAct"][0]
    await move(api, off, mover, "play")
    body = await api.raw(UNDO, off.tokens[mover], t=off.table_id)
    assert "off" in body["errors"][0]["extensions"]["reason"]
    # Not playing yet.
    waiting = await open_table(api, humans=2, options={"undo": True}, start=False)
    assert await api.code(UNDO, waiting.tokens[0], t=waiting.table_id) == "TABLE_NOT_PLAYING"


# -- seats ----------------------------------------------------------------------------


async def test_leaving_a_playing_table_without_grace_hands_the_seat_to_a_bot(api: Client):
    t = await open_table(api, humans=2)
    first = (await table(api, t))["state"]["toAct"][0]
    left = (await api.q(LEAVE, t.tokens[first], t=t.table_id))["leaveTable"]
    assert left["seats"][first] == {"kind": "BOT", "rejoinBy": None}
    assert await api.code(VIEWER, t.tokens[first]) == "UNAUTHENTICATED"
    # The bot moves for the seat it took.
    now = await past(api, t, left["version"])
    assert now["state"]["toAct"] == [1 - first]
    types = [e["type"] for e in await events(api, t) if e["version"] == left["version"]]
    assert types == ["seat.left", "seat.bot_took_over"]


async def test_a_seat_left_waits_for_its_token_then_a_bot_takes_it(api: Client, clock: Clock):
    t = await open_table(api, humans=2, options={"leaveGraceSeconds": 30})
    first = (await table(api, t))["state"]["toAct"][0]
    left = (await api.q(LEAVE, t.tokens[first], t=t.table_id))["leaveTable"]
    assert left["seats"][first]["kind"] == "HUMAN"
    assert left["seats"][first]["rejoinBy"].startswith("2030-03-17T17:47:10")
    assert await api.code(LEAVE, t.tokens[first], t=t.table_id) == "BAD_INPUT"
    back = (await api.q(REJOIN, t.tokens[first], t=t.table_id))["rejoinTable"]
    assert back["seats"][first]["rejoinBy"] is None
    assert await api.code(REJOIN, t.tokens[first], t=t.table_id) == "BAD_INPUT"
    assert await api.code(REJOIN, t.host, t=t.table_id) == "FORBIDDEN"
    # Left again; the grace period ends and a bot takes the seat, once.
    left = (await api.q(LEAVE, t.tokens[first], t=t.table_id))["leaveTable"]
    clock.now += 31
    now = await past(api, t, left["version"])
    assert now["seats"][first]["kind"] == "BOT"
    took = [e for e in await events(api, t) if e["type"] == "seat.bot_took_over"]
    assert [(e["seat"], e["data"]["reason"]) for e in took] == [(first, "left")]
    assert await api.code(REJOIN, t.tokens[first], t=t.table_id) == "UNAUTHENTICATED"


async def test_the_host_hands_a_seat_over_and_the_old_token_stops_working(api: Client):
    t = await open_table(api, humans=2, bots=1)
    v = (await table(api, t))["version"]
    assert await api.code(REPLACE, t.tokens[1], t=t.table_id, s=0, n="Zed") == "FORBIDDEN"
    assert await api.code(REPLACE, None, t=t.table_id, s=0, n="Zed") == "UNAUTHENTICATED"
    assert await api.code(REPLACE, t.host, t=t.table_id, s=7, n="Zed") == "NOT_FOUND"
    assert await api.code(REPLACE, t.host, t=t.table_id, s=0, n="") == "BAD_INPUT"
    assert (await table(api, t))["version"] == v
    old = t.tokens[0]
    got = (await api.q(REPLACE, t.host, t=t.table_id, s=0, n="Zed"))["replaceSeat"]
    assert got["seat"] == 0 and got["playerToken"] != old
    assert await api.code(VIEWER, old) == "UNAUTHENTICATED"
    assert await api.code(MOVE, old, t=t.table_id, m={"luckyDraw": {"draw": True}}) == (
        "UNAUTHENTICATED"
    )
    assert (await api.q(VIEWER, got["playerToken"]))["viewer"] == {"seat": 0, "isHost": False}
    # A bot's seat may be handed to a player too.
    bot = (await api.q(REPLACE, t.host, t=t.table_id, s=2, n="Amy"))["replaceSeat"]
    seats = (await table(api, t))["seats"]
    assert [s["kind"] for s in seats] == ["HUMAN", "HUMAN", "HUMAN"]
    assert seats[0]["name"] == "Zed" and seats[2]["name"] == "Amy"
    assert (await api.q(VIEWER, bot["playerToken"]))["viewer"]["seat"] == 2


async def test_an_open_seat_is_joined_not_replaced(api: Client):
    made = (await api.q(CREATE, g="lucky-draw", r=[], o=None, s=2))["createTable"]
    host, tid = made["hostToken"], made["table"]["id"]
    await api.q(JOIN, t=tid, n="Ann")
    assert await api.code(REPLACE, host, t=tid, s=1, n="Bob") == "BAD_INPUT"
    got = (await api.q(REPLACE, host, t=tid, s=0, n="Bea"))["replaceSeat"]
    assert (await api.q(VIEWER, got["playerToken"]))["viewer"]["seat"] == 0
    await api.q(JOIN, t=tid, n="Cy")
    await api.q(START, host, t=tid)
