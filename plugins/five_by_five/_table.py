"""A state seen with its table's rule set: the questions several rules ask of it."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from tablestate.engine import RuleSet
from tablestate_five_by_five import _cards
from tablestate_five_by_five.rules import (
    COLORS,
    SPECIAL_IDS,
    Square,
    empty_squares,
    satisfied_objectives,
)
from tablestate_five_by_five.state import State, sort_actions


def square_json(sq: Square) -> dict[str, int]:
    """A square as moves and events write it."""
    return {"row": sq[0], "col": sq[1]}


def square_of(arg: Mapping[str, Any]) -> Square:
    """A square from its JSON form."""
    return (arg["row"], arg["col"])


class Table:
    """A state with the table's rule set, caching what several checks need."""

    def __init__(self, state: State, rules: RuleSet) -> None:
        self.state = state
        self.rules = rules
        self.legal_action: dict[int, bool] = {}

    @cached_property
    def satisfied(self) -> frozenset[str]:
        """Every objective id the board satisfies now."""
        cfg = self.state.config
        return frozenset(
            satisfied_objectives(
                self.state.board, each_color_min=cfg.each_color_min, lines=cfg.lines
            )
        )

    @cached_property
    def empties(self) -> list[Square]:
        """The empty squares."""
        return empty_squares(self.state.board)

    def at(self, sq: Square) -> str | None:
        """The die on a square, or None."""
        return self.state.board[sq[0]][sq[1]]

    def supply(self, color: str) -> int:
        """The dice of a colour in the supply."""
        return self.state.supply[COLORS.index(color)]

    def leaves(self, die: str) -> bool:
        """Whether this die leaves the game when Remove or Paint takes it off."""
        return any(self.rules.hook.five_by_five_die_leaves_game(die=die))

    def fillable_after_using_one(self) -> bool:
        """With dice leaving the game, a Remove or Paint uses up one die of the supply;
        the supply must still hold enough to fill every empty square."""
        return sum(self.state.supply) - 1 >= len(self.empties)

    def special_open(self, special: str, seat: int) -> bool:
        """Whether ``seat`` may still claim this special (ignoring the board)."""
        claimed = self.state.claimed_by(special)
        if seat in claimed:
            return False
        if not claimed:
            return True
        return any(
            self.rules.hook.five_by_five_special_shared(
                objective=special, claimed_by=list(claimed), seat=seat
            )
        )

    def final_plays(self, position: int) -> bool:
        """Whether the player has an objective to play or a special to claim now."""
        player = self.state.players[position]
        if any(o in self.satisfied for o in player.objectives):
            return True
        return any(s in self.satisfied and self.special_open(s, player.seat) for s in SPECIAL_IDS)

    def forfeit_choices(self, position: int) -> list[tuple[str, ...]]:
        """The allowed action discards of a forfeit, each in canonical order."""
        hand = self.state.players[position].actions
        choices = {hand}
        for answer in self.rules.hook.five_by_five_forfeit_discards(hand=list(hand)):
            for choice in answer:
                if choice and _cards.is_sub_multiset(choice, hand):
                    choices.add(sort_actions(choice))
        return sorted(choices, key=lambda c: (len(c), c))
