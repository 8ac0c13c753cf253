"""Results shared among subscribers never carry one viewer's secrets to another.

Fan-out executes a subscription's selection once per event for every subscriber shown the
same (``engine/views.py``'s ``Sight``). A selection that reaches the event's ``table`` is
shared by the spectators; a spectator whose signed-in user takes a seat after subscribing
stays a spectator on that subscription, so its table's state is a spectator's too, and it
never reaches the other spectators as its seat's hand.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.jwts import token
from support.server import Client
from support.sockets import opened

from .signin import CREATE, HAND, JOIN, START, Stack, stack_of

WIDE = """subscription($t: ID!) { tableEvents(tableId: $t) { cursor type
  table { version state { ... on LuckyDrawState { myHand } } } } }"""


@pytest.fixture
async def stack(request: pytest.FixtureRequest, registry, tmp_path) -> AsyncIterator[Stack]:
    async with stack_of(request, registry, tmp_path, "memory", "file") as found:
        yield found


async def _hand(c: Client, jwt: str, t: str) -> list[str]:
    return list((await c.q(HAND, jwt, t=t))["table"]["state"]["myHand"])


async def test_a_spectator_who_took_a_seat_shares_no_hand_with_the_other_spectators(
    stack: Stack,
):
    a = stack.a
    rsa, ec, ed = stack.keys
    host, cat, bob = token(rsa, "host"), token(ec, "cat"), token(ed, "bob")
    t = (await a.q(CREATE, host, g="lucky-draw", s=2))["createTable"]["table"]["id"]
    async with opened(a, cat) as cats, opened(a, None) as anyone:
        # both watch as spectators, with the same document: one audience of the fan-out
        await cats.start("wide", WIDE, t=t)
        await anyone.start("wide", WIDE, t=t)
        await a.q(JOIN, cat, t=t, n="Cat")  # Cat's user takes seat 0 ...
        await a.q(JOIN, bob, t=t, n="Bob")
        await a.q(START, host, t=t)  # ... and is dealt a hand
        assert await _hand(a, cat, t), "Cat's seat holds a hand"
        for s in (cats, anyone):
            await s.wait(lambda s=s: any(e["type"] == "game.started" for e in s.events("wide")))
        for s in (anyone, cats):
            states = [e["table"]["state"] for e in s.events("wide") if e["table"]["state"]]
            assert states, "the subscription saw the game's state"
            assert all(st["myHand"] is None for st in states), states
