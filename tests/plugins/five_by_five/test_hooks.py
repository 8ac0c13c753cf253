"""Five by Five's own hooks (``plugins/five_by_five/hookspecs.py``).

Each hook has a docstring, a section of ``docs/hooks/five-by-five.md`` that repeats its
signature, and a ``test_hook_<name>`` here that plays the game twice: with the house rule
that implements the hook, where play changes, and with every other house rule on instead,
where it does not (the hook is called on the rules enabled at the table and no other).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tablestate.engine import Outcome, Rejected, RuleSet
from tablestate.plugins import load
from tablestate.testing import FixedRng, GameDriver
from tablestate_five_by_five import hookspecs
from tablestate_five_by_five.game import GAME
from tablestate_five_by_five.rules import DIAGONALS, LINES
from tablestate_five_by_five.state import ACTED, FINAL, REFILL, TURN

from .helpers import RULE_MODULES, sq
from .scenario import EMPTY_BOARD, arrange, driver, types

HOOKS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and name.startswith("five_by_five_")
)
DOCS = Path(__file__).parents[3] / "docs" / "hooks" / "five-by-five.md"
TESTS = Path(__file__).parent

# The house rule implementing each hook.
IMPLEMENTED_BY = {
    "five_by_five_extra_lines": "diagonal-lines",
    "five_by_five_objectives_public": "open-objectives",
    "five_by_five_adjust_value": "plus-minus-wrap",
    "five_by_five_swap_allowed": "swap-into-empty",
    "five_by_five_die_leaves_game": "removed-dice-leave",
    "five_by_five_special_shared": "shared-specials",
    "five_by_five_forfeit_discards": "partial-action-discard",
    "five_by_five_finish_round": "equal-turns",
}
BOARD = "R1 Y6 . . . / B3 . . . . / . . . . . / . . . . . / . . . . G2"
HAND = ["R", "REROLL", "REMOVE", "SWAP", "PLUS_MINUS", "PAINT"]


def others(rule: str) -> tuple[str, ...]:
    """Every house rule but ``rule``: the table where its hook must change nothing."""
    return tuple(r for r in RULE_MODULES if r != rule)


def with_and_without(hook: str) -> list[tuple[str, ...]]:
    rule = IMPLEMENTED_BY[hook]
    return [(rule,), others(rule)]


def signature(name: str) -> str:
    """``name(params) -> return`` as written in the source of the hookspec."""
    source = inspect.getsource(getattr(hookspecs, name))
    found = re.search(rf"def ({name}\(.*?\) -> [^:]+):", source, re.S)
    assert found, name
    return " ".join(found.group(1).split())


# --- the contract -------------------------------------------------------------------------


def test_there_are_hooks_and_each_has_its_rule() -> None:
    assert HOOKS == sorted(IMPLEMENTED_BY)


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_docstring(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name))
    assert doc and len(doc.split()) > 10


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_test(name: str) -> None:
    found = [p for p in TESTS.rglob("test_*.py") if f"def test_hook_{name}(" in p.read_text()]
    assert found, f"no test_hook_{name} under {TESTS}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_documented_with_its_signature(name: str) -> None:
    headings = [line for line in DOCS.read_text().splitlines() if line.startswith("### ")]
    assert f"### `{signature(name)}`" in headings, f"no heading for {name} in {DOCS}"


def test_the_docs_document_no_other_hook() -> None:
    text = DOCS.read_text()
    documented = re.findall(r"^### `(\w+)\(", text, re.M)
    assert sorted(documented) == HOOKS


# --- each hook changes play with its rule on, and only then ------------------------------


def test_hook_five_by_five_extra_lines() -> None:
    # A large straight on the main diagonal, none in a row or column.
    grid = "R1 . . . . / . Y3 . . . / . . B5 . . / . . . G2 . / . . . . R4"
    claim = {"claimSpecial": {"objective": "special-large-straight"}}
    on, off = (
        arrange(driver(rules=r), grid=grid, actions={0: HAND})
        for r in with_and_without("five_by_five_extra_lines")
    )
    assert on.state.config.lines == LINES + DIAGONALS
    assert claim in on.legal(0)
    on.move(0, claim)
    assert on.state.players[0].scored == (("special-large-straight", 5),)
    assert off.state.config.lines == LINES
    assert claim not in off.legal(0)
    out = off.try_move(0, claim)
    assert isinstance(out, Rejected) and "does not satisfy" in out.reason


def test_hook_five_by_five_objectives_public() -> None:
    on, off = (driver(rules=r) for r in with_and_without("five_by_five_objectives_public"))
    # Open: every view shows every objective hand, and the deal says what was dealt.
    for viewer in (None, 0, 1):
        shown = [p["objectives"] for p in on.view(viewer)["players"]]
        assert shown == [list(p.objectives) for p in on.state.players]
    assert all("objectives" in e.data for e in on.events if e.type == "hand.dealt")
    events = on.move(0, {"forfeitObjectives": {"objectives": [on.state.players[0].objectives[0]]}})
    assert all("objectives" in e.data for e in events if e.type.startswith("objective"))
    # Hidden: only the seat's own hand, in its own view and its own private parts.
    for viewer in (None, 0, 1):
        assert all(p["objectives"] is None for p in off.view(viewer)["players"])
    assert off.view(0)["hand"]["objectives"] == list(off.state.players[0].objectives)
    assert not any("objectives" in e.data for e in off.events if e.type == "hand.dealt")
    events = off.move(
        0, {"forfeitObjectives": {"objectives": [off.state.players[0].objectives[0]]}}
    )
    assert not any("objectives" in e.data for e in events if e.type.startswith("objective"))


@pytest.mark.parametrize(
    "square, delta, after",
    [
        pytest.param(sq(0, 1), 1, "Y1", id="six-up-wraps-to-one"),
        pytest.param(sq(0, 0), -1, "R6", id="one-down-wraps-to-six"),
    ],
)
def test_hook_five_by_five_adjust_value(square: dict[str, int], delta: int, after: str) -> None:
    move = {"plusMinus": {"square": square, "delta": delta}}
    on, off = (
        arrange(driver(rules=r), grid=BOARD, actions={0: HAND})
        for r in with_and_without("five_by_five_adjust_value")
    )
    assert move in on.legal(0)
    on.move(0, move)
    assert on.state.board[square["row"]][square["col"]] == after
    assert move not in off.legal(0)
    out = off.try_move(0, move)
    assert isinstance(out, Rejected) and "cannot go" in out.reason
    # In range, both tables agree.
    plus = {"plusMinus": {"square": sq(0, 0), "delta": 1}}
    off.move(0, plus)
    assert off.state.board[0][0] == "R2"


def test_hook_five_by_five_swap_allowed() -> None:
    move = {"swap": {"first": sq(0, 1), "second": sq(0, 2)}}
    on, off = (
        arrange(driver(rules=r), grid=BOARD, actions={0: HAND})
        for r in with_and_without("five_by_five_swap_allowed")
    )
    assert move in on.legal(0)
    on.move(0, move)
    assert on.state.board[0][1:3] == (None, "Y6")
    assert move not in off.legal(0)
    out = off.try_move(0, move)
    assert isinstance(out, Rejected) and "die on both" in out.reason
    # Two empty squares never swap, rule or not.
    empty = {"swap": {"first": sq(2, 2), "second": sq(2, 3)}}
    fresh = arrange(driver(rules=("swap-into-empty",)), grid=BOARD, actions={0: HAND})
    assert isinstance(fresh.try_move(0, empty), Rejected)


@pytest.mark.parametrize("kind", ["paint", "remove"])
def test_hook_five_by_five_die_leaves_game(kind: str) -> None:
    move = {kind: {"square": sq(0, 1), "color": "G"}}
    on, off = (
        arrange(driver(rules=r, ints=[4]), grid=BOARD, actions={0: HAND})
        for r in with_and_without("five_by_five_die_leaves_game")
    )
    on.move(0, move)
    off.move(0, move)
    # The yellow die taken off: out of the game with the rule, back in the supply without.
    assert on.state.out == (0, 1, 0, 0) and on.state.supply == (9, 9, 9, 8)
    assert off.state.out == (0, 0, 0, 0) and off.state.supply == (9, 10, 9, 8)
    assert on.view(None)["outOfGame"][1] == {"color": "Y", "count": 1}


def test_hook_five_by_five_special_shared() -> None:
    grid = "R1 Y3 B5 G2 R4 / . . . . . / . . . . . / . . . . . / . . . . ."
    claim = {"claimSpecial": {"objective": "special-large-straight"}}
    outcomes = []
    for rules in with_and_without("five_by_five_special_shared"):
        d = arrange(driver(rules=rules), grid=grid, actions={0: HAND, 1: HAND})
        d.move(0, claim)
        d.move(0, {"swap": {"first": sq(0, 0), "second": sq(0, 1)}})  # still a straight
        d.move(0, {"drawAction": {"deck": "A"}})
        outcomes.append((claim in d.legal(1), d.try_move(1, claim), d))
    (listed_on, out_on, on), (listed_off, out_off, off) = outcomes
    assert listed_on and isinstance(out_on, Outcome)
    assert on.view(None)["specials"][0]["claimedBy"] == [0, 1]
    assert not listed_off and isinstance(out_off, Rejected)
    assert "already claimed" in out_off.reason
    assert off.view(None)["specials"][0]["claimedBy"] == [0]


def test_hook_five_by_five_forfeit_discards() -> None:
    hand = ["R", "SWAP", "SWAP", "PAINT"]
    part = {"forfeitActions": {"cards": ["SWAP"]}}
    on, off = (
        arrange(driver(rules=r), grid=EMPTY_BOARD, actions={0: hand})
        for r in with_and_without("five_by_five_forfeit_discards")
    )
    assert part in on.legal(0)
    on.move(0, part)
    assert on.state.phase == REFILL and on.state.draws_left == 1
    assert sorted(on.state.players[0].actions) == ["PAINT", "R", "SWAP"]
    forfeits = [m["forfeitActions"]["cards"] for m in off.legal(0) if "forfeitActions" in m]
    assert forfeits == [["R", "SWAP", "SWAP", "PAINT"]]
    out = off.try_move(0, part)
    assert isinstance(out, Rejected) and "whole action hand" in out.reason


def test_hook_five_by_five_finish_round() -> None:
    almost_full = (
        "R1 Y3 B5 G2 R4 / Y2 B4 G6 R1 Y3 / B5 G1 R3 Y6 B2 / G4 R6 Y1 B3 G5 / R2 Y5 B1 G3 ."
    )
    ends: list[GameDriver] = []
    for rules in with_and_without("five_by_five_finish_round"):
        d = arrange(
            driver(players=3, rules=rules, ints=[6]),
            grid=almost_full,
            actions={0: ["G", "REROLL"], 1: ["REROLL"], 2: ["REROLL"]},
            objectives={0: [], 1: [], 2: []},
            objective_deck=(),
        )
        d.move(0, {"playColor": {"card": "G", "color": "G"}})
        ends.append(d)
        d.move(0, {"place": {"square": sq(4, 4)}})
    on, off = ends
    # The round goes on: seat 0 ends its turn as usual, seats 1 and 2 play theirs.
    assert on.state.phase == ACTED and on.to_act() == (0,)
    on.move(0, {"drawAction": {"deck": "A"}})
    assert on.state.phase == TURN and on.to_act() == (1,)
    on.move(1, {"reroll": {"square": sq(0, 0)}})
    on.move(1, {"drawAction": {"deck": "A"}})
    on.move(2, {"reroll": {"square": sq(0, 0)}})
    events = on.move(2, {"drawAction": {"deck": "A"}})
    assert "final.started" in types(events) and on.state.turn == 3
    # Without it the game goes straight to the last plays.
    assert off.state.phase in (FINAL, "OVER") and off.state.turn == 1


# --- a third-party rule's edge answers ---------------------------------------------------


def edge_ruleset(*rules: str) -> RuleSet:
    import tablestate_five_by_five as game_plugin

    from . import edge_rule

    reg = load(
        use_entry_points=False,
        objects=[("five-by-five", game_plugin), ("five-by-five.test-edge", edge_rule)],
    )
    return reg.ruleset("five-by-five", {f"five-by-five/{r}" for r in rules})


def test_edge_answers_change_nothing_they_should_not() -> None:
    hand = ["R", "SWAP", "SWAP", "PAINT"]
    d = GameDriver(GAME, players=2, rules=edge_ruleset("test-edge"), seed=FixedRng(ints=[6, 1]))
    arrange(d, grid=BOARD, actions={0: hand})
    forfeits = [m["forfeitActions"]["cards"] for m in d.legal(0) if "forfeitActions" in m]
    assert forfeits == [["R"], hand]
    for cards in ([], ["PAINT"] * 5):
        out = d.try_move(0, {"forfeitActions": {"cards": cards}})
        assert isinstance(out, Rejected), cards
    # An answer of None leaves +1 on a 6 refused.
    arrange(d, actions={0: ["PLUS_MINUS"]})
    out = d.try_move(0, {"plusMinus": {"square": sq(0, 1), "delta": 1}})
    assert isinstance(out, Rejected) and "cannot go up" in out.reason
    # Off at the table, the rule answers nothing.
    off = GameDriver(GAME, players=2, rules=edge_ruleset(), seed=FixedRng(ints=[6, 1]))
    arrange(off, grid=BOARD, actions={0: hand})
    forfeits = [m["forfeitActions"]["cards"] for m in off.legal(0) if "forfeitActions" in m]
    assert forfeits == [hand]
