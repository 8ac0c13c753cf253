"""Seeing what you must not: random games of every bundled game, every response and every
event each viewer receives checked against what that viewer may know.

Three seats and a spectator each follow the table over a WebSocket (every event, with the
table as they see it) and ask, at every step, for everything a viewer can ask: aliases,
fragments on every game's state type, tables nested under events and the table list. The
server's truth is read from the same store. Checked:

- no response or event names an item (a card, an objective, a special action) that the
  viewer may not know: one in a place hidden from it (another hand, the stock, a
  face-down pile) and in no place it sees; an event may name what its commit showed
  everyone (the actor's played cards), nothing else hidden before and after it;
- the state a viewer gets is exactly the engine's view for that viewer, and fragments on
  other games' state types stay empty; ``legalMoves`` are empty but for the seat to act;
- every event delivered is the stored one with the viewer's own private part only;
- error messages of refused moves (another seat's move, a move naming a hidden card)
  name nothing hidden that the request did not name itself;
- the seed: ``shuffleSeed`` is null until FINISHED, and neither the server seed nor the
  game seed appears in any response, event or log line before then;
- tokens never appear in a log line, and metric labels carry no table id or token.

Every game is played twice: by players holding their seat tokens, and by signed-in players
(JWTs of keys made here, a JWKS in a file) beside a signed-in viewer without a seat, who
sees what a spectator sees. One game of each by default; ``TABLESTATE_SECURITY_GAMES=N``
plays N of each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from support.jwts import Issuer, Key, sign_in_settings
from support.jwts import token as signed
from support.server import Client, make_settings, serve

from tablestate.engine import fairness
from tablestate.engine.views import Sight
from tablestate.logs import JsonFormatter
from tablestate.plugins import camel
from tablestate.store.memory import MemoryStore
from tablestate.tables import Loaded, TableService

from .kit import SECRETS, Follower, follow, state_fragment, subscription, unalias, viewer_query

GAMES = {
    "five-crowns": {"rounds": 1, "tieBreak": "shared"},
    "all-fives": {"targetScore": 15},
    "five-by-five": {"prefilledSquares": 20},
}
PLAYERS = 3
RUNS = int(os.environ.get("TABLESTATE_SECURITY_GAMES", "1"))
MAX_MOVES = 1500
SETTINGS = make_settings(max_aliases=200)
IDENTITIES = ["tokens", "signed-in"]
JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")


class Players:
    """Who plays: seat tokens, or signed-in users (``key`` signs their JWTs)."""

    def __init__(self, key: Key | None = None) -> None:
        self.key = key

    def jwt(self, seat: int | None) -> str | None:
        if self.key is None:
            return None
        return signed(self.key, f"player-{seat}" if seat is not None else "watcher")


INFO = "query($g: ID!) { game(id: $g) { houseRules { id conflictsWith minPlayers maxPlayers } } }"
CREATE = """mutation($g: ID!, $r: [ID!], $o: JSON, $s: Int) {
  createTable(gameId: $g, houseRules: $r, options: $o, seats: $s) { hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!, $s: Int, $c: String) {
  joinTable(tableId: $t, name: $n, seat: $s, clientSeed: $c) { seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status version } }"


def _move_query(fragment: str) -> str:
    return f"""mutation($t: ID!, $m: MoveInput!) {{ makeMove(tableId: $t, move: $m) {{
  table {{ version status shuffleSeed legalMoves state {{ ...AllStates }} }}
  events {{ cursor version type seat data }} }} }}
{fragment}"""


def pick_rules(pick: random.Random, rules: list[dict[str, Any]], players: int) -> list[str]:
    chosen: list[str] = []
    for rule in sorted(rules, key=lambda r: str(r["id"])):
        lo, hi = rule["minPlayers"] or 1, rule["maxPlayers"] or 99
        if not lo <= players <= hi or pick.random() < 0.5:
            continue
        if set(rule["conflictsWith"]) & set(chosen) or any(
            rule["id"] in o["conflictsWith"] for o in rules if o["id"] in chosen
        ):
            continue
        chosen.append(rule["id"])
    return chosen


class Checker:
    """Everything one game's viewers received, checked against the truth by version."""

    def __init__(self, game_id: str, table_id: str, service: TableService) -> None:
        self.game_id = game_id
        self.secrets = SECRETS[game_id]
        self.table_id = table_id
        self.service = service
        self.states: dict[int, Any] = {}
        self.loaded: dict[int, Loaded] = {}
        self.type_name = ""
        self.seeds: set[str] = set()
        self.final_version: int | None = None
        self.actors: dict[int, int] = {}  # version -> the seat whose move made it
        self.checked = 0
        self.truth: dict[str, Any] = {}  # cursor -> the event as stored

    async def learn(self, store: MemoryStore) -> None:
        """The events stored since the last call (each viewer's own private part of them
        is theirs to see, whatever the states before and after say: the cards of a run
        that a void deal takes back were seen by the players they were dealt to)."""
        after = next(reversed(self.truth), None)
        for e in await store.events(self.table_id, after, 10_000):
            self.truth[e.cursor] = e

    def remember(self, loaded: Loaded) -> None:
        self.states[loaded.version] = loaded.state
        self.loaded[loaded.version] = loaded
        if loaded.state is not None and not self.seeds:
            server = fairness.server_seed(
                self.service.settings.secret, loaded.table.id, loaded.table.nonce
            )
            self.seeds = {server.hex(), self.service.seeds.game(loaded.table).hex()}
        if loaded.state is not None and loaded.game.state_type is not None:
            self.type_name = loaded.game.state_type.__name__

    def _no_seed(self, blob: Any, version: int, where: str) -> None:
        loaded = self.loaded.get(version)
        if loaded is None or loaded.table.status == "FINISHED":
            return
        text = json.dumps(blob)
        for seed in self.seeds:
            assert seed not in text, f"{where}: the seed before the end"

    def _no_secret(
        self, blob: Any, forbidden: set[str], where: str, allowed: set[str] | None = None
    ) -> None:
        leaked = (self.secrets.items(blob) & forbidden) - (allowed or set())
        assert not leaked, f"{where}: {sorted(leaked)}"
        self.checked += 1

    def view(self, table: dict[str, Any], seat: int | None, where: str) -> None:
        """A table as ``seat`` received it (state, legalMoves, seed) at its version."""
        v = table["version"]
        loaded = self.loaded.get(v)
        assert loaded is not None, f"{where}: version {v} never committed"
        self._no_seed(table, v, where)
        if "shuffleSeed" in table and loaded.table.status != "FINISHED":
            assert table["shuffleSeed"] is None, f"{where}: the seed before the end"
        forbidden = self.secrets.secret(loaded.state, seat)
        for key in ("state", "again", "legalMoves", "moves", "result"):
            if key in table:
                self._no_secret(table[key], forbidden, f"{where} {key}")
        if "legalMoves" in table:
            acting = seat is not None and seat in loaded.to_act()
            want = [{camel(self.game_id): dict(m)} for m in loaded.legal_moves(seat)]
            assert table["legalMoves"] == (want if acting else []), where
        for key in ("state", "again"):
            state = table.get(key)
            if state is None or loaded.state is None:
                continue
            assert state["__typename"] == self.type_name, f"{where}: another game's fragment"
            expected = loaded.view(Sight(seat)) or {}
            for name, value in unalias(state).items():
                if name in expected:
                    assert value == expected[name], f"{where}: {key}.{name} is not the view"

    def event(self, event: dict[str, Any], seat: int | None, where: str) -> None:
        v = event["version"]
        before, after = self.states.get(v - 1), self.states.get(v)
        self._no_seed(event, v, where)
        if after is None:
            return
        forbidden = self.secrets.secret(after, seat)
        allowed: set[str] = set()
        if before is not None:
            forbidden &= self.secrets.secret(before, seat)
            allowed = self.secrets.released(before, after, self.actors.get(v))
        private = event["data"].get("private") if isinstance(event["data"], dict) else None
        if private is not None:
            assert seat is not None, f"{where}: a spectator got a private part"
            stored = self.truth.get(event["cursor"])
            assert stored is not None, f"{where}: an event the store does not hold"
            assert private == stored.private.get(str(seat)), f"{where}: not its own part"
            allowed = allowed | self.secrets.items(private)
        self._no_secret(event["data"], forbidden, f"{where} {event['type']}", allowed)

    def error(self, body: dict[str, Any], seat: int | None, request: Any, where: str) -> str:
        """A refusal: its code; its message names nothing hidden the request did not."""
        assert body.get("errors"), f"{where}: expected a refusal, got {str(body)[:300]}"
        err = body["errors"][0]
        truth = self.loaded[max(self.loaded)]
        forbidden = self.secrets.secret(truth.state, seat)
        self._no_secret(err, forbidden, where, self.secrets.items(request))
        self._no_seed(err, truth.version, where)
        return str(err["extensions"]["code"])


async def _play(
    c: Client, store: MemoryStore, registry: Any, game_id: str, seed: int, players: Players
) -> Checker:
    service = TableService(SETTINGS, registry, store)
    pick = random.Random(seed)
    fragment = await state_fragment(c)
    view_q, sub_q, move_q = viewer_query(fragment), subscription(fragment), _move_query(fragment)
    rules = pick_rules(pick, (await c.q(INFO, g=game_id))["game"]["houseRules"], PLAYERS)
    creator = players.jwt(0)  # a signed-in host plays seat 0 too
    made = await c.q(CREATE, creator, g=game_id, r=rules, o=GAMES[game_id], s=PLAYERS)
    tid, host = made["createTable"]["table"]["id"], made["createTable"]["hostToken"]
    tokens: dict[int | None, str | None] = {None: players.jwt(None)}
    for s in range(PLAYERS):
        joined = await c.q(JOIN, players.jwt(s), t=tid, n=f"P{s}", s=s, c=f"seed-{seed}-{s}")
        tokens[s] = players.jwt(s) or joined["joinTable"]["playerToken"]
    check = Checker(game_id, tid, service)
    followers = {s: Follower() for s in tokens}
    for s, f in followers.items():
        f.task = asyncio.ensure_future(follow(c, tokens[s], sub_q, tid, f))
    await asyncio.sleep(0.1)
    loaded = await service.reads.load(tid)
    assert loaded is not None
    check.remember(loaded)
    await c.q(START, host, t=tid)
    for step in range(MAX_MOVES):
        await check.learn(store)
        truth = await service.reads.load(tid)
        assert truth is not None
        check.remember(truth)
        if truth.table.status == "FINISHED":
            break
        for s, token in tokens.items():
            body = await c.raw(view_q, token, t=tid)
            assert not body.get("errors"), body["errors"]
            data = body["data"]
            where = f"{game_id} v{truth.version} seat {s} query"
            assert (data["viewer"] or {}).get("seat") == s
            check.view(data["table"], s, where)
            for e in data["table"]["events"]:
                check.event(e, s, where + " events")
                check.view(e["table"], s, where + " events.table")
            for node in data["tables"]["nodes"]:
                if node["id"] == tid:
                    check.view(node, s, where + " tables")
        actor = truth.to_act()[0]
        legal = [{camel(game_id): dict(m)} for m in truth.legal_moves(actor)]
        if step % 5 == 0:
            await _probe(c, check, tokens, actor, legal, truth, pick)
        move = pick.choice(legal)
        body = await c.raw(move_q, tokens[actor], t=tid, m=move)
        assert not body.get("errors"), body
        done = body["data"]["makeMove"]
        after = await service.reads.load(tid)
        assert after is not None
        check.remember(after)
        check.actors[after.version] = actor
        await check.learn(store)
        check.view(done["table"], actor, f"{game_id} move v{after.version}")
        for e in done["events"]:
            check.event(e, actor, f"{game_id} move")
    else:
        raise AssertionError("the game did not end")
    final = await service.reads.load(tid)
    assert final is not None and final.table.status == "FINISHED"
    check.final_version = final.version
    assert final.table.revealed_seed in check.seeds  # revealed now, and only now
    await asyncio.wait_for(asyncio.gather(*(f.task for f in followers.values())), 60)  # type: ignore[arg-type]
    stored = {e.cursor: e for e in await store.events(tid, None, 10_000)}
    await check.learn(store)
    for s, f in followers.items():
        events = [m["payload"]["data"]["tableEvents"] for m in f.received]
        assert [e["cursor"] for e in events] == list(stored), f"seat {s} missed events"
        for e in events:
            where = f"{game_id} subscription seat {s}"
            want = dict(stored[e["cursor"]].data)
            own = stored[e["cursor"]].private.get(str(s)) if s is not None else None
            if own is not None:
                want["private"] = own
            assert e["data"] == want, f"{where}: not its own copy of {e['type']}"
            check.event(e, s, where)
            check.view(e["table"], s, where + " table")
    return check


async def _probe(
    c: Client,
    check: Checker,
    tokens: dict[int | None, str | None],
    actor: int,
    legal: list[dict[str, Any]],
    truth: Loaded,
    pick: random.Random,
) -> None:
    """Moves that must be refused, and whose refusals must tell nothing."""
    tid, v = check.table_id, truth.version
    plain = "mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) { table { version } } }"
    for s, token in tokens.items():
        if s == actor or (s is not None and s in truth.to_act()):
            continue
        move = pick.choice(legal)
        code = check.error(await c.raw(plain, token, t=tid, m=move), s, move, f"seat {s} probe")
        # nobody is refused as unknown; a signed-in viewer without a seat holds no seat here
        want = "NOT_YOUR_TURN" if s is not None else "FORBIDDEN" if token else "UNAUTHENTICATED"
        assert code == want, code
    # the actor names an item hidden from it in a move it may make
    hidden = sorted(check.secrets.secret(truth.state, actor))
    for move in legal[:3]:
        text = json.dumps(move)
        named = sorted(check.secrets.items(move))
        if not named or not hidden:
            continue
        forged = json.loads(text.replace(json.dumps(named[0]), json.dumps(pick.choice(hidden))))
        body = await c.raw(plain, tokens[actor], t=tid, m=forged)
        if not body.get("errors"):  # the same item can sit in two places (twin cards)
            raise AssertionError(f"a move naming a hidden item was accepted: {forged}")
        code = check.error(body, actor, forged, f"seat {actor} forged move")
        assert code in ("ILLEGAL_MOVE", "BAD_INPUT"), code
    after = await check.service.reads.load(tid)
    assert after is not None and after.version == v, "a refused move changed the table"


class _Keep(logging.Handler):
    def __init__(self, out: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        self.out.append(record)


@contextlib.contextmanager
def captured_logs() -> Iterator[list[logging.LogRecord]]:
    """Every log record of the block, whatever the configured level."""
    root = logging.getLogger()
    records: list[logging.LogRecord] = []
    handler, level = _Keep(records), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _metric_labels(text: str) -> list[tuple[str, str]]:
    return re.findall(r'(\w+)="([^"]*)"', text)


@pytest.mark.parametrize("identity", IDENTITIES)
@pytest.mark.parametrize("run", range(RUNS))
@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_random_game_shows_each_viewer_only_what_it_may_know(
    registry, game_id, run, identity, tmp_path
):
    store = MemoryStore()
    settings, players = SETTINGS, Players()
    if identity == "signed-in":
        issuer = Issuer(tmp_path)
        issuer.publish(Key.ec("ec-1"))
        settings = SETTINGS.with_overrides(**sign_in_settings(str(issuer.file)))
        players = Players(issuer.keys[0])
    with captured_logs() as records:
        await _game_and_metrics(registry, store, game_id, run, records, settings, players)


async def _game_and_metrics(
    registry: Any,
    store: MemoryStore,
    game_id: str,
    run: int,
    records: list[logging.LogRecord],
    settings: Any,
    players: Players,
) -> None:
    # every game's state type at once needs its shared field names aliased: many aliases
    async with serve(settings, registry, store) as c:
        seed = 1000 * run + sorted(GAMES).index(game_id)
        check = await _play(c, store, registry, game_id, seed, players)
        metrics = (await c.http.get("/metrics")).text
        tokens_seen = re.findall(r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{43}", metrics)
        assert not tokens_seen
        for name, value in _metric_labels(metrics):
            # ours, the histogram's buckets, the garbage collector's generations
            assert name in {"type", "code", "kind", "op", "le", "generation"}, name
            assert check.table_id not in value
    assert check.checked > 100
    formatter = JsonFormatter()
    lines = [formatter.format(r) for r in records]
    assert lines, "nothing was logged"
    for line in lines:
        for seed in check.seeds:
            assert seed not in line, "a seed in a log line"
        assert not re.search(r"\.[A-Za-z0-9_-]{43}\b", line), f"a token in a log line: {line}"
        assert not JWT.search(line), f"a JWT in a log line: {line}"


async def test_introspection_shows_no_secret_field(registry):
    """The schema is public and the same for everyone; nothing in it reads a token, a
    hash, the nonce or the server's seed."""
    from graphql import get_introspection_query

    query = get_introspection_query(descriptions=True, input_value_deprecation=True)
    async with serve(make_settings(), registry, MemoryStore()) as c:
        made = (await c.q(CREATE, g="five-crowns", r=[], o=None, s=2))["createTable"]
        seat = (await c.q(JOIN, t=made["table"]["id"], n="P", s=0, c=None))["joinTable"]
        answers = [
            await c.q(query, token) for token in (None, made["hostToken"], seat["playerToken"])
        ]
    assert answers[0] == answers[1] == answers[2]
    names: set[str] = set()
    for t in answers[0]["__schema"]["types"]:
        for f in (t.get("fields") or []) + (t.get("inputFields") or []):
            names.add(f["name"])
            names.update(a["name"] for a in f.get("args") or [])
    risky = {n for n in names if re.search(r"token|hash|secret|nonce|seed|snapshot|stock", n, re.I)}
    public = {"hostToken", "playerToken", "shuffleSeed", "shuffleCommitment", "clientSeeds",
              "clientSeed", "stockSize"}  # fmt: skip
    assert risky <= public, risky - public
