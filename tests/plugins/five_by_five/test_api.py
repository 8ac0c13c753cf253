"""Five by Five through the real API: a uvicorn server, HTTP and WebSocket subscriptions,
the memory store.

Random full games for 1 to 5 players, random house-rule sets that fit the player count
(chosen from what the API itself reports: player ranges and conflicts), bots added with
``addBot`` and random legal play by the humans; the games with more seats start from a
board partly filled by the table option ``prefilledSquares``, to keep the suite short. Every seat and a spectator follow the
table on a subscription that asks, with each event, for the table as that viewer sees
it. Checked against the server's own truth (the same store, and the game re-run from the
revealed seed), at every step:

- conservation: 40 dice, 60 action cards and the objective deck, each in exactly one
  place in the true state, and adding up in the public counts of every view delivered;
- secrecy: every view delivered to a seat (over HTTP and with every event of its
  subscription) is the engine's view for that seat, which changes with nothing hidden
  from it (another seat's hand, the order of any deck); every event delivered to it is
  the stored one with its own private part only, and no public part names a hidden card;
- progress: the seat to act always has legal moves, exactly the engine's; every listed
  move is accepted, a sample of refused ones changes nothing, and the game ends;
- determinism: the revealed seed, options, rules and logged moves (bots' included) replay
  to the very same events, commit by commit, the same views at every version and the same
  final state.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.rules import random_rules
from support.server import Client, make_settings, serve, ws_init, ws_next

from plugins.five_by_five.game import GAME
from plugins.five_by_five.rules import SPECIAL_IDS
from plugins.five_by_five.state import State
from service.engine import Outcome, Rng, RuleSet, SetupContext, fairness
from service.engine.replay import replay
from service.plugins import Registry
from service.store.base import StoredEvent
from service.store.memory import MemoryStore
from service.tables import TableService

from .helpers import (
    check_conservation,
    check_event_secrecy,
    check_secrecy,
    check_specials,
    registry,
)

GAME_Q = """{ game(id: "five-by-five") { minPlayers maxPlayers eventTypes options
  houseRules { id conflictsWith minPlayers maxPlayers } } }"""
CREATE = """mutation($o: JSON, $s: Int, $r: [ID!]) {
  createTable(gameId: "five-by-five", options: $o, seats: $s, houseRules: $r) {
    hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken } }"""
ADD_BOT = "mutation($t: ID!, $s: Int) { addBot(tableId: $t, seat: $s) { version } }"
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
STATE = """gameId toAct ... on FiveByFiveState {
    board supply { color count } outOfGame { color count } decks { deck size faceUp }
    actionDiscardSize objectiveDeckSize objectiveDiscardSize
    specials { objective name points claimedBy satisfied }
    players { seat score scored { objective name points } actionCount objectiveCount objectives }
    hand { actions objectives satisfied } phase current turn order pendingDie drawsLeft
    scoredThisTurn finalQueue boardSatisfies objectivesOpen winners
    rolloffs { round rolls { seat dice total } } }"""
TABLE = f"""query($t: ID!) {{ table(id: $t) {{
  version status legalMoves options houseRules {{ id }} result {{ winners scores }}
  shuffleSeed shuffleCommitment seats {{ index kind }} state {{ {STATE} }} }} }}"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } events { version type seat data } } }"""
VERSION = "query($t: ID!) { table(id: $t) { version } }"
EVENTS = (
    "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor version type seat data } } }"
)
SUB = f"""subscription($t: ID!) {{ tableEvents(tableId: $t) {{
  cursor version type seat data table {{ version status legalMoves state {{ {STATE} }} }} }} }}"""

SETTINGS = make_settings()


@dataclass
class Game:
    """One table under test and what the test knows of it."""

    table_id: str
    host: str
    tokens: dict[int, str] = field(default_factory=dict)
    client_seeds: dict[int, str] = field(default_factory=dict)
    seen: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    sent: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Server:
    client: Client
    store: MemoryStore
    service: TableService
    registry: Registry


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    store = MemoryStore()
    async with serve(SETTINGS, registry(), store) as client:
        yield Server(client, store, TableService(SETTINGS, registry(), store), registry())


