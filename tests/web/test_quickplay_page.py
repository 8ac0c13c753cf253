"""Play now on the reference web client, in headless Chromium (tests/node/quickplay.test.mjs):
two players who press Play now on the same game with the same wish see the waiting view and
meet at the same table, started, each in a seat of their own that a reload keeps; Play now
then Cancel is back in the lobby; the form and the waiting view fit a phone; alone with
bots after 1 s, the table starts with a bot. Screenshots are kept in tests/web/artifacts/."""

from __future__ import annotations


def test_quick_play_in_chromium(run_node, server_url, artifacts, chromium):
    env = {
        "TABLESTATE_URL": server_url,
        "TABLESTATE_ARTIFACTS": str(artifacts),
        "CHROMIUM": chromium,
    }
    run_node("quickplay.test.mjs", env, timeout=120)
    names = ("quickplay-form", "quickplay-waiting", "quickplay-matched")
    for name in (*names, "quickplay-form-phone", "quickplay-waiting-phone"):
        assert (artifacts / f"{name}.png").stat().st_size > 0
