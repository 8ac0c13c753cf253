"""All Fives through the real API: a uvicorn server, HTTP and WebSocket subscriptions, the
memory store.

Random full games with 2 and 3 players and 4 in partnerships, random house-rule sets that
fit the player count (chosen from what the API itself reports: conflicts and player
ranges), bots added with ``addBot`` and random legal play by the humans. Checked on the
way, against the server's own truth read from the same store:

- conservation: the 52 cards are each in one place, in the stored state and in the
  public counts of every view;
- secrecy: no view and no event delivered to a seat (over HTTP or a subscription) names
  a card in another hand, in the stock or discarded face down by another seat;
- progress: the seat to act always has legal moves, exactly the engine's, and the game
  ends;
- determinism: once the table finishes, its revealed seed, options, rules and logged
  moves replay to the very same events, commit by commit, and the same final state.
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

from plugins.all_fives import rules as r
from plugins.all_fives.game import GAME
from plugins.all_fives.presets import traditional
from plugins.all_fives.state import State
from service.engine import Outcome, Rng, SetupContext, fairness
from service.engine.replay import replay
from service.plugins import Registry, load
from service.store.base import StoredEvent
from service.store.memory import MemoryStore
from service.tables import Loaded, TableService

from .support import PARTNERS, assert_conserved, assert_views_secret, cards_in

GAME_Q = """{ game(id: "all-fives") { minPlayers maxPlayers eventTypes
  houseRules { id conflictsWith minPlayers maxPlayers } } }"""
CREATE = """mutation($o: JSON, $s: Int, $r: [ID!]) {
  createTable(gameId: "all-fives", options: $o, seats: $s, houseRules: $r) {
    hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken } }"""
ADD_BOT = "mutation($t: ID!, $s: Int) { addBot(tableId: $t, seat: $s) { version } }"
SET_RULE = """mutation($t: ID!, $r: ID!) {
  setHouseRule(tableId: $t, ruleId: $r, enabled: true) { version } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
STATE_FIELDS = """gameId toAct ... on AllFivesState {
    phase seats dealer eldest dealNumber targetScore proposedSuit turnUp trump begged runs
    setAside stockSize discardedCount handLimit leader
    trick { seat card } lastTrick { plays { seat card } winner points }
    players { seat side handSize tricksWon dealPoints score }
    hand bunchProposedBy winners }"""
TABLE = f"""query($t: ID!) {{ table(id: $t) {{
  version status legalMoves options houseRules {{ id }} result {{ winners scores }}
  shuffleSeed shuffleCommitment seats {{ index kind }}
  state {{ {STATE_FIELDS} }} }} }}"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } events { version type seat data } } }"""
EVENTS = (
    "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor version type seat data } } }"
)
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor version type seat data } }"
VERSION = "query($t: ID!) { table(id: $t) { version } }"

SETTINGS = make_settings()


@dataclass
class Game:
    """One table under test and what the test knows of it."""

    table_id: str
    host: str
    players: int
    tokens: dict[int, str] = field(default_factory=dict)
    client_seeds: dict[int, str] = field(default_factory=dict)
    seen: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class Server:
    client: Client
    store: MemoryStore
    service: TableService
    registry: Registry


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load()


@pytest.fixture
async def server(registry: Registry) -> AsyncIterator[Server]:
    store = MemoryStore()
    async with serve(SETTINGS, registry, store) as client:
        yield Server(client, store, TableService(SETTINGS, registry, store), registry)


# -- setting a table up --------------------------------------------------------------------


def _random_rules(catalogue: list[dict[str, Any]], players: int, pick: random.Random) -> list[str]:
    return random_rules(
        catalogue,
        players,
        pick,
        min_players=2,
        max_players=4,
        required=[PARTNERS] if players == 4 else [],
    )


