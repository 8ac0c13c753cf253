"""The plugin author's test helpers: a golden log holds a game and catches a change; the
harness checks any game by its ``GameDef`` and catches leaks of values of any type."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.tiny_games import (
    BROKEN_COUNT_UP,
    COUNT_UP,
    DICE_IN_AN_EVENT,
    DICE_IN_THE_VIEW,
    HIDDEN_DICE,
)

from tablestate import plugins
from tablestate.engine import Rng
from tablestate.engine.bots import BotView
from tablestate.engine.contract import ContractError
from tablestate.testing import (
    GameDriver,
    GameFacts,
    check_golden,
    golden_record,
    golden_replay,
    play_checked,
    ruleset,
)
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


# -- the harness for any game: the contract, secrecy over every type, conservation --------


def _dice_play(game: Any, players: int = 2, seed: str = "d") -> None:
    play_checked(GameDriver(game, players, seed=seed), GameFacts(), {"seed": seed})


@pytest.mark.parametrize("players, seed", [(2, "a"), (2, "b"), (3, "c")])
def test_a_dice_game_that_keeps_its_secrets_passes_with_its_gamedef_alone(players, seed):
    """No facts but ``GameFacts()``: secrecy by the game's ``determinize``, conservation by
    its ``conserved`` (its dice, re-rolled: their number is kept, their faces are not)."""
    _dice_play(HIDDEN_DICE, players, seed)
    _dice_play(COUNT_UP, 2, seed)


def test_the_harness_catches_a_hand_leaked_as_numbers():
    with pytest.raises(AssertionError) as info:
        _dice_play(DICE_IN_THE_VIEW)
    message = str(info.value)
    assert "changes with what it may not see" in message
    assert '"players.1.dice.' in message  # where: the other seat's dice, as numbers


def test_the_harness_catches_dice_leaked_through_an_event():
    with pytest.raises(AssertionError) as info:
        _dice_play(DICE_IN_AN_EVENT)
    message = str(info.value)
    assert 'move {"reroll": true} show' in message and "what it may not see" in message
    assert '"0.data.dice.' in message and "(event 'dice.rolled')" in message


def test_the_harness_catches_a_die_that_vanishes():
    def lose_a_die(state, seat, move, rng, rules):
        out = HIDDEN_DICE.apply(state, seat, move, rng, rules)
        dice = (out.state.dice[0][:1], *out.state.dice[1:])
        return replace(out, state=replace(out.state, dice=dice))

    with pytest.raises(AssertionError, match="vanished"):
        _dice_play(replace(HIDDEN_DICE, apply=lose_a_die))


@pytest.mark.parametrize("broken", ["view-key-not-in-state-type", "legal-move-the-input-lacks"])
def test_the_harness_checks_the_contract_at_every_step(broken):
    game = BROKEN_COUNT_UP[broken]
    with pytest.raises(ContractError, match='game "count-up"'):
        play_checked(GameDriver(game, 2, seed="s"), GameFacts(), {"seed": "s"})
    with pytest.raises(ContractError, match='game "count-up"'):
        GameDriver(game, 2, seed="s").random_playout()


def test_an_undeclared_event_fails_the_driver():
    with pytest.raises(ContractError, match=r'event "count\.added" is not declared'):
        GameDriver(BROKEN_COUNT_UP["undeclared-event"], 2).random_playout()


def test_a_driver_without_rules_answers_the_games_hooks_as_a_table_without_house_rules():
    d = GameDriver(GAME, 2, seed="s")
    assert d.rules.hook.lucky_draw_points(card="4A", rank=4) is None  # firstresult: None
    d.random_playout()  # every card played scores by the hook's None: its rank


def test_ruleset_builds_house_rules_for_a_test():
    evens = ruleset("lucky-draw", "double-evens")
    assert evens.is_on("lucky-draw/double-evens")
    assert evens.hook.lucky_draw_points(card="4A", rank=4) == 8
    assert ruleset("lucky-draw").hook.lucky_draw_points(card="4A", rank=4) is None
    assert ruleset("lucky-draw", "lucky-draw/double-evens") is evens
    d = GameDriver(GAME, 2, rules=evens, seed="s")
    d.random_playout()
    with pytest.raises(ValueError, match="no house rule 'lucky-draw/no-such-rule'"):
        ruleset("lucky-draw", "no-such-rule")
    with pytest.raises(ValueError, match="conflicts with"):
        ruleset("lucky-draw", "double-evens", "odd-bonus")
    with pytest.raises(ValueError, match="no installed game"):
        ruleset("chess")
