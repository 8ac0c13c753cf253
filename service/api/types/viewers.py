"""GraphQL types of who the caller is: a table token's seat and host rights, a signed-in
user (docs/identity.md).

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import strawberry

from tablestate.api.types.ratings import Rating
from tablestate.archive import db
from tablestate.engine.schema import global_id, resolver
from tablestate.errors import ApiError


@strawberry.type(description="A signed-in user, as the JWT sent says.")
class User:
    id: strawberry.ID = strawberry.field(
        description="The issuer and the subject of the JWT: `<iss>#<sub>`."
    )
    name: str | None = strawberry.field(
        description="The name the JWT gives (its configured claim; null: none)."
    )

    @resolver(
        description="The user's ratings, one per game and variant with a rated table, by "
        "game ([]: none yet, or no archive; docs/identity.md, Ratings)."
    )
    async def ratings(self, info: strawberry.Info) -> list[Rating]:
        archive = info.context.services.tables.reads.archive
        if archive is None:
            return []
        try:
            found = await archive.ratings(db.Player("user", str(self.id)))
        except db.ArchiveUnavailable as exc:
            raise ApiError("UNAVAILABLE", "the archive is unreachable; retry later") from exc
        return [Rating.of(r) for r in found]


@strawberry.type(description="Who the sent token says you are.")
class Viewer:
    id: strawberry.ID = strawberry.field(
        description="This answer's id: of the table asked about, the seat and the user."
    )
    table_id: strawberry.ID | None = strawberry.field(
        description="The table asked about: the token's table, or `tableId` (null: a "
        "signed-in user asked about no table)."
    )
    seat: int | None = strawberry.field(description="Your seat (null: none there).")
    is_host: bool = strawberry.field(description="Whether you have host rights there.")
    user: User | None = strawberry.field(
        default=None, description="The signed-in user (null: a table token)."
    )

    @classmethod
    def of(
        cls, table_id: str | None, seat: int | None, is_host: bool, user: User | None = None
    ) -> "Viewer":
        key = (table_id or "-", "-" if seat is None else seat, user.id if user else "-")
        return cls(
            id=strawberry.ID(global_id("Viewer", *key)),
            table_id=strawberry.ID(table_id) if table_id is not None else None,
            seat=seat,
            is_host=is_host,
            user=user,
        )
