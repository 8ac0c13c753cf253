"""The reference web client in headless Chromium (tests/node/browser.test.mjs: Playwright
driving Debian's chromium): the lobby (live), a short game of each bundled game played to
the end by clicking, a dropped connection, a slow move ("Sending…"), the suits' contrast,
the turn clock and a timeout, leaving and rejoining, undo, chat between two players and a
spectator, a private table joined by its code (a wrong one called wrong), a rematch with
both seats arriving at the new table and no token in the pages, presence when a tab closes
or reloads (kept out of the log), the host's controls, a seat's own link and an address
without its key, the phone layout and a table the server lost. Screenshots are kept in tests/web/artifacts/; with TABLESTATE_DOCS_SCREENSHOTS=<folder>
the README's screenshots are written there too."""

from __future__ import annotations


def test_web_client_in_chromium(run_node, server_url, artifacts, chromium):
    env = {
        "TABLESTATE_URL": server_url,
        "TABLESTATE_ARTIFACTS": str(artifacts),
        "CHROMIUM": chromium,
    }
    run_node("browser.test.mjs", env, timeout=600)
    names = ("lobby", "five-crowns", "five-crowns-result", "all-fives", "five-by-five")
    for name in (*names, "five-by-five-phone", "two-windows-result", "rematch"):
        assert (artifacts / f"{name}.png").stat().st_size > 0
