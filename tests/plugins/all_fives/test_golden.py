"""Golden, seeded All Fives games: the log of a bot game must replay byte for byte.

Set ``TABLESTATE_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from plugins.all_fives.game import GAME
from service.engine import Rng
from service.testing import GameDriver

from .support import GIFT_ALL, HLJG, JACK_BONUS, event_json, ruleset

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "2p-default-seed-golden": {"seats": [0, 1], "rules": [], "options": {}, "seed": "golden"},
    "3p-hljg-seed-golden": {
        "seats": [0, 1, 3],
        "rules": sorted([HLJG, JACK_BONUS, GIFT_ALL]),
        "options": {"targetScore": 31, "lowGoesTo": "won"},
        "seed": "golden",
    },
}


def _driver(case: dict[str, Any]) -> GameDriver:
    return GameDriver(
        GAME,
        case["seats"],
        options=case["options"],
        rules=ruleset(*case["rules"]),
        seed=case["seed"],
    )


def _record(case: dict[str, Any]) -> str:
    d = _driver(case)
    lines = [f"game {json.dumps(case, sort_keys=True)}", "setup"]
    lines += [f"  {event_json(e)}" for e in d.events]
    rng = Rng(b"golden-bots")
    while d.result() is None:
        (seat,) = d.to_act()
        move = GAME.bot(d.state, seat, rng, d.rules)
        lines.append(f"move {seat} {json.dumps(move, sort_keys=True)}")
        lines += [f"  {event_json(e)}" for e in d.move(seat, move)]
    result = d.result()
    assert result is not None
    lines.append(f"result {json.dumps({'winners': result.winners, 'scores': result.scores})}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_game_is_unchanged(name):
    path = GOLDEN / f"{name}.txt"
    text = _record(CASES[name])
    if os.environ.get("TABLESTATE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.read_text() == text


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_moves_replay_to_the_same_events(name):
    lines = (GOLDEN / f"{name}.txt").read_text().splitlines()
    case = json.loads(lines[0].removeprefix("game "))
    d = _driver(case)
    replayed = ["setup", *(f"  {event_json(e)}" for e in d.events)]
    for line in lines[len(replayed) + 1 :]:
        if line.startswith("move "):
            _, seat, move = line.split(" ", 2)
            replayed.append(line)
            replayed += [f"  {event_json(e)}" for e in d.move(int(seat), json.loads(move))]
    assert replayed == [x for x in lines[1:] if not x.startswith("result ")]
    result = d.result()
    assert result is not None and lines[-1] == (
        f"result {json.dumps({'winners': result.winners, 'scores': result.scores})}"
    )
