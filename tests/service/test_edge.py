"""The seam below ASGI and Strawberry (``tablestate.edge``, ``tablestate.api.upstream``): the
server's connection is the ``Connection`` the app asks for, handed over in the scope, and no
other module reaches into another library's private or internal names."""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablestate import edge
from tablestate.api import sockets
from tablestate.edge import Connection, connection_of
from tablestate.server import BudgetedWebSockets
from tests.support.server import make_settings, serve, ws_init, ws_next

SERVICE = Path(__file__).resolve().parents[2] / "service"
SEAM = {SERVICE / "edge.py", SERVICE / "api" / "upstream.py"}
# Names of websockets' connection, and of Python's own objects, that only the seam may read:
# none of them is private by its name, all of them are another library's internals.
INTERNAL = {
    "writes",
    "parser",
    "reader",
    "current_size",
    "expect_continuation_frame",
    "max_message_size",
    "__self__",
    "__func__",
    "gi_yieldfrom",
    "gi_frame",
}


@functools.cache
def _modules() -> list[tuple[Path, ast.Module]]:
    return [
        (path, ast.parse(path.read_text(), str(path))) for path in sorted(SERVICE.rglob("*.py"))
    ]


@functools.cache
def _ours() -> frozenset[str]:
    """The private names the service defines itself: its functions, classes, module names,
    assignments (``self._x = ...``) and slots."""
    names: set[str] = {p.stem for p in SERVICE.rglob("_*.py")}
    for path, tree in _modules():
        if path in SEAM:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__ and ClassVar declarations by name
    return frozenset(names)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _reaches(path: Path, tree: ast.Module, ours: frozenset[str]) -> Iterator[str]:
    """What ``tree`` reads of other libraries below their published names."""
    for node in ast.walk(tree):
        where = f"{path.relative_to(SERVICE.parent)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "tablestate" and any(_private(p) for p in parts[1:]):
                yield f"{where} imports {node.module}"
        read: list[tuple[ast.expr, str]] = []
        if isinstance(node, ast.Attribute):
            read.append((node.value, node.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            read.append((node.args[0], node.args[1].value))
        for owner, name in read:
            own = isinstance(owner, ast.Name) and owner.id in ("self", "cls")
            if _private(name) and name not in ours:
                yield f"{where} reads {ast.unparse(owner)}.{name}"
            elif name in INTERNAL and not own:
                yield f"{where} reads {ast.unparse(owner)}.{name}"
            elif name == "_send" and not own:  # Starlette's WebSocket's ASGI send
                yield f"{where} reads {ast.unparse(owner)}.{name}"


def test_only_the_seam_reaches_below_other_libraries_published_names() -> None:
    ours = _ours()
    found = [r for path, tree in _modules() if path not in SEAM for r in _reaches(path, tree, ours)]
    assert found == [], "\n".join(found)


def test_the_scan_finds_what_the_seam_reads() -> None:
    """The rule above is not vacuous: scanned as any other module, the seam is caught."""
    ours = _ours()
    found = [r for path, tree in _modules() if path in SEAM for r in _reaches(path, tree, ours)]
    text = "\n".join(found)
    for reach in ("imports uvicorn._types", ".gi_yieldfrom", "conn.writes", "schema._schema"):
        assert reach in text, text
    assert "self._task_done" in text  # a private name inherited from Strawberry's handler


def test_the_hand_over_is_a_scope_extension() -> None:
    scope: dict[str, Any] = {"type": "websocket"}

    class Fake:
        text_sink = None

        def send_text_now(self, text: str) -> bool:
            return False

    assert connection_of(scope) is None  # another ASGI server: ASGI alone
    fake = Fake()
    edge.offer(scope, fake)  # type: ignore[arg-type]  # a scope of a test, as a plain dict
    assert scope["extensions"][edge.CONNECTION_KEY] == {"connection": fake}
    assert connection_of(scope) is fake and isinstance(fake, Connection)
    edge.withdraw(scope)  # type: ignore[arg-type]
    assert connection_of(scope) is None
    assert not isinstance(object(), Connection)


async def test_the_api_gets_the_servers_connection_and_frames_through_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under the server as ``tablestate serve`` runs it, the WebSocket's adapter finds the
    server's connection in its scope (an ``edge.Connection``), and the answers leave
    through it, below ASGI."""
    given: list[Any] = []
    framed: list[str] = []
    real_of, real_now = sockets.connection_of, BudgetedWebSockets.send_text_now

    def recording_of(scope: Any) -> Any:
        found = real_of(scope)
        given.append(found)
        return found

    def recording_now(self: BudgetedWebSockets, text: str) -> bool:
        taken = real_now(self, text)
        if taken:
            framed.append(text)
        return taken

    monkeypatch.setattr(sockets, "connection_of", recording_of)
    monkeypatch.setattr(BudgetedWebSockets, "send_text_now", recording_now)
    async with serve(make_settings()) as c, c.ws() as conn:
        assert (await ws_init(conn))["type"] == "connection_ack"
        await conn.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "{ __typename }"}})
        )
        assert await ws_next(conn) == {
            "id": "1",
            "type": "next",
            "payload": {"data": {"__typename": "Query"}},
        }
        assert (await ws_next(conn))["type"] == "complete"
    (connection,) = given
    assert isinstance(connection, BudgetedWebSockets) and isinstance(connection, Connection)
    assert [json.loads(t)["type"] for t in framed] == ["connection_ack", "next", "complete"]
    assert edge.CONNECTION_KEY not in connection.scope.get("extensions", {})  # withdrawn


async def test_without_a_connection_offered_the_app_runs_on_asgi_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another ASGI server offers no connection: every message goes through ASGI."""
    import tablestate.server

    given: list[Any] = []
    real_of = sockets.connection_of
    monkeypatch.setattr(tablestate.server, "offer", lambda scope, connection: None)
    monkeypatch.setattr(sockets, "connection_of", lambda scope: given.append(real_of(scope)))
    async with serve(make_settings()) as c, c.ws() as conn:
        assert (await ws_init(conn))["type"] == "connection_ack"
        await conn.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "{ __typename }"}})
        )
        assert (await ws_next(conn))["payload"] == {"data": {"__typename": "Query"}}
        assert (await ws_next(conn))["type"] == "complete"
    assert given == [None]
