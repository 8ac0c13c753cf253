"""What the house rules enabled at a table say, read through the game's own hooks."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablestate.engine.ruleset import RuleSet
from tablestate_five_crowns.rules import NO_LIMITS, STANDARD, CardPoints, MeldLimits, deck


@dataclass(frozen=True)
class House:
    """The table's answers to the hooks that do not depend on the moment."""

    rules: RuleSet
    limits: MeldLimits
    declare: bool
    points: CardPoints = STANDARD

    def may_lay_off(self, final_turn: bool) -> bool:
        """Whether cards may go on the table's melds now."""
        return any(self.rules.hook.five_crowns_may_lay_off(final_turn=final_turn))

    def may_discard(self, card: str, taken: str | None) -> bool:
        """Whether ``card`` may be discarded, ``taken`` being the discard-pile card taken."""
        answers = self.rules.hook.five_crowns_may_discard(card=card, taken=taken)
        return all(a is not False for a in answers)

    def restock(self, pile: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Split the discard pile into (kept face up, shuffled into the stock)."""
        for answer in self.rules.hook.five_crowns_restock(discard=pile):
            if answer is not None:
                kept, shuffled = answer
                return tuple(kept), tuple(shuffled)
        return pile[-1:], pile[:-1]

    def deck(self, players: int) -> tuple[str, ...]:
        """The table's deck."""
        for answer in self.rules.hook.five_crowns_deck(players=players):
            if answer is not None:
                return tuple(answer)
        return deck(2)


_CACHE: weakref.WeakKeyDictionary[RuleSet, House] = weakref.WeakKeyDictionary()


def house(rules: RuleSet) -> House:
    """The house rules of a rule set, read once per rule set."""
    found = _CACHE.get(rules)
    if found is None:
        limits = NO_LIMITS
        answers: Sequence[MeldLimits | None] = rules.hook.five_crowns_meld_limits()
        for answer in answers:
            if answer is not None:
                limits = limits.combine(answer)
        declare = any(rules.hook.five_crowns_declares_final_melds())
        tables: Sequence[Mapping[str, int] | None] = rules.hook.five_crowns_card_points()
        given = [t for t in tables if t is not None]
        points = CardPoints.from_overrides(given) if given else STANDARD
        found = House(rules, limits, declare, points)
        _CACHE[rules] = found
    return found
