"""The shape check of views and moves against a game's GraphQL types, as tables."""

from __future__ import annotations

import pytest
from support import tiny_schema

from tablestate.engine.graphql_shapes import input_shape, misfit, state_shape
from tablestate_five_crowns.schema import FiveCrownsState

DICE = state_shape(tiny_schema.HiddenDiceState)
MOVE = input_shape(tiny_schema.CountUpMoveInput)
PLAYER = {"seat": 0, "diceCount": 2, "dice": None}


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        pytest.param({"players": [PLAYER], "movesLeft": 1}, None, id="fits"),
        pytest.param(
            {"players": [], "movesLeft": 1, "gameId": "x", "toAct": [0]}, None, id="core-fields"
        ),
        pytest.param(
            {"players": []}, 'field "movesLeft": expected Int!, got nothing', id="missing"
        ),
        pytest.param(
            {"players": [], "movesLeft": True},
            'field "movesLeft": expected Int!, got true',
            id="bool",
        ),
        pytest.param(
            {"players": [], "movesLeft": 2**31},
            'field "movesLeft": expected Int!, got 2147483648',
            id="int-range",
        ),
        pytest.param(
            {"players": [], "movesLeft": 1, "myDice": [1, None]},
            'field "myDice.1": expected Int!, got null',
            id="null-item",
        ),
        pytest.param(
            {"players": [], "movesLeft": 1, "myDice": ["1"]},
            'field "myDice.0": expected Int!, got "1"',
            id="number-as-string",
        ),
        pytest.param(
            {"players": [{**PLAYER, "gameId": "x"}], "movesLeft": 1},
            'field "players.0.gameId": HiddenDicePlayer has no field "gameId"',
            id="nested-unknown-key",
        ),
        pytest.param(
            {"players": {"0": PLAYER}, "movesLeft": 1},
            'field "players": expected [HiddenDicePlayer!]!, got an object',
            id="object-for-list",
        ),
    ],
)
def test_a_view_fits_its_state_type(view, expected):
    found = misfit(DICE, view)
    assert (found is None) if expected is None else found.startswith(expected), found


def test_an_enum_value_is_given_by_its_name():
    shape = state_shape(FiveCrownsState).fields["phase"]
    assert misfit(shape, "DRAW") is None
    assert "expected FiveCrownsPhase! (one of DISCARD, DRAW, GAME_OVER, PLACE)" in misfit(
        shape, "draw"
    )


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        pytest.param({"add": {"amount": 1}}, None, id="fits"),
        pytest.param({}, "exactly one of its fields is given, got 0", id="no-kind"),
        pytest.param(
            {"add": {"amount": 1}, "skip": True},
            'field "skip": CountUpMoveInput has no field "skip"',
            id="unknown-kind",
        ),
        pytest.param({"add": {}}, 'field "add.amount": expected Int!, got nothing', id="required"),
        pytest.param(
            {"add": {"amount": "1"}}, 'field "add.amount": expected Int!, got "1"', id="type"
        ),
        pytest.param({"gameId": "x"}, 'CountUpMoveInput has no field "gameId"', id="no-core"),
    ],
)
def test_a_move_fits_its_move_input(move, expected):
    found = misfit(MOVE, move, is_input=True)
    assert (found is None) if expected is None else expected in found, found
