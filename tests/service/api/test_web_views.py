"""What the page needs of a game to show it: ``Game.viewModule`` (the plugin's own view
module, served at ``/games/<game id>/`` from its package), ``usesChance`` and
``eventTexts``; and the serving of view folders, which reads nothing else."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import grid_game
from support.server import Client, make_settings, serve

from tablestate import hookimpl
from tablestate.plugins import load
from tablestate.store.memory import MemoryStore

ROOT = Path(__file__).resolve().parents[3]
GAMES = "{ games { id viewModule usesChance eventTexts { type text } } }"
BUNDLED = ("all-fives", "five-by-five", "five-crowns")


async def test_games_say_their_view_their_chance_and_their_sentences():
    async with serve(make_settings(), load(["support.grid_game"]), MemoryStore()) as c:
        games = {g["id"]: g for g in (await c.q(GAMES))["games"]}
        for game_id in BUNDLED:
            assert games[game_id] == {
                "id": game_id,
                "viewModule": f"/games/{game_id}/view.js",
                "usesChance": True,
                "eventTexts": [],
            }
        assert games["lucky-draw"]["viewModule"] is None
        assert games["lucky-draw"]["usesChance"] is True
        assert games["grid-claim"] == {
            "id": "grid-claim",
            "viewModule": None,
            "usesChance": False,
            "eventTexts": [
                {"type": "mark.placed", "text": "{player} put {mark} on square {square}"}
            ],
        }


async def test_a_bundled_view_module_is_served_like_the_page(client: Client):
    for game_id, folder in zip(BUNDLED, ("all_fives", "five_by_five", "five_crowns"), strict=True):
        r = await client.http.get(f"/games/{game_id}/view.js")
        assert r.status_code == 200
        assert r.headers["content-type"].split(";")[0] in (
            "text/javascript",
            "application/javascript",
        )
        assert r.content == (ROOT / "plugins" / folder / "web" / "view.js").read_bytes()
    page = await client.http.get("/js/app.js")
    headers = ("etag", "last-modified", "cache-control", "content-security-policy")
    assert {h for h in headers if h in r.headers} == {h for h in headers if h in page.headers}
    again = await client.http.get(
        "/games/five-crowns/view.js", headers={"If-None-Match": r.headers["etag"]}
    )
    assert again.status_code == 304


@pytest.fixture
def view_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plugin package on disk with a view folder, files it must not serve around it."""
    pkg = tmp_path / "viewpkg"
    (pkg / "web" / "img").mkdir(parents=True)
    (pkg / "__init__.py").write_text("SECRET = 1\n")
    (pkg / "secret.js").write_text("export const secret = 1;\n")
    (pkg / "web" / "view.js").write_text("export const fragment = '';\n")
    (pkg / "web" / "view.css").write_text(".x { color: red; }\n")
    (pkg / "web" / "img" / "board.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    (pkg / "web" / "helper.py").write_text("TOKEN = 'never served'\n")
    (pkg / "web" / ".hidden.js").write_text("export const hidden = 1;\n")
    (pkg / "web" / "out.js").symlink_to(pkg / "secret.js")
    monkeypatch.syspath_prepend(str(tmp_path))
    return pkg


def _plugin(spec: str) -> SimpleNamespace:
    game = dataclasses.replace(grid_game.GAME, web_view=spec)
    return SimpleNamespace(tablestate_games=hookimpl(lambda: [game]))


async def _status(c: Client, path: str) -> int:
    """The status of a GET of ``path`` sent as it is (no client normalizes its dots)."""
    host, port = c.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    line = await reader.readline()
    writer.close()
    await writer.wait_closed()
    return int(line.split()[1])


async def test_only_the_files_of_the_view_folder_are_served(view_package: Path):
    registry = load(use_entry_points=False, objects=[("grid", _plugin("viewpkg:web/view.js"))])
    async with serve(make_settings(), registry, MemoryStore()) as c:
        games = {g["id"]: g for g in (await c.q(GAMES))["games"]}
        assert games["grid-claim"]["viewModule"] == "/games/grid-claim/view.js"
        served = {
            "/games/grid-claim/view.js": "export const fragment",
            "/games/grid-claim/view.css": ".x",
            "/games/grid-claim/img/board.svg": "<svg",
        }
        for path, start in served.items():
            r = await c.http.get(path)
            assert r.status_code == 200 and r.text.startswith(start), path
        assert r.headers["content-type"].startswith("image/svg+xml")
        refused = [
            "/games/grid-claim/helper.py",  # not a web file
            "/games/grid-claim/.hidden.js",  # hidden
            "/games/grid-claim/out.js",  # a link out of the folder
            "/games/grid-claim/../__init__.py",
            "/games/grid-claim/../secret.js",
            "/games/grid-claim/%2e%2e/secret.js",
            "/games/grid-claim/..%2fsecret.js",
            "/games/grid-claim/img/../view.js",  # dots even where they would stay inside
            "/games/grid-claim/./view.js",
            "/games/grid-claim//view.js",
            "/games/grid-claim/view.js%00.css",
            "/games/grid-claim/view.js/",
            "/games/grid-claim/",
            "/games/grid-claim",
            "/games/grid-claim/img",
            "/games/five-crowns/view.js",  # a game not installed here
            "/games/grid-claim/%5c..%5csecret.js",
        ]
        for path in refused:
            assert await _status(c, path) == 404, path
        assert await _status(c, "/games/grid-claim/view.js") == 200
