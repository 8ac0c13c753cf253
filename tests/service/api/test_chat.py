"""sendChat through the real API, on both stores: who may say what, the limits, and chat as
events that never change a table's version."""

from __future__ import annotations

import pytest
from support.life import CHAT, SUB, events, subscribe, until
from support.lucky import open_table, play_out
from support.server import Client, make_settings, serve


async def test_a_seat_chats_without_changing_the_version(client: Client):
    t = await open_table(client, humans=2)
    before = await events(client, t.table_id, t.tokens[0], f=1000)
    said = (await client.q(CHAT, t.tokens[0], t=t.table_id, x="  good luck!  "))["sendChat"]
    assert said["type"] == "chat.message" and said["seat"] == 0
    assert said["data"] == {"text": "good luck!", "name": "P0"}
    after = await events(client, t.table_id, t.tokens[1], f=1000)
    assert after["version"] == before["version"] == said["version"]
    assert after["cursor"] == said["cursor"] != before["cursor"]
    # kept with the event stream: replayable from the cursor before it, by anyone
    tail = await events(client, t.table_id, None, a=before["cursor"])
    assert [e["cursor"] for e in tail["events"]] == [said["cursor"]]
    assert tail["events"][0]["data"] == said["data"]
    # and a move after it takes the next version as usual
    await play_out(client, t)
    done = await events(client, t.table_id, None, a=said["cursor"], f=1000)
    assert done["events"][0]["version"] == said["version"] + 1


async def test_chat_replays_and_streams_on_a_websocket(client: Client):
    t = await open_table(client, humans=2)
    first = (await client.q(CHAT, t.tokens[0], t=t.table_id, x="one"))["sendChat"]
    async with client.ws() as conn:
        await subscribe(conn, SUB, {"t": t.table_id, "a": first["cursor"]})
        second = (await client.q(CHAT, t.tokens[1], t=t.table_id, x="two"))["sendChat"]
        got = await until(conn, lambda e: e["type"] == "chat.message")
        assert got[-1] == second
        assert first["cursor"] not in [e["cursor"] for e in got]


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        pytest.param("x" * 500, "x" * 500, id="500-characters"),
        pytest.param("e\u0301" * 500, "\u00e9" * 500, id="counted-after-NFC"),
        pytest.param("\U0001f468\u200d\U0001f469\u200d\U0001f467 gg", None, id="emoji-sequence"),
    ],
)
async def test_messages_within_the_limits(client: Client, text: str, stored: str | None):
    t = await open_table(client, humans=2, start=False)
    said = (await client.q(CHAT, t.tokens[0], t=t.table_id, x=text))["sendChat"]
    assert said["data"]["text"] == (stored if stored is not None else text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x" * 501, id="too-long"),
        pytest.param("e\u0301" * 501, id="too-long-after-NFC"),
        pytest.param("", id="empty"),
        pytest.param(" \t  ", id="blank"),
        pytest.param("ring\x07", id="bell"),
        pytest.param("two\nlines", id="newline"),
        pytest.param("nul\x00", id="nul"),
        pytest.param("abc\u202edcba", id="bidi-override"),
        pytest.param("x" * 5000, id="huge"),
    ],
)
async def test_bad_messages_are_refused_and_store_nothing(client: Client, text: str):
    t = await open_table(client, humans=2, start=False)
    before = await events(client, t.table_id)
    assert await client.code(CHAT, t.tokens[0], t=t.table_id, x=text) == "BAD_INPUT"
    assert await events(client, t.table_id) == before


async def test_chat_refusals(client: Client):
    t = await open_table(client, humans=2, start=False)
    other = await open_table(client, humans=2, start=False)
    assert await client.code(CHAT, "nope.nope", t=t.table_id, x="hi") == "UNAUTHENTICATED"
    assert await client.code(CHAT, t.tokens[0], t="no-such-table", x="hi") == "NOT_FOUND"
    assert await client.code(CHAT, other.tokens[0], t=t.table_id, x="hi") == "FORBIDDEN"
    # a spectator must say who they are
    assert await client.code(CHAT, None, t=t.table_id, x="hi") == "BAD_INPUT"
    assert await client.code(CHAT, None, t=t.table_id, x="hi", n=" ") == "BAD_INPUT"
    assert await client.code(CHAT, None, t=t.table_id, x="hi", n="a\x00") == "BAD_INPUT"


