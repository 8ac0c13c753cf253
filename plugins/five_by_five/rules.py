"""Five by Five's board and objectives as pure functions (DECISIONS.md section 3).

A board is 5 rows of 5 entries, each ``None`` (an empty square) or a die string, colour
then value: ``"R3"`` is a red three. Squares are ``(row, col)`` from 0. A *line* is a whole
row or column (the house rule ``five-by-five/diagonal-lines`` adds the two main diagonals);
a line is *full* when all five of its squares hold dice. Every objective of the source text
has the id of DECISIONS.md 3.2 and the default points of 3.5.

Nothing here knows about turns, hands or players; ``game.py`` builds on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, TypeAlias

Square: TypeAlias = tuple[int, int]
Line: TypeAlias = tuple[Square, ...]
Board: TypeAlias = Sequence[Sequence[str | None]]

SIZE: Final = 5
COLORS: Final = ("R", "Y", "B", "G")
COLOR_NAMES: Final = {"R": "red", "Y": "yellow", "B": "blue", "G": "green"}
VALUES: Final = (1, 2, 3, 4, 5, 6)
DICE_PER_COLOR: Final = 10

MIDDLE: Final[Square] = (2, 2)
CORNERS: Final[tuple[Square, ...]] = ((0, 0), (0, 4), (4, 0), (4, 4))
SQUARES: Final[tuple[Square, ...]] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
ROWS: Final[tuple[Line, ...]] = tuple(tuple((r, c) for c in range(SIZE)) for r in range(SIZE))
COLUMNS: Final[tuple[Line, ...]] = tuple(tuple((r, c) for r in range(SIZE)) for c in range(SIZE))
LINES: Final[tuple[Line, ...]] = ROWS + COLUMNS
DIAGONALS: Final[tuple[Line, ...]] = (
    tuple((i, i) for i in range(SIZE)),
    tuple((i, SIZE - 1 - i) for i in range(SIZE)),
)
BLOCKS: Final[tuple[Line, ...]] = tuple(
    ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))
    for r in range(SIZE - 1)
    for c in range(SIZE - 1)
)

# Action cards: one per colour (wild once that colour's supply is empty) and five specials.
REROLL: Final = "REROLL"
REMOVE: Final = "REMOVE"
SWAP: Final = "SWAP"
PLUS_MINUS: Final = "PLUS_MINUS"
PAINT: Final = "PAINT"
SPECIAL_ACTIONS: Final = (REROLL, REMOVE, SWAP, PLUS_MINUS, PAINT)
ACTION_CARDS: Final = (*COLORS, *SPECIAL_ACTIONS)
ACTION_COUNTS: Final[Mapping[str, int]] = {
    **{c: 10 for c in COLORS},
    **{a: 4 for a in SPECIAL_ACTIONS},
}


def parse_die(die: str) -> tuple[str, int]:
    """``"R3"`` -> ``("R", 3)``.

    Raises:
        ValueError: not a die of a known colour and a value 1-6.
    """
    if len(die) != 2 or die[0] not in COLORS or die[1] not in "123456":
        raise ValueError(f"not a die: {die!r}")
    return die[0], int(die[1])


def die(color: str, value: int) -> str:
    """``("R", 3)`` -> ``"R3"``."""
    return f"{color}{value}"


def adjacent(a: Square, b: Square) -> bool:
    """Whether two squares share an edge (diagonal neighbours do not)."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def neighbours(square: Square) -> Iterator[Square]:
    """The orthogonal neighbours of a square on the board."""
    r, c = square
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            yield (r + dr, c + dc)


def empty_squares(board: Board) -> list[Square]:
    """The empty squares, in reading order."""
    return [(r, c) for r, c in SQUARES if board[r][c] is None]


def occupied_squares(board: Board) -> list[Square]:
    """The squares holding a die, in reading order."""
    return [(r, c) for r, c in SQUARES if board[r][c] is not None]


def is_full(board: Board) -> bool:
    """Whether every square holds a die."""
    return all(board[r][c] is not None for r, c in SQUARES)


# --- objectives ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Objective:
    """One objective card: its id, its printed name, default points and whether it is one
    of the three public special objectives."""

    id: str
    name: str
    points: int
    special: bool = False


class _Grid:
    """A board parsed once: colour and value per square (None when empty)."""

    __slots__ = ("colors", "each_color_min", "lines", "values")

    def __init__(self, board: Board, each_color_min: int, lines: Sequence[Line]) -> None:
        if len(board) != SIZE or any(len(row) != SIZE for row in board):
            raise ValueError("a board is 5 rows of 5 squares")
        self.colors: dict[Square, str] = {}
        self.values: dict[Square, int] = {}
        for r, c in SQUARES:
            cell = board[r][c]
            if cell is not None:
                self.colors[(r, c)], self.values[(r, c)] = parse_die(cell)
        self.each_color_min = each_color_min
        self.lines = lines

    def full(self, squares: Iterable[Square]) -> list[int] | None:
        """The values of these squares, or None when one is empty."""
        out = []
        for sq in squares:
            v = self.values.get(sq)
            if v is None:
                return None
            out.append(v)
        return out

    def full_lines(self) -> Iterator[list[int]]:
        for line in self.lines:
            values = self.full(line)
            if values is not None:
                yield values

    def full_blocks(self) -> Iterator[tuple[list[int], list[str]]]:
        for block in BLOCKS:
            values = self.full(block)
            if values is not None:
                yield values, [self.colors[sq] for sq in block]


