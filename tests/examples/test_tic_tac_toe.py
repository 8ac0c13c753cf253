"""The tic-tac-toe example (examples/tic_tac_toe), installed with pip: its size, its rules
through the public harness, and a game played through the GraphQL API."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from support.games import registry
from support.server import Client, make_settings, serve

from tablestate import hookimpl, plugins
from tablestate.engine.bots import choose
from tablestate.store.memory import MemoryStore
from tablestate.testing import GameDriver, play_checked
from tablestate_tic_tac_toe import GAME
from tablestate_tic_tac_toe.testing import FACTS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def mark(row: int, col: int) -> dict[str, dict[str, int]]:
    return {"mark": {"row": row, "col": col}}


def test_the_game_is_at_most_40_lines_of_code():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "count_lines.py"), str(EXAMPLES / "tic_tac_toe")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert 0 < int(done.stdout) <= 40, done.stdout


def test_count_lines_leaves_out_docstrings_comments_and_tests(tmp_path: Path):
    sys.path.insert(0, str(EXAMPLES))
    try:
        from count_lines import count
    finally:
        sys.path.remove(str(EXAMPLES))
    (tmp_path / "game.py").write_text('"""Doc.\n\nMore."""\n\n# why\nX = 1\n\n\ndef f() -> int:\n'
                                      '    """Doc."""\n    return X\n')  # fmt: skip
    (tmp_path / "testing.py").write_text("A = 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_game.py").write_text("B = 2\n")
    assert count(tmp_path) == 3


def test_the_harness_plays_it_with_every_invariant_checked():
    for seed in range(6):
        d = GameDriver(GAME, [1, 3], seed=str(seed))
        play_checked(d, FACTS, {"seed": seed, "refusals_every": 1})
        assert d.result() is not None


def test_three_in_a_row_wins_and_a_full_board_draws():
    d = GameDriver(GAME, 2, seed="x")
    for seat, move in [(0, mark(0, 0)), (1, mark(1, 0)), (0, mark(1, 1)), (1, mark(2, 0))]:
        d.move(seat, move)
    assert d.view(None)["board"] == [["X", "", ""], ["O", "X", ""], ["O", "", ""]]
    d.move(0, mark(2, 2))
    assert d.result().winners == (0,) and d.result().scores == {0: 1, 1: 0}
    assert d.to_act() == () and d.legal(1) == []
    d = GameDriver(GAME, 2, seed="y")
    for i, (r, c) in enumerate([(0, 0), (0, 1), (0, 2), (1, 1), (1, 0), (1, 2), (2, 1), (2, 0), (2, 2)]):  # fmt: skip
        assert d.result() is None
        d.move(i % 2, mark(r, c))
    assert d.result().winners == () and d.result().scores == {0: 0, 1: 0}


def test_a_taken_cell_is_illegal_and_a_cell_off_the_board_malformed():
    d = GameDriver(GAME, 2, seed="x")
    d.move(0, mark(1, 1))
    refused = d.try_move(1, mark(1, 1))
    assert refused.code == "ILLEGAL_MOVE"
    assert GAME.check_move(mark(3, 0)) == "mark.row must be one of 0, 1, 2"
    assert GAME.check_move({"mark": {"row": 0}}) == "mark.col is missing"


def test_the_normal_bot_takes_a_win_and_every_level_plays_legally():
    d = GameDriver(GAME, 2, seed="x")
    for seat, move in [(0, mark(0, 0)), (1, mark(1, 0)), (0, mark(0, 1)), (1, mark(1, 1))]:
        d.move(seat, move)
    rng = d.rng
    assert choose(GAME, d.state, 0, "normal", rng, d.rules) == mark(0, 2)
    for level in ("easy", "strong"):
        assert choose(GAME, d.state, 0, level, rng, d.rules) in d.legal(0)


# Through the API.

CREATE = """mutation { createTable(gameId: "tic-tac-toe", seats: 2) {
  hostToken table { id } } }"""
JOIN = """mutation($t: ID!, $n: String!) { joinTable(tableId: $t, name: $n) {
  seat playerToken } }"""
START = "mutation($t: ID!) { startGame(tableId: $t) { status } }"
MOVE = """mutation($t: ID!, $m: MoveInput!) { makeMove(tableId: $t, move: $m) {
  table { status result { winners scores } } events { type seat data } } }"""
TABLE = """query($t: ID!) { table(id: $t) { status legalMoves
  state { toAct ... on TicTacToeState { board seats } } } }"""
_OF = "kind name ofType { " * 5 + "kind name" + " }" * 5
TYPE = (
    "query($n: String!) { __type(name: $n) { name interfaces { name } "
    "fields { name description type { " + _OF + " } } } }"
)


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with serve(make_settings(), registry(), MemoryStore()) as c:
        yield c


def _type_name(t: dict) -> str:
    if t["kind"] == "NON_NULL":
        return _type_name(t["ofType"]) + "!"
    if t["kind"] == "LIST":
        return "[" + _type_name(t["ofType"]) + "]"
    return str(t["name"])


async def test_the_schema_has_its_state_type(client: Client):
    found = (await client.q(TYPE, n="TicTacToeState"))["__type"]
    assert found["interfaces"] == [{"name": "GameState"}]
    fields = {f["name"]: (_type_name(f["type"]), f["description"]) for f in found["fields"]}
    assert fields["board"] == (
        "[[String!]!]!",
        'Three rows of three cells, each "X", "O" or "" (empty).',
    )
    assert fields["seats"] == ("[Int!]!", "The seats of X and O.")
    assert {"id", "gameId", "toAct"} <= set(fields)
    got = await client.q('{ __type(name: "TicTacToeMarkInput") { inputFields { name } } }')
    assert [f["name"] for f in got["__type"]["inputFields"]] == ["row", "col"]


async def test_a_game_through_the_api(client: Client):
    made = (await client.q(CREATE))["createTable"]
    table, host = made["table"]["id"], made["hostToken"]
    tokens = {}
    for name in ("Ada", "Bob"):
        joined = (await client.q(JOIN, t=table, n=name))["joinTable"]
        tokens[joined["seat"]] = joined["playerToken"]
    await client.q(START, host, t=table)
    seen = (await client.q(TABLE, tokens[0], t=table))["table"]
    assert seen["state"] == {"toAct": [0], "board": [["", "", ""]] * 3, "seats": [0, 1]}
    assert len(seen["legalMoves"]) == 9 and {"ticTacToe": mark(1, 1)} in seen["legalMoves"]

    def move(row: int, col: int) -> dict:
        return {"ticTacToe": mark(row, col)}

    assert await client.code(MOVE, tokens[0], t=table, m=move(3, 1)) == "BAD_INPUT"
    assert (
        await client.code(MOVE, tokens[0], t=table, m={"ticTacToe": {"mark": {"row": 0}}})
        == "BAD_INPUT"
    )
    done = (await client.q(MOVE, tokens[0], t=table, m=move(1, 1)))["makeMove"]
    assert done["events"] == [{"type": "move.made", "seat": 0, "data": {"move": mark(1, 1)}}]
    assert await client.code(MOVE, tokens[1], t=table, m=move(1, 1)) == "ILLEGAL_MOVE"
    assert await client.code(MOVE, tokens[0], t=table, m=move(0, 0)) == "NOT_YOUR_TURN"
    for seat, (r, c) in [(1, (0, 0)), (0, (0, 1)), (1, (2, 2)), (0, (2, 1))]:
        done = (await client.q(MOVE, tokens[seat], t=table, m=move(r, c)))["makeMove"]
    assert done["table"] == {"status": "FINISHED", "result": {"winners": [0], "scores": [1, 0]}}
    assert [e["type"] for e in done["events"]] == ["move.made", "game.finished"]
    seen = (await client.q(TABLE, t=table))["table"]
    assert seen["state"]["board"] == [["O", "X", ""], ["", "X", ""], ["", "X", "O"]]


async def test_its_normal_bot_searches_off_the_event_loop():
    """The normal level of a game without a bot of its own is a search (``bots.search``):
    it thinks in the bot pool, as a strong bot does, not on the event loop."""
    threads: set[str] = set()

    def watched(state, seat, move, rng, rules):
        threads.add(threading.current_thread().name)
        return GAME.apply(state, seat, move, rng, rules)

    class Plugin:
        @hookimpl
        def tablestate_games(self) -> list:
            return [replace(GAME, apply=watched)]

    reg = plugins.load(use_entry_points=False, objects=[("watched", Plugin())])
    async with serve(make_settings(), reg, MemoryStore()) as c:
        made = (await c.q(CREATE))["createTable"]
        table, host = made["table"]["id"], made["hostToken"]
        token = (await c.q(JOIN, t=table, n="Ada"))["joinTable"]["playerToken"]
        await c.q("mutation($t: ID!) { addBot(tableId: $t) { id } }", host, t=table)
        await c.q(START, host, t=table)
        await c.q(MOVE, token, t=table, m={"ticTacToe": mark(1, 1)})
        for _ in range(500):
            if (await c.q(TABLE, t=table))["table"]["state"]["toAct"] == [0]:
                break
            await asyncio.sleep(0.01)
    assert any(name.startswith("bot") for name in threads), threads


def test_it_uses_no_chance():
    assert GAME.uses_chance is False  # the page shows no "Fair shuffle" part for it
