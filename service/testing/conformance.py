"""The invariants every game keeps (docs/architecture.md), checked with what the game says of itself
(its ``GameDef`` and, optionally, its ``GameFacts``): the contract with the API, conservation,
secrets, events, legal moves, refusals and blind bots."""

from __future__ import annotations

import importlib
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tablestate.engine.bots import LEVELS, NORMAL, Budget, choose
from tablestate.engine.contract import contract_of
from tablestate.engine.game import Event, GameDef, Move, Outcome, Rejected
from tablestate.engine.rng import Rng
from tablestate.engine.ruleset import RuleSet

if TYPE_CHECKING:
    from tablestate.plugins import Registry

from tablestate.testing.driver import GameDriver
from tablestate.testing.secrecy import check_events_secret, check_view_secret, scramble


def strings(value: Any) -> list[str]:
    """Every string of a JSON value, keys included."""
    out: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            todo += item.keys()
            todo += item.values()
        elif isinstance(item, list | tuple | set | frozenset):
            todo += item
    return out


class GameFacts:
    """What the invariant checks may know of a game beyond its ``GameDef``: subclass it in
    the ``testing`` module of the game's plugin package as ``FACTS``, where ``facts_of``
    finds it. Every part is optional: ``GameFacts()`` checks a game by its ``GameDef``
    alone (conservation by its ``conserved``, secrecy by its ``determinize``).

    Secrecy of values of any type: each view and each event is compared with those of a
    state ``scramble``d as its viewer cannot tell (default: the game's ``determinize``);
    ``revealing`` names the event types that exist to show what was hidden (a showdown),
    which that comparison leaves out. Secrecy of names: items that are strings (a card)
    are named by ``is_item``, ``hidden``, ``visible`` and ``released``: viewer V may not
    know what is hidden from V and in no place V sees. Conservation: ``deck`` counts what
    the table plays with, ``items`` where it is (default: the game's ``conserved``).
    ``playouts`` and ``api_games`` are the cases the shared tests play (``case_driver``
    reads one); ``free_kinds`` the kinds of move that take any valid arguments of which
    the legal moves list some (a meld's arrangement): such a move may be accepted though
    unlisted.
    """

    playouts: Sequence[Mapping[str, Any]] = ()
    api_games: Sequence[Mapping[str, Any]] = ()
    free_kinds: frozenset[str] = frozenset()
    revealing: frozenset[str] = frozenset()

    def deck(
        self, seats: Sequence[int], options: Mapping[str, Any], rules: RuleSet
    ) -> Counter[str] | None:
        """Every item the table plays with, counted (house rules may change it); None:
        what the game's ``conserved`` counts after the setup."""
        return None

    def items(self, state: Any) -> Counter[str] | None:
        """Every item where it is now, counted once per place it is in; None: the game's
        ``conserved``."""
        return None

    def is_item(self, name: str) -> bool:
        """Whether a string of a view, an event or a refusal names an item (default: no
        string does; secrecy is then checked by scrambles alone)."""
        return False

    def names(self, value: Any) -> set[str]:
        """The items a JSON value names."""
        return {s for s in strings(value) if self.is_item(s)}

    def hidden(self, state: Any, seat: int | None) -> set[str]:
        """The items in places hidden from ``seat`` (None: a spectator)."""
        return set()

    def visible(self, state: Any, seat: int | None) -> set[str]:
        """The items in places ``seat`` sees."""
        return set()

    def scramble(self, state: Any, seat: int | None, rng: random.Random) -> Any:
        """The same state with what ``seat`` may not see moved about: its view is the same.
        Not implemented: the game's ``determinize`` scrambles."""
        raise NotImplementedError

    def released(
        self, before: Any, after: Any, seat: int | None, events: Sequence[Event]
    ) -> set[str]:
        """The items of ``seat``'s that its move (these events) showed everyone."""
        return set()

    def shown(self, before: Any, after: Any, seat: int, events: Sequence[Event]) -> set[str]:
        """The items a commit showed ``seat`` alone that neither state lets it see (a hand
        dealt, then voided and dealt again in the same commit)."""
        return set()

    def moves(self, state: Any, seat: int) -> list[Move]:
        """Well-formed moves worth trying now, the legal ones among them."""
        return []

    def options(self, pick: random.Random, players: int) -> dict[str, Any]:
        """Random table options that keep a game short."""
        return {}

    def check_view(self, state: Any, seat: int | None, view: Any) -> None:
        """Raise AssertionError when ``view`` is not what ``seat`` sees of ``state``."""

    def check_commit(
        self, before: Any, after: Any, events: Sequence[Event], rules: RuleSet
    ) -> None:
        """Raise AssertionError when a commit (``before`` None: the setup) breaks an
        invariant of this game's own."""


