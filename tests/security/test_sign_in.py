"""Signed-in users through real uvicorn, on both stores, with the issuer's keys (RSA, EC,
Ed25519, made here) read from a file and from an HTTP server on loopback.

- A user's seat is played from two devices (two sockets on two replicas, two JWTs of the
  same user signed by different keys) and refused to another user, whatever it holds.
- The end of a JWT ends its socket's rights at ``exp``, like a seat that changed hands.
- Keys rotate: a new ``kid`` is picked up; an unknown one is refused after one bounded read.
- ``alg: none``, an HS256 token signed with the public key, a wrong issuer or audience, a
  token from the future and other forgeries are refused, naming the check, never echoing
  the token, and never taken for a spectator.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator

import jwt
import pytest
from support.jwts import ISSUER, Key, claims, sign, token
from support.server import Client, make_settings, serve
from support.sockets import LEGACY, TRANSPORT, Socket, codes_of, opened
from websockets.exceptions import ConnectionClosed

from tablestate.store.memory import MemoryStore

from .signin import (
    CREATE,
    HAND,
    JOIN,
    LEAVE,
    MOVE,
    STACKS,
    START,
    SUB,
    VIEWER,
    Stack,
    message_of,
    stack_of,
)


@pytest.fixture(params=STACKS)
async def stack(request: pytest.FixtureRequest, registry, tmp_path) -> AsyncIterator[Stack]:
    store, source = request.param
    async with stack_of(request, registry, tmp_path, store, source) as found:
        yield found


async def table_with(c: Client, host: str, ann: str, bob: str) -> str:
    """A Lucky Draw table of two made by ``host``'s JWT, Ann and Bob seated, not started."""
    t = (await c.q(CREATE, host, g="lucky-draw", s=2))["createTable"]["table"]["id"]
    assert (await c.q(JOIN, ann, t=t, n="Ann"))["joinTable"]["seat"] == 0
    assert (await c.q(JOIN, bob, t=t, n="Bob"))["joinTable"]["seat"] == 1
    return str(t)


def privates(socket: Socket, op: str) -> list[tuple[str, int | None]]:
    """The (cursor, seat) of every event that reached ``socket`` with a private part."""
    return [(e["cursor"], e["seat"]) for e in socket.events(op) if "private" in e["data"]]


async def acting(c: Client, t: str) -> int:
    return int((await c.q(HAND, t=t))["table"]["state"]["toAct"][0])


async def test_a_users_seat_plays_from_two_devices_and_no_other_user_acts_for_it(stack: Stack):
    a, b = stack.a, stack.b
    rsa, ec, ed = stack.keys
    ann1, ann2 = token(rsa, "ann"), token(ec, "ann")  # two devices, two JWTs, one user
    bob, cat = token(ed, "bob"), token(rsa, "cat")
    made = (await a.q(CREATE, ann1, g="lucky-draw", s=2))["createTable"]
    t = made["table"]["id"]
    joined = (await b.q(JOIN, ann2, t=t, n="Ann"))["joinTable"]  # the other device, replica
    assert joined["seat"] == 0
    assert await a.code(JOIN, ann1, t=t, n="Ann again") == "ALREADY_SEATED"
    await a.q(JOIN, bob, t=t, n="Bob")
    assert await a.code(JOIN, cat, t=t, n="Cat") == "TABLE_FULL"
    for other in (bob, cat):  # the host is Ann, whatever token the others hold
        assert await b.code(START, other, t=t) == "FORBIDDEN"
    ann_id = f"{ISSUER}#ann"
    for jwt_of_ann, c in ((ann1, a), (ann2, b)):
        seen = (await c.q(VIEWER, jwt_of_ann, t=t))["viewer"]
        assert seen == {
            "tableId": t,
            "seat": 0,
            "isHost": True,
            "user": {"id": ann_id, "name": "Ann"},
        }
    alone = (await a.q(VIEWER, cat, t=None))["viewer"]
    assert alone == {
        "tableId": None,
        "seat": None,
        "isHost": False,
        "user": {"id": f"{ISSUER}#cat", "name": "Cat"},
    }
    assert (await a.q(VIEWER, cat, t=t))["viewer"]["seat"] is None
    # the tokens are still returned, and still work
    assert (await a.q(VIEWER, joined["playerToken"]))["viewer"]["seat"] == 0
    assert (await a.q(VIEWER, made["hostToken"]))["viewer"]["isHost"] is True

    async with opened(a, ann1) as one, opened(b, ann2) as two, opened(b, cat) as stranger:
        for s in (one, two, stranger):
            await s.start("sub", SUB, t=t)
        await b.q(START, ann2, t=t)
        for _ in range(8):
            actor = await acting(a, t)
            if actor == 1:
                mine = (await a.q(HAND, bob, t=t))["table"]["legalMoves"]
                for other in (ann1, ann2):  # Ann acts as her own seat only
                    assert await a.code(MOVE, other, t=t, m=mine[0]) == "NOT_YOUR_TURN"
                await b.q(MOVE, bob, t=t, m=mine[0])
                continue
            for device in (one, two):  # either device sees Ann's hand and moves
                op = f"hand-{time.monotonic_ns()}"
                assert (await device.ask(op, HAND, t=t))["payload"]["data"]["table"]["state"][
                    "myHand"
                ]
            hand = (await a.q(HAND, ann1, t=t))["table"]
            other = (await b.q(HAND, ann2, t=t))["table"]
            # the same view from both devices (the event log may have grown meanwhile: the
            # sockets' presence is appended as it comes)
            for key in ("version", "legalMoves", "state"):
                assert hand[key] == other[key], key
            move = (
                {"luckyDraw": {"draw": True}}
                if {"luckyDraw": {"draw": True}} in hand["legalMoves"]
                else hand["legalMoves"][0]
            )
            assert await a.code(MOVE, cat, t=t, m=move) == "FORBIDDEN"
            refused = await stranger.ask(f"cat-{time.monotonic_ns()}", MOVE, t=t, m=move)
            assert codes_of(refused) == ["FORBIDDEN"]
            device = one if hand["version"] % 2 else two
            moved = await device.ask(f"move-{time.monotonic_ns()}", MOVE, t=t, m=move)
            assert not codes_of(moved), moved
        version = (await a.q(HAND, t=t))["table"]["version"]
        for s in (one, two, stranger):
            await s.wait(
                lambda s=s: bool(s.events("sub")) and s.events("sub")[-1]["version"] >= version
            )
    # both devices got every private part of seat 0 (and nothing of seat 1); the other
    # user none at all
    mine = privates(one, "sub")
    assert mine and mine == privates(two, "sub") and {seat for _, seat in mine} <= {0, None}
    assert any(seat == 0 for _, seat in mine)
    assert privates(stranger, "sub") == []
    dealt = next(e for e in one.events("sub") if e["type"] == "cards.dealt")
    assert dealt["data"]["private"]["hand"]


