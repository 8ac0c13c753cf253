"""Bots that decide from what their seat may know, at three levels.

A bot never sees the table's state. The core hands it a ``BotView``: its seat, the rules,
and a full state drawn from the seat's *information set* by the game's ``determinize``:
its own hand and everything public kept, every part hidden from it (other hands, the
stock, face-down cards) redrawn from what it has not seen. Such a state holds nothing of
the true hidden parts, so a bot cannot peek however it is written; the conformance test
checks that a game's ``determinize`` gives the same state whatever the hidden parts hold.

Levels (``addBot(level:)``):

- ``easy``: half of its moves are the game's own bot's (by the table's generator), the
  others a legal move drawn at random; or the game's ``GameDef.easy_bot`` (a game written
  with ``define_game``: a legal move drawn at random).
- ``normal``: the game's own bot (``GameDef.bot``), a heuristic. The default, and what a
  seat whose time runs out plays. A game written with ``define_game`` that has no bot of
  its own gets ``search``, a flat Monte Carlo search from random playouts.
- ``strong``: determinized flat Monte Carlo, the same for every game with ``determinize``:
  for each of ``iterations // moves`` fresh draws of the hidden parts, every move it weighs
  (all legal moves, or at most ``Budget.moves`` and no more than the iterations: the game's
  own bot's choice and others drawn) is played and followed by moves of the game's own bot
  in every seat until the stage moved in ends (``GameDef.bot_stage``: Five Crowns' round,
  All Fives' deal) or ``GameDef.bot_depth`` moves are made, then scored by
  ``GameDef.standing``. Every move meets the same draw and the same chance, so the scores
  of one draw are compared pairwise. The best move by its total is played only if it beats
  the game's own bot's choice by more than one standard error of their difference, draw by
  draw; otherwise the own bot's choice is (a playout is noisy, and a search that trusts a
  lucky draw plays worse than the heuristic it plays out with). With an iteration budget it
  is deterministic; ``time_ms`` caps a move's thinking and, when reached, stops after the
  draw in hand (so it may change the choice: tests and replays rely on the iteration
  budget alone, with a cap they never reach).

Every draw comes from generators forked off the one the core hands in (the table's, at the
version moved at), so a bot's move is as reproducible as the deal.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

# A bot's module imports BotView from here, with the functions that make one.
from tablestate.engine.game import BotView as BotView
from tablestate.engine.game import GameDef, Move, Outcome
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet

S = TypeVar("S")

EASY: Final = "easy"
NORMAL: Final = "normal"
STRONG: Final = "strong"
LEVELS: Final = (EASY, NORMAL, STRONG)


@dataclass(frozen=True, slots=True)
class Budget:
    """What a strong bot may spend on one move.

    Args:
        iterations: playouts per move, over the moves it weighs (at least one each).
        time_ms: a cap on thinking time (None or 0: none); see the module's docstring.
        moves: the most moves it weighs (and no more than ``iterations``): the game's own
            bot's choice and others of the legal moves drawn at random (a turn of Five by
            Five may have hundreds).
    """

    iterations: int = 96
    time_ms: float | None = None
    moves: int = 12


def view_for(game: GameDef[S], state: S, seat: int, rules: RuleSet, rng: Rng) -> BotView[S]:
    """The view a bot in ``seat`` decides from: its information set, drawn once."""
    return BotView(seat, game.determinize(state, seat, rng.fork(b"view")), rules, game)


def random_move(view: BotView[Any], rng: Rng) -> Move:
    """A legal move drawn at random (the bench's baseline)."""
    return rng.choice(view.legal)


def easy(view: BotView[S], rng: Rng) -> Move:
    """The game's ``easy_bot``, or its bot half of the time, else a random legal move."""
    if view.game.easy_bot is not None:
        return view.game.easy_bot(view, rng)
    if rng.randint(0, 1):
        return random_move(view, rng)
    return view.game.bot(view, rng)


def playout(game: GameDef[S], state: S, seat: int, rules: RuleSet, rng: Rng, depth: int) -> float:
    """How ``seat`` stands after the game's bot has played on in every seat: to the end of
    the stage ``state`` is in (``GameDef.bot_stage``), at most ``depth`` moves."""
    return _played_out(game, state, seat, rules, rng, depth, _stage(game, state))


def _stage(game: GameDef[S], state: S) -> Hashable:
    return None if game.bot_stage is None else game.bot_stage(state)


def _played_out(
    game: GameDef[S],
    state: S,
    seat: int,
    rules: RuleSet,
    rng: Rng,
    depth: int,
    stage: Hashable,
    bot: Callable[[BotView[S], Rng], Move] | None = None,
) -> float:
    bot = bot or game.bot
    for _ in range(depth):
        if game.result(state) is not None or _stage(game, state) != stage:
            break
        acting = game.to_act(state)
        mover = acting[0]
        move = bot(BotView(mover, state, rules, game), rng)
        out = game.apply(state, mover, move, rng, rules)
        if not isinstance(out, Outcome):  # a bot that errs ends its playout where it stands
            break
        state = out.state
    return standing(game, state, seat, rules)


def standing(game: GameDef[S], state: S, seat: int, rules: RuleSet) -> float:
    """``GameDef.standing``, or by the result: a win 1 (shared: split), a loss 0, else 0.5."""
    if game.standing is not None:
        return game.standing(state, seat, rules)
    result = game.result(state)
    if result is None or not result.winners:
        return 0.5
    return 1.0 / len(result.winners) if seat in result.winners else 0.0


def strong(
    view: BotView[S], rng: Rng, budget: Budget, clock: Callable[[], float] = time.perf_counter
) -> Move:
    """Determinized flat Monte Carlo over the view's legal moves (module docstring)."""
    most = max(1, min(budget.moves, budget.iterations))  # never more playouts than budgeted
    game, moves = view.game, candidates(view, rng, most)
    if len(moves) == 1:
        return moves[0]
    scores: list[list[float]] = [[] for _ in moves]  # per move, one score per draw
    rounds = max(1, budget.iterations // len(moves))
    stop = clock() + budget.time_ms / 1000 if budget.time_ms else None
    stage = _stage(game, view.state)
    for i in range(rounds):
        sample = game.determinize(view.state, view.seat, rng.fork(b"draw%d" % i))
        for j, move in enumerate(moves):
            chance = rng.fork(b"chance%d" % i)
            out = game.apply(sample, view.seat, move, chance, view.rules)
            if not isinstance(out, Outcome):
                scores[j].append(float("-inf"))
                continue
            scores[j].append(
                _played_out(game, out.state, view.seat, view.rules, chance, game.bot_depth, stage)
            )
        if stop is not None and clock() >= stop:
            break
    return moves[_pick(scores)]


def _pick(scores: list[list[float]]) -> int:
    """The move to play, by its scores draw by draw (``scores[0]``: the game's own bot's
    choice): the best by total (ties: the first listed) if it beats the own bot's choice by
    more than one standard error of their difference, else the own bot's choice."""
    best = max(range(len(scores)), key=lambda j: (sum(scores[j]), -j))
    own = scores[0]
    if best == 0 or any(math.isinf(v) for v in own):
        return best
    gains = [b - o for b, o in zip(scores[best], own, strict=True)]
    if len(gains) < 2:
        return best if gains[0] > 0 else 0
    mean = statistics.fmean(gains)
    return best if mean > statistics.stdev(gains, mean) / math.sqrt(len(gains)) else 0


SEARCH_PLAYOUTS: Final = 16


def search(view: BotView[S], rng: Rng) -> Move:
    """A bot for a game that has none of its own (``typed.define_game``'s ``normal`` level,
    on which ``strong`` builds): flat Monte Carlo from random playouts, cheaper than
    ``strong``. Each legal move is played on ``SEARCH_PLAYOUTS // moves`` draws (at least
    one) of the hidden parts, each followed by random legal moves in every seat until the
    stage ends or ``GameDef.bot_depth`` moves are made, then judged by ``standing``. Every
    move meets the same draws and the same chance; the best total wins (ties: the first
    listed)."""
    moves, game = view.legal, view.game
    if len(moves) == 1:
        return moves[0]
    rounds, stage = max(1, SEARCH_PLAYOUTS // len(moves)), _stage(game, view.state)
    totals = [0.0] * len(moves)
    for i in range(rounds):
        sample = game.determinize(view.state, view.seat, rng.fork(b"search-draw%d" % i))
        for j, move in enumerate(moves):
            chance = rng.fork(b"search%d" % i)
            out = game.apply(sample, view.seat, move, chance, view.rules)
            if not isinstance(out, Outcome):
                totals[j] = float("-inf")
                continue
            depth = game.bot_depth
            totals[j] += _played_out(game, out.state, view.seat, view.rules, chance, depth,
                                     stage, random_move)  # fmt: skip
    return moves[max(range(len(moves)), key=lambda j: (totals[j], -j))]


def candidates(view: BotView[S], rng: Rng, most: int) -> tuple[Move, ...]:
    """The moves a strong bot weighs, the game's own bot's choice first: then every other
    legal move, or, when there are more than ``most`` in all, others drawn at random, in
    the order they are listed."""
    moves = view.legal
    own = view.game.bot(view, rng.fork(b"own"))
    others = [m for m in moves if m != own]
    if len(moves) <= most:
        return (own, *others)
    picked = rng.fork(b"pick").shuffle(range(len(others)))[: max(most - 1, 0)]
    return (own, *(others[i] for i in sorted(picked)))


def choose(
    game: GameDef[S],
    state: S,
    seat: int,
    level: str,
    rng: Rng,
    rules: RuleSet,
    budget: Budget | None = None,
) -> Move:
    """The move of a bot of ``level`` in ``seat``, decided from its information set only:
    the bot is handed ``view_for``'s view, never ``state``."""
    view = view_for(game, state, seat, rules, rng)
    if level == EASY:
        return easy(view, rng)
    if level == STRONG:
        return strong(view, rng, budget or Budget())
    return game.bot(view, rng)


def level_of(name: str | None) -> str:
    """A stored level (None: an older record, a normal bot)."""
    return name if name in LEVELS else NORMAL
