"""``from_view`` builds a game's Strawberry state from its view's JSON."""

import enum

import strawberry

from tablestate.engine.schema import GameState, from_view


@strawberry.enum
class ToyPhase(enum.Enum):
    DRAW = "draw-phase"
    DONE = "done-phase"


@strawberry.type
class ToyMeld:
    cards: list[str]
    owner: int | None


@strawberry.type
class ToyState(GameState):
    phase: ToyPhase
    melds: list[ToyMeld]
    my_hand: list[str] | None
    last: ToyPhase | None


def test_nested_types_lists_and_enums():
    s = from_view(
        ToyState,
        {
            "gameId": "toy",
            "toAct": [1],
            "phase": "DRAW",
            "melds": [{"cards": ["3H"], "owner": 1}],
            "myHand": None,
            "last": "DONE",
        },
    )
    assert s.phase is ToyPhase.DRAW and s.last is ToyPhase.DONE
    assert s.melds == [ToyMeld(cards=["3H"], owner=1)] and s.my_hand is None
    assert s.to_act == [1]
