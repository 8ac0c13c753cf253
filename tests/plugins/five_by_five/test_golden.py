"""A golden, seeded Five by Five game: the log of a bot game must replay byte for byte.

Set ``TABLESTATE_UPDATE_GOLDEN=1`` to rewrite the files after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from plugins.five_by_five.game import GAME
from service.engine import Event, Rng
from service.testing import GameDriver

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


def event_json(event: Event) -> str:
    return json.dumps(
        {
            "type": event.type,
            "seat": event.seat,
            "data": event.data,
            "private": {str(k): v for k, v in event.private.items()},
        },
        sort_keys=True,
    )


def _driver(case: dict[str, Any]) -> GameDriver:
    return GameDriver(
        GAME,
        case["seats"],
        options=case["options"],
        rules=ruleset(*case["rules"]),
        seed=case["seed"],
    )


def _result_line(d: GameDriver) -> str:
    result = d.result()
    assert result is not None
    scores = {str(k): v for k, v in sorted(result.scores.items())}
    return f"result {json.dumps({'winners': list(result.winners), 'scores': scores})}"


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
    lines.append(_result_line(d))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_game_is_unchanged(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    text = _record(CASES[name])
    if os.environ.get("TABLESTATE_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.read_text() == text


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_moves_replay_to_the_same_events(name: str) -> None:
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
    assert lines[-1] == _result_line(d)
