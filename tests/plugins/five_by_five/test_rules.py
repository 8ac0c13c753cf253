"""The objectives of Five by Five on hand-made boards (DECISIONS.md 3.2), table-driven."""

from __future__ import annotations

import pytest

from tablestate_five_by_five.rules import (
    DEFAULT_POINTS,
    DIAGONALS,
    LINES,
    OBJECTIVE_BY_ID,
    REGULAR_IDS,
    SPECIAL_IDS,
    adjacent,
    objective_satisfied,
    parse_die,
    satisfied_objectives,
)

from .helpers import board, line

EMPTY = ". . . . ."


def vals(values: str, colors: str = "RYBGR") -> str:
    """A row of dice from values ('.' empty), colours cycling over ``colors``."""
    out = []
    for i, v in enumerate(values.split()):
        out.append("." if v == "." else f"{colors[i % len(colors)]}{v}")
    return " ".join(out)


def middle(die: str) -> tuple[tuple[str | None, ...], ...]:
    return board(f"{EMPTY} / {EMPTY} / . . {die} . . / {EMPTY} / {EMPTY}")


def block(a: str, b: str, c: str, d: str) -> tuple[tuple[str | None, ...], ...]:
    return board(f". . . . . / . {a} {b} . . / . {c} {d} . . / {EMPTY} / {EMPTY}")


def corners(a: str, b: str, c: str, d: str) -> tuple[tuple[str | None, ...], ...]:
    return board(f"{a} . . . {b} / {EMPTY} / {EMPTY} / {EMPTY} / {c} . . . {d}")


def column(values: str) -> tuple[tuple[str | None, ...], ...]:
    cells = vals(values).split()
    return board(" / ".join(f". . . {c} ." for c in cells))


THREE_EACH = "R1 Y1 B1 G2 R2 / Y2 B3 G3 R3 Y4 / B4 G4 R5 Y5 B5 / G6 R6 Y6 . . / . . . . ."
FIVE_EACH = "R1 R2 R3 R4 R5 / Y1 Y2 Y3 Y4 Y5 / B1 B2 B3 B4 B5 / G1 G2 G3 G4 G5 / . . . . ."
FOUR_EACH = "R1 R2 R3 R4 . / Y1 Y2 Y3 Y4 . / B1 B2 B3 B4 . / G1 G2 G3 G4 . / . . . . ."
SEVEN = "R3 . Y3 . B3 / . G3 . R3 . / Y3 . B3 . . / . . . . . / . . . . ."
SIX = "R3 . Y3 . B3 / . G3 . R3 . / Y3 . . . . / . . . . . / . . . . ."
DIAGONAL = "R1 . . . . / . Y3 . . . / . . B5 . . / . . . G2 . / . . . . R4"

