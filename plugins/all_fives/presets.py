"""Ready-made sets of All Fives house rules and options.

rules, options = traditional(players=3)
# createTable(gameId: "all-fives", houseRules: rules, options: options)
"""

from __future__ import annotations

from typing import Any, Final

TRADITIONAL_RULES: Final = (
    "all-fives/peg-out",
    "all-fives/may-trump-instead-of-following",
    "all-fives/high-low-jack-game",
    "all-fives/turn-up-jack-bonus",
    "all-fives/dealer-cannot-gift-win",
    "all-fives/discard-to-six-after-run",
)
TRADITIONAL_OPTIONS: Final = {"targetScore": 61}


def traditional(players: int) -> tuple[list[str], dict[str, Any]]:
    """ "Traditional All Fives" of DECISIONS.md 2.3 for this many players: the house rule
    ids to enable (the gift to both opponents with 3 players, partnerships with 4) and the
    table options."""
    rules = list(TRADITIONAL_RULES)
    if players == 3:
        rules.append("all-fives/beg-gift-to-all-opponents")
    if players == 4:
        rules.append("all-fives/partnerships")
    return rules, dict(TRADITIONAL_OPTIONS)
