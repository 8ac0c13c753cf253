"""What the security tests share: attackers' and viewers' clients, what each viewer may
know of each bundled game, and the latencies an ordinary client sees during an attack."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.server import Client, ws_init, ws_next

from tablestate_all_fives import rules as af_rules
from tablestate_five_by_five import rules as fbf_rules
from tablestate_five_crowns import rules as fc_rules
from tablestate_five_crowns.state import DISCARD as FC_DISCARD

# -- latencies ---------------------------------------------------------------------------

LATENCIES: list[tuple[str, int, float, float, float]] = []
"""(attack, ordinary requests, median, 95th percentile, worst) in seconds, for the report."""

REPORT: list[str] = []
"""Other lines for the report (the fuzzer's figures)."""

ORDINARY_BOUND = 5.0  # seconds an ordinary request may take while an attack runs


def record(attack: str, samples: list[float]) -> None:
    """Keep an ordinary client's latencies under ``attack`` (printed after the run) and
    check them against ``ORDINARY_BOUND``."""
    assert samples, f"{attack}: no ordinary request was measured"
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    LATENCIES.append((attack, len(ordered), ordered[len(ordered) // 2], p95, ordered[-1]))
    print(
        f"{attack}: {len(ordered)} ordinary requests, median {ordered[len(ordered) // 2] * 1000:.1f} ms,"
        f" p95 {p95 * 1000:.1f} ms, worst {ordered[-1] * 1000:.1f} ms"
    )
    assert ordered[-1] < ORDINARY_BOUND, f"{attack}: an ordinary request took {ordered[-1]:.2f} s"


async def ordinary(
    c: Client, query: str, stop: asyncio.Event, every: float = 0.05, **variables: Any
) -> list[float]:
    """An ordinary client from an address of its own, asking ``query`` until ``stop``; the
    latency of each answer (each must succeed)."""
    samples: list[float] = []
    headers = {"X-Forwarded-For": "192.0.2.200"}  # a client of its own, not the attacker
    while not stop.is_set():
        start = time.perf_counter()
        r = await c.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers
        )
        samples.append(time.perf_counter() - start)
        body = r.json()
        assert r.status_code == 200 and not body.get("errors"), body
        await asyncio.sleep(every)
    return samples


async def under_attack(
    c: Client,
    attack: str,
    attacker: Callable[[asyncio.Event], Any],
    seconds: float = 2.0,
    query: str = "{ games { id } }",
    **variables: Any,
) -> Any:
    """Run ``attacker(stop)`` for ``seconds`` while an ordinary client asks ``query``;
    record the ordinary latencies; the attacker's result."""
    stop = asyncio.Event()
    bystander = asyncio.ensure_future(ordinary(c, query, stop, **variables))
    attack_task = asyncio.ensure_future(attacker(stop))
    await asyncio.sleep(seconds)
    stop.set()
    result = await asyncio.wait_for(attack_task, 30)
    record(attack, await asyncio.wait_for(bystander, 30))
    return result


class Attacker:
    """``attacker.py`` in a process of its own (started once, reused): floods a server
    for a while and tells the codes it got."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("attacker.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        assert json.loads(self.proc.stdout.readline()) == {"ready": True}

    async def run(
        self,
        url: str,
        body: str,
        seconds: float,
        *,
        workers: int = 8,
        headers: dict[str, str] | None = None,
        rotate: bool = False,
    ) -> Counter[str]:
        spec = {
            "url": url,
            "body": body,
            "seconds": seconds,
            "workers": workers,
            "headers": headers or {},
            "rotate": rotate,
        }
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(spec).encode() + b"\n")
        self.proc.stdin.flush()
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), seconds + 60)
        return Counter(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def xff(n: int) -> dict[str, str]:
    """Headers of a request forwarded for the n-th attacker's address."""
    return {"X-Forwarded-For": f"198.51.100.{n % 250 + 1}"}


# -- GraphQL helpers -----------------------------------------------------------------------

INTROSPECT_TYPES = """{ __schema { types { name kind
  interfaces { name }
  fields { name args { name type { kind ofType { kind } } }
    type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }"""


def _named(ref: dict[str, Any]) -> dict[str, Any]:
    while ref.get("ofType"):
        ref = ref["ofType"]
    return ref


async def state_fragment(c: Client) -> str:
    """``fragment AllStates on GameState``: every field of every game's state type (nested
    objects included), built from the schema itself, so that on any table it asks for
    every game's state at once and a field of another game's type can be seen to stay
    empty. Fields that several state types share are aliased ``<Type>__<field>``."""
    types = {t["name"]: t for t in (await c.q(INTROSPECT_TYPES))["__schema"]["types"]}
    states = sorted(
        n
        for n, t in types.items()
        if any(i["name"] == "GameState" for i in t.get("interfaces") or [])
    )
    seen = Counter(f["name"] for n in states for f in types[n]["fields"])
    shared = {name for name, n in seen.items() if n > 1} - {"gameId", "toAct"}

    def select(name: str, depth: int, top: bool) -> str:
        out = []
        for f in types[name].get("fields") or []:
            if any(a["type"]["kind"] == "NON_NULL" for a in f["args"]):
                continue
            alias = f"{name}__{f['name']}: " if top and f["name"] in shared else ""
            inner = _named(f["type"])
            if inner["kind"] in ("OBJECT", "INTERFACE"):
                if depth < 4:
                    out.append(
                        f"{alias}{f['name']} {{ {select(inner['name'], depth + 1, False)} }}"
                    )
            else:
                out.append(f"{alias}{f['name']}")
        return " ".join(out) or "__typename"

    parts = " ".join(f"... on {n} {{ {select(n, 1, True)} }}" for n in states)
    return f"fragment AllStates on GameState {{ __typename gameId toAct {parts} }}"


def unalias(state: Any) -> Any:
    """A state answered through ``AllStates``, under its fields' own names, without the
    ids the core gives to a state and the objects inside it (a game's view has none)."""
    if isinstance(state, list):
        return [unalias(v) for v in state]
    if not isinstance(state, dict):
        return state
    named = {k.split("__", 1)[1] if "__" in k[2:] else k: v for k, v in state.items()}
    return {k: unalias(v) for k, v in named.items() if k != "id"}


def viewer_query(fragment: str) -> str:
    """Everything a viewer can ask of a table, with aliases, fragments on every game's
    state type, nested tables through events and the table list."""
    return f"""query($t: ID!) {{
  viewer(tableId: $t) {{ tableId seat isHost }}
  table(id: $t) {{
    id version status legalMoves shuffleSeed shuffleCommitment clientSeeds
    result {{ winners scores }} seats {{ index name kind score isHost }}
    state {{ ...AllStates }}
    again: state {{ toAct ...AllStates }}
    moves: legalMoves
    events(last: 3) {{ cursor version type seat data table {{ version legalMoves state {{ ...AllStates }} }} }}
  }}
  tables(first: 3) {{ nodes {{ id version legalMoves shuffleSeed state {{ ...AllStates }} }} }}
}}
{fragment}"""


def subscription(fragment: str) -> str:
    return f"""subscription($t: ID!) {{ tableEvents(tableId: $t) {{
  cursor version type seat data table {{ version status shuffleSeed legalMoves state {{ ...AllStates }} }} }} }}
{fragment}"""


@dataclass
class Follower:
    """A viewer following a table over a WebSocket; every message it receives."""

    received: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Future[None] | None = None


async def follow(c: Client, token: str | None, query: str, table_id: str, out: Follower) -> None:
    async with c.ws() as conn:
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        payload = {"query": query, "variables": {"t": table_id}}
        await conn.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while True:
            msg = await ws_next(conn, 30)
            out.received.append(msg)
            assert msg["type"] == "next", msg
            if msg["payload"]["data"]["tableEvents"]["type"] == "game.finished":
                return


# -- what each viewer may know, per game -------------------------------------------------


def strings(value: Any) -> Iterable[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


class Secrets:
    """A game's hidden items: ``items`` picks them out of JSON; ``secret(state, seat)`` is
    what that viewer (None: a spectator) may not know now: items in places hidden from it
    and in no place it sees; ``released`` what a commit showed everyone of its actor's."""

    def items(self, value: Any) -> set[str]:
        raise NotImplementedError

    def hidden(self, state: Any, seat: int | None) -> set[str]:
        raise NotImplementedError

    def visible(self, state: Any, seat: int | None) -> set[str]:
        raise NotImplementedError

    def released(self, before: Any, after: Any, actor: int | None) -> set[str]:
        return set()

    def secret(self, state: Any, seat: int | None) -> set[str]:
        if state is None:
            return set()
        return self.hidden(state, seat) - self.visible(state, seat)


class FiveCrowns(Secrets):
    def items(self, value: Any) -> set[str]:
        return {s for s in strings(value) if fc_rules.is_card(s)}

    def _pos(self, state: Any, seat: int | None) -> int | None:
        return state.seats.index(seat) if seat is not None and seat in state.seats else None

    def hidden(self, state: Any, seat: int | None) -> set[str]:
        pos = self._pos(state, seat)
        out = set(state.stock)
        for i, hand in enumerate(state.hands):
            if i != pos:
                out |= set(hand)
        return out

    def visible(self, state: Any, seat: int | None) -> set[str]:
        pos = self._pos(state, seat)
        out = set(state.discard) | {c for m in state.melds for c in m.meld.cards}
        if pos is not None:
            out |= set(state.hands[pos])
        if state.drawn is not None and (state.drawn_from == FC_DISCARD or pos == state.turn):
            out.add(state.drawn)
        if state.solo is not None:
            out |= {c for p in state.solo.piles for c in p.cards} | set(state.solo.dead)
            if state.solo.current is not None:
                out.add(state.solo.current)
        return out

    def released(self, before: Any, after: Any, actor: int | None) -> set[str]:
        pos = self._pos(before, actor)
        if pos is None:
            return set()
        gone = Counter(before.hands[pos]) - Counter(after.hands[self._pos(after, actor)])
        return set(gone) & (self.visible(after, None) | set(after.discard))


class AllFives(Secrets):
    def items(self, value: Any) -> set[str]:
        return {s for s in strings(value) if af_rules.is_card(s)}

    def hidden(self, state: Any, seat: int | None) -> set[str]:
        pos = state.position(seat) if seat is not None else None
        out = set(state.stock) | set(state.discards)
        for i, hand in enumerate(state.hands):
            if i != pos:
                out |= set(hand)
        return out

    def visible(self, state: Any, seat: int | None) -> set[str]:
        pos = state.position(seat) if seat is not None else None
        out = {c for _, c in state.trick} | {c for _, c in state.last_trick}
        out |= set(state.set_aside) | {c for won in state.won for c in won}
        if state.turn_up is not None:
            out.add(state.turn_up)
        if pos is not None:
            out |= set(state.hands[pos])
        return out

    def released(self, before: Any, after: Any, actor: int | None) -> set[str]:
        pos = before.position(actor) if actor is not None else None
        if pos is None:
            return set()
        if after.deal_no != before.deal_no:  # the last card of a deal: played for all to see
            return set(before.hands[pos])
        return (set(before.hands[pos]) - set(after.hands[pos])) - set(after.discards)


FBF_NAMES = set(fbf_rules.OBJECTIVE_BY_ID) | set(fbf_rules.SPECIAL_ACTIONS)


class FiveByFive(Secrets):
    """Objective cards and special action cards (colour action cards are named like the
    dice colours, so strings cannot tell them apart; the per-game tests cover them)."""

    def items(self, value: Any) -> set[str]:
        return {s for s in strings(value) if s in FBF_NAMES}

    def hidden(self, state: Any, seat: int | None) -> set[str]:
        out = set(state.objective_deck) | set(state.objective_discard)
        for deck in state.decks:
            out |= set(deck[1:])
        for p in state.players:
            if p.seat != seat:
                out |= set(p.actions)
                if not state.config.open_objectives:
                    out |= set(p.objectives)
        return out & FBF_NAMES

    def visible(self, state: Any, seat: int | None) -> set[str]:
        out = set(fbf_rules.SPECIAL_IDS) | set(state.action_discard)
        out |= fbf_rules.satisfied_objectives(
            state.board, each_color_min=state.config.each_color_min, lines=state.config.lines
        )
        out |= {deck[0] for deck in state.decks if deck}
        for p in state.players:
            out |= {oid for oid, _ in p.scored}
            if p.seat == seat:
                out |= set(p.actions) | set(p.objectives)
            if state.config.open_objectives:
                out |= set(p.objectives)
        return out

    def released(self, before: Any, after: Any, actor: int | None) -> set[str]:
        mine = [p for p in before.players if p.seat == actor]
        now = [p for p in after.players if p.seat == actor]
        if not mine or not now:
            return set()
        return set(mine[0].actions) - set(now[0].actions)


SECRETS: dict[str, Secrets] = {
    "five-crowns": FiveCrowns(),
    "all-fives": AllFives(),
    "five-by-five": FiveByFive(),
}
