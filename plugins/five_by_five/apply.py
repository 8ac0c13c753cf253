"""What a Five by Five move does, with every step it forces (DECISIONS.md 3.2-3.3):
``apply`` refuses what ``legal.refusal`` refuses (ILLEGAL_MOVE) and plays the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final, TypeAlias

from tablestate.engine import ILLEGAL_MOVE, Event, Move, Outcome, Rejected, Rng, RuleSet
from tablestate_five_by_five import _cards, flow
from tablestate_five_by_five._table import Table, square_json, square_of
from tablestate_five_by_five.legal import refusal, to_act
from tablestate_five_by_five.moves import ACTION_KINDS, CARD_KINDS
from tablestate_five_by_five.rules import COLORS, Square, is_full, parse_die
from tablestate_five_by_five.state import ACTED, FINAL, PLACE, REFILL, Grid, State, sort_actions

Steps: TypeAlias = tuple[State, list[Event]]


def apply(
    state: State, seat: int, move: Move, rng: Rng, rules: RuleSet
) -> Outcome[State] | Rejected:
    """Play one move of ``seat``, with every step it forces."""
    if seat not in to_act(state):
        return Rejected(ILLEGAL_MOVE, "it is not your turn")
    table = Table(state, rules)
    position = state.position(seat)
    reason = refusal(table, position, move)
    if reason is not None:
        return Rejected(ILLEGAL_MOVE, reason)
    new, events = effect(table, position, move, rng)
    return Outcome(new, tuple(events))


def effect(t: Table, position: int, move: Move, rng: Rng) -> Steps:
    """Play a legal move of the player at ``position``."""
    ((kind, arg),) = move.items()
    if kind in ACTION_KINDS:
        return _act(t, position, kind, arg, rng)
    return _EFFECTS[kind](t, position, arg, rng)


def _then_end_turn(state: State, events: list[Event], t: Table, rng: Rng) -> Steps:
    state, more = flow.end_turn(Table(state, t.rules), rng)
    return state, events + more


def _score(t: Table, position: int, arg: Mapping[str, Any], rng: Rng, special: bool) -> Steps:
    s = t.state
    objective = arg["objective"]
    player = s.players[position]
    points = s.config.points_of(objective)
    held = player.objectives if special else _cards.without(player.objectives, [objective])
    state = s.with_player(position, objectives=held, scored=(*player.scored, (objective, points)))
    state = replace(state, scored_this_turn=True)
    data = {"objective": objective, "points": points, "score": state.players[position].score}
    kind = "special.claimed" if special else "objective.scored"
    events = [Event(kind, data, seat=player.seat)]
    if state.phase == FINAL:
        state, more = flow.advance_final(Table(state, t.rules), rng)
        events += more
    return state, events


def _draw_action(t: Table, position: int, arg: Mapping[str, Any], rng: Rng) -> Steps:
    deck = _cards.DECK_NAMES.index(arg["deck"])
    state, events = _cards.draw_action(t.state, position, deck, rng)
    state = replace(state, draws_left=state.draws_left - 1)
    if state.draws_left <= 0 or not _cards.actions_available(state):
        return _then_end_turn(state, events, t, rng)
    return state, events


def _forfeit_actions(t: Table, position: int, arg: Mapping[str, Any], rng: Rng) -> Steps:
    s = t.state
    cards = list(sort_actions(arg["cards"]))
    player = s.players[position]
    state = s.with_player(position, actions=_cards.without(player.actions, cards))
    left = s.config.action_hand_size - len(state.players[position].actions)
    state = replace(
        state, action_discard=(*s.action_discard, *cards), phase=REFILL, draws_left=left
    )
    events = [Event("actions.forfeited", {"cards": cards}, seat=player.seat)]
    if left <= 0 or not _cards.actions_available(state):
        return _then_end_turn(state, events, t, rng)
    return state, events


def _forfeit_objectives(t: Table, position: int, arg: Mapping[str, Any], rng: Rng) -> Steps:
    s = t.state
    objectives = list(arg["objectives"])
    player = s.players[position]
    state = s.with_player(position, objectives=_cards.without(player.objectives, objectives))
    state = replace(state, objective_discard=(*s.objective_discard, *objectives))
    data: dict[str, Any] = {"count": len(objectives)}
    if s.config.open_objectives:
        data["objectives"] = objectives
    private = {player.seat: {"objectives": objectives}}
    events = [Event("objectives.forfeited", data, seat=player.seat, private=private)]
    return _then_end_turn(state, events, t, rng)


def _done(t: Table, position: int, arg: Any, rng: Rng) -> Steps:
    state = replace(t.state, final_queue=t.state.final_queue[1:])
    events = [Event("player.finished", {}, seat=t.state.players[position].seat)]
    state, more = flow.advance_final(Table(state, t.rules), rng)
    return state, events + more


def _set(board: Grid, sq: Square, die: str | None) -> Grid:
    rows = [list(row) for row in board]
    rows[sq[0]][sq[1]] = die
    return tuple(tuple(row) for row in rows)


def _count(counts: tuple[int, ...], color: str, delta: int) -> tuple[int, ...]:
    out = list(counts)
    out[COLORS.index(color)] += delta
    return tuple(out)


def _act(t: Table, position: int, kind: str, arg: Mapping[str, Any], rng: Rng) -> Steps:
    """Play an action card; a colour card's die waits in ``pending`` for ``place``."""
    s = t.state
    player = s.players[position]
    card = arg["card"] if kind == "playColor" else CARD_KINDS[kind]
    state = s.with_player(position, actions=_cards.without(player.actions, [card]))
    state = replace(state, action_discard=(*s.action_discard, card), phase=ACTED, draws_left=1)
    played: dict[str, Any] = {"card": card}
    if kind == "playColor":
        color = arg["color"]
        (value,) = rng.roll(1)
        rolled = f"{color}{value}"
        state = replace(state, supply=_count(state.supply, color, -1), pending=rolled, phase=PLACE)
        played["color"] = color
        return state, [
            Event("action.played", played, seat=player.seat),
            Event("die.rolled", {"die": rolled}, seat=player.seat),
        ]
    if kind == "swap":
        a, b = square_of(arg["first"]), square_of(arg["second"])
        state = replace(state, board=_set(_set(state.board, a, t.at(b)), b, t.at(a)))
        played.update(first=square_json(a), second=square_json(b))
        return state, [Event("action.played", played, seat=player.seat)]
    sq = square_of(arg["square"])
    old = t.at(sq)
    assert old is not None, "refusal() lets no action on an empty square through"
    old_color, value = parse_die(old)
    played["square"] = square_json(sq)
    new_color = old_color
    if kind == "reroll":
        (value,) = rng.roll(1)
    elif kind == "plusMinus":
        delta = played["delta"] = arg["delta"]
        if 1 <= value + delta <= 6:
            value += delta
        else:  # refusal() let it through, so a house rule answers
            answers = t.rules.hook.five_by_five_adjust_value(value=value, delta=delta)
            value = next(w for w in answers if w is not None)
    else:  # remove, paint: the old die goes to the supply or out of the game
        new_color = arg["color"]
        leaves = t.leaves(old)
        if leaves:
            state = replace(state, out=_count(state.out, old_color, 1))
        else:
            state = replace(state, supply=_count(state.supply, old_color, 1))
        state = replace(state, supply=_count(state.supply, new_color, -1))
        played.update(color=new_color, leftGame=leaves)
        if kind == "remove":
            (value,) = rng.roll(1)
    new = f"{new_color}{value}"
    state = replace(state, board=_set(state.board, sq, new))
    played.update(before=old, after=new)
    return state, [Event("action.played", played, seat=player.seat)]


def _place(t: Table, position: int, arg: Mapping[str, Any], rng: Rng) -> Steps:
    s = t.state
    sq = square_of(arg["square"])
    seat = s.players[position].seat
    state = replace(s, board=_set(s.board, sq, s.pending), pending=None, phase=ACTED)
    events = [Event("die.placed", {"die": s.pending, "square": square_json(sq)}, seat=seat)]
    if is_full(state.board):
        events.append(Event("board.filled", {}, seat=seat))
        if not any(t.rules.hook.five_by_five_finish_round()):
            state, more = flow.start_final(Table(state, t.rules), position, rng)
            events += more
    return state, events


_EFFECTS: Final[Mapping[str, Callable[[Table, int, Any, Rng], Steps]]] = {
    "place": _place,
    "playObjective": lambda t, p, arg, rng: _score(t, p, arg, rng, special=False),
    "claimSpecial": lambda t, p, arg, rng: _score(t, p, arg, rng, special=True),
    "drawAction": _draw_action,
    "forfeitActions": _forfeit_actions,
    "forfeitObjectives": _forfeit_objectives,
    "done": _done,
}
