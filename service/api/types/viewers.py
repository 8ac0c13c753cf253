"""GraphQL types of who the caller is: a table token's seat and host rights, a signed-in
user (docs/identity.md).

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import strawberry


@strawberry.type(description="A signed-in user, as the JWT sent says.")
class User:
    id: strawberry.ID = strawberry.field(
        description="The issuer and the subject of the JWT: `<iss>#<sub>`."
    )
    name: str | None = strawberry.field(
        description="The name the JWT gives (its configured claim; null: none)."
    )


@strawberry.type(description="Who the sent token says you are.")
class Viewer:
    table_id: strawberry.ID | None = strawberry.field(
        description="The table asked about: the token's table, or `tableId` (null: a "
        "signed-in user asked about no table)."
    )
    seat: int | None = strawberry.field(description="Your seat (null: none there).")
    is_host: bool = strawberry.field(description="Whether you have host rights there.")
    user: User | None = strawberry.field(
        default=None, description="The signed-in user (null: a table token)."
    )
