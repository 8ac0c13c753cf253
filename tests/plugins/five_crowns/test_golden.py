"""A golden, seeded game log that must replay identically.

``golden/*.jsonl``: a header line (players, seed, options, house rules), then one line per
move and per event, in order. The test replays the recorded moves from the seed and
compares every event. ``FIVE_CROWNS_UPDATE_GOLDEN=1`` rewrites the files (from bot play)
after an intended change of the rules or the events.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from plugins.five_crowns.game import GAME
from service.engine.game import Event

from .support import DECLARE, LAY_OFF, NATURAL, driver

HERE = Path(__file__).parent / "golden"
GAMES = {
    "three-players-lay-off": {"players": 3, "rules": [LAY_OFF], "options": {"rounds": 3}},
    "two-players-declare": {"players": 2, "rules": [DECLARE, NATURAL], "options": {"rounds": 4}},
    "solo": {"players": 1, "rules": [], "options": {}},
}


def _event(e: Event) -> dict[str, Any]:
    private = {str(k): v for k, v in sorted(e.private.items())}
    return {"event": e.type, "seat": e.seat, "data": e.data, "private": private}


def _line(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def record(name: str) -> list[str]:
    spec = GAMES[name]
    d = driver(spec["players"], spec["rules"], seed=f"golden-{name}", **spec["options"])
    lines = [_line({"game": name, "seed": f"golden-{name}", **spec})]
    lines += [_line(_event(e)) for e in d.events]
    while d.result() is None:
        seat = d.to_act()[0]
        move = GAME.bot(d.state, seat, d.rng, d.rules)
        lines.append(_line({"move": move, "by": seat}))
        lines += [_line(_event(e)) for e in d.move(seat, move)]
    result = d.result()
    assert result is not None
    lines.append(
        _line(
            {
                "result": {
                    "winners": list(result.winners),
                    "scores": {str(k): v for k, v in result.scores.items()},
                }
            }
        )
    )
    return lines


def replay(lines: list[str]) -> list[str]:
    header = json.loads(lines[0])
    d = driver(header["players"], header["rules"], seed=header["seed"], **header["options"])
    out = [lines[0]] + [_line(_event(e)) for e in d.events]
    for line in lines[1:]:
        item = json.loads(line)
        if "move" in item:
            out.append(line)
            out += [_line(_event(e)) for e in d.move(item["by"], item["move"])]
    result = d.result()
    assert result is not None
    out.append(
        _line(
            {
                "result": {
                    "winners": list(result.winners),
                    "scores": {str(k): v for k, v in result.scores.items()},
                }
            }
        )
    )
    return out


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_game_replays_identically(name):
    path = HERE / f"{name}.jsonl"
    if os.environ.get("FIVE_CROWNS_UPDATE_GOLDEN"):
        path.write_text("\n".join(record(name)) + "\n")
    lines = path.read_text().splitlines()
    assert replay(lines) == lines
    assert record(name) == lines  # the bot still plays the same game
