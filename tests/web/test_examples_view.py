"""The two example games (examples/tic_tac_toe, examples/liars_dice) on the page, in headless
Chromium (tests/node/examples-view.test.mjs), shown by the page's generic view from their
state types: tic-tac-toe's board as an ARIA grid, played with arrow keys and clicks by two
players to a win, with no fair-shuffle part; liar's dice against a bot, the viewer's own
dice shown and marked as theirs and nobody else's, a bid made by its button, played to the
end, with the fair-shuffle part. The server is one of its own, with every installed game
(the shared one lists the bundled games only). With TABLESTATE_DOCS_SCREENSHOTS=<folder>
the examples' screenshots in docs/screenshots are written there too."""

from __future__ import annotations

from support.server import free_port


def test_the_examples_in_chromium(run_node, serve_at, artifacts, chromium):
    log = artifacts / "server-examples.log"
    log.write_text("")
    with serve_at(free_port(), log, TABLESTATE_DISABLE="") as url:
        env = {"TABLESTATE_URL": url, "TABLESTATE_ARTIFACTS": str(artifacts), "CHROMIUM": chromium}
        run_node("examples-view.test.mjs", env, timeout=300)
    for name in ("tic-tac-toe", "liars-dice"):
        assert (artifacts / f"{name}.png").stat().st_size > 0