CASES = [
    # Odd / six in the middle, each colour
    pytest.param("odd-middle-red", middle("R3"), True, id="odd-middle-red-3"),
    pytest.param("odd-middle-red", middle("R1"), True, id="odd-middle-red-1"),
    pytest.param("odd-middle-red", middle("R4"), False, id="odd-middle-red-even"),
    pytest.param("odd-middle-red", middle("Y3"), False, id="odd-middle-red-wrong-colour"),
    pytest.param("odd-middle-yellow", middle("Y5"), True, id="odd-middle-yellow"),
    pytest.param("odd-middle-yellow", middle("Y6"), False, id="odd-middle-yellow-6"),
    pytest.param("odd-middle-blue", middle("B1"), True, id="odd-middle-blue"),
    pytest.param("odd-middle-blue", middle("G1"), False, id="odd-middle-blue-wrong-colour"),
    pytest.param("odd-middle-green", middle("G3"), True, id="odd-middle-green"),
    pytest.param("odd-middle-green", board(" / ".join([EMPTY] * 5)), False, id="odd-middle-empty"),
    pytest.param("six-middle-red", middle("R6"), True, id="six-middle-red"),
    pytest.param("six-middle-red", middle("R5"), False, id="six-middle-red-5"),
    pytest.param("six-middle-yellow", middle("Y6"), True, id="six-middle-yellow"),
    pytest.param("six-middle-yellow", middle("Y3"), False, id="six-middle-yellow-3"),
    pytest.param("six-middle-blue", middle("B6"), True, id="six-middle-blue"),
    pytest.param("six-middle-blue", middle("R6"), False, id="six-middle-blue-wrong-colour"),
    pytest.param("six-middle-green", middle("G6"), True, id="six-middle-green"),
    pytest.param("six-middle-green", middle("B6"), False, id="six-middle-green-wrong-colour"),
    # 2x2 blocks
    pytest.param("square-distinct-numbers", block("R1", "R2", "R3", "R4"), True, id="sq-numbers"),
    pytest.param(
        "square-distinct-numbers", block("R1", "Y2", "B3", "G1"), False, id="sq-numbers-repeat"
    ),
    pytest.param(
        "square-distinct-numbers", block("R1", "R2", "R3", "."), False, id="sq-numbers-gap"
    ),
    pytest.param("square-distinct-colors", block("R1", "Y1", "B1", "G1"), True, id="sq-colors"),
    pytest.param(
        "square-distinct-colors", block("R1", "Y1", "B1", "R2"), False, id="sq-colors-repeat"
    ),
    pytest.param("square-same-color", block("G1", "G2", "G3", "G6"), True, id="sq-same-color"),
    pytest.param(
        "square-same-color", block("G1", "G2", "G3", "Y6"), False, id="sq-same-color-miss"
    ),
    pytest.param("square-same-number", block("R4", "Y4", "B4", "G4"), True, id="sq-same-number"),
    pytest.param(
        "square-same-number", block("R4", "Y4", "B4", "G3"), False, id="sq-same-number-miss"
    ),
    pytest.param(
        "square-same-number", block("R4", "Y4", "B4", "."), False, id="sq-same-number-gap"
    ),
    # Three touching
    pytest.param("three-touching-same-number", line(vals(". 5 5 5 .")), True, id="three-in-a-row"),
    pytest.param("three-touching-same-number", column("2 2 2 . ."), True, id="three-in-a-column"),
    pytest.param(
        "three-touching-same-number", block("R5", "Y5", "B5", "."), True, id="three-elbow"
    ),
    pytest.param(
        "three-touching-same-number", block("R5", ".", "B5", "G5"), True, id="three-elbow-2"
    ),
    pytest.param("three-touching-same-number", line(vals("5 5 . 5 .")), False, id="three-split"),
    pytest.param(
        "three-touching-same-number",
        board("R5 . . . . / . Y5 . . . / . . B5 . . / . . . . . / . . . . ."),
        False,
        id="three-diagonal",
    ),
    pytest.param("three-touching-same-number", block("R5", "Y5", "B4", "."), False, id="three-two"),
    # Corners
    pytest.param(
        "corners-distinct-numbers", corners("R1", "R2", "R3", "R4"), True, id="corners-numbers"
    ),
    pytest.param(
        "corners-distinct-numbers",
        corners("R1", "R2", "R3", "Y1"),
        False,
        id="corners-numbers-repeat",
    ),
    pytest.param(
        "corners-distinct-numbers", corners("R1", "R2", "R3", "."), False, id="corners-numbers-gap"
    ),
    pytest.param(
        "corners-distinct-colors", corners("R1", "Y1", "B1", "G1"), True, id="corners-colors"
    ),
    pytest.param(
        "corners-distinct-colors",
        corners("R1", "Y1", "B1", "R1"),
        False,
        id="corners-colors-repeat",
    ),
    # Small straight (the seed's worked examples first)
    pytest.param(
        "small-straight-line", line(vals("1 3 6 2 4")), False, id="seed-1-3-6-2-4-not-small"
    ),
    pytest.param("small-straight-line", line(vals("1 3 2 4 6")), True, id="seed-1-3-2-4-6-small"),
    pytest.param("small-straight-line", line(vals("1 3 5 2 4")), True, id="1-3-5-2-4-small-too"),
    pytest.param("small-straight-line", line(vals("6 5 3 4 .")), True, id="small-3456-gap-after"),
    pytest.param("small-straight-line", line(vals(". 2 5 3 4")), True, id="small-2345-gap-before"),
    pytest.param("small-straight-line", column("4 1 3 2 ."), True, id="small-in-a-column"),
    pytest.param("small-straight-line", line(vals("1 2 3 . 4")), False, id="small-broken-by-gap"),
    pytest.param("small-straight-line", line(vals("1 2 3 3 4")), False, id="small-with-a-double"),
    pytest.param("small-straight-line", line(vals("1 2 3 5 6")), False, id="small-none"),
    # Full-line sums
    pytest.param("line-sum-11-15", line(vals("1 2 3 4 1")), True, id="sum-11"),
    pytest.param("line-sum-11-15", line(vals("3 3 3 3 3")), True, id="sum-15"),
    pytest.param("line-sum-11-15", line(vals("3 3 3 3 4")), False, id="sum-16"),
    pytest.param("line-sum-11-15", line(vals("2 2 2 2 2")), False, id="sum-10-not-11-15"),
    pytest.param("line-sum-11-15", line(vals("3 3 3 3 .")), False, id="sum-not-full"),
    pytest.param("line-sum-11-15", column("1 2 3 4 1"), True, id="sum-11-column"),
    pytest.param("line-sum-20-24", line(vals("4 4 4 4 4")), True, id="sum-20"),
    pytest.param("line-sum-20-24", line(vals("6 6 6 5 1")), True, id="sum-24"),
    pytest.param("line-sum-20-24", line(vals("5 5 5 5 5")), False, id="sum-25-not-20-24"),
    pytest.param("line-sum-20-24", line(vals("4 4 4 4 3")), False, id="sum-19"),
    pytest.param("line-sum-10-or-less", line(vals("2 2 2 2 2")), True, id="sum-10"),
    pytest.param("line-sum-10-or-less", line(vals("1 1 1 1 1")), True, id="sum-5"),
    pytest.param("line-sum-10-or-less", line(vals("2 2 2 2 3")), False, id="sum-11-not-low"),
    pytest.param("line-sum-10-or-less", line(vals("1 1 1 1 .")), False, id="sum-low-not-full"),
    pytest.param("line-sum-25-or-more", line(vals("5 5 5 5 5")), True, id="sum-25"),
    pytest.param("line-sum-25-or-more", line(vals("6 6 6 6 6")), True, id="sum-30"),
    pytest.param("line-sum-25-or-more", line(vals("5 5 5 5 4")), False, id="sum-24-not-high"),
    # Even, odd, full house
    pytest.param("line-all-even", line(vals("2 4 6 2 4")), True, id="all-even"),
    pytest.param("line-all-even", line(vals("2 4 6 2 1")), False, id="all-even-miss"),
    pytest.param("line-all-even", line(vals("2 4 6 2 .")), False, id="all-even-not-full"),
    pytest.param("line-all-odd", line(vals("1 3 5 1 3")), True, id="all-odd"),
    pytest.param("line-all-odd", line(vals("1 3 5 1 2")), False, id="all-odd-miss"),
    pytest.param("line-full-house", line(vals("2 3 2 3 2")), True, id="full-house"),
    pytest.param("line-full-house", line(vals("4 4 4 4 4")), True, id="full-house-five-of-a-kind"),
    pytest.param("line-full-house", line(vals("2 2 3 3 4")), False, id="two-pairs"),
    pytest.param("line-full-house", line(vals("2 2 2 2 3")), False, id="four-of-a-kind"),
    pytest.param("line-full-house", line(vals("2 2 2 3 .")), False, id="full-house-not-full"),
    # Counts over the board
    pytest.param("three-of-each-number", board(THREE_EACH), True, id="three-of-each"),
    pytest.param(
        "three-of-each-number", board(THREE_EACH.replace("Y6", ".")), False, id="three-of-each-miss"
    ),
    pytest.param("five-of-each-color", board(FIVE_EACH), True, id="five-of-each"),
    pytest.param("five-of-each-color", board(FOUR_EACH), False, id="four-of-each-not-five"),
    pytest.param("seven-of-a-number", board(SEVEN), True, id="seven-threes"),
    pytest.param("seven-of-a-number", board(SIX), False, id="six-threes"),
    # Specials (the seed's large straight example first)
    pytest.param(
        "special-large-straight", line(vals("1 3 5 2 4")), True, id="seed-1-3-5-2-4-large"
    ),
    pytest.param("special-large-straight", line(vals("6 2 4 3 5")), True, id="large-2-6"),
    pytest.param(
        "special-large-straight", line(vals("1 3 6 2 4")), False, id="seed-1-3-6-2-4-not-large"
    ),
    pytest.param(
        "special-large-straight", line(vals("1 3 2 4 6")), False, id="seed-1-3-2-4-6-not-large"
    ),
    pytest.param("special-large-straight", column("5 4 3 2 1"), True, id="large-column"),
    pytest.param("special-large-straight", line(vals("1 3 5 2 .")), False, id="large-not-full"),
    pytest.param("special-line-same-color", line("B1 B2 B3 B4 B6"), True, id="line-one-colour"),
    pytest.param("special-line-same-color", line("B1 B2 B3 B4 G6"), False, id="line-two-colours"),
    pytest.param(
        "special-line-same-color", line("B1 B2 B3 B4 ."), False, id="line-colour-not-full"
    ),
    pytest.param("special-line-same-number", line(vals("3 3 3 3 3")), True, id="line-one-number"),
    pytest.param("special-line-same-number", line(vals("3 3 3 3 2")), False, id="line-two-numbers"),
    pytest.param("special-line-same-number", column("6 6 6 6 6"), True, id="column-one-number"),
    # Diagonals never count by default
    pytest.param("special-large-straight", board(DIAGONAL), False, id="diagonal-large-not-a-line"),
    pytest.param("line-sum-11-15", board(DIAGONAL), False, id="diagonal-sum-not-a-line"),
]


