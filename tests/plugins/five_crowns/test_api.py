"""Five Crowns through the real API: uvicorn, HTTP and WebSocket, on the memory store.

Random full games of 2 to 7 players (and the solo game) with random house-rule sets
(read from the API's own ``game { houseRules }``: no two that conflict, each fitting the
player count) and random options, humans playing random legal moves (or, now and then,
the bot's move computed from the server's truth) and bots seated with ``addBot``. The
test reads the server's truth on the same store (``TableService.load``) and checks the
invariants of DESIGN.md:

- conservation: the table's deck (116 cards, 58 with single-deck-two-players) is all
  there, each card in one place, in the truth at every step (and in every replayed
  state) and in the public counts of every view;
- secrecy: the views (state and legalMoves) of each seat and of a spectator hold only
  cards that viewer may see; every WebSocket subscriber gets each event's public part
  and its own private part only; no public part names a card hidden before and after
  its commit (the actor's cards that left its hand excepted);
- determinism: the finished table replays exactly, event by event, from its revealed
  seed, its options, rules and moves;
- progress: whoever is to act has a legal move, ``legalMoves`` is exactly the game's
  list and every listed move is accepted; refused moves change nothing; every game ends.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.server import Client, make_settings, serve, ws_init, ws_next

from plugins.five_crowns import rules as fc
from plugins.five_crowns.game import GAME
from plugins.five_crowns.state import DISCARD, State
from service.engine import fairness
from service.engine.game import Outcome, SetupContext
from service.engine.replay import replay
from service.engine.rng import Rng
from service.plugins import Registry, load
from service.store.memory import MemoryStore
from service.tables import Loaded, TableService

from .support import table_deck

GAME_INFO = """{ game(id: "five-crowns") { minPlayers maxPlayers
  houseRules { id conflictsWith minPlayers maxPlayers } } }"""
CREATE = """mutation($r: [ID!], $o: JSON, $s: Int) {
  createTable(gameId: "five-crowns", houseRules: $r, options: $o, seats: $s) {
    hostToken table { id shuffleCommitment } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken } }"""
ADD_BOT = "mutation($t: ID!, $s: Int) { addBot(tableId: $t, seat: $s) { version } }"
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
VIEW = """query($t: ID!) { table(id: $t) { version status legalMoves
  state { gameId toAct ... on FiveCrownsState {
    mode phase round wildRank dealer turn finalTurns wentOut topDiscard discardSize stockSize
    drewFrom drawnCard hand winners
    players { seat handSize dealtIn roundPoints total wentOut finished }
    melds { index seat kind cards rank suit low high }
    history { round playoff points { seat points } }
    solo { piles { index size wildRank cards closed points } current deadCount lastDead } } } } }"""
FINAL = """query($t: ID!) { table(id: $t) { status legalMoves shuffleSeed shuffleCommitment
  result { winners scores } seats { index kind score }
  state { toAct ... on FiveCrownsState { phase winners players { seat total } } } } }"""
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { version } events { cursor version type seat data } } }"""
SUB = "subscription($t: ID!) { tableEvents(tableId: $t) { cursor version type seat data } }"

MAX_MOVES = 2000  # human moves in one game
BOT_PATIENCE = 30.0  # seconds a bot may take to move, on a busy machine
PREFER = (("goOut", 0.9), ("layDown", 0.7), ("layOff", 0.5))  # random play, but going out


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load()


@pytest.fixture
async def api(registry: Registry) -> AsyncIterator[tuple[Client, TableService, MemoryStore]]:
    store = MemoryStore()
    async with serve(make_settings(), registry, store) as client:
        yield client, TableService(make_settings(), registry, store), store


# -- what a viewer may see -----------------------------------------------------------