async def test_chat_in_open_playing_and_finished_tables(client: Client):
    t = await open_table(client, humans=2, start=False)
    assert (await client.q(CHAT, t.tokens[0], t=t.table_id, x="open"))["sendChat"]
    await client.q("mutation($t: ID!) { startGame(tableId: $t) { version } }", t.host, t=t.table_id)
    assert (await client.q(CHAT, t.tokens[1], t=t.table_id, x="playing"))["sendChat"]
    await play_out(client, t)
    assert (await client.q(CHAT, t.tokens[0], t=t.table_id, x="gg"))["sendChat"]
    texts = [
        e["data"]["text"]
        for e in (await events(client, t.table_id, f=1000))["events"]
        if e["type"] == "chat.message"
    ]
    assert texts == ["open", "playing", "gg"]


async def test_spectators_chat_reaches_spectators_only(client: Client):
    t = await open_table(client, humans=2)
    async with client.ws() as seat_ws, client.ws() as watcher_ws:
        await subscribe(seat_ws, SUB, {"t": t.table_id}, t.tokens[0])
        await subscribe(watcher_ws, SUB, {"t": t.table_id})
        await until(seat_ws, lambda e: e["type"] == "cards.dealt")
        await until(watcher_ws, lambda e: e["type"] == "cards.dealt")
        whisper = (await client.q(CHAT, None, t=t.table_id, x="play the 7!", n="Kibitzer"))[
            "sendChat"
        ]
        assert whisper["type"] == "chat.spectator" and whisper["seat"] is None
        assert whisper["data"] == {"text": "play the 7!", "name": "Kibitzer"}
        host = (await client.q(CHAT, t.host, t=t.table_id, x="host here", n="Org"))["sendChat"]
        assert host["type"] == "chat.spectator" and host["data"]["host"] is True
        loud = (await client.q(CHAT, t.tokens[1], t=t.table_id, x="hello all"))["sendChat"]
        seen_by_watcher = await until(watcher_ws, lambda e: e["cursor"] == loud["cursor"])
        assert [e["cursor"] for e in seen_by_watcher if e["type"].startswith("chat.")] == [
            whisper["cursor"],
            host["cursor"],
            loud["cursor"],
        ]
        seen_by_seat = await until(seat_ws, lambda e: e["cursor"] == loud["cursor"])
        assert [e["type"] for e in seen_by_seat if e["type"].startswith("chat.")] == [
            "chat.message"
        ]
        # the query path agrees with the subscription path, replays included
        for token in t.tokens.values():
            mine = await events(client, t.table_id, token, f=1000)
            assert "chat.spectator" not in [e["type"] for e in mine["events"]]
            # a seat resuming from a spectator message's cursor skips nothing it may see
            tail = await events(client, t.table_id, token, a=whisper["cursor"])
            assert [e["cursor"] for e in tail["events"]] == [loud["cursor"]]
            last = await events(client, t.table_id, token, l=1)
            assert [e["cursor"] for e in last["events"]] == [loud["cursor"]]
            page = await events(client, t.table_id, token, a=whisper["cursor"], f=1)
            assert [e["cursor"] for e in page["events"]] == [loud["cursor"]]
        watched = await events(client, t.table_id, None, l=3)
        assert [e["cursor"] for e in watched["events"]] == [
            whisper["cursor"],
            host["cursor"],
            loud["cursor"],
        ]


async def test_chat_rate_limit_per_sender(registry, make_store):
    settings = make_settings(chat_rate=0.01, chat_burst=2)
    async with serve(settings, registry, make_store()) as c:
        t = await open_table(c, humans=2, start=False)
        for i in range(2):
            await c.q(CHAT, t.tokens[0], t=t.table_id, x=f"m{i}")
        before = await events(c, t.table_id)
        body = await c.raw(CHAT, t.tokens[0], t=t.table_id, x="one too many")
        assert body["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        assert await events(c, t.table_id) == before
        # another sender has a bucket of its own
        await c.q(CHAT, t.tokens[1], t=t.table_id, x="me too")
        # spectators are counted by their address (loopback here), whatever name they give
        for name in ("A", "B"):
            await c.q(CHAT, None, t=t.table_id, x="hi", n=name)
        assert await c.code(CHAT, None, t=t.table_id, x="hi", n="C") == "RATE_LIMITED"
