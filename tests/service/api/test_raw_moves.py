"""makeMove takes its move as graphql-core coerced it (api/schema.py)."""

from __future__ import annotations

import enum

import strawberry

from tablestate.api.resolvers.moves import plain_input


def test_raw_move_arguments_read_like_strawberrys():
    """makeMove reads its move as graphql-core coerced it; the JSON handed to the table
    service is what move_to_json made of Strawberry's input objects."""

    class Suit(enum.Enum):
        HEARTS = "h"

    raw = {
        "fiveCrowns": {
            "layDown": {"melds": [["3H", "4H", "5H"], ["JK"]], "note": None, "x": strawberry.UNSET},
            "suit": Suit.HEARTS,
        }
    }
    assert plain_input(raw) == {
        "fiveCrowns": {"layDown": {"melds": [["3H", "4H", "5H"], ["JK"]]}, "suit": "HEARTS"}
    }
