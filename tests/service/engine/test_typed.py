"""``define_game``: a game written in its own dataclasses, and what is derived from them (the
GraphQL types, the JSON both ways, the move checks, the view, the events, the bots)."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import pytest
import strawberry
from hypothesis import given, settings
from hypothesis import strategies as st

from tablestate import Event, Outcome, Rejected, Result, Rng, RuleSet, SetupContext, define_game
from tablestate.engine.bots import LEVELS, choose, random_move, search, view_for
from tablestate.engine.shapes import checker, docs, shape_of
from tablestate.engine.typed import MOVE_MADE, GameDefinitionError
from tablestate.testing import GameDriver


class Suit(enum.Enum):
    """A card's suit."""

    HEARTS = "h"
    SPADES = "s"


@dataclass(frozen=True)
class Card:
    """A card.

    Args:
        rank: its rank, 1 to 3.
        suit: its suit.
    """

    rank: Literal[1, 2, 3]
    suit: Suit


@dataclass(frozen=True)
class Toy:
    """A toy game: each plays a card or passes, four moves in all.

    Args:
        seats: the seats, in play order.
        turn: the position to act.
        pile: the cards played,
            the last one on top.
        scores: points by seat.
        last: the card on top, if any.
    """

    seats: tuple[int, ...]
    turn: int
    pile: tuple[Card, ...]
    scores: dict[int, int]
    last: Card | None
    note_text: str = field(default="", metadata={"description": "A note, in camelCase."})
    ratio: float = 0.5
    moves: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Play:
    """Play a card at least as high as the top one.

    Args:
        card: the card.
    """

    card: Card


@dataclass(frozen=True)
class Pass:
    """Pass your turn."""


DECK = tuple(Card(r, s) for s in Suit for r in (1, 2, 3))  # type: ignore[arg-type]


def setup(ctx: SetupContext) -> Toy:
    return Toy(ctx.seats, 0, (), {s: 0 for s in ctx.seats}, None)


def to_act(state: Toy) -> list[int]:
    return [] if len(state.moves) >= 4 else [state.seats[state.turn]]


def legal(state: Toy, seat: int) -> list[Play | Pass]:
    floor = state.last.rank if state.last else 1
    return [*(Play(c) for c in DECK if c.rank >= floor), Pass()]


def apply(state: Toy, seat: int, move: Play | Pass) -> Toy:
    turn = (state.turn + 1) % len(state.seats)
    if isinstance(move, Pass):
        return replace(state, turn=turn, moves=[*state.moves, "pass"])
    scores = {**state.scores, seat: state.scores[seat] + move.card.rank}
    return replace(state, turn=turn, pile=(*state.pile, move.card), scores=scores,
                   last=move.card, moves=[*state.moves, "play"])  # fmt: skip


def result(state: Toy) -> Result | None:
    if len(state.moves) < 4:
        return None
    best = max(state.scores.values())
    return Result(tuple(s for s, v in state.scores.items() if v == best), dict(state.scores))


RULES: dict[str, Any] = dict(setup=setup, to_act=to_act, legal=legal, apply=apply, result=result)


def toy(**overrides: Any) -> Any:
    args: dict[str, Any] = dict(id="toy-cards", name="Toy", summary="A toy.", players=(2, 3),
                                state=Toy, **RULES)  # fmt: skip
    return define_game(**{**args, **overrides})


GAME = toy()


def _sdl(*types: type) -> str:
    @strawberry.type
    class Query:
        ok: bool

    return strawberry.Schema(query=Query, types=list(types)).as_str()


TOY_SDL = '''
"""A toy game: each plays a card or passes, four moves in all."""
type ToyCardsState implements GameState {
  """The game's id, e.g. five-crowns."""
  gameId: ID!

  """Seats whose move is awaited."""
  toAct: [Int!]!

  """
  This state as you see it at this version: a new id at every version and for every seat, so that a client's cache keeps each state whole.
  """
  id: ID!

  """The seats, in play order."""
  seats: [Int!]!

  """The position to act."""
  turn: Int!

  """The cards played, the last one on top."""
  pile: [ToyCardsCard!]!

  """Points by seat."""
  scores: [ToyCardsToyScoresEntry!]!

  """The card on top, if any."""
  last: ToyCardsCard

  """A note, in camelCase."""
  noteText: String!
  ratio: Float!
  moves: [String!]!
}
'''

