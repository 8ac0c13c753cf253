"""Five Crowns house rules on card points, for the tests only (no bundled rule sets
points): ``five-crowns/jokers-count-25``, the worked example of the points hook in
``docs/hooks/five-crowns.md``, is this module, loaded by module path; ``PointsRule``
makes a rule of any other table, registered as an object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef

JOKERS_25: Final = "five-crowns/jokers-count-25"


@hookimpl
def tablestate_house_rules() -> list[HouseRuleDef]:
    """This rule."""
    return [
        HouseRuleDef(
            id=JOKERS_25,
            game_id="five-crowns",
            name="Jokers count 25",
            description="A joker left in hand scores 25 points, not 50.",
        )
    ]


@hookimpl
def five_crowns_card_points() -> Mapping[str, int]:
    """A joker costs 25."""
    return {"JK": 25}


class PointsRule:
    """A house rule ``rule_id`` whose points hook answers ``table``."""

    def __init__(self, rule_id: str, table: object) -> None:
        self.rule_id, self.table = rule_id, table

    @hookimpl
    def tablestate_house_rules(self) -> list[HouseRuleDef]:
        return [HouseRuleDef(self.rule_id, "five-crowns", self.rule_id, "Test card points.")]

    @hookimpl
    def five_crowns_card_points(self) -> object:
        return self.table