_SMALL_STRAIGHTS: Final = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
_LARGE_STRAIGHTS: Final = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})


def _middle(color: str, values: frozenset[int]) -> Callable[[_Grid], bool]:
    def test(g: _Grid) -> bool:
        return g.colors.get(MIDDLE) == color and g.values.get(MIDDLE) in values

    return test


def _three_touching(g: _Grid) -> bool:
    shapes: list[Line] = []
    for line in LINES:  # I-trominoes: three in a row or column
        shapes.extend(line[i : i + 3] for i in range(SIZE - 2))
    for block in BLOCKS:  # L-trominoes: three squares of a 2x2 block
        shapes.extend(tuple(sq for sq in block if sq != skip) for skip in block)
    for shape in shapes:
        values = g.full(shape)
        if values is not None and len(set(values)) == 1:
            return True
    return False


def _corners(of: Mapping[Square, object]) -> bool:
    if any(sq not in of for sq in CORNERS):
        return False
    return len({of[sq] for sq in CORNERS}) == 4


def _small_straight(g: _Grid) -> bool:
    for line in g.lines:
        for i in range(len(line) - 3):
            values = g.full(line[i : i + 4])
            if values is not None and len(set(values)) == 4 and set(values) in _SMALL_STRAIGHTS:
                return True
    return False


def _any_line(g: _Grid, test: Callable[[list[int]], bool]) -> bool:
    return any(test(values) for values in g.full_lines())


def _any_block(g: _Grid, test: Callable[[list[int], list[str]], bool]) -> bool:
    return any(test(values, colors) for values, colors in g.full_blocks())


def _full_house(values: list[int]) -> bool:
    return sorted(Counter(values).values()) in ([2, 3], [5])


def _line_one_color(g: _Grid) -> bool:
    for line in g.lines:
        if all(sq in g.colors for sq in line) and len({g.colors[sq] for sq in line}) == 1:
            return True
    return False


def _counts_at_least(counts: Counter[object], keys: Iterable[object], n: int) -> bool:
    return all(counts[k] >= n for k in keys)


_Test: TypeAlias = Callable[[_Grid], bool]

_TESTS: Final[dict[str, _Test]] = {
    **{f"odd-middle-{COLOR_NAMES[c]}": _middle(c, frozenset({1, 3, 5})) for c in COLORS},
    "square-distinct-numbers": lambda g: _any_block(g, lambda v, _: len(set(v)) == 4),
    "square-distinct-colors": lambda g: _any_block(g, lambda _, c: len(set(c)) == 4),
    "three-touching-same-number": _three_touching,
    "corners-distinct-numbers": lambda g: _corners(g.values),
    "corners-distinct-colors": lambda g: _corners(g.colors),
    "small-straight-line": _small_straight,
    "line-sum-11-15": lambda g: _any_line(g, lambda v: 11 <= sum(v) <= 15),
    "line-sum-20-24": lambda g: _any_line(g, lambda v: 20 <= sum(v) <= 24),
    "square-same-color": lambda g: _any_block(g, lambda _, c: len(set(c)) == 1),
    "line-all-even": lambda g: _any_line(g, lambda v: all(x % 2 == 0 for x in v)),
    "line-all-odd": lambda g: _any_line(g, lambda v: all(x % 2 == 1 for x in v)),
    "three-of-each-number": lambda g: _counts_at_least(Counter(g.values.values()), VALUES, 3),
    "square-same-number": lambda g: _any_block(g, lambda v, _: len(set(v)) == 1),
    "five-of-each-color": lambda g: _counts_at_least(
        Counter(g.colors.values()), COLORS, g.each_color_min
    ),
    "seven-of-a-number": lambda g: max(Counter(g.values.values()).values(), default=0) >= 7,
    "line-full-house": lambda g: _any_line(g, _full_house),
    "line-sum-10-or-less": lambda g: _any_line(g, lambda v: sum(v) <= 10),
    "line-sum-25-or-more": lambda g: _any_line(g, lambda v: sum(v) >= 25),
    **{f"six-middle-{COLOR_NAMES[c]}": _middle(c, frozenset({6})) for c in COLORS},
    "special-large-straight": lambda g: _any_line(
        g, lambda v: len(set(v)) == 5 and set(v) in _LARGE_STRAIGHTS
    ),
    "special-line-same-color": _line_one_color,
    "special-line-same-number": lambda g: _any_line(g, lambda v: len(set(v)) == 1),
}

