"""Re-running a finished table from its revealed seed, options, rules and moves.

Anyone holding the revealed seed can do this: it needs no secret. It proves that the
deal and every chance step came from the seed committed to at creation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablestate.engine import fairness
from tablestate.engine.game import GameDef, Outcome, SetupContext
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet
from tablestate.engine.table import FINISHED, Table


@dataclass(frozen=True, slots=True)
class ReplayReport:
    ok: bool
    reason: str
    moves: int


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def replay(
    table: Table, moves: Sequence[Mapping[str, Any]], game: GameDef[Any], rules: RuleSet
) -> ReplayReport:
    """Whether the table's final state and result follow from its seed and moves."""
    if table.status != FINISHED or table.revealed_seed is None:
        return ReplayReport(False, "the table is not finished: its seed is still secret", 0)
    if not fairness.verify(table.revealed_seed, table.commitment):
        return ReplayReport(False, "the revealed seed does not match the commitment", 0)
    seeds = [table.seats[i].client_seed or "" for i in table.play_order]
    seed = fairness.game_seed(bytes.fromhex(table.revealed_seed), seeds)
    rng = Rng(seed)
    state, _ = game.setup(SetupContext(table.play_order, dict(table.options), rules, rng))
    counter = rng.counter
    # The state before the last move still standing, for an undo entry ("undo": true) to
    # go back to; a timeout is an ordinary move of the bot's, for the seat.
    last: tuple[int, Any, int] | None = None
    for i, entry in enumerate(moves):
        seat = int(entry["seat"])
        if entry.get("undo"):
            if last is None or last[0] != seat:
                return ReplayReport(False, f"entry {i + 1} takes back a move that is not there", i)
            state, counter, last = last[1], last[2], None
            continue
        rng = Rng(seed, counter)
        out = game.apply(state, seat, entry["move"], rng, rules)
        if not isinstance(out, Outcome):
            return ReplayReport(False, f"move {i + 1} was refused on replay: {out.reason}", i)
        last = (seat, state, counter)
        state, counter = out.state, rng.counter
    if not _same(game.encode(state), table.game):
        return ReplayReport(
            False, "the replayed final state differs from the stored one", len(moves)
        )
    result = game.result(state)
    if result is None:
        return ReplayReport(False, "the replayed game is not over", len(moves))
    scores = [int(result.scores.get(s.index, 0)) for s in table.seats]
    if not _same({"winners": list(result.winners), "scores": scores}, table.result):
        return ReplayReport(False, "the replayed result differs from the stored one", len(moves))
    return ReplayReport(True, "the game replays exactly from its revealed seed", len(moves))
