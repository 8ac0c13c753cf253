"""Fuzz the GraphQL API with operations generated from its own schema (hypothesis).

Each example is one operation built from the schema's types, fields and arguments:
root fields of queries, mutations or subscriptions, arguments inline or as variables,
selections with aliases and fragments on the state types, tokens valid, forged or absent;
mostly well-typed (ids, tokens, cursors, cards and legal moves taken from live tables),
sometimes ill-typed (wrong types, missing or unknown fields, odd strings, broken text).
It is sent over HTTP (POST or GET) or a WebSocket. Checked for every answer: no 5xx, every
error carries one of the API's codes and none is ``INTERNAL``, nothing logged at ERROR.
Checked at the end: every table still decodes, answers a query, keeps its invariants
(versions, events, cards and dice conserved, someone to act with a legal move).

    python bench/fuzz.py --seconds 300                 # memory store
    python bench/fuzz.py --seconds 300 --redis redis://127.0.0.1:6379/0

The test command runs it for ~10 s (tests/security/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import socket
import string
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402
from graphql import get_introspection_query, graphql_sync  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from tablestate.app import create_app  # noqa: E402
from tablestate.config import Settings  # noqa: E402
from tablestate.errors import CODES  # noqa: E402
from tablestate.plugins import Registry, load  # noqa: E402
from tablestate.server import options as server_options  # noqa: E402
from tablestate.store.base import StateStore  # noqa: E402
from tablestate.tables import TableService  # noqa: E402

# Hypothesis keeps caches in .hypothesis/ of the working folder; not in the checkout.
set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "tablestate-hypothesis"))

BUNDLED = {
    "five-crowns": {"rounds": 1},
    "all-fives": {"targetScore": 15},
    "five-by-five": {"prefilledSquares": 20},
}
ODD_STRINGS = [
    "",
    " ",
    "x" * 300,
    "é",
    "😀",
    "\u202e",
    "\x00",
    "\\",
    '"',
    "{}",
    "null",
    "1-0",
    "0-0",
    "-1",
    "99999999999999999999999-0",
    "1.5",
    "NaN",
    "<script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "%s%n",
    "a.b",
    ".",
    "ts:{t:x}",
]
ODD_NUMBERS = [0, 1, -1, 2, 3, 7, 100, 1000, 1001, 2**31 - 1, -(2**31), 2**31, 2**63, 1.5, -0.0]


# -- the server, in a thread of its own ----------------------------------------------------


class ServerThread:
    """The service under uvicorn in a thread with its own event loop."""

    def __init__(
        self, settings: Settings, registry: Registry, store: Callable[[], StateStore]
    ) -> None:
        self.settings, self.registry, self.make_store = settings, registry, store
        self.ready = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: uvicorn.Server | None = None
        self.app: Any = None
        self.store: Any = None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.store = self.make_store()
        self.app = create_app(self.settings, self.registry, self.store)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            log_config=None,  # uvicorn's errors reach the root logger, where they are counted
            **server_options(self.settings),
        )
        self.server = uvicorn.Server(config)
        task = asyncio.ensure_future(self.server.serve())
        while not self.server.started and not task.done():
            await asyncio.sleep(0.01)
        self.ready.set()
        await task

    def __enter__(self) -> ServerThread:
        self.thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.should_exit = True
        self.thread.join(30)

    def call(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop (its store belongs there)."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)


class ErrorLog(logging.Handler):
    """Every record at ERROR or above: a bug that a client may not have seen."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


# -- what the schema says -----------------------------------------------------------------


@dataclass
class Model:
    types: dict[str, dict[str, Any]]
    roots: dict[str, str]

    @classmethod
    def of(cls, schema: Any) -> Model:
        result = graphql_sync(schema, get_introspection_query(one_of=True))
        assert result.data is not None, result.errors
        data = result.data["__schema"]
        types = {t["name"]: t for t in data["types"]}
        roots = {
            kind: data[f"{kind}Type"]["name"]
            for kind in ("query", "mutation", "subscription")
            if data.get(f"{kind}Type")
        }
        return cls(types, roots)


def unwrap(ref: dict[str, Any]) -> dict[str, Any]:
    while ref.get("ofType"):
        ref = ref["ofType"]
    return ref


def type_string(ref: dict[str, Any]) -> str:
    if ref["kind"] == "NON_NULL":
        return type_string(ref["ofType"]) + "!"
    if ref["kind"] == "LIST":
        return "[" + type_string(ref["ofType"]) + "]"
    return str(ref["name"])