@pytest.mark.parametrize("objective, grid, expected", CASES)
def test_objective(objective: str, grid, expected: bool) -> None:
    assert objective_satisfied(grid, objective) is expected
    assert (objective in satisfied_objectives(grid)) is expected


def test_every_objective_has_a_case_both_ways() -> None:
    seen = {(c.values[0], c.values[2]) for c in CASES}
    for oid in OBJECTIVE_BY_ID:
        assert (oid, True) in seen, oid
        assert (oid, False) in seen, oid


@pytest.mark.parametrize(
    "each_color_min, grid, expected",
    [
        pytest.param(5, FIVE_EACH, True, id="five-needs-five"),
        pytest.param(5, FOUR_EACH, False, id="five-refuses-four"),
        pytest.param(4, FOUR_EACH, True, id="card-text-four"),
        pytest.param(4, FOUR_EACH.replace("G4", "."), False, id="card-text-three"),
    ],
)
def test_each_color_min(each_color_min: int, grid: str, expected: bool) -> None:
    found = satisfied_objectives(board(grid), each_color_min=each_color_min)
    assert ("five-of-each-color" in found) is expected


@pytest.mark.parametrize(
    "objective, grid",
    [
        pytest.param("special-large-straight", DIAGONAL, id="large-straight"),
        pytest.param("line-sum-11-15", DIAGONAL, id="sum-15"),
        pytest.param("small-straight-line", DIAGONAL, id="small-straight"),
        pytest.param(
            "special-line-same-number",
            "R6 . . . Y6 / . B6 . G6 . / . . R6 . . / . G6 . B6 . / Y6 . . . R6",
            id="anti-diagonal-one-number",
        ),
    ],
)
def test_diagonal_lines(objective: str, grid: str) -> None:
    assert not objective_satisfied(board(grid), objective)
    assert objective_satisfied(board(grid), objective, lines=LINES + DIAGONALS)


