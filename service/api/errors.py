"""Every error leaves with a stable ``extensions.code``, from one place.

Engine and service refusals (``ApiError``) keep their code; documents that fail parsing,
validation or variable coercion are ``BAD_INPUT`` (or ``QUERY_TOO_COMPLEX`` for the depth,
alias and token limits); anything else is a bug: ``INTERNAL``, logged here, its message
replaced so that nothing inside leaks.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

from graphql import GraphQLError

from service.errors import ApiError
from service.metrics import Metrics

log = logging.getLogger("tablestate.api")

_TOO_COMPLEX: Final = (
    "exceeds maximum operation depth",
    "aliases found",
    "tokens. Parsing aborted",
)


def classify(error: GraphQLError) -> str:
    """Set ``error``'s code (and mask its message when it is a bug); the code."""
    original = error.original_error
    if isinstance(original, ApiError):
        error.extensions = original.extensions()
        error.message = original.message
        return original.code
    if isinstance(error.extensions, dict) and error.extensions.get("code"):
        return str(error.extensions["code"])
    if original is None or error.path is None:
        code = "BAD_INPUT"
        if any(marker in error.message for marker in _TOO_COMPLEX):
            code = "QUERY_TOO_COMPLEX"
        error.extensions = {"code": code}
        return code
    log.error("internal error at %s", error.path, exc_info=original)
    error.extensions = {"code": "INTERNAL"}
    error.message = "internal error"
    return "INTERNAL"


def classify_all(errors: Sequence[GraphQLError], metrics: Metrics | None = None) -> None:
    for error in errors:
        code = classify(error)
        if code != "INTERNAL":
            log.info("refused with %s: %s", code, error.message)
        if metrics is not None:
            metrics.inc("tablestate_errors_total", code=code)