async def _open(
    c: Client,
    *,
    players: int,
    bots: int,
    rules: list[str],
    options: dict[str, Any],
    empty_seat: int | None = None,
) -> Game:
    """A table with ``players`` seated (``bots`` of them bots); with ``empty_seat`` one
    seat more, left empty so that it drops out at the start, and the house rules set one
    by one with ``setHouseRule`` (a rule's player range is checked at the start)."""
    seats = players + (empty_seat is not None)
    made = (await c.q(CREATE, o=options, s=seats, r=rules if empty_seat is None else []))[
        "createTable"
    ]
    g = Game(made["table"]["id"], made["hostToken"], players)
    if empty_seat is not None:
        for rule in rules:
            await c.q(SET_RULE, g.host, t=g.table_id, r=rule)
    free = [s for s in range(seats) if s != empty_seat]
    for i, seat in enumerate(free[bots:]):
        g.client_seeds[seat] = f"{g.table_id}-{i}"
        joined = (await c.q(JOIN, t=g.table_id, n=f"P{i}", s=seat, c=g.client_seeds[seat]))[
            "joinTable"
        ]
        assert joined["seat"] == seat
        g.tokens[seat] = joined["playerToken"]
    for seat in free[:bots]:
        await c.q(ADD_BOT, g.host, t=g.table_id, s=seat)
    return g


async def _follow(c: Client, g: Game, seat: int | None) -> None:
    """Collect every event the seat (None: a spectator) gets on a subscription."""
    out = g.seen.setdefault(seat, [])
    async with c.ws() as conn:
        assert (await ws_init(conn, g.tokens.get(seat) if seat is not None else None))[
            "type"
        ] == "connection_ack"
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


def _hidden_from(state: State, seat: int | None) -> set[str]:
    """What ``seat`` may not see now: other hands, the stock, every face-down discard."""
    own = set() if seat is None else set(state.hands[state.seats.index(seat)])
    hands = {c for hand in state.hands for c in hand}
    return (hands - own) | set(state.stock) | set(state.discards)


def _check_view(view: dict[str, Any], loaded: Loaded, seat: int | None) -> None:
    """One seat's view over HTTP: the engine's view for that seat, secret, and its public
    counts add up to the 52 cards."""
    state = loaded.state
    assert view["state"] == loaded.view(seat)
    leak = cards_in(view) & _hidden_from(state, seat)
    assert not leak, f"seat {seat} is shown {sorted(leak)}"
    s = view["state"]
    n = len(s["players"])
    counted = (
        sum(p["handSize"] for p in s["players"])
        + s["stockSize"]
        + (s["turnUp"] is not None)
        + len(s["setAside"])
        + s["discardedCount"]
        + len(s["trick"])
        + n * sum(p["tricksWon"] for p in s["players"])
    )
    assert counted == 52, f"the public counts of seat {seat}'s view make {counted} cards"


class Knowledge:
    """What each seat may know at each moment, followed through the stored events with
    every private part: the cards face up this deal, and its own hand and discards."""

    def __init__(self, seats: list[int]) -> None:
        self.seats = seats
        self._reset()

    def _reset(self) -> None:
        self.public: set[str] = set()
        self.hands: dict[int, set[str]] = {s: set() for s in self.seats}
        self.discarded: dict[int, set[str]] = {s: set() for s in self.seats}

    def feed(self, e: StoredEvent) -> None:
        if e.type == "deal.started":
            self._reset()
        elif e.type == "cards.dealt":
            assert {int(s) for s in e.private} == set(self.seats)
            for s, part in e.private.items():
                self.hands[int(s)] |= set(part["cards"])
        elif e.type == "card.turned":
            self.public.add(e.data["card"])
        elif e.type == "card.played":
            assert e.seat is not None
            self.hands[e.seat].remove(e.data["card"])
            self.public.add(e.data["card"])
        elif e.type == "card.discarded":
            assert e.seat is not None and set(e.private) == {str(e.seat)}
            card = e.private[str(e.seat)]["card"]
            self.hands[e.seat].remove(card)
            self.discarded[e.seat].add(card)

    def visible(self, seat: int | None) -> frozenset[str]:
        if seat is None:
            return frozenset(self.public)
        return frozenset(self.public | self.hands[seat] | self.discarded[seat])


