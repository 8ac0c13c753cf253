"""Plugins that must be refused at start-up, each for one reason."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tablestate import hookimpl
from tablestate.engine import HouseRuleDef
from tablestate_example import GAME


def plugin(**hooks: Any) -> SimpleNamespace:
    for fn in hooks.values():
        hookimpl(fn)
    return SimpleNamespace(**hooks)


same_game = plugin(tablestate_games=lambda: [GAME])
not_a_game = plugin(tablestate_games=lambda: ["chess"])
bad_id = plugin(tablestate_games=lambda: [__import__("dataclasses").replace(GAME, id="Bad Id")])
two_rules = plugin(
    tablestate_house_rules=lambda: [
        HouseRuleDef("lucky-draw/a", "lucky-draw", "A", "a"),
        HouseRuleDef("lucky-draw/b", "lucky-draw", "B", "b"),
    ]
)
rule_for_missing_game = plugin(
    tablestate_house_rules=lambda: [HouseRuleDef("chess/x", "chess", "X", "x")]
)
unknown_hook = plugin(tablestate_no_such_hook=lambda: None)
core_option = plugin(
    tablestate_games=lambda: [
        __import__("dataclasses").replace(
            GAME,
            id="clock-game",
            options={
                "type": "object",
                "properties": {"turnSeconds": {"type": "integer", "default": 5}},
            },
        )
    ]
)
