"""The archive's values: archived tables, players, standings, ratings and their changes
(imported from ``tablestate.archive.db``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

DEFAULT_MU: Final = 25.0
"""The ``mu_before`` kept for a player's first rated table (OpenSkill's default)."""

DEFAULT_SIGMA: Final = 25.0 / 3
"""The ``sigma_before`` kept for a player's first rated table (OpenSkill's default)."""


@dataclass(frozen=True, slots=True)
class ArchivedSeat:
    """One seat of an archived table."""

    index: int
    kind: str  # "EMPTY" | "HUMAN" | "BOT"
    name: str | None
    user_id: str | None  # the signed-in user who held it, if any
    score: int | None


@dataclass(frozen=True, slots=True)
class ArchivedTable:
    """A finished (or cancelled) table, as the live store held it last."""

    table_id: str  # at most 64 characters
    game_id: str
    status: str  # "FINISHED" | "CANCELLED"
    variant: str  # "" (the game's own rules) or the house rules' ids, sorted, joined by "+"
    host_user: str | None  # the signed-in user with the host's rights, if any
    created_at: float  # epoch seconds
    finished_at: float
    version: int
    snapshot: str  # the table's snapshot (JSON text) as the live store held it
    events: tuple[str, ...]  # each event's JSON text, in cursor order
    moves: tuple[str, ...]  # the move log's entries (JSON text), in commit order
    seats: tuple[ArchivedSeat, ...]


@dataclass(frozen=True, slots=True)
class Player:
    """Who a rating belongs to: a signed-in user, or a bot of one level."""

    kind: str  # "user" | "bot"
    id: str  # the user's id, or the bot's level ("easy", "normal", "strong")


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat of a finished table, as the ratings see it."""

    seat: int
    player: Player | None  # None: anonymous; rated at the default rating, nothing stored
    rank: int  # 1 is first; equal ranks are a tie


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating at one game and variant."""

    game_id: str
    variant: str
    player: Player
    mu: float
    sigma: float
    games: int
    updated_at: float
    name: str | None = None  # the name the player last sat under at a rated table

    @property
    def ordinal(self) -> float:
        """``mu - 3 * sigma``: what leaderboards sort by."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one table did to one player's rating."""

    table_id: str
    game_id: str
    variant: str
    seat: int
    player: Player
    mu_before: float  # DEFAULT_MU at the player's first rated table
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, slots=True)
class Recorded:
    """What ``record`` did."""

    first: bool  # this call archived the table (False: it was already)
    changes: tuple[RatingChange, ...]  # the table's rating changes (stored earlier if not first)


Rater: TypeAlias = Callable[
    [Sequence[tuple[float, float] | None], Sequence[int]], Sequence[tuple[float, float]]
]
"""``rater(before, ranks) -> after``: one (mu, sigma) per standing, in order; ``before``
holds None where the player has no rating yet (and for anonymous seats)."""
