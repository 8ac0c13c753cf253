"""The liar's dice example (examples/liars_dice), installed with pip: its rules through the
public harness, its bots deciding through ``determinize``, and a game played through the
GraphQL API in which no seat is ever shown another seat's dice but at a challenge."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.games import registry
from support.server import Client, make_settings, serve

from tablestate.engine.bots import LEVELS, Budget, choose
from tablestate.store.memory import MemoryStore
from tablestate.testing import FixedRng, GameDriver, check_bots_blind, play_checked
from tablestate_liars_dice import GAME, State, determinize
from tablestate_liars_dice.testing import FACTS


def bid(quantity: int, face: int) -> dict[str, dict[str, int]]:
    return {"bid": {"quantity": quantity, "face": face}}


CHALLENGE = {"challenge": True}


def dice(value: Any, colour: str) -> list[str]:
    """Every die of ``colour`` (a seat's dice: "R3") in a JSON value, but in the fields
    ``shown``: the dice every player showed at the last challenge."""
    if isinstance(value, dict):
        return [d for k, v in value.items() if k != "shown" for d in dice(v, colour)]
    if isinstance(value, list):
        return [d for v in value for d in dice(v, colour)]
    return [value] if isinstance(value, str) and len(value) == 2 and value[0] == colour else []


def test_the_harness_plays_it_with_every_invariant_checked():
    cases = [([0, 1], {"refusals_every": 1}), ([1, 2, 3], {"bot_share": 0.5}),
             ([0, 1, 2, 3], {"bots": "all", "bot_level": "easy", "probe_every": 4})]  # fmt: skip
    for i, (seats, case) in enumerate(cases * 2):
        d = GameDriver(GAME, seats, seed=str(i))
        play_checked(d, FACTS, {"seed": i, **case})
        assert d.result() is not None and len(d.result().winners) == 1
        assert {e.type for e in d.events} >= {"round.started", "bid.made", "bid.challenged"}


def test_each_seat_sees_its_own_dice_and_only_how_many_the_others_hold():
    d = GameDriver(GAME, [0, 2], seed="view")
    red, yellow = d.state.dice
    assert [die[0] for die in red + yellow] == ["R"] * 5 + ["Y"] * 5
    players = [{"seat": 0, "dice": 5, "shown": []}, {"seat": 2, "dice": 5, "shown": []}]
    assert d.view(0) == {"myDice": list(red), "players": players, "bid": None, "bidderSeat": None}
    assert d.view(2)["myDice"] == list(yellow)
    assert d.view(None)["myDice"] is None and d.view(None)["players"] == players
    (rolled,) = d.events
    assert rolled.data == {"dice": 10}
    assert rolled.private == {0: {"rolled": list(red)}, 2: {"rolled": list(yellow)}}


def test_a_bid_must_raise_the_last_and_a_challenge_shows_every_die():
    d = GameDriver(GAME, 2, seed=FixedRng(ints=[3, 3, 1, 2, 6, 3, 4, 4, 5, 6]))
    assert CHALLENGE not in d.legal(0) and len(d.legal(0)) == 60  # 1 to 10 dice of 6 faces
    assert d.try_move(0, CHALLENGE).code == "ILLEGAL_MOVE"
    (made,) = d.move(0, bid(3, 3))
    assert (made.type, made.seat, made.data, made.private) == ("bid.made", 0, bid(3, 3)["bid"], {})
    for low in (bid(3, 3), bid(3, 2), bid(2, 6)):
        assert d.try_move(1, low).code == "ILLEGAL_MOVE"
    assert bid(3, 4) in d.legal(1) and bid(4, 1) in d.legal(1) and CHALLENGE in d.legal(1)
    d.rng = FixedRng(ints=[1, 1, 1, 1, 2, 2, 2, 2, 2])
    called, rolled = d.move(1, CHALLENGE)  # three 3s: the bid was true, the challenger loses
    assert called.type == "bid.challenged" and called.seat == 1 and called.private == {}
    assert called.data == {"quantity": 3, "face": 3, "count": 3, "loserSeat": 1, "shown": [
        {"seat": 0, "dice": ["R3", "R3", "R1", "R2", "R6"]},
        {"seat": 1, "dice": ["Y3", "Y4", "Y4", "Y5", "Y6"]}]}  # fmt: skip
    assert d.state.dice == (("R1", "R1", "R1", "R1", "R2"), ("Y2", "Y2", "Y2", "Y2"))
    assert rolled.data == {"dice": 9} and rolled.private[1] == {"rolled": ["Y2"] * 4}
    assert d.to_act() == (1,) and d.view(1)["bid"] is None  # the loser opens the next round
    assert d.view(0)["players"][1] == {
        "seat": 1,
        "dice": 4,
        "shown": ["Y3", "Y4", "Y4", "Y5", "Y6"],
    }


def test_a_player_out_of_dice_is_skipped_and_the_last_with_dice_wins():
    d = GameDriver(GAME, [0, 1, 2, 3], seed="end")
    d.state = State((0, 1, 2, 3), (("R6",), (), ("B2", "B3"), ("G1",)), ((),) * 4)
    d.move(0, bid(2, 6))
    assert d.to_act() == (2,)  # seat 1, out of dice, is skipped
    called, rolled = d.move(2, CHALLENGE)  # one 6: the bid was a lie, and its bidder is out
    assert called.data["loserSeat"] == 0 and d.to_act() == (2,)  # the next with dice opens
    assert [len(x) for x in d.state.dice] == [0, 0, 2, 1] and rolled.data == {"dice": 3}
    assert set(rolled.private) == {2, 3}
    d.state = State((0, 1, 2), (("R6",), (), ("B2",)), ((), (), ()), turn=2)
    d.move(2, bid(1, 2))
    (called,) = d.move(0, CHALLENGE)  # the game is over: nobody rolls again
    assert called.data["loserSeat"] == 0 and d.to_act() == () and d.legal(2) == []
    assert d.result().winners == (2,) and d.result().scores == {0: 0, 1: 0, 2: 1}
    assert d.view(None)["players"][2] == {"seat": 2, "dice": 1, "shown": ["B2"]}


def test_determinize_keeps_what_the_seat_sees_and_draws_the_rest_from_it_alone():
    d = GameDriver(GAME, 3, seed="guess")
    d.move(0, bid(2, 5))
    other = State(d.state.seats, (d.state.dice[0], ("Y1",) * 5, ("B6",) * 5), d.state.shown,
                  d.state.turn, d.state.bid, d.state.bidder)  # fmt: skip
    drawn = determinize(d.state, 0, FixedRng(ints=[4] * 15))
    assert drawn.dice == (d.state.dice[0], ("Y4",) * 5, ("B4",) * 5)
    assert drawn.bid == d.state.bid and GAME.view(drawn, 0) == d.view(0)
    for seed in range(5):  # the same draw whatever the dice it cannot see
        rng = random.Random(seed)
        mine = GAME.determinize(d.state, 0, FixedRng(ints=[rng.randint(1, 6) for _ in range(15)]))
        rng = random.Random(seed)
        theirs = GAME.determinize(other, 0, FixedRng(ints=[rng.randint(1, 6) for _ in range(15)]))
        assert mine == theirs


def test_every_bot_level_picks_a_legal_move_from_what_its_seat_may_know():
    d, pick = GameDriver(GAME, 3, seed="bots"), random.Random(2)
    for step in range(40):
        if d.result() is not None:
            break
        seat = d.to_act()[0]
        for level in LEVELS:
            rng = d.rng.fork(b"bot")
            assert choose(GAME, d.state, seat, level, rng, d.rules, Budget(12)) in d.legal(seat)
        if step % 5 == 0:
            check_bots_blind(d, FACTS, random.Random(step))
        d.move(seat, pick.choice(d.legal(seat)))


def test_the_normal_bot_calls_a_bid_its_draw_makes_a_lie():
    d = GameDriver(GAME, 2, seed="call")
    d.state = State((0, 1), (("R1",) * 5, ("Y2",) * 5), ((), ()), turn=1)
    d.move(1, bid(10, 6))  # ten 6s: a lie however the other dice are drawn, as it has none
    assert choose(GAME, d.state, 0, "normal", d.rng, d.rules) == CHALLENGE
    d.state = State((0, 1), (("R1",) * 5, ("Y2",) * 5), ((), ()), turn=0)
    assert choose(GAME, d.state, 0, "normal", d.rng, d.rules)["bid"]["face"] in range(1, 7)


def test_malformed_moves_are_refused_by_their_shape():
    assert GAME.check_move(bid(2, 7)) == "bid.face must be one of 1, 2, 3, 4, 5, 6"
    assert GAME.check_move({"bid": {"face": 3}}) == "bid.quantity is missing"
    assert GAME.check_move({"challenge": 1}) == "challenge takes true"
    assert GAME.uses_chance is True  # the page shows its "Fair shuffle" part


# Through the API.

CREATE = """mutation { createTable(gameId: "liars-dice", seats: 2) {
  hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) {
  seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { status result { winners scores } } events { type seat data } } }"""
TABLE = """query($t: ID!) { table(id: $t) { status legalMoves
  state { toAct ... on LiarsDiceState { myDice players { seat dice shown }
    bid { quantity face } bidderSeat } }
  events(first: 1000) { type seat data } } }"""


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with serve(make_settings(), registry(), MemoryStore()) as c:
        yield c


async def test_a_game_through_the_api_shows_no_seat_another_seats_dice(client: Client):
    made = (await client.q(CREATE))["createTable"]
    table, host = made["table"]["id"], made["hostToken"]
    tokens: dict[int | None, str | None] = {None: None}
    for name in ("Ada", "Bob"):
        joined = (await client.q(JOIN, t=table, n=name))["joinTable"]
        tokens[joined["seat"]] = joined["playerToken"]
    await client.q(START, host, t=table)
    colour = {0: "R", 1: "Y"}

    async def seen() -> dict[int | None, Any]:
        """Each viewer's table; none holds another's dice, but as shown at a challenge."""
        out = {
            seat: (await client.q(TABLE, token, t=table))["table"] for seat, token in tokens.items()
        }
        for seat, got in out.items():
            for other in (s for s in colour if s != seat):
                assert dice(got, colour[other]) == [], f"seat {seat} sees seat {other}'s dice"
            mine = got["state"]["myDice"] if got["state"] else None
            assert mine is None if seat is None else dice(mine, colour[seat]) == mine
        return out

    def move(m: dict[str, Any]) -> dict[str, Any]:
        return {"liarsDice": m}

    first = await seen()
    assert len(first[0]["state"]["myDice"]) == 5 and first[None]["state"]["myDice"] is None
    assert first[1]["state"]["players"] == [{"seat": s, "dice": 5, "shown": []} for s in (0, 1)]
    assert first[0]["state"]["toAct"] == [0] and len(first[0]["legalMoves"]) == 60
    (rolled,) = [e for e in first[1]["events"] if e["type"] == "round.started"]
    assert rolled["data"] == {"dice": 10, "private": {"rolled": first[1]["state"]["myDice"]}}
    for bad in (bid(2, 7), {"bid": {"face": 3}}, {**bid(1, 1), **CHALLENGE}):
        assert await client.code(MOVE, tokens[0], t=table, m=move(bad)) == "BAD_INPUT"
    assert await client.code(MOVE, tokens[0], t=table, m=move(CHALLENGE)) == "ILLEGAL_MOVE"
    done = (await client.q(MOVE, tokens[0], t=table, m=move(bid(3, 4))))["makeMove"]
    assert done["events"] == [{"type": "bid.made", "seat": 0, "data": {"quantity": 3, "face": 4}}]
    assert await client.code(MOVE, tokens[1], t=table, m=move(bid(2, 6))) == "ILLEGAL_MOVE"
    assert await client.code(MOVE, tokens[0], t=table, m=move(bid(5, 5))) == "NOT_YOUR_TURN"
    before = await seen()
    done = (await client.q(MOVE, tokens[1], t=table, m=move(CHALLENGE)))["makeMove"]
    called, rolled = done["events"]
    hands = [before[s]["state"]["myDice"] for s in (0, 1)]
    count = sum(int(die[1]) == 4 for hand in hands for die in hand)
    assert called["data"] == {"quantity": 3, "face": 4, "count": count,
                              "loserSeat": 1 if count >= 3 else 0,
                              "shown": [{"seat": s, "dice": hands[s]} for s in (0, 1)]}  # fmt: skip
    assert rolled["type"] == "round.started" and rolled["data"]["dice"] == 9
    assert set(rolled["data"]["private"]) == {"rolled"}  # the mover's own roll only
    # To the end: open with one 1, call it; at every step, nobody sees another's dice.
    for _ in range(40):
        now = await seen()
        if now[None]["status"] == "FINISHED":
            break
        seat = now[None]["state"]["toAct"][0]
        m = CHALLENGE if now[None]["state"]["bid"] else bid(1, 1)
        await client.q(MOVE, tokens[seat], t=table, m=move(m))
    assert now[None]["status"] == "FINISHED"
    for seat in (0, 1):
        assert [p["dice"] for p in now[seat]["state"]["players"]].count(0) == 1
        rolls = [
            e["data"].get("private") for e in now[seat]["events"] if e["type"] == "round.started"
        ]
        assert len(rolls) >= 5 and all(r and dice(r, colour[seat]) == r["rolled"] for r in rolls)
    assert not any("private" in e["data"] for e in now[None]["events"])