MOVE_SDL = '''
"""A card."""
input ToyCardsCardInput {
  """Its rank, 1 to 3."""
  rank: Int!

  """Its suit."""
  suit: ToyCardsSuit!
}

"""A move of Toy."""
input ToyCardsMoveInput @oneOf {
  """Play a card at least as high as the top one."""
  play: ToyCardsPlayInput

  """Pass your turn."""
  pass: Boolean
}

"""Play a card at least as high as the top one."""
input ToyCardsPlayInput {
  """The card."""
  card: ToyCardsCardInput!
}
'''


def test_the_graphql_types_are_derived_from_the_dataclasses():
    sdl = _sdl(GAME.state_type, GAME.move_input_type)
    assert TOY_SDL.strip() in sdl
    assert MOVE_SDL.strip() in sdl
    assert '"""A card\'s suit."""\nenum ToyCardsSuit {\n  HEARTS\n  SPADES\n}' in sdl
    assert "type ToyCardsCard {" in sdl and "type ToyCardsToyScoresEntry {" in sdl
    assert (GAME.min_players, GAME.max_players) == (2, 3)


def test_the_state_type_is_built_from_the_default_view():
    d = GameDriver(GAME, 2, seed="s")
    d.move(0, {"play": {"card": {"rank": 2, "suit": "SPADES"}}})
    view = d.view(1)
    assert view["pile"] == [{"rank": 2, "suit": "SPADES"}]
    assert view["scores"] == [{"key": 0, "value": 2}, {"key": 1, "value": 0}]
    assert view["noteText"] == "" and view["last"] == {"rank": 2, "suit": "SPADES"}
    from tablestate.engine.schema import from_view

    made = from_view(GAME.state_type, {**view, "gameId": "toy-cards", "toAct": [1]})
    assert made.last.suit.name == "SPADES" and made.scores[0].value == 2


_cards = st.builds(Card, st.sampled_from([1, 2, 3]), st.sampled_from(Suit))
_toys = st.builds(
    Toy,
    seats=st.lists(st.integers(0, 9), max_size=4).map(tuple),
    turn=st.integers(-5, 5),
    pile=st.lists(_cards, max_size=5).map(tuple),
    scores=st.dictionaries(st.integers(0, 9), st.integers(-100, 100)),
    last=st.none() | _cards,
    note_text=st.sampled_from(["", "a note", "ünï"]),
    ratio=st.floats(allow_nan=False, allow_infinity=False),
    moves=st.lists(st.sampled_from(["play", "pass"]), max_size=4),
)


@settings(database=None)  # nothing written into the repository
@given(_toys)
def test_encode_and_decode_round_trip(state: Toy):
    data = GAME.encode(state)
    assert GAME.decode(json.loads(json.dumps(data))) == state
    assert checker(shape_of(Toy))(data, "state") is None


@pytest.mark.parametrize(
    "move, reason",
    [
        pytest.param("play", "a move has exactly one kind", id="not-an-object"),
        pytest.param({"play": {}, "pass": True}, "a move has exactly one kind", id="two-kinds"),
        pytest.param({"draw": True}, "unknown move 'draw'", id="unknown-kind"),
        pytest.param({"pass": False}, "pass takes true", id="pass-false"),
        pytest.param({"play": {}}, "play.card is missing", id="no-card"),
        pytest.param({"play": {"card": {"rank": 1}}}, "play.card.suit is missing", id="no-suit"),
        pytest.param(
            {"play": {"card": {"rank": 4, "suit": "HEARTS"}}},
            "play.card.rank must be one of 1, 2, 3",
            id="literal",
        ),
        pytest.param(
            {"play": {"card": {"rank": 1, "suit": "CLUBS"}}},
            "play.card.suit must be one of HEARTS, SPADES",
            id="enum",
        ),
        pytest.param(
            {"play": {"card": {"rank": True, "suit": "HEARTS"}}},
            "play.card.rank must be one of 1, 2, 3",
            id="bool-is-no-int",
        ),
        pytest.param({"play": {"card": "1H"}}, "play.card must be an object", id="not-nested"),
        pytest.param(
            {"play": {"card": {"rank": 1, "suit": "HEARTS"}, "x": 1}},
            "play has no field 'x'",
            id="unknown-field",
        ),
    ],
)
def test_check_move_refuses_malformed_moves(move: Any, reason: str):
    assert GAME.check_move(move) == reason


def test_well_formed_moves_pass_the_check():
    assert GAME.check_move({"pass": True}) is None
    assert GAME.check_move({"play": {"card": {"rank": 3, "suit": "SPADES"}}}) is None


