"""The command line, run as a user runs it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from support.server import free_port, make_settings

from tablestate.cli import export_sdl
from tablestate.plugins import load
from tablestate.store.redis import RedisStore
from tablestate.tables import TableService

ROOT = Path(__file__).resolve().parents[2]
EXE = [sys.executable, "-m", "tablestate.cli"]
CREATE_TABLE = 'mutation { createTable(gameId: "lucky-draw", seats: 2) { hostToken } }'


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TABLESTATE_") and k != "REDIS_URL"
    }
    env.update(extra)
    return env


def test_plugins_lists_what_was_found():
    out = subprocess.run([*EXE, "plugins"], capture_output=True, text=True, env=_env(), check=True)
    assert "lucky-draw.double-evens" in out.stdout and "lucky_draw_points" in out.stdout


def test_version_names_the_installed_release():
    from importlib import metadata

    out = subprocess.run(
        [*EXE, "--version"], capture_output=True, text=True, env=_env(), check=True
    )
    assert out.stdout.strip() == f"tablestate {metadata.version('tablestate')}"


def test_help_is_plain_words_and_serve_help_points_to_the_settings():
    top = subprocess.run([*EXE, "--help"], capture_output=True, text=True, env=_env(), check=True)
    serve = subprocess.run(
        [*EXE, "serve", "--help"], capture_output=True, text=True, env=_env(), check=True
    )
    # reStructuredText's double backticks are for docstrings, not for a terminal
    assert "``" not in top.stdout and "``" not in serve.stdout
    assert "--version" in top.stdout and "COMMAND --help" in top.stdout
    assert "Settings" in serve.stdout and "README" in serve.stdout and "REDIS_URL" in serve.stdout
    # the section named is the README's
    assert "\n## Settings\n" in (ROOT / "README.md").read_text()


def test_export_schema_prints_the_bundled_sdl(tmp_path):
    target = tmp_path / "s.graphql"
    subprocess.run([*EXE, "export-schema", "-o", str(target)], env=_env(), check=True)
    assert target.read_text() == export_sdl()
    everything = subprocess.run(
        [*EXE, "export-schema", "--all"], capture_output=True, text=True, env=_env(), check=True
    )
    assert "LuckyDrawState" in everything.stdout


def test_serve_refuses_workers_without_redis():
    out = subprocess.run(
        [*EXE, "serve", "--workers", "2"], capture_output=True, text=True, env=_env()
    )
    assert out.returncode == 2 and "REDIS_URL" in out.stderr


def test_redis_without_a_secret_stops_startup():
    out = subprocess.run(
        [*EXE, "plugins"],
        capture_output=True,
        text=True,
        env=_env(REDIS_URL="redis://127.0.0.1:1/0"),
    )
    assert out.returncode == 2 and "TABLESTATE_SECRET" in out.stderr


def test_bad_plugin_path_stops_startup_naming_it():
    out = subprocess.run(
        [*EXE, "plugins"],
        capture_output=True,
        text=True,
        env=_env(TABLESTATE_PLUGINS="no.such.module"),
    )
    assert out.returncode == 2 and "no.such.module" in out.stderr


@pytest.mark.parametrize("command", [["plugins"], ["serve", "--port", "0"]])
def test_a_game_that_breaks_its_contract_stops_startup(command):
    """``plugins`` and ``serve`` refuse a game whose view does not fit its state type:
    the message names the game and the field on stderr, and no server starts."""
    out = subprocess.run(
        [*EXE, *command],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(
            TABLESTATE_PLUGINS="support.broken_view_plugin",
            PYTHONPATH=str(ROOT / "tests"),
        ),
    )
    assert out.returncode == 2, out.stderr
    assert 'game "count-up": view of a spectator: field "secret"' in out.stderr
    assert "support.broken_view_plugin" in out.stderr
    assert "Uvicorn running" not in out.stderr and not out.stdout


def test_serve_runs_answers_and_stops_on_sigterm():
    port = free_port()
    proc = subprocess.Popen(
        [*EXE, "serve", "--port", str(port)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if httpx.get(url + "/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        r = httpx.post(url + "/graphql", json={"query": '{ game(id: "lucky-draw") { name } }'})
        assert r.json() == {"data": {"game": {"name": "Lucky Draw"}}}
        made = httpx.post(url + "/graphql", json={"query": CREATE_TABLE}).json()["data"][
            "createTable"
        ]
        token = made["hostToken"]
        viewer = httpx.post(
            url + "/graphql",
            json={"query": "{ viewer { isHost } }"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert viewer.json() == {"data": {"viewer": {"isHost": True}}}
        forged = httpx.post(
            url + "/graphql",
            json={"query": "{ viewer { isHost } }"},
            headers={"Authorization": f"Bearer {token}x"},
        )
        assert forged.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert httpx.get(url + "/readyz").status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
        code = proc.returncode
    # uvicorn shuts down gracefully, then re-raises the signal so the exit status tells it
    assert code in (0, -signal.SIGTERM)
    assert b"shutdown complete" in err.lower()
    lines = [json.loads(line) for line in err.decode().splitlines() if line.strip()]
    refused = [line for line in lines if "UNAUTHENTICATED" in line["message"]]
    assert refused and refused[0]["request_id"] and refused[0]["level"] == "info"
    assert token.split(".")[1] not in err.decode()  # tokens are never logged


@pytest.mark.redis
def test_replay_confirms_a_finished_table(redis_url, redis_prefix):
    settings = make_settings(redis_url=redis_url, redis_prefix=redis_prefix)

    async def play() -> str:
        store = RedisStore.from_url(redis_url, prefix=redis_prefix)
        svc = TableService(settings, load(), store)
        loaded, host = await svc.operations.create(
            "lucky-draw", ["lucky-draw/double-evens"], {"handSize": 2}, 2
        )
        tid = loaded.table.id
        _, _, token = await svc.operations.join(None, tid, "Ann", None, "ann's entropy")
        viewer = await svc.reads.authenticate(token)
        await svc.operations.add_bot(await svc.reads.authenticate(host), tid, None)
        await svc.operations.start(await svc.reads.authenticate(host), tid)
        for _ in range(200):
            now = await svc.reads.must_load(tid)
            if now.table.status == "FINISHED":
                break
            moves = now.legal_moves(0)
            if moves:
                await svc.moves.make(viewer, tid, "lucky-draw", moves[0])
            else:
                await asyncio.sleep(0.01)
        await svc.close()
        await store.close()
        return tid

    tid = asyncio.run(play())
    env = _env(
        REDIS_URL=redis_url,
        TABLESTATE_REDIS_PREFIX=redis_prefix,
        TABLESTATE_SECRET="another-secret",
    )
    out = subprocess.run([*EXE, "replay", tid], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("MATCH")
    missing = subprocess.run([*EXE, "replay", "nope"], capture_output=True, text=True, env=env)
    assert missing.returncode == 1 and "MISMATCH" in missing.stdout