OBJECTIVES: Final[tuple[Objective, ...]] = (
    *(
        Objective(
            f"odd-middle-{COLOR_NAMES[c]}", f"Odd in the Middle ({COLOR_NAMES[c].title()})", 2
        )
        for c in COLORS
    ),
    Objective("square-distinct-numbers", "2x2 of Different Numbers", 1),
    Objective("square-distinct-colors", "2x2 of Different Colors", 2),
    Objective("three-touching-same-number", "Three Touching with the Same Number", 2),
    Objective("corners-distinct-numbers", "Four Corners of Different Numbers", 3),
    Objective("corners-distinct-colors", "Four Corners of Different Colors", 2),
    Objective("small-straight-line", "Small Straight Connected in a Line", 2),
    Objective("line-sum-11-15", "Sum of Full Line Totals 11-15", 2),
    Objective("line-sum-20-24", "Sum of Full Line Totals 20-24", 2),
    Objective("square-same-color", "2x2 of the Same Color", 2),
    Objective("line-all-even", "All Even in a Full Line", 3),
    Objective("line-all-odd", "All Odd in a Full Line", 3),
    Objective("three-of-each-number", "At Least 3 of Each Number", 4),
    Objective("square-same-number", "2x2 of the Same Number", 4),
    Objective("five-of-each-color", "At Least 5 of Each Color", 3),
    Objective("seven-of-a-number", "At Least 7 of the Same Number", 3),
    Objective("line-full-house", "Full House in a Line", 3),
    Objective("line-sum-10-or-less", "Sum of Full Line Totals 10 or Fewer", 3),
    Objective("line-sum-25-or-more", "Sum of Full Line Totals 25 or Greater", 3),
    *(
        Objective(f"six-middle-{COLOR_NAMES[c]}", f"6 in the Middle ({COLOR_NAMES[c].title()})", 3)
        for c in COLORS
    ),
    Objective("special-large-straight", "Large Straight in a Line", 5, special=True),
    Objective("special-line-same-color", "Full Line of the Same Color", 5, special=True),
    Objective("special-line-same-number", "Full Line of the Same Number", 6, special=True),
)
OBJECTIVE_BY_ID: Final[Mapping[str, Objective]] = {o.id: o for o in OBJECTIVES}
REGULAR_IDS: Final[tuple[str, ...]] = tuple(o.id for o in OBJECTIVES if not o.special)
SPECIAL_IDS: Final[tuple[str, ...]] = tuple(o.id for o in OBJECTIVES if o.special)
DEFAULT_POINTS: Final[Mapping[str, int]] = {o.id: o.points for o in OBJECTIVES}

assert set(_TESTS) == set(OBJECTIVE_BY_ID), "every objective needs its test"


def objective_satisfied(
    board: Board,
    objective: str,
    *,
    each_color_min: int = 5,
    lines: Sequence[Line] = LINES,
) -> bool:
    """Whether the board satisfies one objective now.

    Args:
        board: 5 rows of 5 entries, each None or a die string.
        objective: an objective id (``OBJECTIVE_BY_ID``), specials included.
        each_color_min: the threshold of ``five-of-each-color`` (table option, 4 or 5).
        lines: the lines that count for line objectives (rows and columns by default).

    Raises:
        KeyError: an unknown objective id.
    """
    return _TESTS[objective](_Grid(board, each_color_min, lines))


def satisfied_objectives(
    board: Board,
    *,
    each_color_min: int = 5,
    lines: Sequence[Line] = LINES,
) -> set[str]:
    """The ids of every objective the board satisfies now, specials included.

    Args:
        board: 5 rows of 5 entries, each None or a die string such as ``"R3"``.
        each_color_min: the threshold of ``five-of-each-color`` (table option, 4 or 5).
        lines: the lines that count for line objectives (rows and columns by default;
            pass ``LINES + DIAGONALS`` for the diagonal-lines house rule).
    """
    if isinstance(board, tuple) and all(isinstance(row, tuple) for row in board):
        return set(_satisfied_cached(board, each_color_min, tuple(lines)))
    return set(_satisfied(board, each_color_min, lines))


def _satisfied(board: Board, each_color_min: int, lines: Sequence[Line]) -> frozenset[str]:
    grid = _Grid(board, each_color_min, lines)
    return frozenset(oid for oid, test in _TESTS.items() if test(grid))


# Views and legal moves ask again and again about the same board; a state's board is a
# tuple of tuples, so the answer is remembered (a pure function of its arguments).
_satisfied_cached = lru_cache(maxsize=4096)(_satisfied)


def satisfied_among(
    board: Board,
    objectives: Iterable[str],
    *,
    each_color_min: int = 5,
    lines: Sequence[Line] = LINES,
) -> set[str]:
    """The ids among ``objectives`` that the board satisfies now (the board parsed once)."""
    grid = _Grid(board, each_color_min, lines)
    return {oid for oid in objectives if _TESTS[oid](grid)}
