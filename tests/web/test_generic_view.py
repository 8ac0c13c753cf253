"""The page's view of a game that brings none of its own, in headless Chromium
(tests/node/generic-view.test.mjs): Lucky Draw (the example plugin) and Grid Claim (a board
game loaded by module path, ``tests/support/grid_game.py``) shown from their state types:
cards, labelled values, the viewer's own part marked, a board as an ARIA grid played with
arrow keys, Enter and clicks, the plugin's sentences and the page's own for the events, and
no fair-shuffle part for a game without chance. A bundled game's view still comes as its
plugin's module, through ``Game.viewModule``."""

from __future__ import annotations

from pathlib import Path

from support.server import free_port

TESTS = Path(__file__).resolve().parents[1]


def test_generic_view_in_chromium(run_node, serve_at, artifacts, chromium):
    log = artifacts / "server-generic.log"
    log.write_text("")
    with serve_at(
        free_port(),
        log,
        TABLESTATE_DISABLE="",
        TABLESTATE_PLUGINS="support.grid_game",
        PYTHONPATH=str(TESTS),
    ) as url:
        env = {"TABLESTATE_URL": url, "TABLESTATE_ARTIFACTS": str(artifacts), "CHROMIUM": chromium}
        run_node("generic-view.test.mjs", env, timeout=300)
    for name in ("generic-lucky-draw", "generic-grid-claim"):
        assert (artifacts / f"{name}.png").stat().st_size > 0
