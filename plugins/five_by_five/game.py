"""Five by Five (Tim Tender, Red Mitten Games): place and change dice on a shared 5x5
board to complete objective cards; the highest score when the board fills wins.

Rules: ``/shared/rules/five-by-five.source.txt`` made exact by DECISIONS.md section 3. A
colour card is a move of its own that rolls the die (``playColor``); placing it is the
next move (``place``). The game's own hooks (``hookspecs.py``) let house rules change the
lines, +1/-1, Swap, where removed dice go, specials, forfeits and the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from plugins.five_by_five import _cards, _effects, _moves, hookspecs
from plugins.five_by_five._shapes import OPTIONS, check_move
from plugins.five_by_five._table import Table
from plugins.five_by_five.bot import choose
from plugins.five_by_five.rules import (
    ACTION_COUNTS,
    COLORS,
    DICE_PER_COLOR,
    LINES,
    OBJECTIVE_BY_ID,
    REGULAR_IDS,
    SIZE,
    SPECIAL_IDS,
    SQUARES,
    Line,
    die,
    satisfied_objectives,
)
from plugins.five_by_five.schema import FiveByFiveMoveInput, FiveByFiveState
from plugins.five_by_five.state import (
    OVER,
    TURN,
    Config,
    Grid,
    Player,
    State,
    decode,
    encode,
    sort_actions,
    sort_objectives,
)
from service.engine import (
    ILLEGAL_MOVE,
    Event,
    GameDef,
    Move,
    Outcome,
    Rejected,
    Result,
    Rng,
    RuleSet,
    SetupContext,
)

GAME_ID: Final = "five-by-five"
# A scripted generator could tie forever; real dice settle the first player at once.
MAX_FIRST_ROLLS: Final = 50

EVENT_TYPES: Final = (
    "hand.dealt",
    "board.prefilled",
    "decks.ready",
    "first.rolled",
    "first.player",
    "turn.started",
    "action.played",
    "die.rolled",
    "die.placed",
    "board.filled",
    "objective.scored",
    "special.claimed",
    "action.drawn",
    "actions.reshuffled",
    "objective.drawn",
    "objectives.reshuffled",
    "actions.forfeited",
    "objectives.forfeited",
    "turn.ended",
    "final.started",
    "player.finished",
    "rolloff.rolled",
    "game.scored",
)


def _config(options: Mapping[str, Any], rules: RuleSet) -> Config:
    lines: list[Line] = list(LINES)
    for answer in rules.hook.five_by_five_extra_lines():
        for line in answer:
            extra = tuple((r, c) for r, c in line)
            if extra not in lines:
                lines.append(extra)
    return Config(
        each_color_min=options["eachColorMin"],
        points=tuple((oid, options["objectivePoints"][oid]) for oid in OBJECTIVE_BY_ID),
        action_hand_size=options["actionHandSize"],
        objective_hand_size=options["objectiveHandSize"],
        lines=tuple(lines),
        open_objectives=any(rules.hook.five_by_five_objectives_public()),
    )


def _deal(cards: Sequence[str], players: int, each: int) -> tuple[list[list[str]], list[str]]:
    """One card at a time to each player in turn; the hands and what is left."""
    dealt = min(len(cards), players * each)
    hands = [list(cards[i:dealt:players]) for i in range(players)]
    return hands, list(cards[dealt:])


def _first_player(seats: Sequence[int], rng: Rng) -> tuple[int, list[Event]]:
    """Each player rolls a die; the highest starts; the tied roll again."""
    events: list[Event] = []
    tied = list(seats)
    rounds = 0
    while len(tied) > 1 and rounds < MAX_FIRST_ROLLS:
        rounds += 1
        values = rng.roll(len(tied))
        rolls = [{"seat": seat, "value": v} for seat, v in zip(tied, values, strict=True)]
        events.append(Event("first.rolled", {"round": rounds, "rolls": rolls}))
        top = max(values)
        tied = [seat for seat, v in zip(tied, values, strict=True) if v == top]
    return tied[0], events


def _prefill(count: int, rng: Rng) -> tuple[Grid, tuple[int, ...], list[Event]]:
    """The board and supply with ``count`` random dice from the supply on random squares
    (option ``prefilledSquares``); no chance step at all for 0, the real game."""
    board: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    supply = [DICE_PER_COLOR] * len(COLORS)
    events: list[Event] = []
    if count:
        colors = rng.shuffle([c for c in COLORS for _ in range(DICE_PER_COLOR)])[:count]
        squares = rng.shuffle(SQUARES)[:count]
        values = rng.roll(count)
        placed = []
        for (r, c), color, value in zip(squares, colors, values, strict=True):
            board[r][c] = die(color, value)
            supply[COLORS.index(color)] -= 1
            placed.append({"square": {"row": r, "col": c}, "die": board[r][c]})
        events.append(Event("board.prefilled", {"dice": placed}))
    return tuple(tuple(row) for row in board), tuple(supply), events


def setup(ctx: SetupContext) -> tuple[State, list[Event]]:
    """Deal the action and objective hands, lay out the decks, pre-fill squares if the
    table asks for it and roll for the first player."""
    opts, rng, seats = ctx.options, ctx.rng, ctx.seats
    config = _config(opts, ctx.rules)
    actions = [card for card, n in ACTION_COUNTS.items() for _ in range(n)]
    hands, rest = _deal(rng.shuffle(actions), len(seats), config.action_hand_size)
    objectives = [oid for oid in REGULAR_IDS for _ in range(opts["objectiveCounts"][oid])]
    held, deck = _deal(rng.shuffle(objectives), len(seats), config.objective_hand_size)
    events: list[Event] = []
    for seat, hand, objs in zip(seats, hands, held, strict=True):
        data: dict[str, Any] = {"actionCount": len(hand), "objectiveCount": len(objs)}
        if config.open_objectives:
            data["objectives"] = list(sort_objectives(objs))
        private = {"actions": list(sort_actions(hand)), "objectives": list(sort_objectives(objs))}
        events.append(Event("hand.dealt", data, seat=seat, private={seat: private}))
    board, supply, prefilled = _prefill(opts["prefilledSquares"], rng)
    events += prefilled
    first, rolled = _first_player(seats, rng)
    events += rolled
    start = seats.index(first)
    order = [*range(start, len(seats)), *range(start)]
    state = State(
        config=config,
        players=tuple(
            Player(
                seat=seats[i], actions=sort_actions(hands[i]), objectives=sort_objectives(held[i])
            )
            for i in order
        ),
        board=board,
        supply=supply,
        out=(0,) * len(COLORS),
        decks=_cards.split_decks(rest),
        action_discard=(),
        objective_deck=tuple(deck),
        objective_discard=(),
        phase=TURN,
        current=0,
    )
    events.append(
        Event(
            "decks.ready",
            {
                "deckSizes": [len(d) for d in state.decks],
                "faceUp": _cards.face_up(state),
                "objectiveDeckSize": len(deck),
            },
        )
    )
    events.append(Event("first.player", {"order": list(state.seats)}, seat=first))
    events.append(Event("turn.started", {"turn": 1}, seat=first))
    return state, events


def to_act(state: State) -> tuple[int, ...]:
    """The seat awaited now (none once the game is over)."""
    position = state.acting()
    return () if position is None else (state.players[position].seat,)


def legal_moves(state: State, seat: int, rules: RuleSet) -> list[Move]:
    """Exactly the legal moves of ``seat`` now (none when it is not to act)."""
    if seat not in to_act(state):
        return []
    return _moves.legal(Table(state, rules), state.position(seat))


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Play one move of ``seat``, with every step it forces."""
    if seat not in to_act(state):
        return Rejected(ILLEGAL_MOVE, "it is not your turn")
    table = Table(state, rules)
    position = state.position(seat)
    reason = _moves.refusal(table, position, move)
    if reason is not None:
        return Rejected(ILLEGAL_MOVE, reason)
    new, events = _effects.effect(table, position, move, rng)
    return Outcome(new, tuple(events))


