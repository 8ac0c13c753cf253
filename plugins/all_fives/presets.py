"""Ready-made sets of All Fives house rules and options.

rules, options = traditional(players=3)
# createTable(gameId: "all-fives", houseRules: rules, options: options)
"""

from __future__ import annotations

from typing import Any, Final

HOUSE_RULE_MODULES: Final = (
    "plugins.all_fives.house_rules.may_trump_instead_of_following",
    "plugins.all_fives.house_rules.peg_out",
    "plugins.all_fives.house_rules.high_low_jack_game",
    "plugins.all_fives.house_rules.turn_up_jack_bonus",
    "plugins.all_fives.house_rules.beg_gift_to_all_opponents",
    "plugins.all_fives.house_rules.dealer_cannot_gift_win",
    "plugins.all_fives.house_rules.discard_to_six_after_run",
    "plugins.all_fives.house_rules.partnerships",
    "plugins.all_fives.house_rules.bunch_on_agreement",
)

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
