"""Golden, seeded Five by Five games: the log of a bot game must replay byte for byte.

Set ``TABLESTATE_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from plugins.five_by_five.game import GAME
from service.engine import Rng
from service.testing import GameDriver, check_golden

from .helpers import ruleset

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "2p-default-seed-golden": {"seats": [0, 1], "rules": [], "options": {}, "seed": "golden"},
    "3p-rules-seed-golden": {
        "seats": [0, 2, 3],
        "rules": ["diagonal-lines", "plus-minus-wrap", "shared-specials"],
        "options": {"eachColorMin": 4},
        "seed": "golden",
    },
}


def _driver(case: dict[str, Any]) -> GameDriver:
    rules = ruleset(*case["rules"])
    return GameDriver(GAME, case["seats"], case["options"], rules, case["seed"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_game_replays_identically(name: str) -> None:
    check_golden(GOLDEN / f"{name}.jsonl", CASES[name], _driver, Rng(b"golden-bots"))
