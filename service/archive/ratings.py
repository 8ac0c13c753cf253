"""Ratings by the Weng-Lin model, through OpenSkill's Plackett-Luce: a rating is a belief
(``mu``, ``sigma``) about a player's skill, and a leaderboard sorts by the ordinal
``mu - 3 * sigma``, a skill the player very likely has at least.

Who is rated (docs/identity.md, "Ratings"): each signed-in user, per game and per variant
(the game's own rules, or one set of house rules: a house rule changes the game, so it is
rated apart); each bot level, apart from the users, so that beating a strong bot is worth
more than beating an easy one; an anonymous seat takes part at the default rating and is
never stored. A table is rated once it finishes with at least one signed-in user among its
seats; a cancelled table is not rated.

Pure: no I/O, so the archive calls it inside the transaction that reads and writes the
ratings (``tablestate.archive.db``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from openskill.models import PlackettLuce

MODEL: Final = PlackettLuce()
DEFAULT: Final = (float(MODEL.mu), float(MODEL.sigma))


def ordinal(mu: float, sigma: float) -> float:
    """The skill a player very likely has at least: what leaderboards sort by."""
    return mu - 3 * sigma


def rate(
    before: Sequence[tuple[float, float] | None], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """Each player's ``(mu, sigma)`` after a game in which they placed ``ranks`` (1 is
    first; equal ranks tie); ``None`` before: no rating yet (the default)."""
    if len(before) != len(ranks):
        raise ValueError("one rank per player")
    teams = [[MODEL.rating(*(pair or DEFAULT))] for pair in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(float(team[0].mu), float(team[0].sigma)) for team in after]


def ranks(result: Mapping[str, Any], seats: Sequence[int]) -> list[int]:
    """The places of ``seats`` in a finished table's result (``{"winners", "scores"}``,
    scores by seat index): the winners first, tied; the others after them by score, in the
    direction the winners' scores point (higher is better where the winners scored at least
    everyone else, lower where at most), equal scores tied; all tied behind the winners when
    the scores point no way (a game whose winner is not decided by its score)."""
    winners = {int(w) for w in result.get("winners", ())}
    scores = list(result.get("scores", ()))

    def score(seat: int) -> int:
        return int(scores[seat]) if 0 <= seat < len(scores) else 0

    rest = [s for s in seats if s not in winners]
    won = [score(s) for s in seats if s in winners]
    lost = [score(s) for s in rest]
    if won and lost and min(won) >= max(lost):
        order = sorted({score(s) for s in rest}, reverse=True)
    elif won and lost and max(won) <= min(lost):
        order = sorted({score(s) for s in rest})
    else:
        order = []
    first = 1 if winners & set(seats) else 0
    places: list[int] = []
    for seat in seats:
        if seat in winners:
            places.append(1)
        elif order:
            places.append(first + 1 + order.index(score(seat)))
        else:
            places.append(first + 1)
    return places