def cards_in(value: Any) -> set[str]:
    """Every card string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if fc.is_card(value) else set()
    if isinstance(value, dict):
        return set().union(set(), *(cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(cards_in(v) for v in value))
    return set()


def public_cards(state: State) -> set[str]:
    """Cards everyone has seen: the discard pile (each was announced), the melds, a card
    taken from the discard pile, the solo piles and the dead solo discards."""
    out = set(state.discard) | {c for m in state.melds for c in m.meld.cards}
    if state.drawn is not None and state.drawn_from == DISCARD:
        out.add(state.drawn)
    if state.solo is not None:
        out |= {c for p in state.solo.piles for c in p.cards} | set(state.solo.dead)
        if state.solo.current is not None:
            out.add(state.solo.current)
    return out


def visible(state: State, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) may see now."""
    out = {c for m in state.melds for c in m.meld.cards}
    if state.discard:
        out.add(state.discard[-1])
    if state.drawn is not None and state.drawn_from == DISCARD:
        out.add(state.drawn)
    if seat is not None and seat in state.seats:
        out |= set(state.hands[state.seats.index(seat)])
    if state.solo is not None:
        out |= {c for p in state.solo.piles for c in p.cards}
        if state.solo.dead:
            out.add(state.solo.dead[-1])
        if state.solo.current is not None:
            out.add(state.solo.current)
    return out


def check_view(table: dict[str, Any], state: State, seat: int | None, deck_size: int) -> None:
    """One viewer's ``table`` answer against the server's truth."""
    view = table["state"]
    leaked = cards_in(table) - visible(state, seat)
    assert not leaked, (seat, leaked)
    pos = state.seats.index(seat) if seat is not None and seat in state.seats else None
    assert view["hand"] == (None if pos is None else list(state.hands[pos]))
    assert [p["handSize"] for p in view["players"]] == [len(h) for h in state.hands]
    assert (view["stockSize"], view["discardSize"]) == (len(state.stock), len(state.discard))
    counted = view["stockSize"] + view["discardSize"]
    counted += sum(p["handSize"] for p in view["players"])
    counted += sum(len(m["cards"]) for m in view["melds"])
    if view["solo"] is not None:
        solo = view["solo"]
        counted += sum(len(p["cards"]) for p in solo["piles"]) + solo["deadCount"]
        counted += solo["current"] is not None
    assert counted == deck_size, "the public counts lose or make cards"
    if seat is None or pos is None or seat not in view["toAct"]:
        assert table["legalMoves"] == []


# -- a table and its players -----------------------------------------------------------


@dataclass
class Game:
    """One table being played through the API, and what the test saw of it."""

    client: Client
    service: TableService
    store: MemoryStore
    table_id: str
    host: str
    rules: list[str]
    players: int
    tokens: dict[int, str] = field(default_factory=dict)
    bots: set[int] = field(default_factory=set)
    seen: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)
    answered: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    commitment: str = ""

    @property
    def deck(self) -> Counter[str]:
        return table_deck(self.rules, self.players)

    async def truth(self) -> Loaded:
        loaded = await self.service.reads.load(self.table_id)
        assert loaded is not None
        return loaded

    async def view(self, seat: int | None) -> dict[str, Any]:
        token = self.tokens.get(seat) if seat is not None else None
        table: dict[str, Any] = (await self.client.q(VIEW, token, t=self.table_id))["table"]
        return table


def pick_rules(pick: random.Random, defs: list[dict[str, Any]], players: int) -> list[str]:
    """A random set of house rules, each with a coin flip, keeping only those that fit the
    player count and conflict with none chosen before (as ``game { houseRules }`` says)."""
    chosen: dict[str, dict[str, Any]] = {}
    for rule in sorted(defs, key=lambda r: str(r["id"])):
        if pick.random() < 0.5:
            continue
        if rule["minPlayers"] is not None and players < rule["minPlayers"]:
            continue
        if rule["maxPlayers"] is not None and players > rule["maxPlayers"]:
            continue
        if any(c in chosen for c in rule["conflictsWith"]) or any(
            rule["id"] in other["conflictsWith"] for other in chosen.values()
        ):
            continue
        chosen[rule["id"]] = rule
    return sorted(chosen)


