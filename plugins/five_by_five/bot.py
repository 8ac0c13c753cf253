"""A simple Five by Five bot: it places and changes dice to complete the objectives it holds.

It scores every objective (and special) it can at once, the most points first; puts a
rolled die where it completes the most points of its own objectives and the open specials;
plays a Swap, +1/-1 or Paint when one completes something; otherwise plays a colour card,
then any other action; forfeits its actions when none can be played. Ties are broken with
the table's generator, so a bot game is as reproducible as any other. It decides from
what its seat sees (``BotView``: the other hands and the decks' order are guesses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablestate.engine import Move, Rng, RuleSet
from tablestate.engine.bots import BotView
from tablestate_five_by_five._table import Table, square_of
from tablestate_five_by_five.legal import legal
from tablestate_five_by_five.moves import ACTION_KINDS
from tablestate_five_by_five.rules import (
    COLORS,
    SPECIAL_IDS,
    Square,
    neighbours,
    parse_die,
    satisfied_among,
)
from tablestate_five_by_five.state import ACTED, FINAL, OVER, PLACE, REFILL, Grid, State

_DETERMINISTIC = ("swap", "plusMinus", "paint")


def _targets(t: Table, position: int) -> dict[str, int]:
    """The objectives worth completing: held ones and the specials still open."""
    player = t.state.players[position]
    cfg = t.state.config
    out = {oid: cfg.points_of(oid) for oid in player.objectives}
    for sid in SPECIAL_IDS:
        if t.special_open(sid, player.seat):
            out[sid] = cfg.points_of(sid)
    return out


def _value(t: Table, board: Grid, targets: dict[str, int]) -> int:
    cfg = t.state.config
    done = satisfied_among(board, targets, each_color_min=cfg.each_color_min, lines=cfg.lines)
    return sum(targets[oid] for oid in done)


def _put(board: Grid, changes: dict[Square, str | None]) -> Grid:
    return tuple(
        tuple(changes.get((r, c), cell) for c, cell in enumerate(row))
        for r, row in enumerate(board)
    )


def _after(t: Table, move: Move) -> Grid:
    """The board after a move whose outcome is certain."""
    ((kind, arg),) = move.items()
    board = t.state.board
    if kind == "place":
        return _put(board, {square_of(arg["square"]): t.state.pending})
    if kind == "swap":
        a, b = square_of(arg["first"]), square_of(arg["second"])
        return _put(board, {a: t.at(b), b: t.at(a)})
    sq = square_of(arg["square"])
    old = t.at(sq)
    assert old is not None
    color, value = parse_die(old)
    if kind == "paint":
        return _put(board, {sq: f"{arg['color']}{value}"})
    new = value + arg["delta"]
    if not 1 <= new <= 6:  # listed only when a house rule allows it
        answers = t.rules.hook.five_by_five_adjust_value(value=value, delta=arg["delta"])
        new = next(w for w in answers if w is not None)
    return _put(board, {sq: f"{color}{new}"})


def _kinship(t: Table, sq: Square, die: str) -> int:
    """Neighbours sharing the die's colour or value: builds blocks, lines and trios."""
    color, value = parse_die(die)
    score = 0
    for nb in neighbours(sq):
        other = t.at(nb)
        if other is not None:
            oc, ov = parse_die(other)
            score += (oc == color) + (ov == value)
    return score


def _best(moves: Sequence[Move], score: Any, rng: Rng) -> Move:
    scored = [(score(m), m) for m in moves]
    top = max(s for s, _ in scored)
    best = [m for s, m in scored if s == top]
    return best[0] if len(best) == 1 else rng.choice(best)


def choose(t: Table, position: int, rng: Rng) -> Move:
    """A legal move for the player at ``position``."""
    moves = legal(t, position)
    points = t.state.config.points_of
    scoring = [m for m in moves if "playObjective" in m or "claimSpecial" in m]
    if scoring:
        return max(scoring, key=lambda m: points(next(iter(m.values()))["objective"]))
    phase = t.state.phase
    if phase == FINAL:
        return {"done": True}
    targets = _targets(t, position)
    if phase == PLACE:
        pending = t.state.pending
        assert pending is not None

        def place_score(m: Move) -> tuple[int, int]:
            sq = square_of(m["place"]["square"])
            return (_value(t, _after(t, m), targets), _kinship(t, sq, pending))

        return _best(moves, place_score, rng)
    if phase in (ACTED, REFILL):
        return _best(moves, lambda m: _face_up_is_color(t, m["drawAction"]["deck"]), rng)
    now = _value(t, t.state.board, targets)
    sure = [m for m in moves if next(iter(m)) in _DETERMINISTIC]
    if sure:
        gain = _best(sure, lambda m: _value(t, _after(t, m), targets), rng)
        if _value(t, _after(t, gain), targets) > now:
            return gain
    for kinds in (("playColor",), ACTION_KINDS):
        playable = [m for m in moves if next(iter(m)) in kinds]
        if playable:
            return rng.choice(playable)
    forfeits = [m for m in moves if "forfeitActions" in m]
    return max(forfeits, key=lambda m: len(m["forfeitActions"]["cards"]))


def _face_up_is_color(t: Table, deck: str) -> int:
    cards = t.state.decks[0 if deck == "A" else 1]
    return int(bool(cards) and cards[0] in COLORS)


def bot(view: BotView[State], rng: Rng) -> Move:
    """A legal move for a bot in ``view.seat``: it places dice to complete the objectives it
    holds."""
    return choose(Table(view.state, view.rules), view.state.position(view.seat), rng)


def standing(state: State, seat: int, rules: RuleSet) -> float:
    """The seat's lead over the best other score, and a third of the points of the open
    objectives the board already meets for it (the strong bot's judge of a playout)."""
    pos = state.position(seat)
    t = Table(state, rules)
    best = max((p.score for i, p in enumerate(state.players) if i != pos), default=0)
    near = _value(t, state.board, _targets(t, pos)) if state.phase != OVER else 0
    return state.players[pos].score - best + near / 3