@pytest.mark.parametrize("protocol", [TRANSPORT, LEGACY])
async def test_the_end_of_a_jwt_ends_its_sockets_rights_at_exp(stack: Stack, protocol: str):
    a, b = stack.a, stack.b
    rsa, ec, ed = stack.keys
    lasting, bob = token(ec, "ann"), token(ed, "bob")
    t = await table_with(a, lasting, lasting, bob)
    await a.q(START, lasting, t=t)
    short = sign(rsa, claims("ann", lifetime=3))
    ends = jwt.decode(short, options={"verify_signature": False})["exp"]
    async with opened(b, short, protocol) as old:
        await old.start("sub", SUB, t=t)
        await old.wait(lambda: any(e["type"] == "cards.dealt" for e in old.events("sub")))
        assert "private" in next(e for e in old.events("sub") if e["type"] == "cards.dealt")["data"]
        # it ends at exp, with no event to carry the news
        await asyncio.wait_for(old.ends["sub"].wait(), 6)
        assert time.time() >= ends - 0.5
        assert old.codes("sub") == ["UNAUTHENTICATED"], old.messages["sub"]
        assert "expired" in json.dumps(old.messages["sub"])
        received = len(old.events("sub"))
        # Ann goes on from her other device: private parts of her seat follow, none here
        for _ in range(6):
            who = lasting if await acting(a, t) == 0 else bob
            moves = (await a.q(HAND, who, t=t))["table"]["legalMoves"]
            await a.q(MOVE, who, t=t, m=moves[-1])
        if protocol == TRANSPORT:  # queries and mutations (the legacy protocol runs none)
            seen = (await old.ask("2", HAND, t=t))["payload"]["data"]["table"]
            assert seen["legalMoves"] == [] and not seen["state"]["myHand"]
            assert all("private" not in e["data"] for e in seen["events"])
            assert (await old.ask("3", VIEWER, t=t))["payload"]["data"]["viewer"] is None
            move = {"luckyDraw": {"draw": True}}
            assert codes_of(await old.ask("4", MOVE, t=t, m=move)) == ["UNAUTHENTICATED"]
            assert codes_of(await old.ask("5", LEAVE, t=t)) == ["UNAUTHENTICATED"]
        assert codes_of(await old.ask("6", SUB, t=t)) == ["UNAUTHENTICATED"]
        assert len(old.events("sub")) == received
    body = await a.raw(VIEWER, short, t=t)
    assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert "(exp)" in message_of(body)


