"""What a viewer may see of a Five by Five game: the JSON of ``FiveByFiveState``. A seat
sees its own hand; nobody sees another hand (objective hands are open with the house rule
``open-objectives``) nor the order of a deck."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tablestate.engine import Rng
from tablestate_five_by_five import _cards
from tablestate_five_by_five.rules import COLORS, OBJECTIVE_BY_ID, SPECIAL_IDS, satisfied_objectives
from tablestate_five_by_five.state import State, sort_actions, sort_objectives


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


def unseen_dealt(
    state: State, seat: int | None, shuffle: Callable[[Sequence[str]], Sequence[str]]
) -> State:
    """The game with the cards ``seat`` has not seen dealt again in ``shuffle``'s order:
    the other hands of action cards, the action decks below their face-up cards, the
    objective deck and discards, and the other objective hands unless they are open."""
    others = [i for i, p in enumerate(state.players) if p.seat != seat]
    shut = not state.config.open_objectives
    actions = [a for i in others for a in state.players[i].actions]
    actions += [a for deck in state.decks for a in deck[1:]]
    objectives = [*state.objective_deck, *state.objective_discard]
    objectives += [o for i in others for o in state.players[i].objectives] if shut else []
    actions = list(shuffle(actions))
    objectives = list(shuffle(objectives))

    def take(pool: list[str], n: int) -> tuple[str, ...]:
        out = tuple(pool[:n])
        del pool[:n]
        return out

    decks = tuple(deck[:1] + take(actions, max(len(deck) - 1, 0)) for deck in state.decks)
    deck, discard = (
        take(objectives, len(state.objective_deck)),
        take(objectives, len(state.objective_discard)),
    )
    players = list(state.players)
    for i in others:
        p = players[i]
        held = sort_objectives(take(objectives, len(p.objectives))) if shut else p.objectives
        players[i] = replace(
            p, actions=sort_actions(take(actions, len(p.actions))), objectives=held
        )
    return replace(
        state,
        players=tuple(players),
        decks=(decks[0], decks[1]),
        objective_deck=deck,
        objective_discard=discard,
    )


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A game ``seat`` cannot tell from ``state`` (``GameDef.determinize``)."""
    return unseen_dealt(state, seat, lambda pool: rng.shuffle(sorted(pool)))
