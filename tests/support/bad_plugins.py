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


def _game(**changes: Any) -> SimpleNamespace:
    game = __import__("dataclasses").replace(GAME, id="view-game", hookspecs=None, **changes)
    return plugin(tablestate_games=lambda: [game])


view_file_missing = _game(web_view="tablestate_example:web/view.js")
view_beside_the_code = _game(web_view="tablestate_example:game.js")
view_out_of_its_folder = _game(web_view="tablestate_example:web/../game.py")
view_not_a_module = _game(web_view="tablestate_example:web/view.css")
view_package_missing = _game(web_view="no_such_package:web/view.js")
text_of_no_event = _game(event_texts={"card.burnt": "{player} burnt {card}"})
