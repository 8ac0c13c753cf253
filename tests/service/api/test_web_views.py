"""What the page needs of a game to show it: ``Game.viewModule`` (the plugin's own view
module, served at ``/games/<game id>/`` from its package), ``usesChance`` and
``eventTexts``. That nothing else of a package is served: tests/security/test_view_files.py."""

from __future__ import annotations

from pathlib import Path

from support.server import Client, make_settings, serve

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
