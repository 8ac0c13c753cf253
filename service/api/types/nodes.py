"""Relay's building blocks: the ``Node`` interface (an object ``node(id:)`` gives back) and
``PageInfo`` of a connection (docs/clients.md).

Ids are unique across types. A table's, a game's and a house rule's are the ids they
always had (``Table.id`` is what every mutation takes); every other object's is
``engine.schema.global_id``: base64 of ``Type:key``, opaque to clients.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import strawberry

NODE_ID = "The object's id, unique across types: `node(id:)` gives the object back."


@strawberry.interface(
    description="An object with an id unique across types, which `node(id:)` refetches."
)
class Node:
    id: strawberry.ID = strawberry.field(description=NODE_ID)


@strawberry.type(description="Paging of a connection, as Relay's connections have it.")
class PageInfo:
    end_cursor: str | None = strawberry.field(
        description="The cursor of the page's end: pass it as `after` for the next page "
        "(null: an empty page)."
    )
    has_next_page: bool = strawberry.field(description="Whether more follow.")
    has_previous_page: bool = strawberry.field(
        default=False,
        description="Whether some come before (paging forward: whether `after` was given).",
    )
    start_cursor: str | None = strawberry.field(
        default=None, description="The cursor of the page's first edge (null: an empty page)."
    )