def test_empty_board_satisfies_nothing() -> None:
    assert satisfied_objectives(board(" / ".join([EMPTY] * 5))) == set()


def test_full_board_agrees_with_one_by_one() -> None:
    grid = board(
        "R1 Y3 B5 G2 R4 / Y6 B6 G6 R6 Y1 / B2 G2 R3 Y4 B5 / G1 R1 Y1 B1 G1 / R2 Y2 B2 G2 R2"
    )
    found = satisfied_objectives(grid)
    assert found == {oid for oid in OBJECTIVE_BY_ID if objective_satisfied(grid, oid)}
    assert {"special-large-straight", "special-line-same-number", "small-straight-line"} <= found


def test_objective_table() -> None:
    assert len(REGULAR_IDS) == 26
    assert SPECIAL_IDS == (
        "special-large-straight",
        "special-line-same-color",
        "special-line-same-number",
    )
    assert sum(DEFAULT_POINTS[oid] for oid in REGULAR_IDS) == 67
    assert [DEFAULT_POINTS[s] for s in SPECIAL_IDS] == [5, 5, 6]


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("R3", ("R", 3), id="red-three"),
        pytest.param("G6", ("G", 6), id="green-six"),
    ],
)
def test_parse_die(text: str, expected: tuple[str, int]) -> None:
    assert parse_die(text) == expected


@pytest.mark.parametrize("text", ["X3", "R7", "R0", "R", "R33", ""])
def test_parse_die_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="not a die"):
        parse_die(text)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        pytest.param((0, 0), (0, 1), True, id="right"),
        pytest.param((2, 2), (1, 2), True, id="up"),
        pytest.param((0, 0), (1, 1), False, id="diagonal"),
        pytest.param((0, 0), (0, 2), False, id="two-apart"),
        pytest.param((0, 0), (0, 0), False, id="same"),
    ],
)
def test_adjacent(a, b, expected: bool) -> None:
    assert adjacent(a, b) is expected


def test_bad_board_shape() -> None:
    with pytest.raises(ValueError, match="5 rows of 5"):
        satisfied_objectives([[None] * 5] * 4)
