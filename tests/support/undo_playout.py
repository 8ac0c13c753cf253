"""Random games through the pure table engine, taking back every move that may be taken
back: what each game says is undoable, and proof that taking it back restores the state."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from tablestate.engine import Rejected, opening, undo
from tablestate.engine import table as eng
from tablestate.engine.game import GameDef, Outcome
from tablestate.plugins import Registry

AT = "2026-01-01T00:00:00.000Z"


def playout(
    game: GameDef[Any],
    registry: Registry,
    players: int,
    seed: int,
    rules: tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
    max_moves: int = 5000,
) -> Counter[tuple[str, bool]]:
    """Play a random game with ``undo`` on; every undoable move is taken back and made
    again. Returns how often each (move kind, undoable) came up."""
    made = opening.create(
        table_id="t",
        game=game,
        options={**(options or {}), "undo": True},
        rule_ids=rules,
        seats=players,
        house_rules=registry.house_rules,
        conflicts=registry.conflicts,
        now=AT,
        nonce="n",
        host_hash="h",
        commitment="c",
    )
    assert not isinstance(made, Rejected), made
    table = made[0]
    for i in range(players):
        joined = opening.join(
            table, name=f"P{i}", seat=i, token_hash=f"h{i}", host=False, client_seed=None, now=AT
        )
        assert not isinstance(joined, Rejected), joined
        table = joined[0]
    ruleset = registry.ruleset(game.id, table.house_rules)
    game_seed = f"seed{seed}".encode()
    started = opening.start(
        table, game=game, rules=ruleset, seed=game_seed, house_rules=registry.house_rules, now=AT
    )
    assert not isinstance(started, Rejected), started
    table = replace(started[0], version=1)
    pick = random.Random(seed)
    seen: Counter[tuple[str, bool]] = Counter()
    for _ in range(max_moves):
        if table.status != eng.PLAYING:
            return seen
        state = eng.decode_state(table, game)
        seat = pick.choice(eng.to_act(table, game, state))
        move = pick.choice(list(game.legal_moves(state, seat, ruleset)))
        out = eng.apply_move(
            table,
            game=game,
            state=state,
            rules=ruleset,
            seat=seat,
            move=move,
            seed=game_seed,
            reveal=lambda: "00",
            now=AT,
        )
        assert not isinstance(out, Rejected), (move, out)
        after, new_state, events = out
        after = undo.record(
            table,
            after,
            game=game,
            state_before=state,
            outcome=Outcome(new_state, tuple(events)),
            seat=seat,
            move=move,
        )
        after = replace(after, version=table.version + 1)
        assert after.undo is not None
        ok = after.undo["why"] is None
        seen[(next(iter(move)), ok)] += 1
        back = undo.take_back(after, seat=seat, at=AT)
        if ok:
            assert not isinstance(back, Rejected), back
            assert back[0].chance == table.chance
            assert game.encode(eng.decode_state(back[0], game)) == game.encode(state)
            if pick.random() < 0.5:  # sometimes the game goes on from the undone state
                table = replace(back[0], version=after.version + 1)
                continue
        else:
            code = "ILLEGAL_MOVE" if after.status == eng.PLAYING else "TABLE_NOT_PLAYING"
            assert isinstance(back, Rejected) and back.code == code
        other = undo.take_back(after, seat=seat + 1000, at=AT)
        assert isinstance(other, Rejected)
        table = after
    raise AssertionError("the game did not end")