def _check_knowledge(stored: tuple[StoredEvent, ...], truth: dict[int, State]) -> None:
    """The knowledge followed through the stored events matches the server's state after
    every commit of the game: the same hands, and nothing face up that is hidden."""
    seats = list(next(iter(truth.values())).seats)
    knowledge = Knowledge(seats)
    for i, e in enumerate(stored):
        knowledge.feed(e)
        last_of_commit = i + 1 == len(stored) or stored[i + 1].version != e.version
        if last_of_commit and e.version in truth:
            state = truth[e.version]
            hands = {seat: set(state.hands[p]) for p, seat in enumerate(state.seats)}
            assert knowledge.hands == hands, f"the events disagree with the hands at {e.cursor}"
            assert not knowledge.public & _hidden_from(state, None), "a hidden card is face up"


def _check_events_secret(
    stored: tuple[StoredEvent, ...], seats: list[int], delivered: dict[int | None, list[dict]]
) -> None:
    """Every event delivered to a seat is the stored one with that seat's private part
    only, and names no card the seat may not see at that moment (``_check_knowledge``
    proves the knowledge right)."""
    knowledge = Knowledge(seats)
    visible: dict[str, dict[int | None, frozenset[str]]] = {}
    for e in stored:
        knowledge.feed(e)
        visible[e.cursor] = {s: knowledge.visible(s) for s in delivered}
    by_cursor = {e.cursor: e for e in stored}
    for seat, events in delivered.items():
        assert [e["cursor"] for e in events] == list(by_cursor), f"seat {seat}: gap or extra"
        for e in events:
            truth = by_cursor[e["cursor"]]
            want = dict(truth.data)
            own = truth.private.get(str(seat)) if seat is not None else None
            if own is not None:
                want["private"] = own
            assert (e["type"], e["seat"], e["version"]) == (truth.type, truth.seat, truth.version)
            assert e["data"] == want, f"seat {seat} got {e['type']} {e['data']}"
            leak = cards_in(e["data"]) - visible[e["cursor"]][seat]
            assert not leak, f"{e['type']} shows seat {seat} {sorted(leak)}"


def _replay_from_seed(
    final: dict[str, Any],
    play_order: list[int],
    g: Game,
    moves: list[dict[str, Any]],
    reg: Registry,
) -> tuple[list[list[str]], list[State]]:
    """The game re-run from what the finished table reveals (its seed, options and rules)
    and the logged moves: each commit's events as JSON and the state after it. The
    invariants hold at every step, bot moves included."""
    revealed = bytes.fromhex(final["shuffleSeed"])
    assert hashlib.sha256(revealed).hexdigest() == final["shuffleCommitment"]
    seed = fairness.game_seed(revealed, [g.client_seeds.get(s, "") for s in play_order])
    rules = reg.ruleset(GAME.id, [x["id"] for x in final["houseRules"]])
    rng = Rng(seed)
    ctx = SetupContext(tuple(play_order), dict(final["options"]), rules, rng)
    state, events = GAME.setup(ctx)
    commits, states = [[_event_json(e) for e in events]], [state]
    for entry in moves:
        assert_conserved(state)
        assert_views_secret(state)
        seat, move = int(entry["seat"]), entry["move"]
        assert GAME.to_act(state) == (seat,)
        assert move in GAME.legal_moves(state, seat, rules)
        rng = Rng(seed, rng.counter)
        out = GAME.apply(state, seat, move, rng, rules)
        assert isinstance(out, Outcome), out
        state = out.state
        commits.append([_event_json(e) for e in out.events])
        states.append(state)
    assert_conserved(state)
    assert GAME.result(state) is not None and GAME.to_act(state) == ()
    return commits, states


def _event_json(e: Any) -> str:
    """An engine event or a stored one, as comparable JSON."""
    private = {str(k): v for k, v in e.private.items()}
    return json.dumps([e.type, e.seat, e.data, private], sort_keys=True)