# -- setting a table up --------------------------------------------------------------------


def _random_rules(catalogue: list[dict[str, Any]], players: int, pick: random.Random) -> list[str]:
    return random_rules(catalogue, players, pick, min_players=1, max_players=5)


async def _open(
    c: Client,
    *,
    players: int,
    bots: int,
    rules: list[str],
    options: dict[str, Any],
    pick: random.Random,
) -> Game:
    """A table of ``players`` seats, bots in random seats, humans with client seeds."""
    made = (await c.q(CREATE, o=options, s=players, r=rules))["createTable"]
    g = Game(made["table"]["id"], made["hostToken"])
    seats = pick.sample(range(players), players)
    for i, seat in enumerate(seats[bots:]):
        g.client_seeds[seat] = f"{g.table_id}-{i}"
        joined = (await c.q(JOIN, t=g.table_id, n=f"P{i}", s=seat, c=g.client_seeds[seat]))[
            "joinTable"
        ]
        assert joined["seat"] == seat
        g.tokens[seat] = joined["playerToken"]
    for seat in seats[:bots]:
        await c.q(ADD_BOT, g.host, t=g.table_id, s=seat)
    return g


async def _follow(c: Client, g: Game, seat: int | None) -> None:
    """Collect every event the seat (None: a spectator) gets on a subscription, with the
    table as it sees it, until the game is over."""
    out = g.seen.setdefault(seat, [])
    async with c.ws() as conn:
        token = g.tokens.get(seat) if seat is not None else None
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        payload = {"query": SUB, "variables": {"t": g.table_id}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while True:
            msg = await ws_next(conn, 10)
            assert msg["type"] == "next", msg
            event = msg["payload"]["data"]["tableEvents"]
            out.append(event)
            if event["type"] == "game.finished":
                return


# -- the checks ----------------------------------------------------------------------------


def _public_counts(view: dict[str, Any], objectives: int) -> None:
    """The public counts of a view add up: 40 dice, 60 action cards, the objective deck."""
    dice = sum(x["count"] for x in view["supply"] + view["outOfGame"])
    dice += sum(1 for row in view["board"] for d in row if d is not None)
    dice += view["pendingDie"] is not None
    assert dice == 40, f"the view shows {dice} dice"
    players = view["players"]
    actions = sum(p["actionCount"] for p in players) + view["actionDiscardSize"]
    actions += sum(d["size"] for d in view["decks"])
    assert actions == 60, f"the view shows {actions} action cards"
    held = sum(p["objectiveCount"] for p in players)
    held += sum(1 for p in players for s in p["scored"] if s["objective"] not in SPECIAL_IDS)
    held += view["objectiveDeckSize"] + view["objectiveDiscardSize"]
    assert held == objectives, f"the view shows {held} objective cards of {objectives}"
    for special in view["specials"]:
        oid = special["objective"]
        claimed = [p["seat"] for p in players if any(s["objective"] == oid for s in p["scored"])]
        assert special["claimedBy"] == claimed


def _expected_view(state: State, seat: int | None) -> dict[str, Any]:
    view = GAME.view(state, seat)
    view["gameId"] = GAME.id
    view["toAct"] = list(GAME.to_act(state))
    return view


def _expected_legal(state: State, seat: int | None, rules: RuleSet) -> list[dict[str, Any]]:
    if seat is None:
        return []
    return [{"fiveByFive": m} for m in GAME.legal_moves(state, seat, rules)]


def _check_view(view: dict[str, Any], state: State, seat: int | None, objectives: int) -> None:
    """One view delivered to ``seat``: the engine's view of the true state for that seat
    (secret: ``check_secrecy`` shows the engine's view changes with nothing hidden from
    the seat), its own hand and no other, and public counts that add up."""
    s = view["state"]
    assert s == _expected_view(state, seat), f"seat {seat} got a view that is not its own"
    if seat is None:
        assert s["hand"] is None
    else:
        me = state.players[state.position(seat)]
        assert s["hand"]["actions"] == list(me.actions)
        assert s["hand"]["objectives"] == list(me.objectives)
    for p in s["players"]:
        assert (p["objectives"] is not None) == state.config.open_objectives
    _public_counts(s, objectives)


def _event_json(e: Any) -> str:
    """An engine event or a stored one, as comparable JSON."""
    private = {str(k): v for k, v in e.private.items()}
    return json.dumps([e.type, e.seat, e.data, private], sort_keys=True)


@dataclass
class Truth:
    """The game re-run from its revealed seed: each commit's events and the state at each
    version from the start on."""

    commits: list[list[str]]
    states: dict[int, State]
    rules: RuleSet


def _replay_from_seed(
    final: dict[str, Any],
    play_order: list[int],
    started: int,
    g: Game,
    moves: list[dict[str, Any]],
    reg: Registry,
) -> Truth:
    """The game re-run from what the finished table reveals and the logged moves; the
    invariants hold at every step, bot moves included."""
    revealed = bytes.fromhex(final["shuffleSeed"])
    assert hashlib.sha256(revealed).hexdigest() == final["shuffleCommitment"]
    seed = fairness.game_seed(revealed, [g.client_seeds.get(s, "") for s in play_order])
    rules = reg.ruleset(GAME.id, [x["id"] for x in final["houseRules"]])
    shared = rules.is_on("five-by-five/shared-specials")
    options = dict(final["options"])
    rng = Rng(seed)
    state, events = GAME.setup(SetupContext(tuple(play_order), options, rules, rng))
    truth = Truth([[_event_json(e) for e in events]], {started: state}, rules)
    check_event_secrecy(list(events), state.config.open_objectives)
    for i, entry in enumerate(moves):
        check_conservation(state, options)
        check_specials(state, shared)
        check_secrecy(state)
        seat, move = int(entry["seat"]), entry["move"]
        assert GAME.to_act(state) == (seat,)
        assert move in GAME.legal_moves(state, seat, rules), "progress: a listed move"
        rng = Rng(seed, rng.counter)
        out = GAME.apply(state, seat, move, rng, rules)
        assert isinstance(out, Outcome), out
        state = out.state
        check_event_secrecy(list(out.events), state.config.open_objectives)
        truth.commits.append([_event_json(e) for e in out.events])
        truth.states[started + i + 1] = state
    check_conservation(state, options)
    check_secrecy(state)
    assert GAME.result(state) is not None and GAME.to_act(state) == ()
    return truth


def _check_delivered(
    stored: tuple[StoredEvent, ...],
    delivered: dict[int | None, list[dict[str, Any]]],
    truth: Truth,
    objectives: int,
) -> None:
    """Every event delivered to a seat is the stored one with that seat's private part
    only, and the table it came with is the engine's view of the truth at its version."""
    by_cursor = {e.cursor: e for e in stored}
    for seat, events in delivered.items():
        assert [e["cursor"] for e in events] == list(by_cursor), f"seat {seat}: gap or extra"
        for e in events:
            stored_event = by_cursor[e["cursor"]]
            want = dict(stored_event.data)
            own = stored_event.private.get(str(seat)) if seat is not None else None
            if own is not None:
                want["private"] = own
            assert (e["type"], e["seat"], e["version"]) == (
                stored_event.type,
                stored_event.seat,
                stored_event.version,
            )
            assert e["data"] == want, f"seat {seat} got {e['type']} {e['data']}"
            table = e["table"]
            assert table["version"] >= e["version"]
            if table["state"] is None:
                assert table["status"] == "OPEN" and table["legalMoves"] == []
                continue
            state = truth.states[table["version"]]
            _check_view(table, state, seat, objectives)
            assert table["legalMoves"] == _expected_legal(state, seat, truth.rules)


async def _refusals(srv: Server, g: Game, seat: int, legal: list[Any], version: int) -> None:
    """A sample of refused moves, each with its code; none changes anything."""
    c = srv.client
    listed = [m["fiveByFive"] for m in legal]
    tries = [
        {"done": True},
        {"drawAction": {"deck": "A"}},
        {"place": {"square": {"row": 0, "col": 0}}},
    ]
    for move in tries:
        if move not in listed:
            code = await c.code(MOVE, g.tokens[seat], t=g.table_id, m={"fiveByFive": move})
            assert code == "ILLEGAL_MOVE", move
    for other, token in g.tokens.items():
        if other != seat:
            assert await c.code(MOVE, token, t=g.table_id, m=legal[0]) == "NOT_YOUR_TURN"
    bad = {"fiveByFive": {"plusMinus": {"square": {"row": 0, "col": 0}, "delta": 2}}}
    assert await c.code(MOVE, g.tokens[seat], t=g.table_id, m=bad) == "BAD_INPUT"
    assert (await c.q(VERSION, t=g.table_id))["table"]["version"] == version


async def _play(srv: Server, g: Game, seed: int, objectives: int) -> dict[str, Any]:
    """Random legal moves by the humans until the table finishes; the checks over HTTP at
    every state a human acts in."""
    c, pick = srv.client, random.Random(seed)
    waits = steps = 0
    while True:
        spectator = (await c.q(TABLE, t=g.table_id))["table"]
        if spectator["status"] == "FINISHED":
            return spectator  # type: ignore[no-any-return]
        humans = [s for s in spectator["state"]["toAct"] if s in g.tokens]
        if not humans:  # a bot is moving
            waits += 1
            assert waits < 2000, "a bot never moved"
            await asyncio.sleep(0.002)
            continue
        waits = 0
        steps += 1
        assert steps < 2000, "the game does not end"
        (seat,) = humans
        loaded = await srv.service.reads.load(g.table_id)
        assert loaded is not None and loaded.version == spectator["version"]
        mine = (await c.q(TABLE, g.tokens[seat], t=g.table_id))["table"]
        _check_view(spectator, loaded.state, None, objectives)
        _check_view(mine, loaded.state, seat, objectives)
        assert spectator["legalMoves"] == []
        legal = mine["legalMoves"]
        assert legal, f"seat {seat} is to act with no legal move"
        assert legal == _expected_legal(loaded.state, seat, loaded.rules)
        if steps % 20 == 1:
            await _refusals(srv, g, seat, legal, spectator["version"])
        # Mostly play on rather than forfeit, so that a game through HTTP stays short.
        playing = [m for m in legal if not next(iter(m["fiveByFive"])).startswith("forfeit")]
        move = pick.choice(playing if playing and pick.random() < 0.9 else legal)
        out = (await c.q(MOVE, g.tokens[seat], t=g.table_id, m=move))["makeMove"]
        assert {e["version"] for e in out["events"]} == {spectator["version"] + 1}
        assert out["table"]["version"] == spectator["version"] + 1
        g.sent.append({"seat": seat, "move": move["fiveByFive"]})


# -- the tests -----------------------------------------------------------------------------

# seed, players, bots, prefilledSquares: 0 is the real game; more squares filled at setup
# (from the table's seeded generator) shorten the games with more seats.
GAMES = [
    pytest.param(1, 1, 0, 0, id="solo-real-game"),
    pytest.param(2, 2, 1, 0, id="2p-a-bot-real-game"),
    pytest.param(3, 3, 0, 10, id="3p"),
    pytest.param(4, 4, 2, 12, id="4p-two-bots"),
    pytest.param(5, 5, 1, 14, id="5p-a-bot"),
    pytest.param(6, 3, 3, 0, id="3p-bots-real-game"),
]


@pytest.mark.parametrize("seed, players, bots, prefilled", GAMES)
async def test_random_full_game_through_the_api(
    server: Server, seed: int, players: int, bots: int, prefilled: int
) -> None:
    c, pick = server.client, random.Random(seed)
    game = (await c.q(GAME_Q))["game"]
    assert (game["minPlayers"], game["maxPlayers"]) == (1, 5)
    rules = _random_rules(game["houseRules"], players, pick)
    options = {
        "eachColorMin": pick.choice([4, 5]),
        "actionHandSize": pick.choice([3, 4, 5]),
        "prefilledSquares": prefilled,
    }
    g = await _open(c, players=players, bots=bots, rules=rules, options=options, pick=pick)
    followers = [asyncio.ensure_future(_follow(c, g, s)) for s in (None, *g.tokens)]
    try:
        await c.q(START, g.host, t=g.table_id)
        objectives = sum(game["options"]["properties"]["objectiveCounts"]["default"].values())
        final = await _play(server, g, seed, objectives)
        await asyncio.wait_for(asyncio.gather(*followers), 20)
    finally:
        for task in followers:
            task.cancel()

    assert sorted(x["id"] for x in final["houseRules"]) == rules
    assert {k: final["options"][k] for k in options} == options
    assert final["result"]["winners"] and final["state"]["toAct"] == []
    assert final["state"]["phase"] == "OVER"
    assert final["state"]["winners"] == final["result"]["winners"]
    kinds = {s["index"]: s["kind"] for s in final["seats"]}
    assert sorted(s for s, k in kinds.items() if k == "BOT") == sorted(
        set(range(players)) - set(g.tokens)
    )
    for token in g.tokens.values():
        assert (await c.q(TABLE, token, t=g.table_id))["table"]["legalMoves"] == []

    # Determinism: the revealed seed, options, rules and moves give the very same game.
    stored = await server.store.events(g.table_id, None, 1000)
    assert len(stored) < 1000 and stored[-1].type == "game.finished"
    assert [e.type for e in stored].count("game.finished") == 1
    started = next(e for e in stored if e.type == "game.started")
    play_order = started.data["playOrder"]
    assert play_order == list(range(players))
    moves = await server.service.reads.moves(g.table_id)
    assert [m for m in moves if m["seat"] in g.tokens] == g.sent
    if bots:
        assert {m["seat"] for m in moves} - set(g.tokens), "no bot moved"
    truth = _replay_from_seed(final, play_order, started.version, g, moves, server.registry)
    dealt = truth.states[started.version].board
    assert sum(d is not None for row in dealt for d in row) == prefilled
    ours = set(GAME.event_types)
    by_version: dict[int, list[str]] = {}
    for e in stored:
        if e.type in ours:
            by_version.setdefault(e.version, []).append(_event_json(e))
    commits = [by_version.get(started.version + i, []) for i in range(len(truth.commits))]
    assert commits == truth.commits
    assert max(by_version) == started.version + len(truth.commits) - 1
    loaded = await server.service.reads.load(g.table_id)
    assert loaded is not None and loaded.state == truth.states[loaded.version]
    report = replay(loaded.table, moves, loaded.game, loaded.rules)
    assert report.ok, report.reason

    # Secrecy of every event and every view, as delivered on the subscriptions, and of
    # every event fetched over HTTP.
    _check_delivered(stored, g.seen, truth, objectives)
    fetched: dict[int | None, list[dict[str, Any]]] = {
        None: (await c.q(EVENTS, t=g.table_id))["table"]["events"]
    }
    for seat, token in g.tokens.items():
        fetched[seat] = (await c.q(EVENTS, token, t=g.table_id))["table"]["events"]
    for seat, events in fetched.items():
        for e, s in zip(events, stored, strict=True):
            own = s.private.get(str(seat)) if seat is not None else None
            assert e["data"] == (s.data if own is None else {**s.data, "private": own})


async def test_refusals_carry_stable_codes(server: Server) -> None:
    c = server.client
    g = await _open(c, players=2, bots=0, rules=[], options={}, pick=random.Random(0))
    await c.q(START, g.host, t=g.table_id)
    table = (await c.q(TABLE, t=g.table_id))["table"]
    (seat,) = table["state"]["toAct"]
    other = next(s for s in g.tokens if s != seat)
    me, them = g.tokens[seat], g.tokens[other]
    swap = {"first": {"row": 0, "col": 0}, "second": {"row": 0, "col": 1}}
    refusals = [
        (
            me,
            {"fiveByFive": {"plusMinus": {"square": {"row": 0, "col": 0}, "delta": 3}}},
            "BAD_INPUT",
        ),
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
