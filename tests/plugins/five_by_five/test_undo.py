"""Which Five by Five moves may be taken back (undoMove): placing a rolled die and the
actions that roll nothing; a roll never, nor scoring or drawing cards."""

from __future__ import annotations

import pytest
from support.undo_playout import playout

from tablestate.engine import Event, Outcome
from tablestate.plugins import load
from tablestate_five_by_five.game import GAME, undoable

SQ = {"row": 0, "col": 0}


@pytest.mark.parametrize(
    ("move", "events", "expected"),
    [
        pytest.param({"place": {"square": SQ}}, ["die.placed"], True, id="place"),
        pytest.param(
            {"place": {"square": SQ}}, ["die.placed", "board.filled"], False, id="place-fills"
        ),
        pytest.param({"swap": {}}, ["action.played"], True, id="swap"),
        pytest.param({"plusMinus": {}}, ["action.played"], True, id="plus-minus"),
        pytest.param({"paint": {}}, ["action.played"], True, id="paint"),
        pytest.param({"reroll": {}}, ["action.played", "die.rolled"], False, id="reroll"),
        pytest.param({"playColor": {}}, ["action.played", "die.rolled"], False, id="roll"),
        pytest.param({"playObjective": {}}, ["objective.scored"], False, id="objective"),
        pytest.param({"drawAction": {}}, ["action.drawn"], False, id="draw"),
        pytest.param({"forfeitObjectives": {}}, ["objectives.forfeited"], False, id="forfeit"),
    ],
)
def test_undoable(move, events, expected):
    outcome = Outcome(None, tuple(Event(t) for t in events))
    assert undoable(None, 0, move, outcome) is expected


@pytest.mark.parametrize("seed", [1, 2])
def test_random_games_take_back_only_what_may_be_taken_back(seed: int):
    seen = playout(GAME, load(), 2, seed, options={"prefilledSquares": 18})
    assert seen[("place", True)] > 0
    assert not seen[("playColor", True)] and not seen[("reroll", True)]
    assert not seen[("drawAction", True)] and not seen[("playObjective", True)]