@dataclass
class Pools:
    """Values taken from the live server, so that well-typed operations also reach deep."""

    table_ids: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    rule_ids: list[str] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    moves: list[Any] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    options: list[Any] = field(default_factory=list)


# -- drawing an operation -----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


class Draw:
    """One operation, drawn piece by piece from ``data`` (so hypothesis can shrink it)."""

    def __init__(self, data: Any, model: Model, pools: Pools, bad: float) -> None:
        self.data, self.model, self.pools, self.bad = data, model, pools, bad
        self.variables: dict[str, Any] = {}
        self.declared: list[str] = []

    def chance(self, p: float) -> bool:
        return bool(self.data.draw(st.floats(0, 1)) < p)

    def pick(self, items: list[Any]) -> Any:
        if not items:
            return None
        return items[self.data.draw(st.integers(0, len(items) - 1))]

    # values ------------------------------------------------------------------------------

    def wrong(self) -> Any:
        return self.data.draw(
            st.one_of(st.sampled_from(ODD_STRINGS), st.sampled_from(ODD_NUMBERS), json_values)
        )

    def scalar(self, name: str, arg: str) -> Any:
        p = self.pools
        if name == "Int":
            return self.pick([0, 1, 2, 3, 5, 10, 20, 100, -1, 1000, 1001, 2**31 - 1])
        if name == "Float":
            return self.pick([0.0, 1.5, -3.25])
        if name == "Boolean":
            return self.data.draw(st.booleans())
        if name == "DateTime":
            return "2026-01-01T00:00:00Z"
        if name == "JSON":
            return (
                self.pick([*p.options, *p.moves, {}, [], None])
                if self.chance(0.7)
                else self.data.draw(json_values)
            )
        key = arg.lower()
        choices: list[Any] = []
        if "table" in key or key == "id":
            choices += p.table_ids
        if "game" in key or key == "id":
            choices += p.game_ids
        if "rule" in key:
            choices += p.rule_ids
        if key in ("after", "cursor"):
            choices += p.cursors
        if key in ("card", "die", "objective", "name", "clientseed", "idempotencykey"):
            choices += p.items
        choices += ["x", "P1", "ab" * 10]
        if self.chance(0.15):
            return self.pick(ODD_STRINGS)
        return self.pick(choices)

    def value(self, ref: dict[str, Any], arg: str, depth: int = 0) -> Any:
        if self.chance(self.bad * 0.3):
            return self.wrong()
        if ref["kind"] == "NON_NULL":
            if self.chance(self.bad * 0.1):
                return None
            return self.value(ref["ofType"], arg, depth)
        if self.chance(0.08):
            return None
        if ref["kind"] == "LIST":
            n = self.data.draw(st.integers(0, 3))
            return [self.value(ref["ofType"], arg, depth + 1) for _ in range(n)]
        t = self.model.types[ref["name"]]
        if t["kind"] == "SCALAR":
            return self.scalar(t["name"], arg)
        if t["kind"] == "ENUM":
            if self.chance(self.bad * 0.3):
                return self.pick(["NOPE", "open", ""])
            return self.pick([e["name"] for e in t["enumValues"]])
        if t["name"] == "MoveInput" and self.pools.moves and self.chance(0.6):
            move = self.pick(self.pools.moves)
            return self._mutate_json(move) if self.chance(self.bad) else move
        return self.input_object(t, depth)

    def input_object(self, t: dict[str, Any], depth: int) -> dict[str, Any]:
        fields = t["inputFields"] or []
        if depth > 4 or not fields:
            return {}
        out: dict[str, Any] = {}
        if t.get("isOneOf"):
            chosen = [self.pick(fields)]
            if self.chance(self.bad * 0.2):
                chosen.append(self.pick(fields))
        else:
            chosen = [f for f in fields if f["type"]["kind"] == "NON_NULL" or self.chance(0.5)]
        for f in chosen:
            if f["type"]["kind"] == "NON_NULL" and self.chance(self.bad * 0.1):
                continue  # a required field left out
            ref = {"kind": "NON_NULL", "ofType": f["type"]} if t.get("isOneOf") else f["type"]
            out[f["name"]] = self.value(ref, f["name"], depth + 1)
        if self.chance(self.bad * 0.1):
            out[self.pick(["nope", "__typename", "x"])] = 1
        return out

    def _mutate_json(self, value: Any) -> Any:
        text = json.dumps(value)
        items = [s for s in self.pools.items if s]
        if items and self.chance(0.7):
            strings = [s for s in set(_strings(value)) if s]
            if strings:
                return json.loads(
                    text.replace(json.dumps(self.pick(strings)), json.dumps(self.pick(items)), 1)
                )
        return self.wrong()

    # documents ---------------------------------------------------------------------------

    def literal(self, value: Any, ref: dict[str, Any] | None) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return json.dumps(value)
        if isinstance(value, str):
            named = unwrap(ref) if ref else None
            if (
                named
                and self.model.types.get(named["name"] or "", {}).get("kind") == "ENUM"
                and value.isidentifier()
            ):
                return value
            return json.dumps(value)
        if isinstance(value, list):
            return "[" + ", ".join(self.literal(v, ref and ref.get("ofType")) for v in value) + "]"
        if isinstance(value, dict):
            parts = []
            for k, v in value.items():
                name = k if k.isidentifier() else "k"
                parts.append(f"{name}: {self.literal(v, None)}")
            return "{" + ", ".join(parts) + "}"
        return json.dumps(str(value))

    def arguments(self, fdef: dict[str, Any]) -> str:
        parts = []
        for a in fdef.get("args") or []:
            required = a["type"]["kind"] == "NON_NULL" and a.get("defaultValue") is None
            if not required and not self.chance(0.5):
                continue
            if required and self.chance(self.bad * 0.1):
                continue
            value = self.value(a["type"], a["name"])
            if self.chance(0.5):
                name = f"v{len(self.declared)}"
                declared = type_string(a["type"])
                if self.chance(self.bad * 0.1):
                    declared = self.pick(["Int", "String!", "[ID]", "JSON", "Nope"])
                self.declared.append(f"${name}: {declared}")
                self.variables[name] = value
                parts.append(f"{a['name']}: ${name}")
            else:
                parts.append(f"{a['name']}: {self.literal(value, a['type'])}")
        if self.chance(self.bad * 0.1):
            parts.append("nope: 1")
        return f"({', '.join(parts)})" if parts else ""

    def selection(self, type_name: str, depth: int) -> str:
        t = self.model.types[type_name]
        fields = t.get("fields") or []
        out = ["__typename"] if self.chance(0.3) else []
        count = self.data.draw(st.integers(1, 4))
        for _ in range(count):
            f = self.pick(fields)
            if f is None:
                break
            inner = unwrap(f["type"])
            kind = self.model.types[inner["name"]]["kind"]
            alias = f"a{self.data.draw(st.integers(0, 9))}: " if self.chance(0.1) else ""
            head = f"{alias}{f['name']}{self.arguments(f)}"
            if kind in ("OBJECT", "INTERFACE", "UNION"):
                if depth <= 0:
                    continue
                out.append(f"{head} {{ {self.selection(inner['name'], depth - 1)} }}")
            else:
                out.append(head)
        if t["kind"] in ("INTERFACE", "UNION") and depth > 0:
            possible = [p["name"] for p in t.get("possibleTypes") or []]
            for name in possible:
                if self.chance(0.4):
                    out.append(f"... on {name} {{ {self.selection(name, depth - 1)} }}")
        if self.chance(self.bad * 0.05):
            out.append("nopeField")
        return " ".join(out) or "__typename"

    def operation(self) -> tuple[str, dict[str, Any], str]:
        kinds = [k for k in ("query", "mutation", "subscription") if k in self.model.roots]
        kind = self.pick(kinds)
        root = self.model.types[self.model.roots[kind]]
        n = 1 if kind == "subscription" else self.data.draw(st.integers(1, 2))
        fields = []
        for i in range(n):
            f = self.pick(root["fields"])
            inner = unwrap(f["type"])
            sub = ""
            if self.model.types[inner["name"]]["kind"] in ("OBJECT", "INTERFACE", "UNION"):
                sub = f" {{ {self.selection(inner['name'], self.data.draw(st.integers(0, 4)))} }}"
            fields.append(f"f{i}: {f['name']}{self.arguments(f)}{sub}")
        header = kind + (f"({', '.join(self.declared)})" if self.declared else "")
        doc = f"{header} {{ {' '.join(fields)} }}"
        if self.chance(self.bad * 0.05):  # broken text
            cut = self.data.draw(st.integers(0, len(doc)))
            doc = (
                doc[:cut]
                + self.data.draw(st.sampled_from(["", "{", "}", "$", '"', "...", "\\u0000"]))
                + doc[cut + 1 :]
            )
        return doc, self.variables, kind


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# -- sending and checking -------------------------------------------------------------------


