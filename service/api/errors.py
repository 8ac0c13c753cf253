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
from strawberry.exceptions import MissingQueryError
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError

from tablestate.errors import ApiError
from tablestate.metrics import Metrics

log = logging.getLogger("tablestate.api")

_TOO_COMPLEX: Final = (
    "exceeds maximum operation depth",
    "aliases found",
    "tokens. Parsing aborted",
    "maximum recursion depth",
    "Maximum introspection depth",
)
_REFUSALS: Final = (CannotGetOperationTypeError, InvalidOperationTypeError, MissingQueryError)
MAX_LOGGED: Final = 3  # errors of one request written to the log (the rest are counted)


def classify(error: GraphQLError) -> str:
    """Set ``error``'s code (and mask its message when it is a bug); the code."""
    original = error.original_error
    if isinstance(original, ApiError):
        error.extensions = original.extensions()
        error.message = original.message
        return original.code
    if isinstance(error.extensions, dict) and error.extensions.get("code"):
        return str(error.extensions["code"])
    if isinstance(original, RecursionError) and error.path is None:
        error.extensions = {"code": "QUERY_TOO_COMPLEX"}
        error.message = "the document is nested too deeply"
        return "QUERY_TOO_COMPLEX"
    if _unexpected(error):
        return _internal(error, original)
    if isinstance(original, GraphQLError):
        # GraphQL refusing a value as it executes (a null variable for a non-null
        # argument that has a default): the request's fault
        error.extensions = {"code": "BAD_INPUT"}
        error.message = original.message
        return "BAD_INPUT"
    if original is None or error.path is None:
        code = "BAD_INPUT"
        if any(marker in error.message for marker in _TOO_COMPLEX):
            code = "QUERY_TOO_COMPLEX"
        error.extensions = {"code": code}
        return code
    return _internal(error, original)


def _unexpected(error: GraphQLError) -> bool:
    """An exception raised before execution that is no refusal of the request: a bug in
    an extension (documents, variables and operation names come with GraphQL errors,
    Strawberry's own exceptions or source locations)."""
    original = error.original_error
    if original is None or error.path is not None or error.nodes:
        return False
    return not isinstance(original, (GraphQLError, *_REFUSALS))


def _internal(error: GraphQLError, original: BaseException | None) -> str:
    log.error("internal error at %s", error.path, exc_info=original)
    error.extensions = {"code": "INTERNAL"}
    error.message = "internal error"
    return "INTERNAL"


def classify_all(errors: Sequence[GraphQLError], metrics: Metrics | None = None) -> None:
    for n, error in enumerate(errors):
        code = classify(error)
        if code != "INTERNAL" and n < MAX_LOGGED:
            log.info("refused with %s: %s", code, error.message)
        elif code != "INTERNAL" and n == MAX_LOGGED:
            log.info("and %d more errors", len(errors) - MAX_LOGGED)
        if metrics is not None:
            metrics.inc("tablestate_errors_total", code=code)
