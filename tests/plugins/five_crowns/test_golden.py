"""Golden, seeded Five Crowns games: the log of a bot game must replay byte for byte.

``golden/*.jsonl``: the case (players, seed, options, house rules), then one line per event
and per move, in order, and the result. Set ``TABLESTATE_UPDATE_GOLDEN=1`` to rewrite the
files after a deliberate change of the rules or the events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.engine import Rng
from service.testing import GameDriver, check_golden

from .support import DECLARE, LAY_OFF, NATURAL, driver

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "three-players-lay-off": {"players": 3, "rules": [LAY_OFF], "options": {"rounds": 3}},
    "two-players-declare": {"players": 2, "rules": [DECLARE, NATURAL], "options": {"rounds": 4}},
    "solo": {"players": 1, "rules": [], "options": {}},
}


def _driver(case: dict[str, Any]) -> GameDriver:
    return driver(case["players"], case["rules"], seed=case["seed"], **case["options"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_game_replays_identically(name: str) -> None:
    case = {**CASES[name], "seed": f"golden-{name}"}
    check_golden(GOLDEN / f"{name}.jsonl", case, _driver, Rng(b"golden-bots"))