async def _play(srv: Server, g: Game, seed: int) -> dict[str, Any]:
    """Random legal moves by the humans until the table finishes; the checks at every
    state a human acts in."""
    c, pick = srv.client, random.Random(seed)
    loop = asyncio.get_running_loop()
    steps, last_version, moved_at = 0, -1, loop.time()
    while True:
        spectator = (await c.q(TABLE, t=g.table_id))["table"]
        if spectator["status"] == "FINISHED":
            return spectator  # type: ignore[no-any-return]
        if spectator["version"] != last_version:
            last_version, moved_at = spectator["version"], loop.time()
        humans = [s for s in spectator["state"]["toAct"] if s in g.tokens]
        if not humans:  # a bot is to move
            assert loop.time() - moved_at < 10, "a bot did not move"
            await asyncio.sleep(0.002)
            continue
        steps += 1
        assert steps < 1500, "the game does not end"
        (seat,) = humans
        loaded = await srv.service.reads.load(g.table_id)
        assert loaded is not None and loaded.version == spectator["version"]
        assert_conserved(loaded.state)
        views = {None: spectator}
        for other, token in g.tokens.items():
            views[other] = (await c.q(TABLE, token, t=g.table_id))["table"]
        for viewer, view in views.items():
            _check_view(view, loaded, viewer)
            if viewer != seat:
                assert view["legalMoves"] == []
        legal = views[seat]["legalMoves"]
        assert legal, f"seat {seat} is to act with no legal move"
        assert legal == [{"allFives": m} for m in loaded.legal_moves(seat)]
        if steps % 5 == 0:  # a sample of refusals: each changes nothing
            listed = {m["allFives"]["play"]["card"] for m in legal if "play" in m["allFives"]}
            card = pick.choice([x for x in r.DECK if x not in listed])
            bad = {"allFives": {"play": {"card": card}}}
            assert await c.code(MOVE, g.tokens[seat], t=g.table_id, m=bad) == "ILLEGAL_MOVE"
            for other in g.tokens:
                if other != seat:
                    code = await c.code(MOVE, g.tokens[other], t=g.table_id, m=legal[0])
                    assert code == "NOT_YOUR_TURN"
            version = (await c.q(VERSION, t=g.table_id))["table"]["version"]
            assert version == spectator["version"]
        out = (await c.q(MOVE, g.tokens[seat], t=g.table_id, m=pick.choice(legal)))["makeMove"]
        assert {e["version"] for e in out["events"]} == {spectator["version"] + 1}


# -- the tests -----------------------------------------------------------------------------

GAMES = [
    pytest.param(1, 2, 1, None, "random", id="2p-a-bot-random-rules"),
    pytest.param(2, 2, 0, None, "traditional", id="2p-traditional"),
    pytest.param(3, 3, 1, 2, "random", id="3p-a-bot-an-empty-seat-random-rules"),
    pytest.param(4, 3, 2, None, "traditional", id="3p-two-bots-traditional"),
    pytest.param(5, 4, 2, None, "random", id="4p-partnerships-two-bots-random-rules"),
    pytest.param(6, 4, 0, None, "random", id="4p-partnerships-random-rules"),
]