def _counts(counts: Sequence[int]) -> list[dict[str, Any]]:
    return [{"color": c, "count": n} for c, n in zip(COLORS, counts, strict=True)]


def _scored(scored: Sequence[tuple[str, int]]) -> list[dict[str, Any]]:
    return [
        {"objective": oid, "name": OBJECTIVE_BY_ID[oid].name, "points": pts} for oid, pts in scored
    ]


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The state as ``seat`` (or a spectator, None) may see it: no other hidden hand."""
    cfg = state.config
    satisfied = satisfied_objectives(
        state.board, each_color_min=cfg.each_color_min, lines=cfg.lines
    )
    face_up = _cards.face_up(state)
    me = next((p for p in state.players if p.seat == seat), None)
    acting = state.acting()
    return {
        "board": [list(row) for row in state.board],
        "supply": _counts(state.supply),
        "outOfGame": _counts(state.out),
        "decks": [
            {"deck": name, "size": len(deck), "faceUp": up}
            for name, deck, up in zip(_cards.DECK_NAMES, state.decks, face_up, strict=True)
        ],
        "actionDiscardSize": len(state.action_discard),
        "objectiveDeckSize": len(state.objective_deck),
        "objectiveDiscardSize": len(state.objective_discard),
        "specials": [
            {
                "objective": sid,
                "name": OBJECTIVE_BY_ID[sid].name,
                "points": cfg.points_of(sid),
                "claimedBy": list(state.claimed_by(sid)),
                "satisfied": sid in satisfied,
            }
            for sid in SPECIAL_IDS
        ],
        "players": [
            {
                "seat": p.seat,
                "score": p.score,
                "scored": _scored(p.scored),
                "actionCount": len(p.actions),
                "objectiveCount": len(p.objectives),
                "objectives": list(p.objectives) if cfg.open_objectives else None,
            }
            for p in state.players
        ],
        "hand": None
        if me is None
        else {
            "actions": list(me.actions),
            "objectives": list(me.objectives),
            "satisfied": [o for o in dict.fromkeys(me.objectives) if o in satisfied],
        },
        "phase": state.phase,
        "current": None if acting is None else state.players[acting].seat,
        "turn": state.turn,
        "order": list(state.seats),
        "pendingDie": state.pending,
        "drawsLeft": state.draws_left,
        "scoredThisTurn": state.scored_this_turn,
        "finalQueue": [state.players[p].seat for p in state.final_queue],
        "boardSatisfies": [oid for oid in OBJECTIVE_BY_ID if oid in satisfied],
        "objectivesOpen": cfg.open_objectives,
        "winners": list(state.winners),
        "rolloffs": [
            {
                "round": i + 1,
                "rolls": [{"seat": s, "dice": list(dice), "total": sum(dice)} for s, dice in rnd],
            }
            for i, rnd in enumerate(state.rolloffs)
        ],
    }


def result(state: State) -> Result | None:
    """The winners and every seat's points, once the game is over."""
    if state.phase != OVER:
        return None
    return Result(winners=state.winners, scores={p.seat: p.score for p in state.players})


