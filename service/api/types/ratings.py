"""GraphQL types of the ratings (docs/identity.md, "Ratings"): a player's rating in one
game and variant, and a page of them (the leaderboard). Ratings are public: the same for
every viewer.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

from datetime import UTC, datetime

import strawberry

from tablestate.api.types.nodes import PageInfo
from tablestate.api.types.seats import BotLevel
from tablestate.archive import db
from tablestate.archive.ratings import ordinal
from tablestate.errors import ApiError


@strawberry.type(description="Who holds a rating: a signed-in user, or a level of bot.")
class RatedPlayer:
    user_id: strawberry.ID | None = strawberry.field(
        description="The signed-in user (`<iss>#<sub>`); null for a bot."
    )
    bot_level: BotLevel | None = strawberry.field(description="The bot's level; null for a user.")
    name: str | None = strawberry.field(
        description="The name the player last sat under (null: none known)."
    )

    @classmethod
    def of(cls, player: db.Player, name: str | None = None) -> "RatedPlayer":
        if player.kind == "bot":
            return cls(user_id=None, bot_level=BotLevel(player.id), name=name)
        return cls(user_id=strawberry.ID(player.id), bot_level=None, name=name)


@strawberry.type(
    description="A player's rating in one game and variant (the Weng-Lin model of OpenSkill)."
)
class Rating:
    game_id: strawberry.ID = strawberry.field(description="The game.")
    house_rules: list[strawberry.ID] = strawberry.field(
        description="The variant: the house rules its tables were played with ([]: the "
        "game's own rules). Each variant is rated apart."
    )
    player: RatedPlayer = strawberry.field(description="Whose rating it is.")
    mu: float = strawberry.field(description="The skill believed most likely.")
    sigma: float = strawberry.field(description="How uncertain that belief still is.")
    ordinal: float = strawberry.field(
        description="mu - 3 * sigma: a skill the player very likely has at least. "
        "Leaderboards sort by it."
    )
    games: int = strawberry.field(description="Rated tables played.")
    updated_at: datetime = strawberry.field(description="When a table last changed it.")

    @classmethod
    def of(cls, rating: db.Rating) -> "Rating":
        return cls(
            game_id=strawberry.ID(rating.game_id),
            house_rules=rules_of(rating.variant),
            player=RatedPlayer.of(rating.player, rating.name),
            mu=rating.mu,
            sigma=rating.sigma,
            ordinal=rating.ordinal,
            games=rating.games,
            updated_at=datetime.fromtimestamp(rating.updated_at, UTC),
        )


@strawberry.type(description="One rating and its place on the leaderboard.")
class RatingEdge:
    cursor: str = strawberry.field(description="Pass as `after` for the ratings after it.")
    rank: int = strawberry.field(description="Its place: 1 is the top.")
    node: Rating = strawberry.field(description="The rating.")


@strawberry.type(description="A page of ratings, highest ordinal first (Relay's connection).")
class RatingConnection:
    nodes: list[Rating] = strawberry.field(description="The ratings, highest first.")
    edges: list[RatingEdge] = strawberry.field(description="The ratings and their cursors.")
    page_info: PageInfo = strawberry.field(description="Paging.")


def rules_of(variant: str) -> list[strawberry.ID]:
    return [strawberry.ID(r) for r in variant.split("+")] if variant else []


def variant_of(house_rules: list[strawberry.ID]) -> str:
    return "+".join(sorted({str(r) for r in house_rules}))


def board_cursor(rank: int, rating: db.Rating) -> str:
    """A leaderboard cursor: the rank, the ordinal and the player of the row it follows."""
    return f"{rank}|{rating.ordinal!r}|{rating.player.kind}|{rating.player.id}"


def parse_board_cursor(text: str) -> tuple[int, tuple[float, str]]:
    """``board_cursor``'s inverse: the rank, and the (ordinal, player id) to page after.

    Raises:
        ApiError: ``BAD_INPUT`` for a malformed cursor.
    """
    parts = text.split("|", 3)
    try:
        rank, value = int(parts[0]), float(parts[1])
    except (ValueError, IndexError):
        raise ApiError("BAD_INPUT", "malformed leaderboard cursor") from None
    if len(parts) != 4 or rank < 0 or value != value:
        raise ApiError("BAD_INPUT", "malformed leaderboard cursor")
    return rank, (value, parts[3])


__all__ = [
    "RatedPlayer",
    "Rating",
    "RatingConnection",
    "RatingEdge",
    "board_cursor",
    "ordinal",
    "parse_board_cursor",
    "rules_of",
    "variant_of",
]
