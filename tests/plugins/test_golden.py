"""Golden logs of every installed game: seeded games its own bot plays, kept as
``tests/golden/<game id>/<name>.jsonl`` (the case on the first line, then every event
with its private parts, every move, the result). Each must replay byte for byte: the bot
still plays the same game, and its moves still give the same events and result.

A new log: write its first line, ``{"case": {...}}`` (``players`` or ``seats``, ``rules``,
``options``, ``seed``), and run with ``TABLESTATE_UPDATE_GOLDEN=1``, which also rewrites
the others after a deliberate change of the rules or the events.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.games import driver, installed

from tablestate.engine import Rng
from tablestate.testing import check_golden

GOLDEN = Path(__file__).parents[1] / "golden"


def _logs() -> list[object]:
    return [
        pytest.param(game_id, path, id=f"{game_id}:{path.stem}")
        for game_id in installed()
        for path in sorted((GOLDEN / game_id).glob("*.jsonl"))
    ]


@pytest.mark.parametrize("game_id", installed())
def test_every_installed_game_keeps_golden_logs(game_id: str) -> None:
    assert list((GOLDEN / game_id).glob("*.jsonl")), f"no golden log of {game_id}"


@pytest.mark.parametrize("game_id, path", _logs())
def test_golden_game_replays_identically(game_id: str, path: Path) -> None:
    case = json.loads(path.read_text().splitlines()[0])["case"]
    check_golden(path, case, lambda c: driver(game_id, c), Rng(b"golden-bots"))