def bot(state: State, seat: int, rng: Rng, rules: RuleSet) -> Move:
    """A legal move for a bot in ``seat``: it places dice to complete the objectives it holds."""
    return choose(Table(state, rules), state.position(seat), rng)


# Moves a player may take back (undoMove) while nobody has moved since: placing a die
# already rolled, and the actions that roll nothing (swap, plus/minus, paint), as long
# as they end nothing (no full board). A roll never (colour cards, reroll, remove: the
# core refuses those too, they use chance); scoring an objective or claiming a special
# is final; drawing an action card or new objectives shows new cards.
_TAKE_BACK: Final = frozenset({"place", "swap", "plusMinus", "paint"})
_QUIET: Final = frozenset({"action.played", "die.placed"})


def undoable(before: State, seat: int, move: Move, outcome: Outcome[State]) -> bool:
    """Whether ``seat`` may take ``move`` back (see the comment above)."""
    return next(iter(move)) in _TAKE_BACK and all(e.type in _QUIET for e in outcome.events)


GAME: Final = GameDef(
    id=GAME_ID,
    name="Five by Five",
    summary="Place and change dice on a shared 5x5 board to complete your objective cards; "
    "the most points when the board fills wins.",
    min_players=1,
    max_players=5,
    setup=setup,
    to_act=to_act,
    legal_moves=legal_moves,
    apply=apply,
    view=view,
    result=result,
    bot=bot,
    encode=encode,
    decode=decode,
    options=OPTIONS,
    check_move=check_move,
    state_format=1,
    event_types=EVENT_TYPES,
    state_type=FiveByFiveState,
    move_input_type=FiveByFiveMoveInput,
    hookspecs=hookspecs,
    undoable=undoable,
)
