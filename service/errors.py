"""The refusals a client can get, each with a stable ``extensions.code`` (API.md)."""

from __future__ import annotations

from typing import Final

CODES: Final = frozenset(
    {
        "BAD_INPUT",
        "NOT_FOUND",
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "TABLE_FULL",
        "ALREADY_SEATED",
        "TABLE_NOT_OPEN",
        "TABLE_NOT_PLAYING",
        "RULE_CONFLICT",
        "NOT_YOUR_TURN",
        "ILLEGAL_MOVE",
        "VERSION_CONFLICT",
        "RATE_LIMITED",
        "QUERY_TOO_COMPLEX",
        "UNAVAILABLE",
        "SLOW_CONSUMER",
        "INTERNAL",
    }
)


class ApiError(Exception):
    """A refused request. ``reason`` (for ``ILLEGAL_MOVE``) says why in words.

    The message and reason reach the client: they never hold a hidden item or a token.
    """

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason

    def extensions(self) -> dict[str, str]:
        out = {"code": self.code}
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