@dataclass
class Figures:
    operations: int = 0
    over_http: int = 0
    over_ws: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    tables_checked: int = 0
    seconds: float = 0.0

    def report(self) -> str:
        top = ", ".join(f"{c} {n}" for c, n in self.codes.most_common(12))
        rate = self.operations / self.seconds if self.seconds else 0.0
        return (
            f"{self.operations} operations in {self.seconds:.1f} s ({rate:.0f}/s; "
            f"{self.over_http} HTTP, {self.over_ws} WebSocket); answers: {top}; "
            f"{self.tables_checked} tables checked; {len(self.failures)} failures"
        )


def check_errors(errors: Any, where: str) -> list[str]:
    codes = []
    assert isinstance(errors, list) and errors, f"{where}: errors is not a list: {errors!r:.300}"
    for e in errors:
        code = (e.get("extensions") or {}).get("code") if isinstance(e, dict) else None
        assert code in CODES, f"{where}: an error without a known code: {e!r:.300}"
        assert code != "INTERNAL", f"{where}: INTERNAL: {e!r:.300}"
        codes.append(code)
    return codes


class Fuzzer:
    def __init__(self, server: ServerThread, seed: int = 0) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=30)
        self.model = Model.of(server.app.state.schema._schema)
        self.pools = Pools()
        self.figures = Figures()
        self.random = random.Random(seed)
        self.created: set[str] = set()

    # setup -------------------------------------------------------------------------------

    def gql(self, query: str, token: str | None = None, **variables: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body = self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers
        ).json()
        assert not body.get("errors"), body
        return body["data"]

    def setup(self) -> None:
        """A few tables of each bundled game: open, playing, seats taken and tokens kept."""
        games = [g["id"] for g in self.gql("{ games { id houseRules { id } } }")["games"]]
        self.pools.game_ids = [*games, "nope"]
        self.pools.rule_ids = [
            r["id"]
            for g in self.gql("{ games { houseRules { id } } }")["games"]
            for r in g["houseRules"]
        ]
        self.pools.options = [dict(o) for o in BUNDLED.values()]
        for game, options in BUNDLED.items():
            for start in (False, True):
                made = self.gql(
                    "mutation($g: ID!, $o: JSON) { createTable(gameId: $g, options: $o, seats: 3) { hostToken table { id } } }",
                    g=game,
                    o=options,
                )["createTable"]
                tid = made["table"]["id"]
                self.created.add(tid)
                self.pools.table_ids.append(tid)
                self.pools.tokens.append(made["hostToken"])
                for i in range(2):
                    joined = self.gql(
                        "mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) { playerToken } }",
                        t=tid,
                        n=f"P{i}",
                    )
                    self.pools.tokens.append(joined["joinTable"]["playerToken"])
                if start:
                    self.gql(
                        "mutation($t: ID!) { startGame(tableId: $t) { version } }",
                        made["hostToken"],
                        t=tid,
                    )
        self.pools.table_ids += ["nope", "x" * 65]
        forged = [f"{self.pools.table_ids[0]}.forged", "garbage", "."]
        self.pools.tokens += forged
        self.refresh()

    def refresh(self) -> None:
        """Legal moves, cursors and items of the live tables, for the next batch."""
        moves: list[Any] = []
        cursors: list[str] = []
        items: set[str] = set()
        for token in self.pools.tokens:
            tid = token.split(".", 1)[0]
            if tid not in self.created:
                continue
            try:
                data = self.gql(
                    "query($t: ID!) { table(id: $t) { legalMoves events(last: 3) { cursor } } }",
                    token,
                    t=tid,
                )
            except (AssertionError, ValueError):
                continue
            table = data["table"]
            if table is None:
                continue
            moves += table["legalMoves"]
            cursors += [e["cursor"] for e in table["events"]]
        for m in moves:
            items.update(_strings(m))
        self.pools.moves = moves[:50]
        self.pools.cursors = [*cursors[:30], "1-0", "999-0", "x"]
        self.pools.items = [*sorted(items)[:60], "1Z", "R9", "JK", "nope"]

    # one operation -----------------------------------------------------------------------

    def send(
        self, doc: str, variables: dict[str, Any], kind: str, token: str | None, via: str
    ) -> None:
        self.figures.operations += 1
        where = f"{via} {doc[:200]!r} {json.dumps(variables)[:200]}"
        if via == "ws":
            self.figures.over_ws += 1
            for code in self.send_ws(doc, variables, token, where):
                self.figures.codes[code] += 1
            return
        self.figures.over_http += 1
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if via == "get":
            params = {"query": doc, "variables": json.dumps(variables)}
            r = self.http.get(
                "/graphql", params=params, headers={**headers, "Accept": "application/json"}
            )
        else:
            r = self.http.post(
                "/graphql", json={"query": doc, "variables": variables}, headers=headers
            )
        assert r.status_code < 500, f"{where}: HTTP {r.status_code}: {r.text[:300]}"
        try:
            body = r.json()
        except ValueError:
            raise AssertionError(
                f"{where}: not JSON: HTTP {r.status_code} {r.text[:200]}"
            ) from None
        assert isinstance(body, dict), f"{where}: {body!r:.200}"
        if body.get("errors"):
            for code in check_errors(body["errors"], where):
                self.figures.codes[code] += 1
        else:
            assert r.status_code == 200 and "data" in body, (
                f"{where}: {r.status_code} {r.text[:200]}"
            )
            self.figures.codes["OK"] += 1
            self._learn(body["data"])

    def send_ws(
        self, doc: str, variables: dict[str, Any], token: str | None, where: str
    ) -> list[str]:
        url = self.server.url.replace("http", "ws") + "/graphql"
        codes: list[str] = []
        with connect(
            url, subprotocols=["graphql-transport-ws"], open_timeout=10, close_timeout=1
        ) as ws:  # type: ignore[list-item]
            init = {"type": "connection_init", "payload": {"authToken": token} if token else {}}
            ws.send(json.dumps(init))
            try:
                ack = json.loads(ws.recv(timeout=10))
            except Exception as exc:  # closed: a token refused (4403) or not readable (4400)
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                assert code in (4400, 4403), f"{where}: connection_init closed with {code}"
                return ["UNAUTHENTICATED"]
            assert ack["type"] == "connection_ack", f"{where}: {ack}"
            ws.send(
                json.dumps(
                    {
                        "id": "1",
                        "type": "subscribe",
                        "payload": {"query": doc, "variables": variables},
                    }
                )
            )
            for n in range(5):
                # The first answer comes at once, but a live subscription with nothing to
                # replay sends none: waiting long for it spent the run's seconds on a few
                # operations (two such drawn early left 40 operations in 10 s).
                try:
                    msg = json.loads(ws.recv(timeout=1 if n == 0 else 0.05))
                except TimeoutError:
                    break
                if msg["type"] == "error":
                    codes += check_errors(msg["payload"], where)
                    break
                if msg["type"] == "complete":
                    break
                if msg["type"] == "next":
                    payload = msg["payload"]
                    if payload.get("errors"):
                        codes += check_errors(payload["errors"], where)
                    else:
                        codes.append("OK")
        return codes or ["OPEN"]

    def _learn(self, data: Any) -> None:
        """Tokens and tables made by the fuzzer's own mutations join the pools."""
        if not isinstance(data, dict):
            return
        for value in data.values():
            if isinstance(value, dict):
                token = value.get("hostToken") or value.get("playerToken")
                if isinstance(token, str) and len(self.pools.tokens) < 200:
                    self.pools.tokens.append(token)
                    tid = token.split(".", 1)[0]
                    if tid not in self.created:
                        self.created.add(tid)
                        self.pools.table_ids.append(tid)

    # batches -----------------------------------------------------------------------------

    def batch(self, examples: int, bad: float) -> None:
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.shrink],
            print_blob=True,
        )
        @given(st.data())
        def one(data: Any) -> None:
            draw = Draw(data, self.model, self.pools, bad)
            doc, variables, kind = draw.operation()
            token = data.draw(st.sampled_from([None, *self.pools.tokens]))
            via = data.draw(st.sampled_from(["post"] * 8 + ["get", "ws"]))
            if kind == "subscription":
                via = "ws" if data.draw(st.booleans()) else via
            self.send(doc, variables, kind, token, via)

        one()

    def check_tables(self) -> None:
        """Every table the fuzzer touched: decodes, answers, keeps its invariants."""
        service = TableService(self.server.settings, self.server.registry, self.server.store)
        for tid in sorted(self.created):
            loaded = self.server.call(service.reads.load(tid))
            assert loaded is not None, f"table {tid} vanished"
            events = self.server.call(self.server.store.events(tid, None, 100_000))
            versions = [e.version for e in events]
            assert versions == sorted(versions) and versions[-1] == loaded.version, (
                f"{tid}: versions"
            )
            assert len({e.cursor for e in events}) == len(events), f"{tid}: duplicate cursors"
            body = self.http.post(
                "/graphql",
                json={
                    "query": "query($t: ID!) { table(id: $t) { version status state { toAct } legalMoves } }",
                    "variables": {"t": tid},
                },
            ).json()
            assert not body.get("errors") and body["data"]["table"]["version"] == loaded.version, (
                body
            )
            if loaded.state is not None:
                conserved(loaded)
                if loaded.table.status == "PLAYING":
                    to_act = loaded.to_act()
                    assert to_act, f"{tid}: playing with nobody to act"
                    assert loaded.legal_moves(to_act[0]), f"{tid}: the seat to act has no move"
            self.figures.tables_checked += 1


