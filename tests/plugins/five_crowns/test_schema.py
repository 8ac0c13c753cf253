"""The GraphQL types: the schema builds, views taken mid-game become ``FiveCrownsState``
objects, and every listed legal move passes as a ``FiveCrownsMoveInput`` argument."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
import strawberry
from strawberry.scalars import JSON
from strawberry.utils.str_converters import to_camel_case

from tablestate.engine.bots import NORMAL, choose
from tablestate.engine.schema import from_view
from tablestate_five_crowns import schema as fc_schema
from tablestate_five_crowns.game import GAME
from tablestate_five_crowns.schema import FiveCrownsMoveInput, FiveCrownsState

from .support import LAY_OFF, driver


def _plain(value: Any) -> Any:
    """A Strawberry input object back to JSON, as the API hands moves to the game."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "__strawberry_definition__"):
        out = {}
        for field in value.__strawberry_definition__.fields:
            v = getattr(value, field.python_name)
            if v is not None and v is not strawberry.UNSET:
                out[field.graphql_name or to_camel_case(field.python_name)] = _plain(v)
        return out
    return value


CURRENT: dict[str, Any] = {}


@strawberry.type
class Query:
    @strawberry.field
    def state(self) -> FiveCrownsState:
        return from_view(FiveCrownsState, CURRENT)


@strawberry.type
class Mutation:
    @strawberry.mutation
    def make_move(self, move: FiveCrownsMoveInput) -> JSON:
        return _plain(move)


SCHEMA = strawberry.Schema(query=Query, mutation=Mutation, types=[FiveCrownsState])
MUTATION = "mutation($m: FiveCrownsMoveInput!) { makeMove(move: $m) }"
QUERY = """{ state { gameId toAct mode phase round wildRank turn topDiscard stockSize drewFrom
  drawnCard hand finalTurns wentOut winners
  players { seat handSize dealtIn roundPoints total wentOut finished }
  melds { index seat kind cards rank suit low high }
  history { round playoff points { seat points } }
  solo { piles { index size wildRank cards closed points } current deadCount lastDead turns score }
} }"""


def test_schema_builds_with_the_types():
    sdl = str(SCHEMA)
    assert "type FiveCrownsState implements GameState" in sdl
    assert "input FiveCrownsMoveInput @oneOf" in sdl
    for name in dir(fc_schema):
        if name.startswith("FiveCrowns"):
            assert name in sdl


def test_every_field_has_a_description():
    for name in dir(fc_schema):
        tp = getattr(fc_schema, name)
        definition = getattr(tp, "__strawberry_definition__", None)
        if definition is None or not hasattr(definition, "fields"):
            continue
        assert definition.description, name
        for field in definition.fields:
            if field.python_name not in ("game_id", "to_act"):
                assert field.description, (name, field.python_name)


def test_enum_values_are_their_names():
    for tp in (
        fc_schema.FiveCrownsPhase,
        fc_schema.FiveCrownsMode,
        fc_schema.FiveCrownsDrawSource,
        fc_schema.FiveCrownsMeldKind,
    ):
        assert all(m.value == m.name for m in tp)


def _pick(full: Any, got: Any) -> Any:
    """``full`` cut down to the keys the query asked for."""
    if isinstance(got, list):
        return [_pick(f, g) for f, g in zip(full, got, strict=True)]
    if isinstance(got, dict):
        return {k: _pick(full[k], v) for k, v in got.items()}
    return full


def _views_and_moves(players: Any, enabled: tuple[str, ...], steps: int, **opts: Any):
    d = driver(players, enabled, seed="schema", **opts)
    for _ in range(steps):
        if d.result() is not None:
            break
        seat = d.to_act()[0]
        yield d, seat
        d.move(seat, choose(GAME, d.state, seat, NORMAL, d.rng, d.rules))
    yield d, None


@pytest.mark.parametrize(
    "players, enabled, opts",
    [
        pytest.param(3, (LAY_OFF,), {"rounds": 2}, id="table"),
        pytest.param(1, (), {}, id="solo"),
        pytest.param((0, 2), (), {"rounds": 1}, id="gap"),
    ],
)
def test_views_and_moves_through_graphql(players, enabled, opts):
    seen = set()
    for d, seat in _views_and_moves(players, enabled, 80, **opts):
        for viewer in (None, *d.seats):
            view = {**d.view(viewer), "gameId": "five-crowns", "toAct": list(d.to_act())}
            obj = from_view(FiveCrownsState, view)
            assert obj.hand == view["hand"] and len(obj.players) == len(view["players"])
            CURRENT.clear()
            CURRENT.update(view)
            result = SCHEMA.execute_sync(QUERY)
            assert result.errors is None, result.errors
            got = result.data["state"]
            for key, value in got.items():
                if key in ("players", "melds", "history", "solo"):
                    assert value == _pick(view[key], value), key
                else:
                    assert value == view[key], key
        if seat is None:
            continue
        for move in d.legal(seat):
            kind = next(iter(move))
            if kind in seen and kind not in ("goOut", "layDown", "layOff"):
                continue
            seen.add(kind)
            result = SCHEMA.execute_sync(
                MUTATION, variable_values={"m": json.loads(json.dumps(move))}
            )
            assert result.errors is None, (move, result.errors)
            assert result.data["makeMove"] == move
    assert seen


def test_one_of_refuses_two_kinds():
    result = SCHEMA.execute_sync(
        MUTATION,
        variable_values={"m": {"draw": {"source": "STOCK"}, "discard": {"card": "KS"}}},
    )
    assert result.errors
