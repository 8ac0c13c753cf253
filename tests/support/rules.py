"""Random house-rule sets for the games' API tests, from what the API reports."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


def random_rules(
    catalogue: Sequence[dict[str, Any]],
    players: int,
    pick: random.Random,
    *,
    min_players: int,
    max_players: int,
    required: Sequence[str] = (),
) -> list[str]:
    """``required`` plus each rule that fits ``players`` and conflicts with none chosen,
    with probability one half. A rule's null range means the game's
    (``min_players``..``max_players``)."""
    chosen: list[str] = list(required)
    for rule in pick.sample(list(catalogue), len(catalogue)):
        lo = rule["minPlayers"] or min_players
        hi = rule["maxPlayers"] or max_players
        if rule["id"] in chosen or not lo <= players <= hi:
            continue
        if set(rule["conflictsWith"]) & set(chosen):
            continue
        if pick.random() < 0.5:
            chosen.append(rule["id"])
    return sorted(chosen)