def facts_of(registry: Registry, game_id: str) -> GameFacts:
    """The ``FACTS`` of an installed game: ``<its plugin's module>.testing.FACTS``."""
    for info in registry.plugins:
        if game_id in info.games:
            module = registry.pm.get_plugin(info.name)
            assert module is not None  # a plugin the registry lists is registered
            found: GameFacts = importlib.import_module(f"{module.__name__}.testing").FACTS
            return found
    raise LookupError(f"no installed game {game_id!r}")


def case_driver(game: GameDef[Any], case: Mapping[str, Any], registry: Registry) -> GameDriver:
    """The driver of a case: ``seats`` or ``players`` (a count), ``rules`` (ids, with or
    without ``<game id>/``), ``options`` and ``seed``."""
    seats = case["seats"] if "seats" in case else case["players"]
    rules = [r if "/" in r else f"{game.id}/{r}" for r in case.get("rules", ())]
    ruleset = registry.ruleset(game.id, rules)
    return GameDriver(game, seats, dict(case.get("options", {})), ruleset, str(case["seed"]))


def secret(facts: GameFacts, state: Any, seat: int | None) -> set[str]:
    """What ``seat`` may not know of ``state``."""
    return facts.hidden(state, seat) - facts.visible(state, seat)


def counted(game: GameDef[Any], facts: GameFacts, state: Any) -> Counter[str] | None:
    """The items of ``state`` that no move may make or lose (``facts.items``, else the
    game's ``conserved``), or None when neither counts them."""
    found = facts.items(state)
    if found is None and game.conserved is not None:
        found = Counter(game.conserved(state))
    return found


def check_conserved(d: GameDriver, facts: GameFacts) -> None:
    """Conservation: the items counted now are the table's deck (``facts.deck``), or else
    those counted after the setup; nothing to check when the game counts none."""
    found = counted(d.game, facts, d.state)
    if found is None:
        return
    deck = facts.deck(d.seats, d.options, d.rules)
    if deck is None:
        deck = counted(d.game, facts, d.start) or Counter()
    assert found == deck, f"items appeared {found - deck} or vanished {deck - found}"


def check_contract(d: GameDriver) -> None:
    """The contract with the API (``tablestate.engine.contract``), as at start-up: every
    view fits the state type and every legal move of every seat the move input."""
    contract_of(d.game).check_state(d.state, d.seats, d.rules)


def check_state(d: GameDriver, facts: GameFacts, rng: random.Random) -> dict[int | None, Any]:
    """Conservation, every view fits the state type (the contract), and every view secret:
    it names nothing its viewer may not know and stays the same, as a value of any type,
    when what the viewer may not see is moved about. The scrambled states, by viewer."""
    check_conserved(d, facts)
    contract = contract_of(d.game)
    views = {seat: d.view(seat) for seat in (None, *d.seats)}
    for seat, view in views.items():
        contract.check_view(view, seat)
    scrambled = check_view_secret(d.game, facts, d.state, d.seats, rng, views)
    for seat, view in views.items():
        leak = facts.names(view) & secret(facts, d.state, seat)
        assert not leak, f"the view of seat {seat} shows {sorted(leak)}"
        facts.check_view(d.state, seat, view)
    return scrambled


