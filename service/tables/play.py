"""A game move applied for a seat: the table's seeds, and the engine's ``apply_move``.

The server seed of a table is derived from the secret (never stored); the game seed from
it and the players' client seeds (docs/security.md, "Secrets at rest"). Humans, bots and timeouts
all move through ``Play.apply``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from tablestate.engine import fairness
from tablestate.engine import table as eng
from tablestate.engine.game import Move, Rejected
from tablestate.tables.commit import Change, now_iso
from tablestate.tables.loading import Loaded

SEEDS_KEPT: Final = 4096  # game seeds kept (each is two HMACs to make)


class Seeds:
    """The seeds of tables, from the service's secret."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self._games: dict[tuple[str, str, tuple[str, ...]], bytes] = {}

    def server(self, table: eng.Table) -> bytes:
        """The table's secret seed (revealed when it ends)."""
        return fairness.server_seed(self.secret, table.id, table.nonce)

    def game(self, table: eng.Table) -> bytes:
        """The seed of the game at the table: the server's and the players' together."""
        seeds = tuple(table.seats[i].client_seed or "" for i in table.play_order or table.seated())
        key = (table.id, table.nonce, seeds)
        found = self._games.get(key)
        if found is None:
            if len(self._games) >= SEEDS_KEPT:
                self._games.clear()
            found = self._games[key] = fairness.game_seed(self.server(table), list(seeds))
        return found


class Play:
    """Applies moves of the game at a table."""

    def __init__(self, seeds: Seeds, clock: Callable[[], float]) -> None:
        self.seeds = seeds
        self.clock = clock

    def apply(self, cur: Loaded, seat: int, move: Move) -> Change | Rejected:
        """``seat``'s move at the table as loaded: the change, or the rules' refusal."""
        out = eng.apply_move(
            cur.table,
            game=cur.game,
            state=cur.state,
            rules=cur.rules,
            seat=seat,
            move=move,
            seed=self.seeds.game(cur.table),
            reveal=lambda: self.seeds.server(cur.table).hex(),
            now=now_iso(self.clock),
        )
        if isinstance(out, Rejected):
            return out
        table, state, events = out
        return Change(table, state, events, movers=(seat,))