def conserved(loaded: Any) -> None:
    """Nothing of the table's cards and dice appeared or vanished."""
    state, game = loaded.state, loaded.game.id
    if game == "five-crowns":
        cards = Counter(state.all_cards())
        twins = max(n for card, n in cards.items() if card != "JK")
        assert sum(cards.values()) in (58, 116) and twins <= 2, f"five-crowns cards: {cards}"
    elif game == "all-fives":
        places: Counter[str] = Counter()
        for part in (*state.hands, *state.won, state.stock, state.set_aside, state.discards):
            places.update(part)
        places.update(c for _, c in state.trick)
        if state.turn_up is not None:
            places.update([state.turn_up])
        assert len(places) == 52 and set(places.values()) == {1}, "all-fives cards"
    elif game == "five-by-five":
        dice = sum(state.supply) + sum(state.out) + sum(1 for row in state.board for d in row if d)
        dice += state.pending is not None
        actions = len(state.action_discard) + sum(len(d) for d in state.decks)
        actions += sum(len(p.actions) for p in state.players)
        assert (dice, actions) == (40, 60), "five-by-five dice or action cards"


def run(
    seconds: float,
    *,
    store: Callable[[], StateStore] | None = None,
    registry: Registry | None = None,
    seed: int | None = None,
    batch: int = 40,
) -> Figures:
    """Fuzz a fresh server for about ``seconds``; the figures (``failures`` empty: passed)."""
    from tablestate.store.memory import MemoryStore

    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    cfg = Settings(secret=b"fuzz-secret", idle_ttl=3600, finished_ttl=600)
    started = time.monotonic()
    try:
        with ServerThread(cfg, registry or load(), store or MemoryStore) as server:
            fuzzer = Fuzzer(server, seed or 0)
            fuzzer.setup()
            rounds = 0
            while time.monotonic() - started < seconds:
                bad = (0.0, 0.2, 0.6)[rounds % 3]  # well-typed, a little wrong, mostly wrong
                try:
                    fuzzer.batch(batch, bad)
                except Exception as exc:  # an assertion, or hypothesis's flaky-failure report
                    fuzzer.figures.failures.append("".join(traceback.format_exception(exc))[-3000:])
                    break
                rounds += 1
                fuzzer.refresh()
            try:
                fuzzer.check_tables()
            except AssertionError as exc:
                fuzzer.figures.failures.append(str(exc)[:2000])
            fuzzer.http.close()
            figures = fuzzer.figures
    finally:
        logging.getLogger().removeHandler(errors)
    figures.seconds = time.monotonic() - started
    for record in errors.records:
        text = record.getMessage() + (
            "\n" + logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
        )
        figures.failures.append(f"logged at {record.levelname}: {text[:2000]}")
    return figures


def _forget(url: str, prefix: str) -> None:
    """Delete the keys the run wrote to a shared Redis."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz")
    parser.add_argument("--redis", help="a Redis URL (default: the memory store)")
    parser.add_argument("--prefix", default="fuzz:", help="Redis key prefix")
    parser.add_argument("--batch", type=int, default=40, help="examples per hypothesis run")
    args = parser.parse_args()
    make: Callable[[], StateStore] | None = None
    prefix = ""
    if args.redis:
        from tablestate.store.redis import RedisStore

        url, prefix = (
            args.redis,
            args.prefix + "".join(random.choices(string.ascii_lowercase, k=6)) + ":",
        )

        def make() -> StateStore:
            return RedisStore.from_url(url, prefix=prefix)

    figures = run(args.seconds, store=make, batch=args.batch)
    if args.redis:
        _forget(args.redis, prefix)
    print(figures.report())
    for failure in figures.failures:
        print("FAILURE:", failure, file=sys.stderr)
    return 1 if figures.failures else 0


if __name__ == "__main__":
    sys.exit(main())