def check_events(facts: GameFacts, seats: Sequence[int], before: Any, after: Any,
                 actor: int | None, events: Sequence[Event]) -> None:  # fmt: skip
    """One commit's events (``before`` None: the setup's): private parts go to seats in
    play; no public part names what a spectator knows neither before nor after (bar the
    actor's items it showed), no private part what its seat knows neither before nor after."""
    first = before if before is not None else after
    public = secret(facts, first, None) & secret(facts, after, None)
    public -= facts.released(before, after, actor, events) if before is not None else set()
    for e in events:
        assert set(e.private) <= set(seats), f"{e.type} has a private part for no seat in play"
        leak = facts.names(e.data) & public
        assert not leak, f"{e.type} shows everyone {sorted(leak)}"
        for seat, part in e.private.items():
            leak = facts.names(part) & secret(facts, first, seat) & secret(facts, after, seat)
            leak -= facts.shown(first, after, seat, events)
            assert not leak, f"{e.type} shows seat {seat} {sorted(leak)}"


def _key(move: Move) -> str:
    return json.dumps(move, sort_keys=True)


def check_moves(d: GameDriver, probe: bool) -> None:
    """Progress: a game not over has a seat to act; exactly the seats to act have legal
    moves, none listed twice, each a value of the move input (the contract); with
    ``probe``, each is well formed and accepted."""
    acting, contract = d.to_act(), contract_of(d.game)
    assert bool(acting) == (d.result() is None), f"to act {acting} at result {d.result()}"
    for seat in d.seats:
        moves = d.legal(seat)
        contract.check_moves(moves, seat)
        assert bool(moves) == (seat in acting), f"seat {seat}: {len(moves)} legal moves"
        assert len({_key(m) for m in moves}) == len(moves), "a move is listed twice"
        for move in moves if probe else ():
            assert d.game.check_move(move) is None, move
            out = d.game.apply(d.state, seat, move, Rng(b"probe"), d.rules)
            assert isinstance(out, Outcome), f"listed move {move} refused: {out}"


def check_refusals(d: GameDriver, facts: GameFacts, seat: int) -> None:
    """A well-formed move (of ``facts.moves``) is accepted if and only if it is listed (one
    of ``free_kinds`` may be accepted unlisted); a refusal is ILLEGAL_MOVE and its reason
    names nothing the mover may not know."""
    listed, unknown = {_key(m) for m in d.legal(seat)}, secret(facts, d.state, seat)
    for move in facts.moves(d.state, seat):
        assert d.game.check_move(move) is None, move
        out, key = d.game.apply(d.state, seat, move, Rng(b"probe"), d.rules), _key(move)
        if key in listed or next(iter(move)) not in facts.free_kinds:
            assert isinstance(out, Outcome) == (key in listed), (move, out)
        if isinstance(out, Rejected):
            assert out.code == "ILLEGAL_MOVE", out
            words = {w.strip("().,;:") for w in out.reason.split()} & unknown
            leak = facts.names(sorted(words)) - facts.names(move) if words else set()
            assert not leak, f"the refusal {out.reason!r} names {sorted(leak)}"


class Chooser:
    """How a case's players pick their moves: the game's bot (at ``bot_level``, normal by
    default) for its ``bots`` (``"all"`` or seats) and ``bot_share`` of the other moves;
    else a random legal move, of a kind in ``prefer`` with that share, of no kind in
    ``avoid`` with that share, with ``by_kind`` a random kind first (so kinds of many moves
    do not crowd out the others)."""

    def __init__(self, case: Mapping[str, Any]) -> None:
        self.case, self.pick, self.bot_rng = case, random.Random(str(case["seed"])), Rng(b"bots")

    def __call__(self, game: GameDef[Any], facts: GameFacts, state: Any, seat: int,
                 moves: Sequence[Move], rules: RuleSet) -> Move:  # fmt: skip
        case, pick = self.case, self.pick
        if (
            case.get("bots") == "all"
            or seat in case.get("bots", ())
            or (pick.random() < case.get("bot_share", 0.0))
        ):
            level = str(case.get("bot_level", NORMAL)).lower()
            move = choose(game, state, seat, level, self.bot_rng, rules)
            listed = _key(move) in {_key(m) for m in moves}
            assert listed or next(iter(move)) in facts.free_kinds, f"the bot chose {move}"
            return move
        for kind, share in case.get("prefer", {}).items():
            of_kind = [m for m in moves if kind in m]
            if of_kind and pick.random() < share:
                return pick.choice(of_kind)
        for kind, share in case.get("avoid", {}).items():
            others = [m for m in moves if kind not in m]
            moves = others if others and pick.random() < share else moves
        if case.get("by_kind"):
            kind = pick.choice(sorted({next(iter(m)) for m in moves}))
            moves = [m for m in moves if kind in m]
        return pick.choice(list(moves))