def test_a_bare_state_emits_the_default_public_event():
    assert GAME.event_types == (MOVE_MADE,)
    d = GameDriver(GAME, 2, seed="s")
    (made,) = d.move(0, {"pass": True})
    assert made == Event(MOVE_MADE, {"move": {"pass": True}}, seat=0)
    (made,) = d.move(1, {"play": {"card": {"rank": 1, "suit": "HEARTS"}}})
    assert made.data == {"move": {"play": {"card": {"rank": 1, "suit": "HEARTS"}}}}


def test_legal_moves_are_the_move_json_and_only_for_the_seat_to_act():
    d = GameDriver(GAME, 2, seed="s")
    assert d.legal(1) == []
    assert {"pass": True} in d.legal(0)
    assert {"play": {"card": {"rank": 1, "suit": "HEARTS"}}} in d.legal(0)
    assert len(d.legal(0)) == 7


def test_an_unlisted_move_is_refused_before_apply_sees_it():
    d = GameDriver(GAME, 2, seed="s")
    d.move(0, {"play": {"card": {"rank": 3, "suit": "HEARTS"}}})
    low = {"play": {"card": {"rank": 1, "suit": "HEARTS"}}}
    assert d.try_move(1, low) == Rejected("ILLEGAL_MOVE", "that move is not legal now")
    free = toy(listed_only=False)
    d = GameDriver(free, 2, seed="s")
    d.move(0, {"play": {"card": {"rank": 3, "suit": "HEARTS"}}})
    assert isinstance(d.try_move(1, low), Outcome)


def test_apply_may_take_rng_and_rules_and_return_its_own_outcome():
    seen: list[Any] = []

    def rolling(state: Toy, seat: int, move: Play | Pass, rng: Rng, rules: RuleSet) -> Any:
        seen.append((rng.randint(1, 6), rules))
        if isinstance(move, Play) and move.card.rank == 3:
            return Rejected("ILLEGAL_MOVE", "no threes today")
        return Outcome(apply(state, seat, move), (Event("toy.rolled", {"die": seen[-1][0]}),))

    game = toy(apply=rolling, events=("toy.rolled",))
    assert game.event_types == ("toy.rolled", MOVE_MADE)
    d = GameDriver(game, 2, seed="s")
    (rolled,) = d.move(0, {"pass": True})
    assert rolled.type == "toy.rolled" and seen[0][1] is d.rules
    assert d.try_move(1, {"play": {"card": {"rank": 3, "suit": "HEARTS"}}}).code == "ILLEGAL_MOVE"


def test_the_rules_may_be_methods_of_the_state_and_the_moves_come_from_legal():
    @dataclass(frozen=True)
    class Count:
        """Count to three."""

        seats: tuple[int, ...]
        n: int = 0

        @staticmethod
        def setup(ctx: SetupContext) -> tuple[Count, list[Event]]:
            return Count(ctx.seats), [Event("count.started")]

        def to_act(self) -> list[int]:
            return [] if self.n >= 3 else [self.seats[self.n % len(self.seats)]]

        def legal(self, seat: int, rules: RuleSet) -> list[Pass]:
            return [Pass()]

        def apply(self, seat: int, move: Pass) -> Count:
            return replace(self, n=self.n + 1)

        def result(self) -> Result | None:
            return Result((), {s: 0 for s in self.seats}) if self.n >= 3 else None

    game = define_game(id="count", name="Count", summary="Count.", players=1, state=Count,
                       events=("count.started",))  # fmt: skip
    d = GameDriver(game, 1, seed="s")
    assert d.events[0].type == "count.started"
    result = d.random_playout()
    assert result.winners == () and d.state.n == 3


def test_bots_choose_legal_moves_at_every_level():
    assert GAME.bot is search and GAME.easy_bot is random_move
    d = GameDriver(GAME, 3, seed="bots")
    rng = Rng(b"bots")
    while d.result() is None:
        (seat,) = d.to_act()
        for level in LEVELS:
            move = choose(GAME, d.state, seat, level, rng, d.rules)
            assert move in d.legal(seat), (level, move)
        d.move(seat, choose(GAME, d.state, seat, "normal", rng, d.rules))


def test_the_normal_bot_searches_for_the_win():
    """From playouts, the normal bot finds the one move that wins alone: seat 1, two points
    behind at the last move, plays a three (a two only shares the win)."""
    d = GameDriver(GAME, 2, seed="s")
    last = replace(d.state, turn=1, scores={0: 2, 1: 0}, moves=["pass"] * 3)
    move = search(view_for(GAME, last, 1, d.rules, Rng(b"v")), Rng(b"s"))
    assert move == {"play": {"card": {"rank": 3, "suit": "HEARTS"}}}


