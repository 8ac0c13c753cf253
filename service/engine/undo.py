"""Taking back the last move (the ``undo`` table option).

After each human move the table keeps what is needed to take it back: the mover, the
version the move made, and - only when the move may be taken back - the game state and
chance counter from before it. Every other commit drops it, so an undo is possible only
while nobody has committed since. The kept state never leaves the engine: no view, event
or error shows it.

A move may be taken back when the table has ``undo`` on, the move used no chance (the
chance counter did not move), did not finish the game, and the game's ``undoable`` hook
says it gave the mover nothing new.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from tablestate.engine.game import Event, GameDef, Move, Outcome, Rejected
from tablestate.engine.options import core
from tablestate.engine.table import PLAYING, Table

ILLEGAL: Final = "ILLEGAL_MOVE"


def record(
    before: Table,
    after: Table,
    *,
    game: GameDef[Any],
    state_before: Any,
    outcome: Outcome[Any],
    seat: int,
    move: Move,
) -> Table:
    """``after`` with what taking back ``seat``'s ``move`` needs (when the option is on)."""
    if not core(before.options, "undo"):
        return after if after.undo is None else replace(after, undo=None)
    why: str | None = None
    if after.chance != before.chance:
        why = "that move drew on chance (a shuffle, a draw or a roll): it stands"
    elif after.status != PLAYING:
        why = "that move ended the game"
    elif not game.undoable(state_before, seat, move, outcome):
        why = "that move showed you something new or cannot be taken back in this game"
    entry: dict[str, Any] = {"seat": seat, "version": before.version + 1, "why": why}
    if why is None:
        entry.update(game=before.game, stateFormat=before.state_format, chance=before.chance)
    return replace(after, undo=entry)


def take_back(table: Table, *, seat: int, at: str) -> tuple[Table, list[Event]] | Rejected:
    """The table with ``seat``'s last move taken back, or why not."""
    if table.status != PLAYING:
        return Rejected("TABLE_NOT_PLAYING", "the table is not playing")
    if not core(table.options, "undo"):
        return Rejected(ILLEGAL, "undo is off at this table")
    entry: Mapping[str, Any] | None = table.undo
    if entry is None or entry.get("version") != table.version:
        return Rejected(ILLEGAL, "there is no move to take back: the last change was not a move")
    if entry["seat"] != seat:
        return Rejected(
            ILLEGAL, "someone else has moved since: only the last move may be taken back"
        )
    if entry.get("why") is not None:
        return Rejected(ILLEGAL, str(entry["why"]))
    new = replace(
        table,
        game=entry["game"],
        state_format=int(entry["stateFormat"]),
        chance=int(entry["chance"]),
        undo=None,
        updated_at=at,
    )
    return new, [Event("move.undone", {"undoneVersion": entry["version"]}, seat=seat)]