def play_checked(d: GameDriver, facts: GameFacts, case: Mapping[str, Any],
                 max_moves: int = 20_000) -> list[tuple[int, Move]]:  # fmt: skip
    """Play ``d`` to its end as ``case`` says (``Chooser``; ``probe_every``: how often
    every listed move is tried, 0 never; ``refusals_every``: how often ``check_refusals``)
    with the contract, conservation, secrecy (of views and of every move's events),
    progress and the game's own invariants checked at every step. The moves made, for a
    replay."""
    choose, shuffle, every = Chooser(case), random.Random(1), case.get("probe_every", 1)
    made, contract = list[tuple[int, Move]](), contract_of(d.game)
    contract.check_events(d.events)
    check_events(facts, d.seats, None, d.state, None, d.events)
    facts.check_commit(None, d.state, d.events, d.rules)
    for step in range(max_moves):
        scrambled = check_state(d, facts, shuffle)
        d.check_roundtrip()
        check_moves(d, probe=bool(every) and step % every == 0)
        result = d.result()
        if result is not None:
            assert set(result.scores) == set(d.seats) >= set(result.winners), result
            return made
        seat = choose.pick.choice(d.to_act())
        if case.get("refusals_every") and step % case["refusals_every"] == 0:
            check_refusals(d, facts, seat)
        before = d.state
        move = choose(d.game, facts, before, seat, d.legal(seat), d.rules)
        check_events_secret(
            d.game, facts, d.seats, before, seat, move, d.rules, d.rng, shuffle, scrambled
        )
        events = d.move(seat, move)
        made.append((seat, move))
        contract.check_events(events)
        check_events(facts, d.seats, before, d.state, seat, events)
        facts.check_commit(before, d.state, events, d.rules)
    raise AssertionError(f"no end after {max_moves} moves")


BLIND_BUDGET = Budget(4)  # enough to compare a strong bot's choices, cheap enough to repeat


def check_bots_blind(
    d: GameDriver, facts: GameFacts, shuffle: random.Random, budget: Budget = BLIND_BUDGET
) -> None:
    """Information sets only: for each seat to act, the game's ``determinize`` keeps the
    seat's view and the table's items, and it and every level's choice are the same when
    what the seat may not see is moved about (the same view, the same seed)."""
    for seat in d.to_act():
        other = scramble(d.game, facts, d.state, seat, d.seats, shuffle)
        assert d.game.view(other, seat) == d.view(seat), "the scramble changed the view"
        drawn = d.game.determinize(d.state, seat, Rng(b"blind", 7))
        assert d.game.view(drawn, seat) == d.view(seat), "determinize changed the seat's view"
        items = counted(d.game, facts, drawn), counted(d.game, facts, d.state)
        assert items[0] == items[1], "determinize lost or made items"
        again = d.game.determinize(other, seat, Rng(b"blind", 7))
        assert again == drawn, "determinize depends on what the seat may not see"
        for level in LEVELS:
            mine = choose(d.game, d.state, seat, level, Rng(b"blind", 7), d.rules, budget)
            theirs = choose(d.game, other, seat, level, Rng(b"blind", 7), d.rules, budget)
            assert mine == theirs, f"the {level} bot's choice depends on what it may not see"
