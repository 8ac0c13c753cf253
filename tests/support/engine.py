"""Tables of the pure engine for unit tests: only what a test cares about is named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablestate.engine import table as eng


def a_table(
    seats: Sequence[eng.Seat],
    *,
    status: str = eng.PLAYING,
    options: Mapping[str, Any] | None = None,
    game_id: str = "g",
    **fields: Any,
) -> eng.Table:
    """A stored table with these seats; the fields a test does not name are placeholders."""
    return eng.Table(
        id="t",
        game_id=game_id,
        status=status,
        options=dict(options or {}),
        house_rules=(),
        seats=tuple(seats),
        host_hash="h",
        nonce="n",
        commitment="c",
        created_at="x",
        updated_at="x",
        **fields,
    )
