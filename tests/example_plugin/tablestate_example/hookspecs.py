"""Lucky Draw's own hooks, for its house rules."""

from __future__ import annotations

from tablestate import hookspec


@hookspec(firstresult=True)
def lucky_draw_points(card: str, rank: int) -> int | None:
    """The points a played card scores.

    Args:
        card: the card, e.g. ``"7A"``.
        rank: its rank, 1 to 10.

    Returns:
        The points, or None to leave it to the next rule (default: the rank).
    """
