"""Shared helpers of the Five by Five tests: boards from text, rule sets, invariant checks."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from dataclasses import replace
from functools import cache
from typing import Any

from plugins.five_by_five.game import GAME
from plugins.five_by_five.rules import ACTION_COUNTS, COLORS, DICE_PER_COLOR, SPECIAL_IDS
from plugins.five_by_five.state import State
from service.engine import Event, RuleSet
from service.plugins import Registry, load

RULE_MODULES = {
    "removed-dice-leave": "removed_dice_leave",
    "shared-specials": "shared_specials",
    "diagonal-lines": "diagonal_lines",
    "plus-minus-wrap": "plus_minus_wrap",
    "swap-into-empty": "swap_into_empty",
    "partial-action-discard": "partial_action_discard",
    "open-objectives": "open_objectives",
    "equal-turns": "equal_turns",
}


@cache
def registry() -> Registry:
    """The game and all its house rules, loaded the way start-up loads plugins."""
    import plugins.five_by_five as game_plugin

    objects: list[tuple[str, object]] = [("five-by-five", game_plugin)]
    for rule, module in RULE_MODULES.items():
        objects.append(
            (
                f"five-by-five.{rule}",
                importlib.import_module(f"plugins.five_by_five.house_rules.{module}"),
            )
        )
    return load(use_entry_points=False, objects=objects)


def ruleset(*rules: str) -> RuleSet:
    """The rule set with these house rules on (short names, without the game prefix)."""
    return registry().ruleset("five-by-five", {f"five-by-five/{r}" for r in rules})


def board(text: str) -> tuple[tuple[str | None, ...], ...]:
    """A board from 5 rows separated by '/', squares by spaces, '.' for empty."""
    rows = [row.split() for row in text.split("/")]
    assert len(rows) == 5 and all(len(r) == 5 for r in rows), text
    return tuple(tuple(None if sq == "." else sq for sq in row) for row in rows)


def line(text: str) -> tuple[tuple[str | None, ...], ...]:
    """A board whose top row is ``text`` (5 squares) and the rest empty."""
    return board(" / ".join([text, *[". . . . ."] * 4]))


def sq(row: int, col: int) -> dict[str, int]:
    return {"row": row, "col": col}


def check_conservation(state: State, options: dict[str, Any]) -> None:
    """40 dice, the action deck and the objective deck, each item in exactly one place."""
    on_board = Counter(d[0] for row in state.board for d in row if d is not None)
    pending = Counter([state.pending[0]] if state.pending else [])
    for i, color in enumerate(COLORS):
        total = state.supply[i] + state.out[i] + on_board[color] + pending[color]
        assert total == DICE_PER_COLOR, f"{color}: {total} dice"
        assert state.supply[i] >= 0 and state.out[i] >= 0
    assert sum(state.supply) + sum(state.out) + sum(on_board.values()) + sum(pending.values()) == 40
    actions = Counter(state.action_discard) + Counter(state.decks[0]) + Counter(state.decks[1])
    for p in state.players:
        actions += Counter(p.actions)
    assert actions == Counter(ACTION_COUNTS), "action cards not conserved"
    assert sum(actions.values()) == 60
    objectives = Counter(state.objective_deck) + Counter(state.objective_discard)
    for p in state.players:
        objectives += Counter(p.objectives)
        objectives += Counter(oid for oid, _ in p.scored if oid not in SPECIAL_IDS)
    expected = Counter({k: v for k, v in options["objectiveCounts"].items() if v})
    assert objectives == expected, "objective cards not conserved"


def check_specials(state: State, shared: bool) -> None:
    for sid in SPECIAL_IDS:
        claimed = state.claimed_by(sid)
        assert len(set(claimed)) == len(claimed)
        for p in state.players:
            assert sum(1 for oid, _ in p.scored if oid == sid) <= 1
        if not shared:
            assert len(claimed) <= 1, f"{sid} claimed by {claimed}"


def perturb_hidden(state: State, viewer: int | None) -> State:
    """The same state with everything ``viewer`` may not see changed."""
    players = []
    for p in state.players:
        if p.seat == viewer:
            players.append(p)
            continue
        actions = ("PAINT",) * len(p.actions)
        objectives = p.objectives
        if not state.config.open_objectives:
            objectives = ("line-all-odd",) * len(p.objectives)
        players.append(replace(p, actions=actions, objectives=objectives))
    decks = tuple(d[:1] + tuple(reversed(d[1:])) for d in state.decks)
    return replace(
        state,
        players=tuple(players),
        decks=(decks[0], decks[1]),
        objective_deck=tuple(reversed(state.objective_deck)),
        objective_discard=tuple(reversed(state.objective_discard)),
        action_discard=tuple(reversed(state.action_discard)),
    )


def check_secrecy(state: State) -> None:
    """A view shows its viewer's own hand only, and changes with nothing hidden from it."""
    for viewer in (None, *state.seats):
        view = GAME.view(state, viewer)
        assert view == GAME.view(perturb_hidden(state, viewer), viewer), f"leak to {viewer}"
        if viewer is None:
            assert view["hand"] is None
        else:
            me = state.players[state.position(viewer)]
            assert view["hand"]["actions"] == list(me.actions)
            assert view["hand"]["objectives"] == list(me.objectives)
        for p in view["players"]:
            if not state.config.open_objectives:
                assert p["objectives"] is None
        json.dumps(view)


def check_event_secrecy(events: list[Event], open_objectives: bool) -> None:
    """Public event data holds no hidden card; private parts go to the acting seat only."""
    for event in events:
        json.dumps(event.data)
        assert set(event.private) <= {event.seat}, event
        text = json.dumps(event.data)
        if event.type in ("hand.dealt", "action.drawn"):
            assert "card" not in event.data and "actions" not in event.data, event
        if event.type in ("hand.dealt", "objective.drawn", "objectives.forfeited"):
            assert ("objectives" in event.data) == open_objectives, event
        for private in event.private.values():
            for key, hidden in private.items():
                if key == "objectives" and open_objectives:
                    continue
                if event.type != "actions.forfeited":
                    assert json.dumps({key: hidden}) not in text
