"""Which All Fives moves may be taken back (undoMove): a card that completes no trick and
a discard down to the hand limit; declarations and a completed trick stand."""

from __future__ import annotations

import pytest
from support.undo_playout import playout

from plugins.all_fives.game import GAME, undoable
from service.engine import Event, Outcome

from .support import registry


@pytest.mark.parametrize(
    ("move", "events", "expected"),
    [
        pytest.param({"play": {"card": "5H"}}, ["card.played"], True, id="play-mid-trick"),
        pytest.param(
            {"play": {"card": "5H"}}, ["card.played", "trick.won"], False, id="play-ends-trick"
        ),
        pytest.param({"discard": {"card": "7H"}}, ["card.discarded"], True, id="discard"),
        pytest.param(
            {"discard": {"card": "7H"}},
            ["card.discarded", "play.started"],
            False,
            id="discard-starts-play",
        ),
        pytest.param({"stand": True}, ["eldest.stood"], False, id="stand"),
        pytest.param({"beg": True}, ["eldest.begged"], False, id="beg"),
        pytest.param({"run": True}, ["dealer.ran"], False, id="run"),
        pytest.param({"giveOne": True}, ["dealer.gave"], False, id="give"),
        pytest.param({"bunch": True}, ["bunch.proposed"], False, id="bunch"),
    ],
)
def test_undoable(move, events, expected):
    outcome = Outcome(None, tuple(Event(t) for t in events))
    assert undoable(None, 0, move, outcome) is expected


@pytest.mark.parametrize("seed", [1, 2])
def test_random_games_take_back_only_what_may_be_taken_back(seed: int):
    seen = playout(GAME, registry(), 2, seed)
    assert seen[("play", True)] > 0 and seen[("play", False)] > 0
    assert not any(ok for (kind, ok) in seen if kind not in ("play", "discard"))
