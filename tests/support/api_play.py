"""A full game of any installed game through the real API: a uvicorn server, HTTP and
WebSocket subscriptions, the memory store. What is particular to a game comes from its
facts (``<plugin>.testing.FACTS``): short options, its items and who may see them.

Checked against the server's own truth (the same store, and the game re-run from the
seed the finished table reveals), at every step a human acts and at every commit:

- conservation: every item in one place in the true state, in every replayed state, and
  in the public counts of every view delivered;
- secrecy: every view delivered to a seat (over HTTP, and with every event of its
  subscription) is the engine's view for that seat and names nothing it may not know;
  every event delivered is the stored one with the seat's own private part only, and no
  commit's public part names what is hidden from everyone;
- progress: the seat to act has legal moves, exactly the engine's; a sample of refused
  moves carries the stable codes and changes nothing; every game ends;
- determinism: the revealed seed, options, rules and logged moves (the bots' included)
  replay to the very same events, commit by commit, and the same final state.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from support.games import facts, registry
from support.rules import random_rules
from support.server import Client, make_settings, serve, ws_init, ws_next
from tablestate.engine import Outcome, Rng, SetupContext, fairness
from tablestate.engine.replay import replay
from tablestate.plugins import camel, pascal
from tablestate.store.base import StoredEvent
from tablestate.store.memory import MemoryStore
from tablestate.tables import TableService
from tablestate.testing import Chooser, GameFacts, check_events, counted, secret

GAME_INFO = """query($g: ID!) { game(id: $g) { minPlayers maxPlayers eventTypes
  houseRules { id conflictsWith minPlayers maxPlayers } } }"""
CREATE = """mutation($g: ID!, $o: JSON, $s: Int, $r: [ID!]) {
  createTable(gameId: $g, options: $o, seats: $s, houseRules: $r) {
    hostToken table { id shuffleCommitment } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken } }"""
ADD_BOT = """mutation($t: ID!, $s: Int, $l: BotLevel! = NORMAL) {
  addBot(tableId: $t, seat: $s, level: $l) { version seats { index botLevel } } }"""
SET_RULE = """mutation($t: ID!, $r: ID!) {
  setHouseRule(tableId: $t, ruleId: $r, enabled: true) { version } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } events { cursor version type seat data } } }"""
VERSION = "query($t: ID!) { table(id: $t) { version } }"
EVENTS = (
    "query($t: ID!) { table(id: $t) { events(first: 1000) { cursor version type seat data } } }"
)
_OF = "kind name ofType { " * 6 + "kind name" + " }" * 6
INTROSPECT = f"{{ __schema {{ types {{ name fields {{ name type {{ {_OF} }} }} }} }} }}"

BOT_PATIENCE = 30.0  # seconds a bot may take to move, on a busy machine
SETTINGS = make_settings()


@dataclass
class Server:
    client: Client
    store: MemoryStore
    service: TableService


@contextlib.asynccontextmanager
async def server(**settings: Any) -> AsyncIterator[Server]:
    """A server of every installed game on a fresh memory store (``settings`` over the
    tests' own)."""
    store, chosen = MemoryStore(), make_settings(**settings) if settings else SETTINGS
    async with serve(chosen, registry(), store) as client:
        yield Server(client, store, TableService(chosen, registry(), store))


async def state_selection(c: Client, game_id: str) -> str:
    """Every field of the game's state type, nested objects included, from the schema; no
    ``id``: the core gives every object of a game state one, for a client's cache, and it is
    no part of the engine's view (a game's own type may not declare one)."""
    types = {t["name"]: t for t in (await c.q(INTROSPECT))["__schema"]["types"]}

    def select(name: str) -> str:
        out = []
        for f in (f for f in types[name]["fields"] or [] if f["name"] != "id"):
            ref = f["type"]
            while ref.get("ofType"):
                ref = ref["ofType"]
            inner = types[ref["name"]]
            out.append(f"{f['name']} {{ {select(ref['name'])} }}" if inner["fields"] else f["name"])
        return " ".join(out)

    return f"... on {pascal(game_id)}State {{ {select(pascal(game_id) + 'State')} }}"


@dataclass
class Table:
    """One table being played through the API, and what the test saw of it."""

    srv: Server
    game_id: str
    facts: GameFacts
    case: dict[str, Any]
    table_id: str
    host: str
    commitment: str
    rules: list[str]
    options: dict[str, Any]
    state: str = ""  # the selection of the game's state type
    tokens: dict[int, str] = field(default_factory=dict)
    client_seeds: dict[int, str] = field(default_factory=dict)
    seen: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    answered: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    chooser: Chooser = field(init=False)

    def __post_init__(self) -> None:
        self.chooser = Chooser({**self.case, "seed": f"moves-{self.case['seed']}"})

    @property
    def field(self) -> str:
        return camel(self.game_id)

    @property
    def table_query(self) -> str:
        return f"""query($t: ID!) {{ table(id: $t) {{ version status legalMoves options
  houseRules {{ id }} result {{ winners scores }} shuffleSeed shuffleCommitment
  seats {{ index kind }} state {{ gameId toAct {self.state} }} }} }}"""

    async def view(self, seat: int | None) -> dict[str, Any]:
        token = self.tokens.get(seat) if seat is not None else None
        table: dict[str, Any] = (await self.srv.client.q(self.table_query, token, t=self.table_id))[
            "table"
        ]
        return table


def catalogue(game_id: str) -> list[dict[str, Any]]:
    """The game's house rules as ``game { houseRules }`` answers them."""
    return [
        {
            "id": r.id,
            "conflictsWith": list(registry().conflicts(r.id)),
            "minPlayers": r.min_players,
            "maxPlayers": r.max_players,
        }
        for r in registry().rules_of(game_id)
    ]


def table_rules(game_id: str, case: dict[str, Any], pick: random.Random) -> list[str]:
    """The case's house rules: its list, or with ``"random"`` each rule that fits the
    player count, with a coin flip, plus those in ``require``."""
    rules = case.get("rules", [])
    if rules != "random":
        return list(rules)
    game = registry().games[game_id]
    return random_rules(
        catalogue(game_id),
        len(case["seated"]),
        pick,
        min_players=game.min_players,
        max_players=game.max_players,
        required=case.get("require", ()),
    )


async def open_table(srv: Server, game_id: str, case: dict[str, Any]) -> Table:
    """A table as the case says: ``seats`` at the table, the ``seated`` ones taken (the
    others stay empty), ``bots`` among them; ``rules`` a list or ``"random"`` (each rule
    that fits the player count with a coin flip, from what the API reports, plus any in
    ``require``), set at creation or, with ``rules_later``, one by one while it is open;
    the game's short ``options`` with the case's over them. Not started yet."""
    c, pick, found = srv.client, random.Random(case["seed"]), facts(game_id)
    info = (await c.q(GAME_INFO, g=game_id))["game"]
    game = registry().games[game_id]
    assert (info["minPlayers"], info["maxPlayers"]) == (game.min_players, game.max_players)
    assert set(game.event_types) <= set(info["eventTypes"])
    assert info["houseRules"] == catalogue(game_id), "the API's house rules are the registry's"
    players = len(case["seated"])
    rules = table_rules(game_id, case, pick)
    options = {**found.options(pick, players), **case.get("options", {})}
    later = case.get("rules_later", False)
    made = (await c.q(CREATE, g=game_id, o=options, s=case["seats"], r=[] if later else rules))[
        "createTable"
    ]
    t = Table(
        srv,
        game_id,
        found,
        case,
        made["table"]["id"],
        made["hostToken"],
        made["table"]["shuffleCommitment"],
        sorted(rules),
        options,
    )
    t.state = await state_selection(c, game_id)
    for rule in rules if later else ():
        await c.q(SET_RULE, t.host, t=t.table_id, r=rule)
    for i, seat in enumerate(s for s in case["seated"] if s not in case.get("bots", ())):
        t.client_seeds[seat] = f"{t.table_id}-{i}"
        joined = (await c.q(JOIN, t=t.table_id, n=f"P{i}", s=seat, c=t.client_seeds[seat]))[
            "joinTable"
        ]
        assert joined["seat"] == seat
        t.tokens[seat] = joined["playerToken"]
    level = case.get("bot_level", "NORMAL")
    for seat in case.get("bots", ()):
        added = (await c.q(ADD_BOT, t.host, t=t.table_id, s=seat, l=level))["addBot"]
        assert {s["index"]: s["botLevel"] for s in added["seats"]}[seat] == level
    return t


async def follow(t: Table, seat: int | None) -> None:
    """Every event the seat (None: a spectator) gets on a subscription, each with the
    table as it sees it, until the game is finished."""
    out = t.seen.setdefault(seat, [])
    query = f"""subscription($t: ID!) {{ tableEvents(tableId: $t) {{ cursor version type seat
  data table {{ version status legalMoves state {{ gameId toAct {t.state} }} }} }} }}"""
    async with t.srv.client.ws() as conn:
        token = t.tokens.get(seat) if seat is not None else None
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        payload = {"query": query, "variables": {"t": t.table_id}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while True:
            msg = await ws_next(conn, 20)
            assert msg["type"] == "next", msg
            event = msg["payload"]["data"]["tableEvents"]
            out.append(event)
            if event["type"] == "game.finished":
                return


def expected_view(t: Table, state: Any, seat: int | None) -> dict[str, Any]:
    game = registry().games[t.game_id]
    return {**game.view(state, seat), "gameId": t.game_id, "toAct": list(game.to_act(state))}


def check_view(
    t: Table, answer: dict[str, Any], state: Any, seat: int | None, legal: list[Any]
) -> None:
    """One viewer's table, as delivered: the engine's view for that seat, naming nothing
    the seat may not know, its public counts right; its legal moves, the engine's."""
    assert answer["state"] == expected_view(t, state, seat), f"seat {seat} got another view"
    shown = {k: v for k, v in answer.items() if k != "options"}  # options: the table's own
    leak = t.facts.names(shown) & secret(t.facts, state, seat)
    assert not leak, f"seat {seat} is shown {sorted(leak)}"
    t.facts.check_view(state, seat, answer["state"])
    assert answer["legalMoves"] == [{t.field: m} for m in legal]


async def refusals(t: Table, seat: int, state: Any, legal: list[Any], version: int) -> None:
    """A sample of refused moves, each with its stable code; none changes anything."""
    c, tid, listed = t.srv.client, t.table_id, [m[t.field] for m in legal]
    keys = {json.dumps(m, sort_keys=True) for m in listed}
    unlisted = [m for m in t.facts.moves(state, seat) if json.dumps(m, sort_keys=True) not in keys]
    free = t.facts.free_kinds
    for move in [m for m in unlisted if next(iter(m)) not in free][:3]:
        assert await c.code(MOVE, t.tokens[seat], t=tid, m={t.field: move}) == "ILLEGAL_MOVE", move
    for other, token in t.tokens.items():
        if other != seat:
            assert await c.code(MOVE, token, t=tid, m=legal[0]) == "NOT_YOUR_TURN"
    others = [g for g in registry().games if g != t.game_id]
    wrong = {camel(others[0]): listed[0]} if others else {t.field: {"noSuchMove": True}}
    assert await c.code(MOVE, t.tokens[seat], t=tid, m=wrong) == "BAD_INPUT"
    assert (await c.q(VERSION, t=tid))["table"]["version"] == version


Choose = Callable[[Table, Any, int, list[Any], Any], Any]


def choose(t: Table, state: Any, seat: int, moves: list[Any], rules: Any) -> Any:
    """A human's move, as the case says (``tablestate.testing.Chooser``)."""
    return t.chooser(registry().games[t.game_id], t.facts, state, seat, moves, rules)


async def play(t: Table, choose: Choose = choose, max_moves: int = 2000) -> dict[str, Any]:
    """Random legal moves by the humans until the table finishes (the bots move on their
    own); the checks at every state a human acts in. The finished table, as a spectator
    sees it."""
    c, srv = t.srv.client, t.srv
    loop = asyncio.get_running_loop()
    moved = (-1, loop.time())  # the last version seen, and when it was first seen
    for step in range(max_moves):
        while True:
            spectator = await t.view(None)
            if spectator["version"] != moved[0]:
                moved = (spectator["version"], loop.time())
            if spectator["status"] == "FINISHED":
                return spectator
            humans = [s for s in spectator["state"]["toAct"] if s in t.tokens]
            if humans:
                break
            assert loop.time() - moved[1] < BOT_PATIENCE, "a bot does not move"
            await asyncio.sleep(0.002)  # a bot moves from the server on its own
        (seat,) = humans
        truth = await srv.service.reads.load(t.table_id)
        assert truth is not None and truth.version == spectator["version"]
        assert counted(truth.game, t.facts, truth.state) == t.facts.deck(
            truth.table.play_order, truth.table.options, truth.rules
        ), "an item appeared or vanished"
        # the spectator and the mover over HTTP at every step, every seat now and then
        # (every seat's subscription delivers its view with every event, checked after)
        viewers = list(t.tokens) if step % t.case.get("views_every", 4) == 0 else [seat]
        legal: list[Any] = []
        for viewer in (None, *viewers):
            answer = spectator if viewer is None else await t.view(viewer)
            check_view(t, answer, truth.state, viewer, truth.legal_moves(viewer))
            if viewer == seat:
                legal = answer["legalMoves"]
        assert legal, f"seat {seat} is to act with no legal move"
        if step % 7 == 3:
            await refusals(t, seat, truth.state, legal, truth.version)
        move = choose(t, truth.state, seat, [m[t.field] for m in legal], truth.rules)
        done = (await c.q(MOVE, t.tokens[seat], t=t.table_id, m={t.field: move}))["makeMove"]
        assert done["table"]["version"] == truth.version + 1
        assert {e["version"] for e in done["events"]} == {truth.version + 1}
        t.answered.extend((seat, e) for e in done["events"])
        t.sent.append({"seat": seat, "move": move})
    raise AssertionError("the game did not end")


def _event_json(e: Any) -> str:
    private = {str(k): v for k, v in e.private.items()}
    return json.dumps([e.type, e.seat, e.data, private], sort_keys=True)


def delivered(stored: StoredEvent, seat: int | None) -> dict[str, Any]:
    """A stored event's data as ``seat`` must receive it: its own private part only."""
    own = stored.private.get(str(seat)) if seat is not None else None
    return dict(stored.data) if own is None else {**stored.data, "private": own}


def rerun(
    t: Table, final: dict[str, Any], stored: Sequence[StoredEvent], moves: list[Any]
) -> dict[int, Any]:
    """The game re-run from what the finished table reveals and the logged moves, commit
    by commit: the same events as stored, the invariants at every step; the state at
    each version."""
    revealed = bytes.fromhex(final["shuffleSeed"])
    assert hashlib.sha256(revealed).hexdigest() == final["shuffleCommitment"] == t.commitment
    started = next(e for e in stored if e.type == "game.started")
    order = started.data["playOrder"]
    seed = fairness.game_seed(revealed, [t.client_seeds.get(s, "") for s in order])
    game, rules = registry().games[t.game_id], registry().ruleset(t.game_id, t.rules)
    rng = Rng(seed)
    state, events = game.setup(SetupContext(tuple(order), dict(final["options"]), rules, rng))
    ours = set(game.event_types)
    by_version: dict[int, list[str]] = {}
    for e in stored:
        if e.type in ours:
            by_version.setdefault(e.version, []).append(_event_json(e))
    assert by_version.get(started.version, []) == [_event_json(e) for e in events]
    check_events(t.facts, order, None, state, None, events)
    deck, states = t.facts.deck(order, final["options"], rules), {started.version: state}
    for i, entry in enumerate(moves):
        assert counted(game, t.facts, state) == deck, "an item appeared or vanished"
        seat, move = int(entry["seat"]), entry["move"]
        assert game.to_act(state) == (seat,) or list(game.to_act(state)) == [seat]
        rng = Rng(seed, rng.counter)
        out = game.apply(state, seat, move, rng, rules)
        assert isinstance(out, Outcome), out
        version = started.version + 1 + i
        assert by_version.get(version, []) == [_event_json(e) for e in out.events], i
        check_events(t.facts, order, state, out.state, seat, out.events)
        t.facts.check_commit(state, out.state, out.events, rules)
        state = states[version] = out.state
    assert max(by_version) == started.version + len(moves)
    assert game.result(state) is not None and not game.to_act(state)
    return states


async def finish(t: Table, final: dict[str, Any], followers: list[asyncio.Future[None]]) -> None:
    """The checks once the table is finished."""
    c, srv = t.srv.client, t.srv
    await asyncio.wait_for(asyncio.gather(*followers), 30)
    assert final["status"] == "FINISHED" and final["state"]["toAct"] == []
    assert sorted(x["id"] for x in final["houseRules"]) == t.rules
    assert {k: final["options"][k] for k in t.options} == t.options
    kinds = {s["index"]: s["kind"] for s in final["seats"]}
    assert {s for s, k in kinds.items() if k == "BOT"} == set(t.case.get("bots", ()))
    assert {s for s, k in kinds.items() if k == "EMPTY"} == set(range(t.case["seats"])) - set(
        t.case["seated"]
    )
    for token in t.tokens.values():
        assert (await c.q(t.table_query, token, t=t.table_id))["table"]["legalMoves"] == []
    stored = await srv.store.events(t.table_id, None, 1000)
    assert len(stored) < 1000 and stored[-1].type == "game.finished"
    moves = await srv.service.reads.moves(t.table_id)
    assert [m for m in moves if m["seat"] in t.tokens] == t.sent
    if t.case.get("bots"):
        assert {m["seat"] for m in moves} - set(t.tokens), "no bot moved"
    states = rerun(t, final, stored, moves)
    result = registry().games[t.game_id].result(states[max(states)])
    assert result is not None and final["result"]["winners"] == list(result.winners)
    assert set(result.winners) <= set(t.case["seated"]) == set(result.scores)
    assert all(final["result"]["scores"][s] == n for s, n in result.scores.items())
    loaded = await srv.service.reads.load(t.table_id)
    assert loaded is not None and loaded.state == states[loaded.version]
    report = replay(loaded.table, moves, loaded.game, loaded.rules)
    assert report.ok, report.reason
    by_cursor, game = {e.cursor: e for e in stored}, registry().games[t.game_id]
    checked: dict[tuple[int | None, int], Any] = {}  # the tables checked, by seat and version
    for seat, events in t.seen.items():  # each subscriber: every event once, in order
        assert [e["cursor"] for e in events] == list(by_cursor), f"seat {seat}: gap or extra"
        for e in events:
            truth = by_cursor[e["cursor"]]
            assert (e["type"], e["seat"], e["version"]) == (truth.type, truth.seat, truth.version)
            assert e["data"] == delivered(truth, seat), f"seat {seat} got {e['type']} {e['data']}"
            table = e["table"]
            if table["state"] is None:
                assert table["status"] == "OPEN" and table["legalMoves"] == []
                continue
            if checked.get((seat, table["version"])) == table:
                continue
            state = states[table["version"]]
            acting = seat is not None and seat in game.to_act(state)
            legal = game.legal_moves(state, seat, loaded.rules) if acting else []
            check_view(t, table, state, seat, list(legal))
            checked[seat, table["version"]] = table
    for seat, e in t.answered:  # what makeMove answered the mover
        assert e["data"] == delivered(by_cursor[e["cursor"]], seat)
    for seat in (None, *t.tokens):  # the events over HTTP
        token = t.tokens.get(seat) if seat is not None else None
        fetched = (await c.q(EVENTS, token, t=t.table_id))["table"]["events"]
        assert [e["data"] for e in fetched] == [delivered(s, seat) for s in stored]


async def play_through(
    srv: Server, game_id: str, case: dict[str, Any], choose: Choose = choose
) -> Table:
    """Open the case's table, follow it as every seat and a spectator, play it to its end
    and check it all."""
    t = await open_table(srv, game_id, case)
    followers = [asyncio.ensure_future(follow(t, s)) for s in (None, *t.tokens)]
    try:
        await asyncio.sleep(0.05)  # the subscriptions start (they replay from the start anyway)
        assert (await srv.client.q(START, t.host, t=t.table_id))["startGame"]["status"] == "PLAYING"
        final = await play(t, choose)
        await finish(t, final, followers)
    finally:
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
    return t