@pytest.mark.parametrize("seed, players, bots, empty_seat, mode", GAMES)
async def test_random_full_game_through_the_api(server, seed, players, bots, empty_seat, mode):
    c, pick = server.client, random.Random(seed)
    info = (await c.q(GAME_Q))["game"]
    assert (info["minPlayers"], info["maxPlayers"]) == (2, 4)
    assert set(GAME.event_types) <= set(info["eventTypes"])
    catalogue = info["houseRules"]
    assert len(catalogue) == 9
    if mode == "traditional":
        rules, options = traditional(players)
    else:
        rules = _random_rules(catalogue, players, pick)
        options = {
            "lowGoesTo": pick.choice(("dealt", "won")),
            "gameTie": pick.choice(("none", "eldest", "dealerOpponents")),
        }
    options["targetScore"] = pick.choice((21, 31))  # short games
    g = await _open(
        c, players=players, bots=bots, rules=rules, options=options, empty_seat=empty_seat
    )
    followers = [asyncio.ensure_future(_follow(c, g, s)) for s in (None, *g.tokens)]
    try:
        await c.q(START, g.host, t=g.table_id)
        final = await _play(server, g, seed)
        await asyncio.wait_for(asyncio.gather(*followers), 20)
    finally:
        for task in followers:
            task.cancel()

    assert sorted(x["id"] for x in final["houseRules"]) == sorted(rules)
    assert final["options"]["targetScore"] == options["targetScore"]
    assert final["result"]["winners"] and final["state"]["toAct"] == []
    assert final["state"]["phase"] == "GAME_OVER"
    assert final["state"]["winners"] == final["result"]["winners"]
    kinds = {s["index"]: s["kind"] for s in final["seats"]}
    assert list(kinds.values()).count("BOT") == bots
    for token in g.tokens.values():
        assert (await c.q(TABLE, token, t=g.table_id))["table"]["legalMoves"] == []

    # Determinism: the revealed seed, options, rules and moves give the very same game.
    stored = await server.store.events(g.table_id, None, 1000)
    assert len(stored) < 1000 and stored[-1].type == "game.finished"
    seats = [s for s, kind in kinds.items() if kind != "EMPTY"]
    started = next(e for e in stored if e.type == "game.started")
    play_order = started.data["playOrder"]
    assert play_order == seats
    moves = await server.service.reads.moves(g.table_id)
    if bots:
        assert {m["seat"] for m in moves} - set(g.tokens), "no bot moved"
    commits, states = _replay_from_seed(final, play_order, g, moves, server.registry)
    ours = set(GAME.event_types)
    by_version: dict[int, list[str]] = {}
    for e in stored:
        if e.type in ours:
            by_version.setdefault(e.version, []).append(_event_json(e))
    assert [by_version.get(started.version + i, []) for i in range(len(commits))] == commits
    assert max(by_version) == started.version + len(commits) - 1
    loaded = await server.service.reads.load(g.table_id)
    assert loaded is not None and loaded.state == states[-1]
    report = replay(loaded.table, moves, loaded.game, loaded.rules)
    assert report.ok, report.reason

    # Secrecy of every event, as delivered on the subscriptions and over HTTP: what a seat
    # may see is followed through the stored events, checked against every replayed state.
    _check_knowledge(stored, {started.version + i: st for i, st in enumerate(states)})
    _check_events_secret(stored, seats, g.seen)
    fetched = {None: (await c.q(EVENTS, t=g.table_id))["table"]["events"]}
    for seat, token in g.tokens.items():
        fetched[seat] = (await c.q(EVENTS, token, t=g.table_id))["table"]["events"]
    _check_events_secret(stored, seats, fetched)


async def test_refusals_carry_the_stable_codes(server):
    c = server.client
    g = await _open(c, players=2, bots=0, rules=[], options={"targetScore": 15})
    await c.q(START, g.host, t=g.table_id)
    table = (await c.q(TABLE, t=g.table_id))["table"]
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
        pytest.param(2, ["all-fives/beg-gift-to-all-opponents"], "RULE_CONFLICT", id="gift-2p"),
        pytest.param(3, ["all-fives/bunch-on-agreement"], "RULE_CONFLICT", id="bunch-3p"),
    ],
)
async def test_house_rules_must_fit_the_player_count(server, seats, rules, code):
    c = server.client
    made = (await c.q(CREATE, o=None, s=4, r=[]))["createTable"]  # rules set while open
    tid, host = made["table"]["id"], made["hostToken"]
    for rule in rules:
        await c.q(SET_RULE, host, t=tid, r=rule)
    for i in range(seats):
        await c.q(JOIN, t=tid, n=f"P{i}")
    assert await c.code(START, host, t=tid) == code
    if seats < 4:  # at creation, with the number of seats fixed
        assert await c.code(CREATE, o=None, s=seats, r=rules or [PARTNERS]) == "RULE_CONFLICT"