def test_a_given_bot_may_answer_with_a_move_dataclass():
    game = toy(bot=lambda view, rng: Pass())
    assert game.easy_bot is None  # the easy level plays it half the time, as any game's bot
    d = GameDriver(game, 2, seed="s")
    assert choose(game, d.state, 0, "normal", Rng(b"x"), d.rules) == {"pass": True}


@dataclass(frozen=True)
class ToyView:
    """What a seat sees of the toy game.

    Args:
        pile_size: how many cards were played.
    """

    pile_size: int


def toy_view(state: Toy, seat: int | None) -> ToyView:
    return ToyView(len(state.pile))


def test_hidden_information_needs_a_view_and_determinize():
    with pytest.raises(GameDefinitionError, match="hides information: give it a `view`"):
        toy(hidden=True)
    with pytest.raises(GameDefinitionError, match="`determinize`"):
        toy(hidden=True, view=toy_view)
    game = toy(hidden=True, view=toy_view, determinize=lambda s, seat, rng: s)
    assert game.event_types == ()
    sdl = _sdl(game.state_type)
    assert "type ToyCardsState implements GameState" in sdl and "pileSize: Int!" in sdl
    assert "pile:" not in sdl
    d = GameDriver(game, 2, seed="s")
    assert d.view(0) == {"pileSize": 0}
    with pytest.raises(GameDefinitionError, match="apply returns an Outcome"):
        d.move(0, {"pass": True})


def test_a_given_gamedef_field_replaces_the_derived_one():
    game = toy(event_types=("a.b", MOVE_MADE), bot_depth=3)
    assert game.event_types == ("a.b", MOVE_MADE) and game.bot_depth == 3


@pytest.mark.parametrize(
    "overrides, message",
    [
        pytest.param({"colour": "red"}, "'colour' is not a GameDef field", id="unknown-keyword"),
        pytest.param({"state": dict}, "state must be a dataclass", id="state-no-dataclass"),
        pytest.param({"moves": ()}, "at least one move class", id="no-moves"),
        pytest.param({"moves": (Play, Play)}, "two move classes are named 'play'", id="twice"),
        pytest.param({"legal": lambda s, seat: []}, "annotate legal's return", id="no-moves-hint"),
        pytest.param({"setup": None}, "no `setup`", id="rule-missing"),
    ],
)
def test_definition_errors_name_the_game_and_the_culprit(overrides: dict[str, Any], message: str):
    with pytest.raises(GameDefinitionError, match=message) as caught:
        toy(**overrides)
    assert "game 'toy-cards'" in str(caught.value)


def test_unsupported_types_and_core_names_are_refused():
    @dataclass(frozen=True)
    class Odd:
        tags: set[str]

    with pytest.raises(GameDefinitionError, match=r"Odd.tags: set\[str\] is not a supported"):
        toy(state=Odd)

    @dataclass(frozen=True)
    class Clash:
        to_act: tuple[int, ...]

    with pytest.raises(GameDefinitionError, match="the view's field 'toAct' is the core's own"):
        toy(state=Clash)

    @dataclass(frozen=True)
    class Keyed:
        by: dict[str, int]

    with pytest.raises(GameDefinitionError, match="a move cannot hold a dict"):
        toy(moves=(Keyed,))


def test_docstrings_give_the_descriptions():
    summary, fields = docs(Toy)
    assert summary == "A toy game: each plays a card or passes, four moves in all."
    assert fields["pile"] == "The cards played, the last one on top."
    assert docs(Pass) == ("Pass your turn.", {})

    @dataclass
    class Bare:
        x: int

    assert docs(Bare) == (None, {})


def test_whether_a_game_uses_chance_is_read_from_its_rules():
    def shuffled(ctx: SetupContext) -> Toy:
        first = setup(ctx)
        return replace(first, seats=tuple(ctx.rng.shuffle(list(ctx.seats))))

    def rolled(state: Toy, seat: int, move: Play | Pass, rng: Rng) -> Toy:
        return apply(state, seat, move)

    assert toy().uses_chance is False  # setup reads no rng, apply takes none
    assert toy(setup=shuffled).uses_chance is True
    assert toy(apply=rolled).uses_chance is True
    assert toy(uses_chance=True).uses_chance is True  # said outright
