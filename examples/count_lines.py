"""Count the lines of code of an example game: ``python examples/count_lines.py PATH``.

A line of code is a line of a ``.py`` file that is neither blank, nor a comment, nor part of
a docstring. Tests are left out: ``tests/`` folders, ``test_*.py`` files, and the
``testing.py`` module in which a game states its facts for the shared harness.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            if isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return lines


def count_file(path: Path) -> int:
    """The lines of code of one Python file."""
    text = path.read_text(encoding="utf-8")
    skip = _docstring_lines(ast.parse(text))
    return sum(
        1
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#") and number not in skip
    )


def is_test(path: Path, root: Path) -> bool:
    """Whether a file is a test or test support (left out of the count)."""
    parts = path.relative_to(root).parts
    return "tests" in parts or path.name.startswith("test_") or path.name == "testing.py"


def count(root: Path) -> int:
    """The lines of code of every Python file under ``root`` (or of ``root`` itself)."""
    if root.is_file():
        return count_file(root)
    return sum(count_file(p) for p in sorted(root.rglob("*.py")) if not is_test(p, root))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/count_lines.py PATH")
    print(count(Path(sys.argv[1])))
