"""Five by Five's GraphQL types: the schema builds, views taken mid-game become
``FiveByFiveState`` objects, and ``FiveByFiveMoveInput`` accepts every move that
``legal_moves`` lists, as JSON variables, unchanged."""

from __future__ import annotations

import enum
import json
import random
from typing import Any

import pytest
import strawberry
from strawberry.scalars import JSON
from strawberry.types.base import get_object_definition
from strawberry.utils.str_converters import to_camel_case

from tablestate.engine.schema import GameState, from_view
from tablestate.testing import GameDriver
from tablestate_five_by_five import schema as s
from tablestate_five_by_five.game import GAME
from tablestate_five_by_five.moves import MOVE_KINDS

from .helpers import ruleset, sq
from .scenario import arrange, driver


def to_json(value: Any) -> Any:
    """A Strawberry input value back to the JSON a client sent (camelCase keys)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [to_json(v) for v in value]
    definition = get_object_definition(type(value))
    if definition is None:
        return value
    out = {}
    for f in definition.fields:
        v = getattr(value, f.python_name)
        if v is not None and v is not strawberry.UNSET:
            out[f.graphql_name or to_camel_case(f.python_name)] = to_json(v)
    return out


@strawberry.type
class Query:
    @strawberry.field
    def state(self, view: JSON) -> GameState:
        return from_view(s.FiveByFiveState, view)


@strawberry.type
class Mutation:
    @strawberry.mutation
    def make_move(self, move: s.FiveByFiveMoveInput) -> JSON:
        return to_json(move)


SCHEMA = strawberry.Schema(query=Query, mutation=Mutation, types=[s.FiveByFiveState])

STATE_QUERY = """
query($view: JSON!) {
  state(view: $view) {
    gameId toAct
    ... on FiveByFiveState {
      board supply { color count } outOfGame { color count }
      decks { deck size faceUp }
      actionDiscardSize objectiveDeckSize objectiveDiscardSize
      specials { objective name points claimedBy satisfied }
      players { seat score scored { objective name points } actionCount objectiveCount objectives }
      hand { actions objectives satisfied }
      phase current turn order pendingDie drawsLeft scoredThisTurn finalQueue
      boardSatisfies objectivesOpen winners
      rolloffs { round rolls { seat dice total } }
    }
  }
}
"""
MOVE_MUTATION = "mutation($move: FiveByFiveMoveInput!) { makeMove(move: $move) }"


def test_schema_builds_with_its_names() -> None:
    sdl = strawberry.Schema(query=Query, types=[s.FiveByFiveState]).as_str()
    assert "type FiveByFiveState implements GameState" in sdl
    sdl = SCHEMA.as_str()
    assert "input FiveByFiveMoveInput @oneOf" in sdl
    for kind in MOVE_KINDS:
        assert f"  {kind}: " in sdl, kind


def test_every_field_has_a_description() -> None:
    for name in dir(s):
        tp = getattr(s, name)
        definition = get_object_definition(tp) if isinstance(tp, type) else None
        if definition is None or not name.startswith("FiveByFive"):
            continue
        assert definition.description, name
        for f in definition.fields:
            assert f.description, f"{name}.{f.python_name}"


def test_enum_values_are_their_names() -> None:
    enums = [
        v
        for k, v in vars(s).items()
        if isinstance(v, type) and issubclass(v, enum.Enum) and k.startswith("FiveByFive")
    ]
    assert len(enums) == 4
    for e in enums:
        assert all(m.name == m.value for m in e), e


def snapshot_views(d: GameDriver) -> list[dict[str, Any]]:
    views = []
    for seat in (None, *d.seats):
        view = dict(d.view(seat))
        view.update(gameId="five-by-five", toAct=list(d.to_act()))
        views.append(view)
    return views


@pytest.mark.parametrize(
    "rules", [(), ("open-objectives", "removed-dice-leave")], ids=["default", "open"]
)
def test_views_mid_game_build_and_query(rules) -> None:
    d = GameDriver(GAME, players=[0, 2, 3], seed="views", rules=ruleset(*rules))
    chooser = random.Random(1)
    step = 0
    while d.result() is None:
        if step % 40 == 0:
            for view in snapshot_views(d):
                obj = from_view(s.FiveByFiveState, view)
                assert isinstance(obj, s.FiveByFiveState)
                out = SCHEMA.execute_sync(STATE_QUERY, variable_values={"view": view})
                assert out.errors is None, out.errors
                assert out.data["state"]["board"] == view["board"]
                assert out.data["state"]["hand"] == view["hand"]
        (seat,) = d.to_act()
        d.move(seat, chooser.choice(d.legal(seat)))
        step += 1
    for view in snapshot_views(d):
        out = SCHEMA.execute_sync(STATE_QUERY, variable_values={"view": view})
        assert out.errors is None and out.data["state"]["phase"] == "OVER"


def listed_moves() -> list[dict[str, Any]]:
    """Distinct moves listed over random games and a game's end."""
    found: dict[str, dict[str, Any]] = {}

    def collect(d: GameDriver) -> None:
        for seat in d.to_act():
            for move in d.legal(seat):
                found.setdefault(json.dumps(move, sort_keys=True), move)

    for seed, rules in (("a", ("partial-action-discard",)), ("b", ("swap-into-empty",))):
        d = GameDriver(GAME, players=2, seed=seed, rules=ruleset(*rules))
        chooser = random.Random(seed)
        while d.result() is None:
            collect(d)
            (seat,) = d.to_act()
            d.move(seat, chooser.choice(d.legal(seat)))
    almost = "R1 Y3 B5 G2 R4 / Y2 B4 G6 R1 Y3 / B5 G1 R3 Y6 B2 / G4 R6 Y1 B3 G5 / R2 Y5 B1 G3 ."
    d = arrange(
        driver(ints=[6]),
        grid=almost,
        actions={0: ["G"]},
        objectives={1: ["square-distinct-numbers"]},
    )
    d.move(0, {"playColor": {"card": "G", "color": "G"}})
    d.move(0, {"place": {"square": sq(4, 4)}})
    collect(d)
    d.move(0, {"done": True})
    collect(d)
    return list(found.values())


def test_move_input_accepts_every_listed_move() -> None:
    moves = listed_moves()
    assert {next(iter(m)) for m in moves} == set(MOVE_KINDS)
    for move in moves:
        out = SCHEMA.execute_sync(MOVE_MUTATION, variable_values={"move": move})
        assert out.errors is None, (move, out.errors)
        assert out.data["makeMove"] == move


def test_move_input_refuses_two_kinds() -> None:
    move = {"done": True, "place": {"square": sq(0, 0)}}
    out = SCHEMA.execute_sync(MOVE_MUTATION, variable_values={"move": move})
    assert out.errors