async def test_keys_rotate_by_kid_with_a_bounded_refresh(stack: Stack):
    a = stack.a
    issuer = stack.issuer
    rsa = issuer.keys[0]
    assert (await a.q(VIEWER, token(rsa, "ann")))["viewer"]["user"]["name"] == "Ann"
    reads = issuer.reads
    rotated = Key.ec("ec-2")
    issuer.publish(rsa, rotated)
    await asyncio.sleep(1.1)  # the refresh interval of these servers
    assert (await a.q(VIEWER, token(rotated, "bob")))["viewer"]["user"]["name"] == "Bob"
    if stack.source == "http":
        assert issuer.reads == reads + 1
    await asyncio.sleep(1.1)
    stranger = Key.rsa("never-published")
    before = issuer.reads
    for _ in range(20):  # one read at most, however many made-up key ids come
        body = await a.raw(VIEWER, token(stranger, "eve"))
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert "(kid)" in message_of(body)
    if stack.source == "http":
        assert issuer.reads == before + 1
    issuer.publish(rotated)  # the old key leaves: known at the next read of the set
    await asyncio.sleep(1.1)
    assert await a.code(VIEWER, token(Key.rsa("gone-too"), "eve")) == "UNAUTHENTICATED"
    assert await a.code(VIEWER, token(rsa, "ann")) == "UNAUTHENTICATED"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forgeries(stack: Stack) -> dict[str, str]:
    """JWTs that must never sign anyone in."""
    rsa = stack.keys[0]
    now = int(time.time())
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": rsa.kid}).encode())
    body = _b64(json.dumps(claims("ann")).encode())
    mac = hmac.new(rsa.public_pem(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    good = token(rsa, "ann")
    return {
        "alg-none": jwt.encode(claims("ann"), None, algorithm="none"),
        "hs256-with-the-public-key": f"{head}.{body}.{_b64(mac)}",
        "wrong-issuer": sign(rsa, claims("ann", iss="https://other.test")),
        "wrong-audience": sign(rsa, claims("ann", aud="another-service")),
        "not-before-in-the-future": sign(rsa, claims("ann", nbf=now + 600)),
        "issued-in-the-future": sign(rsa, claims("ann", iat=now + 600)),
        "expired": sign(rsa, claims("ann", exp=now - 10)),
        "unknown-key": token(Key.rsa("rsa-1"), "ann"),  # a key id of the set, another key
        "signature-of-another-token": ".".join(
            [*good.split(".")[:2], token(rsa, "bob").split(".")[2]]
        ),
        "garbage": "bm90IGpzb24.bm90IGpzb24.c2lnbmF0dXJl",
    }


async def test_forged_and_invalid_jwts_are_refused_naming_the_check(stack: Stack, caplog):
    a = stack.a
    t = await table_with(
        a, token(stack.keys[1], "ann"), token(stack.keys[1], "ann"), token(stack.keys[2], "bob")
    )
    caplog.set_level(logging.DEBUG)
    named = {
        "alg-none": "(alg)", "hs256-with-the-public-key": "(alg)", "wrong-issuer": "(iss)",
        "wrong-audience": "(aud)", "not-before-in-the-future": "(nbf)",
        "issued-in-the-future": "(iat)", "expired": "(exp)", "unknown-key": "signature",
        "signature-of-another-token": "signature", "garbage": "malformed",
    }  # fmt: skip
    forged = forgeries(stack)
    for name, text in forged.items():
        for query, variables in ((VIEWER, {"t": t}), (HAND, {"t": t}), (JOIN, {"t": t, "n": "X"}),
                                 (CREATE, {"g": "lucky-draw", "s": 2})):  # fmt: skip
            body = await a.raw(query, text, **variables)
            assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED", (name, body)
            message = message_of(body)
            assert named[name] in message, (name, message)
            assert all(len(p) < 8 or p not in message for p in text.split(".")), name
        for protocol in (TRANSPORT, LEGACY):
            async with a.ws(protocol) as conn:
                await conn.send(
                    json.dumps({"type": "connection_init", "payload": {"authToken": text}})
                )
                if protocol == TRANSPORT:
                    with pytest.raises(ConnectionClosed) as closed:
                        for _ in range(5):
                            await asyncio.wait_for(conn.recv(), 5)
                    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, name
                else:
                    reply = json.loads(await asyncio.wait_for(conn.recv(), 5))
                    assert reply["type"] == "connection_error", name
    server = ("tablestate", "uvicorn", "strawberry")  # not the tests' own clients
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith(server))
    assert "sign-in refused" in logged
    for text in forged.values():
        assert all(len(p) < 8 or p not in logged for p in text.split(".")), "a JWT was logged"
    assert (await a.q(HAND, t=t))["table"]["version"] == 3  # nothing changed


async def test_a_jwt_where_signing_in_is_not_configured_is_refused(registry):
    async with serve(make_settings(), registry, MemoryStore()) as c:
        body = await c.raw(VIEWER, token(Key.ec("k"), "ann"))
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert "not configured" in message_of(body)
