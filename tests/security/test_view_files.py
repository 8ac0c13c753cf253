"""A plugin's view folder on the page's origin (docs/security.md, "Plugins on the page"):
``/games/<game id>/`` serves the web files of the folder the game declares and nothing
else: no Python file, no hidden file, no link out, no path with dots or empty segments,
however it is spelled (each request sent as raw bytes, so that no client normalizes it)."""

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

GAMES = "{ games { id viewModule } }"


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
        assert (await c.q(GAMES))["games"] == [
            {"id": "grid-claim", "viewModule": "/games/grid-claim/view.js"}
        ]
        served = {
            "/games/grid-claim/view.js": "export const fragment",
            "/games/grid-claim/view.css": ".x",
            "/games/grid-claim/img/board.svg": "<svg",
        }
        for path, start in served.items():
            r = await c.http.get(path)
            assert r.status_code == 200 and r.text.startswith(start), path
        assert r.headers["content-type"].startswith("image/svg+xml")
        # The page's headers: its policy (no inline code) and no sniffing.
        assert "script-src 'self';" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
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
