"""All Fives' GraphQL types: they build, take every view, and accept every legal move."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import strawberry
from strawberry.types.base import get_object_definition

from tablestate.engine.schema import GameState, from_view
from tablestate.testing import GameDriver
from tablestate_all_fives.game import GAME
from tablestate_all_fives.schema import (
    AllFivesCardInput,
    AllFivesMoveInput,
    AllFivesPhase,
    AllFivesPlay,
    AllFivesPlayer,
    AllFivesState,
    AllFivesTrick,
)

from .support import BUNCH, DISCARD_SIX, GIFT_ALL, HLJG, PARTNERS, PEG_OUT, ruleset

_current: dict[str, Any] = {}


def _move_json(move: AllFivesMoveInput) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in get_object_definition(AllFivesMoveInput, strict=True).fields:
        value = getattr(move, f.python_name)
        if value is strawberry.UNSET or value is None:
            continue
        if isinstance(value, AllFivesCardInput):
            value = {"card": value.card}
        out[f.graphql_name or strawberry.utils.str_converters.to_camel_case(f.python_name)] = value
    return out


@strawberry.type
class Query:
    @strawberry.field(description="The state under test.")
    def state(self) -> GameState:
        return from_view(AllFivesState, _current["view"])


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Echo a move as JSON.")
    def make_move(self, move: AllFivesMoveInput) -> str:
        return json.dumps(_move_json(move), sort_keys=True)


SCHEMA = strawberry.Schema(query=Query, mutation=Mutation, types=[AllFivesState])

STATE_QUERY = """{ state { gameId toAct ... on AllFivesState {
  phase seats dealer eldest dealNumber targetScore proposedSuit turnUp trump begged runs
  setAside stockSize discardedCount handLimit leader
  trick { seat card } lastTrick { plays { seat card } winner points }
  players { seat side handSize tricksWon dealPoints score }
  hand bunchProposedBy winners } } }"""

MOVE = "mutation($m: AllFivesMoveInput!) { makeMove(move: $m) }"

ALL_KINDS = {"stand", "beg", "giveOne", "run", "play", "discard", "bunch", "declineBunch"}
GAMES = [
    pytest.param((0, 2), (BUNCH, DISCARD_SIX), ALL_KINDS, id="2p-bunch-discard"),
    pytest.param(
        (0, 1, 2),
        (GIFT_ALL, HLJG, PEG_OUT),
        ALL_KINDS - {"bunch", "declineBunch", "discard"},
        id="3p",
    ),
    pytest.param(
        (0, 1, 2, 3), (PARTNERS, DISCARD_SIX), ALL_KINDS - {"bunch", "declineBunch"}, id="4p"
    ),
]


def test_the_schema_builds_with_the_names_frontends_rely_on():
    sdl = str(SCHEMA)
    assert "type AllFivesState implements GameState" in sdl
    assert "input AllFivesMoveInput @oneOf" in sdl
    assert GAME.state_type is AllFivesState and GAME.move_input_type is AllFivesMoveInput


@pytest.mark.parametrize(
    "tp",
    [
        AllFivesState,
        AllFivesPlay,
        AllFivesTrick,
        AllFivesPlayer,
        AllFivesMoveInput,
        AllFivesCardInput,
    ],
)
def test_every_field_has_a_description(tp):
    for f in get_object_definition(tp, strict=True).fields:
        assert f.description, f"{tp.__name__}.{f.python_name} has no description"


def test_enum_values_are_their_names():
    assert all(m.value == m.name for m in AllFivesPhase)


@pytest.mark.parametrize("seats, rules, expected", GAMES)
def test_views_and_moves_through_graphql(seats, rules, expected):
    d = GameDriver(GAME, list(seats), rules=ruleset(*rules), seed="schema")
    pick = random.Random(3)
    moves: dict[str, dict[str, Any]] = {}
    kinds: set[str] = set()
    steps = 0
    while d.result() is None:
        (seat,) = d.to_act()
        for viewer in (None, *seats):
            view = dict(d.view(viewer), gameId=GAME.id, toAct=list(d.to_act()))
            obj = from_view(AllFivesState, view)
            assert obj.hand == view["hand"] and obj.to_act == view["toAct"]
            if steps % 25 == 0:
                _current["view"] = view
                out = SCHEMA.execute_sync(STATE_QUERY)
                assert out.errors is None, out.errors
                assert out.data["state"]["hand"] == view["hand"]
                assert out.data["state"]["phase"] == view["phase"]
        legal = d.legal(seat)
        for move in legal:
            kinds.add(next(iter(move)))
            moves.setdefault(json.dumps(move, sort_keys=True), move)
        d.move(seat, pick.choice(legal))
        steps += 1
    assert kinds == expected
    for key, move in moves.items():
        out = SCHEMA.execute_sync(MOVE, variable_values={"m": move})
        assert out.errors is None, out.errors
        assert out.data["makeMove"] == key


def test_the_one_of_input_refuses_two_kinds():
    out = SCHEMA.execute_sync(MOVE, variable_values={"m": {"stand": True, "beg": True}})
    assert out.errors