def pick_options(pick: random.Random, players: int) -> dict[str, Any]:
    return {
        "rounds": pick.randint(1, 4 if players <= 4 else 3),
        "tieBreak": pick.choice(["shared", "playoffRound"]),
        "firstDealer": pick.choice(["seat0", "random"]),
    }


async def follow(c: Client, table_id: str, token: str | None, out: list[dict[str, Any]]) -> None:
    """Subscribe to the table's events as ``token`` until the game finishes."""
    async with c.ws() as conn:
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        payload = {"query": SUB, "variables": {"t": table_id}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while True:
            msg = await ws_next(conn, 20)
            assert msg["type"] == "next", msg
            event = msg["payload"]["data"]["tableEvents"]
            out.append(event)
            if event["type"] == "game.finished":
                return


async def open_game(
    api: tuple[Client, TableService, MemoryStore],
    pick: random.Random,
    seats: int,
    seated: Sequence[int],
    bots: Sequence[int],
    rules: list[str],
    options: dict[str, Any],
) -> tuple[Game, list[asyncio.Future[None]]]:
    client, service, store = api
    made = (await client.q(CREATE, r=rules, o=options, s=seats))["createTable"]
    game = Game(
        client,
        service,
        store,
        made["table"]["id"],
        made["hostToken"],
        rules,
        len(seated),
        commitment=made["table"]["shuffleCommitment"],
    )
    for seat in seated:
        if seat in bots:
            await client.q(ADD_BOT, game.host, t=game.table_id, s=seat)
            game.bots.add(seat)
        else:
            seed = f"client-{pick.random()}"
            joined = (await client.q(JOIN, t=game.table_id, n=f"P{seat}", s=seat, c=seed))[
                "joinTable"
            ]
            assert joined["seat"] == seat
            game.tokens[seat] = joined["playerToken"]
    followers = []
    for seat in (None, *game.tokens):
        game.seen[seat] = []
        token = game.tokens.get(seat) if seat is not None else None
        followers.append(
            asyncio.ensure_future(follow(client, game.table_id, token, game.seen[seat]))
        )
    await asyncio.sleep(0.05)  # let the subscriptions start (they replay from the start anyway)
    assert (await client.q(START, game.host, t=game.table_id))["startGame"]["status"] == "PLAYING"
    return game, followers


def choose(
    pick: random.Random,
    moves: list[dict[str, Any]],
    bot: dict[str, Any],
    bot_share: float,
    hold_out: bool,
) -> Any:
    """A human's move: the bot's (``bot_share`` of the time), else a random legal one,
    going out (or laying down) most of the time when it can, so that rounds end. While
    ``hold_out``, it never goes out and mostly draws from the stock, so that the stock
    runs out and is made anew."""
    if hold_out:
        stock = {"fiveCrowns": {"draw": {"source": "STOCK"}}}
        if stock in moves and pick.random() < 0.8:
            return stock
        return pick.choice([m for m in moves if not {"goOut", "layDown"} & set(m["fiveCrowns"])])
    if pick.random() < bot_share:
        return {"fiveCrowns": bot}
    for kind, share in PREFER:
        options = [m for m in moves if kind in m["fiveCrowns"]]
        if options and pick.random() < share:
            return pick.choice(options)
    return pick.choice(moves)


async def probe_refusals(game: Game, seat: int, truth: Loaded) -> None:
    """Refused moves carry their code and change nothing."""
    client, tid = game.client, game.table_id
    before = (await game.view(seat))["version"]
    state: State = truth.state
    if state.solo is not None:
        wrong: Any = {"draw": {"source": "STOCK"}}
    elif state.phase == "DRAW":
        wrong = {"discard": {"card": state.hands[state.turn][0]}}
    else:
        wrong = {"draw": {"source": "STOCK"}}
    token = game.tokens[seat]
    assert await client.code(MOVE, token, t=tid, m={"fiveCrowns": wrong}) == "ILLEGAL_MOVE"
    bad = {"fiveCrowns": {"discard": {"card": "1Z"}}}
    assert await client.code(MOVE, token, t=tid, m=bad) == "BAD_INPUT"
    others = [s for s in game.tokens if s != seat]
    if others:
        move = {"fiveCrowns": truth.legal_moves(seat)[0]}
        assert await client.code(MOVE, game.tokens[others[0]], t=tid, m=move) == "NOT_YOUR_TURN"
    assert (await game.view(seat))["version"] == before


async def play(
    game: Game, pick: random.Random, views_every: int, bot_share: float, restock: bool = False
) -> int:
    """Play the game to its end; the number of human moves made. With ``restock``, the
    humans hold out until the stock has run out and been made anew once."""
    deck = game.deck
    human_moves = 0
    last = (0, 0)
    loop = asyncio.get_running_loop()
    moved = (-1, loop.time())  # the last version seen, and when it was first seen
    while human_moves < MAX_MOVES:
        truth = await game.truth()
        if truth.version != moved[0]:
            moved = (truth.version, loop.time())
        assert loop.time() - moved[1] < BOT_PATIENCE, "a bot does not move"
        state: State = truth.state
        assert Counter(state.all_cards()) == deck, "a card appeared or vanished"
        if state.round == last[0] and len(state.stock) > last[1]:
            restock = False  # done: the stock grew within a round
        last = (state.round, len(state.stock))
        if truth.table.status == "FINISHED":
            assert truth.to_act() == ()
            return human_moves
        (seat,) = truth.to_act()
        assert truth.legal_moves(seat), "the player to act has no legal move"
        if seat in game.bots:
            await asyncio.sleep(0.002)  # the bot moves from the server on its own
            continue
        mine = await game.view(seat)
        listed = mine["legalMoves"]
        assert listed == [{"fiveCrowns": m} for m in truth.legal_moves(seat)]
        assert mine["state"]["toAct"] == [seat]
        if human_moves % views_every == 0:
            for viewer in (None, *game.tokens):
                table = mine if viewer == seat else await game.view(viewer)
                check_view(table, state, viewer, sum(deck.values()))
        if human_moves % 11 == 5:
            await probe_refusals(game, seat, truth)
        bot = GAME.bot(state, seat, Rng(b"human-bot", truth.version), truth.rules)
        move = choose(pick, listed, bot, bot_share, restock)
        done = (await game.client.q(MOVE, game.tokens[seat], t=game.table_id, m=move))["makeMove"]
        assert done["table"]["version"] == truth.version + 1
        game.answered.extend((seat, e) for e in done["events"])
        human_moves += 1
    raise AssertionError("the game did not end")


# -- after the game --------------------------------------------------------------------


def seen_as(event: Any, seat: int | None) -> dict[str, Any]:
    """A stored event's data as ``seat`` must receive it."""
    want = dict(event.data)
    own = event.private.get(str(seat)) if seat is not None else None
    if own is not None:
        want["private"] = own
    return want


def plain(events: Sequence[Any]) -> list[tuple[str, int | None, Any, Any]]:
    return [
        (
            e.type,
            e.seat,
            json.loads(json.dumps(e.data)),
            {str(k): json.loads(json.dumps(v)) for k, v in e.private.items()},
        )
        for e in events
    ]


def check_commit_secrecy(
    before: State | None, after: State, actor: int | None, events: Sequence[Any]
) -> None:
    """No public part of a commit's events names a card hidden before and after it, other
    than the actor's own cards that left its hand; private parts go to their own seat."""
    allowed = public_cards(after)
    released: Counter[str] = Counter()
    if before is not None:
        allowed |= public_cards(before)
        if actor is not None:
            pos = before.seats.index(actor)
            released = Counter(before.hands[pos])
            scored = [e for e in events if e.type == "hand.scored" and e.seat == actor]
            if any(e.type == "round.scored" for e in events):  # the hands are dealt anew
                kept = scored[0].private[actor]["leftover"] if scored else []
            else:
                kept = list(after.hands[pos])
            for e in scored:
                assert len(e.private[actor]["leftover"]) == e.data["cardsLeft"]
            released -= Counter(kept)
    for e in events:
        if e.type == "round.dealt":
            leaked = cards_in(e.data) - public_cards(after)
            assert set(e.private) == set(e.data["players"])
            for seat, part in e.private.items():
                assert part["hand"] == list(after.hands[after.seats.index(seat)])
        else:
            leaked = cards_in(e.data) - allowed - set(released)
            assert set(e.private) <= {e.seat}, e
        assert not leaked, (e.type, leaked)


def replay_events(game: Game, truth: Loaded, stored: Sequence[Any], moves: list[Any]) -> None:
    """Re-run the game from its revealed seed, commit by commit: the same events, the deck
    whole in every state, and no secret in a public part."""
    table = truth.table
    assert table.revealed_seed is not None
    seeds = [table.seats[i].client_seed or "" for i in table.play_order]
    seed = fairness.game_seed(bytes.fromhex(table.revealed_seed), seeds)
    by_version: dict[int, list[Any]] = {}
    for e in stored:
        if e.type in GAME.event_types:
            by_version.setdefault(e.version, []).append(e)
    start = next(e.version for e in stored if e.type == "game.started")
    assert sorted(by_version) == list(range(start, start + len(moves) + 1))
    rng = Rng(seed)
    rules = truth.rules
    state, events = GAME.setup(SetupContext(table.play_order, dict(table.options), rules, rng))
    assert plain(events) == plain(by_version[start])
    check_commit_secrecy(None, state, None, events)
    for i, entry in enumerate(moves):
        assert Counter(state.all_cards()) == game.deck
        rng = Rng(seed, rng.counter)
        out = GAME.apply(state, int(entry["seat"]), entry["move"], rng, rules)
        assert isinstance(out, Outcome), (i, entry, out)
        assert plain(out.events) == plain(by_version[start + 1 + i]), f"commit {i + 1} differs"
        check_commit_secrecy(state, out.state, int(entry["seat"]), out.events)
        state = out.state
    assert GAME.encode(state) == table.game


async def all_events(game: Game) -> list[Any]:
    """Every stored event of the table, page by page."""
    out: list[Any] = []
    while True:
        page = await game.store.events(game.table_id, out[-1].cursor if out else None, 500)
        if not page:
            return out
        out += page


async def finish(game: Game, followers: list[asyncio.Future[None]]) -> dict[str, Any]:
    """The checks once the game is over; the final table as a spectator sees it."""
    client = game.client
    final = (await client.q(FINAL, t=game.table_id))["table"]
    assert final["status"] == "FINISHED" and final["legalMoves"] == []
    assert final["state"]["toAct"] == [] and final["state"]["phase"] == "GAME_OVER"
    assert final["result"]["winners"] == final["state"]["winners"]
    totals = {p["seat"]: p["total"] for p in final["state"]["players"]}
    assert {s: final["result"]["scores"][s] for s in totals} == totals
    # fairness: the seed revealed is the one committed to at creation
    assert final["shuffleCommitment"] == game.commitment
    assert fairness.verify(final["shuffleSeed"], game.commitment)
    await asyncio.wait_for(asyncio.gather(*followers), 30)
    stored = await all_events(game)
    # every subscriber got every event once, in order, with its own private part only
    for seat, events in game.seen.items():
        assert [e["cursor"] for e in events] == [e.cursor for e in stored]
        by_cursor = {e.cursor: e for e in stored}
        for e in events:
            assert e["data"] == seen_as(by_cursor[e["cursor"]], seat), (seat, e)
    by_cursor = {e.cursor: e for e in stored}
    for seat, e in game.answered:  # what makeMove answered the mover
        assert e["data"] == seen_as(by_cursor[e["cursor"]], seat)
    truth = await game.truth()
    moves = [json.loads(m) for m in await game.store.moves(game.table_id)]
    report = replay(truth.table, moves, truth.game, truth.rules)
    assert report.ok, report.reason
    replay_events(game, truth, stored, moves)
    return final  # type: ignore[no-any-return]


# -- the games -------------------------------------------------------------------------

# seats at the table, the seats taken (the others stay empty), which of them are bots
GAMES = [
    pytest.param(2, (0, 1), (), 1, 0.5, id="2p"),
    pytest.param(3, (0, 1, 2), (2,), 2, 0.5, id="3p-one-bot"),
    pytest.param(5, (0, 2, 3, 4), (3,), 3, 0.5, id="4p-seat-gap-one-bot"),
    pytest.param(6, tuple(range(6)), (1, 4), 4, 0.5, id="6p-two-bots"),
    pytest.param(7, tuple(range(7)), (0, 2, 4, 5), 5, 0.5, id="7p-four-bots"),
    pytest.param(2, (0, 1), (1,), 6, 0.5, id="2p-one-bot"),
    pytest.param(2, (0, 1), (), 7, 0.0, id="2p-random-play-restock"),
]


@pytest.mark.parametrize("seats, seated, bots, seed, bot_share", GAMES)
async def test_random_full_game(api, seats, seated, bots, seed, bot_share) -> None:
    pick = random.Random(seed)
    info = (await api[0].q(GAME_INFO))["game"]
    assert (info["minPlayers"], info["maxPlayers"]) == (1, 7)
    rules = pick_rules(pick, info["houseRules"], len(seated))
    options = pick_options(pick, len(seated))
    game, followers = await open_game(api, pick, seats, seated, bots, rules, options)
    truth = await game.truth()
    assert tuple(truth.table.play_order) == tuple(seated)
    assert sorted(r for r in truth.table.house_rules) == rules
    views_every = (1 if len(seated) <= 4 else 2) if bot_share else 5
    human_moves = await play(game, pick, views_every, bot_share, restock=not bot_share)
    assert human_moves > 0
    final = await finish(game, followers)
    if not bot_share:
        assert any(e.type == "stock.reshuffled" for e in await all_events(game))
    assert set(final["result"]["winners"]) <= set(seated)
    kinds = {s["index"]: s["kind"] for s in final["seats"]}
    assert {s for s, k in kinds.items() if k == "BOT"} == set(bots)
    assert {s for s, k in kinds.items() if k == "EMPTY"} == set(range(seats)) - set(seated)


async def test_solo_game(api) -> None:
    """The solo game (1 player): the piles are public, the stock is not."""
    pick = random.Random(9)
    game, followers = await open_game(api, pick, 1, (0,), (), [], {})
    await play(game, pick, views_every=1, bot_share=0.5)
    final = await finish(game, followers)
    assert final["result"]["winners"] in ([], [0])
    assert final["result"]["winners"] == ([0] if final["result"]["scores"] == [0] else [])


def test_the_random_rule_sets_cover_every_house_rule(registry: Registry) -> None:
    """The seeds above draw, between them, every house rule of the game."""
    defs = [
        {
            "id": r.id,
            "conflictsWith": list(r.conflicts_with),
            "minPlayers": r.min_players,
            "maxPlayers": r.max_players,
        }
        for r in registry.rules_of("five-crowns")
    ]
    drawn: set[str] = set()
    for param in GAMES:
        _, seated, _, seed, _ = param.values
        drawn |= set(pick_rules(random.Random(seed), defs, len(seated)))
    assert drawn == {r.id for r in registry.rules_of("five-crowns")}
