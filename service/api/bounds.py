"""Bounds of a request's text before GraphQL reads it: its length, its JSON's nesting and
its strings (docs/security.md, "Bad input")."""

from __future__ import annotations

from typing import Any, Final

MAX_JSON_DEPTH: Final = 32  # nesting of a request's JSON (moves and options need < 10)
MAX_QUERY_CHARS: Final = 20_000  # a document longer is refused before it is parsed
TOO_BIG: Final = object()  # what decoding a message over the size limit gives


def depth_ok(value: Any, limit: int) -> bool:
    """Whether a decoded JSON value nests at most ``limit`` levels (iteratively)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return True


def text_ok(value: Any) -> bool:
    """Whether every string of a decoded JSON value is valid Unicode (JSON's ``\\ud800``
    escapes make lone surrogates, which no UTF-8 encoder takes)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def too_long(query: Any) -> str | None:
    if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
        return f"the document is longer than {MAX_QUERY_CHARS} characters"
    return None
