"""The reference web client in headless Chromium (tests/node/browser.test.mjs: Playwright
driving Debian's chromium): the lobby, a short game of each bundled game played to the
end by clicking, a dropped connection, two windows playing each other. Screenshots are
kept in tests/web/artifacts/; with TABLESTATE_DOCS_SCREENSHOTS=<folder> the README's
screenshots are written there too."""

from __future__ import annotations


def test_web_client_in_chromium(run_node, server_url, artifacts, chromium):
    env = {
        "TABLESTATE_URL": server_url,
        "TABLESTATE_ARTIFACTS": str(artifacts),
        "CHROMIUM": chromium,
    }
    run_node("browser.test.mjs", env, timeout=600)
    for name in ("lobby", "five-crowns", "all-fives", "five-by-five", "two-windows-result"):
        assert (artifacts / f"{name}.png").stat().st_size > 0
