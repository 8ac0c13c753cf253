"""The plugin author's test helpers: a golden log holds a game and catches a change."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tablestate import plugins
from tablestate.engine import Rng
from tablestate.engine.bots import BotView
from tablestate.testing import GameDriver, check_golden, golden_record, golden_replay
from tablestate_example import GAME


def _driver(case: dict[str, Any]) -> GameDriver:
    rules = plugins.load().ruleset(GAME.id, set())
    return GameDriver(GAME, case["players"], rules=rules, seed=case["seed"])


CASE = {"players": 2, "seed": "golden"}


def test_a_recorded_game_replays_to_itself() -> None:
    lines = golden_record(_driver(CASE), CASE, Rng(b"bots"))
    assert json.loads(lines[0]) == {"case": CASE}
    assert any('"move"' in line for line in lines) and '"result"' in lines[-1]
    assert golden_replay(lines, _driver) == lines


def test_check_golden_writes_then_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "golden" / "game.jsonl"
    monkeypatch.setenv("TABLESTATE_UPDATE_GOLDEN", "1")
    check_golden(path, CASE, _driver, Rng(b"bots"))
    monkeypatch.delenv("TABLESTATE_UPDATE_GOLDEN")
    check_golden(path, CASE, _driver, Rng(b"bots"))


def test_check_golden_catches_a_changed_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.jsonl"
    monkeypatch.setenv("TABLESTATE_UPDATE_GOLDEN", "1")
    check_golden(path, CASE, _driver, Rng(b"bots"))
    monkeypatch.delenv("TABLESTATE_UPDATE_GOLDEN")
    lines = path.read_text().splitlines()
    i = next(n for n, line in enumerate(lines) if '"event"' in line and n > 0)
    event = json.loads(lines[i])
    event["seat"] = 99
    lines[i] = json.dumps(event, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(AssertionError, match="replay"):
        check_golden(path, CASE, _driver, Rng(b"bots"))


def test_check_golden_catches_a_bot_that_plays_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.jsonl"
    monkeypatch.setenv("TABLESTATE_UPDATE_GOLDEN", "1")
    check_golden(path, CASE, _driver, Rng(b"bots"))
    monkeypatch.delenv("TABLESTATE_UPDATE_GOLDEN")
    rules = plugins.load().ruleset(GAME.id, set())

    def last_legal(view: BotView[Any], rng: Rng) -> Any:
        return view.legal[-1]

    other = replace(GAME, bot=last_legal)
    with pytest.raises(AssertionError, match="the bot"):
        check_golden(
            path, CASE, lambda c: GameDriver(other, 2, rules=rules, seed=c["seed"]), Rng(b"bots")
        )
