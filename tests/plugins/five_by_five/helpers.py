"""Shared helpers of the Five by Five tests: boards from text, rule sets. The invariants
every game keeps are checked by the shared harness (``tablestate_five_by_five.testing`` tells
it what Five by Five's dice and cards are and who may see them)."""

from __future__ import annotations

from support.games import registry
from support.games import ruleset as game_ruleset

from tablestate.engine import RuleSet
from tablestate.testing import GameDriver, check_conserved
from tablestate_five_by_five.testing import FACTS, RULES

__all__ = ["RULE_MODULES", "registry"]

RULE_MODULES = {rule: rule.replace("-", "_") for rule in RULES}


def ruleset(*rules: str) -> RuleSet:
    """The rule set with these house rules on (short names, without the game prefix)."""
    return game_ruleset("five-by-five", *rules)


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


def check_conservation(d: GameDriver) -> None:
    """40 dice, the action deck and the objective deck, each item in exactly one place."""
    check_conserved(d, FACTS)
