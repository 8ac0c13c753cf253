"""The README's tour works on a fresh clone as written: each operation of its GraphQL block,
in order, against a real server with the plugins that ``scripts/serve`` installs (the
bundled games and the packages it installs beside them), the ``"…"`` placeholders filled
in from the earlier answers, the token each line's comment names sent with it."""

from __future__ import annotations

import importlib
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

from support.server import Client, make_settings, serve, ws_init, ws_next

from tablestate import plugins
from tablestate.store.memory import MemoryStore

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r'(\w+): "…"')


def tour() -> list[tuple[str, str | None]]:
    """The tour's operations, each with the token its comment names ("host", "seat" or
    None: no token)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## What a frontend sees") :]
    block = section[section.index("```graphql\n") + len("```graphql\n") :]
    block = block[: block.index("```")]
    ops = []
    for line in block.splitlines():
        operation, _, comment = line.partition("#")
        if not operation.strip():
            continue
        token = "host" if "host token" in comment else "seat" if "seat token" in comment else None
        ops.append((operation.strip(), token))
    return ops


def served_packages() -> list[Path]:
    """The folders ``scripts/serve`` installs with pip (``-e PATH``), the repository's own
    included."""
    script = (REPO / "scripts" / "serve").read_text(encoding="utf-8")
    found = []
    for line in script.splitlines():
        if "pip install" in line:
            words = shlex.split(line)
            found += [REPO / words[i + 1] for i, w in enumerate(words) if w == "-e"]
    return found


def served_registry() -> plugins.Registry:
    """The plugins of a fresh clone's ``scripts/serve``: the bundled ones, and the entry
    points of every other package it installs (not what the tests install besides)."""
    objects = []
    for folder in served_packages():
        if folder == REPO:
            continue
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
        for name, module in project["project"]["entry-points"]["tablestate"].items():
            objects.append((name, importlib.import_module(module)))
    return plugins.load(bundled_only=True, objects=objects)


def fill(operation: str, answers: dict[str, Any]) -> str:
    """The operation with each ``name: "…"`` replaced by what the earlier answers gave."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in ("tableId", "id"):
            return f'{name}: "{answers["table"]}"'
        if name == "after":
            return f'{name}: "{answers["cursor"]}"'
        raise AssertionError(f"the tour has a placeholder nobody fills: {match.group(0)}")

    return PLACEHOLDER.sub(value, operation)


def remember(data: Any, answers: dict[str, Any]) -> None:
    """Keep the table id, the tokens and the last cursor of an answer."""
    if isinstance(data, dict):
        if isinstance(data.get("table"), dict) and "id" in data["table"]:
            answers["table"] = data["table"]["id"]
        for key in ("hostToken", "playerToken", "cursor"):
            if key in data:
                answers[key] = data[key]
        for inner in data.values():
            remember(inner, answers)
    elif isinstance(data, list):
        for inner in data:
            remember(inner, answers)


async def subscribe_once(c: Client, operation: str, token: str | None) -> dict[str, Any]:
    """The first event of a subscription over graphql-transport-ws."""
    async with c.ws() as conn:
        assert (await ws_init(conn, token))["type"] == "connection_ack"
        await conn.send(
            json.dumps({"id": "1", "type": "subscribe", "payload": {"query": operation}})
        )
        msg = await ws_next(conn, timeout=20)
        assert msg["type"] == "next", msg
        assert not msg["payload"].get("errors"), msg
        return msg["payload"]["data"]  # type: ignore[no-any-return]


def test_scripts_serve_installs_the_repository_and_the_tour_game():
    folders = served_packages()
    assert REPO in folders and REPO / "examples" / "tic_tac_toe" in folders
    games = set(served_registry().games)
    named = {g for op, _ in tour() for g in re.findall(r'gameId: "([^"]+)"', op)}
    assert named and named <= games, (named, games)


async def test_the_tour_runs_as_written():
    ops = tour()
    assert ops[-1][0].startswith("subscription")
    answers: dict[str, Any] = {}
    tokens = {"host": "hostToken", "seat": "playerToken"}
    async with serve(make_settings(), served_registry(), MemoryStore()) as c:
        for operation, token_kind in ops:
            token = answers[tokens[token_kind]] if token_kind else None
            query = fill(operation, answers)
            if operation.startswith("subscription"):
                data = await subscribe_once(c, query, token)
                event = data["tableEvents"]
                assert event["type"] == "move.made" and event["seat"] == 1  # the bot's answer
                continue
            body = await c.raw(query, token)
            assert not body.get("errors"), (query, body["errors"])
            remember(body["data"], answers)
        assert "cursor" in answers  # the move's events gave the subscription its cursor
