"""Every per-operation check of the GraphQL layer, in one schema extension.

The checks themselves are those of ``api/shape.py``, ``api/cost.py`` and Strawberry's
limiters: a bound on tokens, cached parsing, the document's shape (before validation), the
depth and alias limits as validation rules, validation, the operation's cost with the rate limits of
costly operations and mutations, and the count of operations. They ran as six extensions,
and Strawberry enters and leaves every extension at every phase of every operation; as
one they cost one hook per phase. What depends on the document alone (its shape, its
validation) is computed once per document, and its cost once per (document, operation,
the values of its ``Int`` variables as the executor coerces them): a parsed document is the
same object for the same text (the parse cache), so these caches are keyed by identity,
never by hashing the syntax tree.

No ``from __future__ import annotations``: Strawberry reads the hook signatures.
"""

from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from graphql import DocumentNode, GraphQLError, GraphQLSchema
from graphql.validation import ASTValidationRule
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document
from strawberry.types.execution import ExecutionContext

from tablestate.api.cost import COST_PER_REQUEST, chosen_operation, operation_cost, size_variables
from tablestate.api.shape import aliases, cached_parse, document_shape, fragment_problem
from tablestate.api.upstream import graphql_schema
from tablestate.errors import ApiError
from tablestate.metrics import Metrics

CACHE_SIZE: Final = 512


class _Cache:
    """A bounded map from an object (by identity, kept alive by the entry) to a value."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._items: dict[Any, tuple[Any, Any]] = {}

    def get(self, owner: Any, key: Any = None) -> Any:
        found = self._items.get((id(owner), key))
        return found[1] if found is not None and found[0] is owner else None

    def put(self, owner: Any, value: Any, key: Any = None) -> Any:
        if len(self._items) >= self.size:
            self._items.clear()  # rare: only as many documents as clients send
        self._items[(id(owner), key)] = (owner, value)
        return value


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A document refused before validation."""

    code: str
    message: str


class Checks(SchemaExtension):
    """The checks of one schema (``build_schema`` makes a subclass with its settings)."""

    max_tokens: ClassVar[int] = 4000
    rules: ClassVar[tuple[type[ASTValidationRule], ...]] = ()
    max_aliases: ClassVar[int] = 30
    max_cost: ClassVar[int] = 100_000
    max_mutations: ClassVar[int] = 5
    metrics: ClassVar[Metrics | None] = None
    # Per schema (each subclass gets its own): the document's problems, validation errors
    # and costs.
    _problems: ClassVar[_Cache]
    _costs: ClassVar[_Cache]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._problems = _Cache()
        cls._costs = _Cache(CACHE_SIZE * 8)

    def on_operation(self) -> Iterator[None]:
        ctx = self.execution_context
        ctx.parse_options["max_tokens"] = self.max_tokens
        ctx.validation_rules = ctx.validation_rules + self.rules
        yield
        if self.metrics is not None:
            try:
                kind = ctx.operation_type.value
            except RuntimeError:
                kind = "invalid"
            self.metrics.inc("tablestate_requests_total", type=kind)

    def on_parse(self) -> Iterator[None]:
        """Cached parsing that never raises from here: a document that does not parse is
        left to Strawberry, which answers it with a coded error on every transport."""
        ctx = self.execution_context
        if ctx.query is not None and ctx.graphql_document is None:
            try:
                ctx.graphql_document = cached_parse(ctx.query, **ctx.parse_options)
            except GraphQLError:
                pass
        yield

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        document = ctx.graphql_document
        if document is not None:
            found = self._problems.get(document)
            if found is None:
                found = self._problems.put(document, self._validate(ctx, document))
            if isinstance(found, _Refusal):  # a fresh error each time: errors get changed
                ctx.pre_execution_errors = [
                    GraphQLError(found.message, extensions={"code": found.code})
                ]
            else:
                ctx.pre_execution_errors = list(found)
        yield

    def _validate(self, ctx: Any, document: DocumentNode) -> "_Refusal | tuple[GraphQLError, ...]":
        return self._verdict(graphql_schema(ctx.schema), document, ctx.validation_rules)

    @classmethod
    def _verdict(
        cls,
        schema: GraphQLSchema,
        document: DocumentNode,
        rules: tuple[type[ASTValidationRule], ...],
    ) -> "_Refusal | tuple[GraphQLError, ...]":
        """Why the document is refused before validation, else the validation errors
        (the depth and alias limits are among the rules)."""
        problem = fragment_problem(document)
        if problem is not None:
            return _Refusal("BAD_INPUT", problem)
        why = document_shape(document)
        found = aliases(document) if why is None else 0
        if found > cls.max_aliases:
            why = f"{found} aliases found. Allowed: {cls.max_aliases}"
        if why is not None:
            return _Refusal("QUERY_TOO_COMPLEX", f"the document is too large: {why}")
        errors: Sequence[GraphQLError] = validate_document(schema, document, rules)
        return tuple(errors)

    @classmethod
    def validation_rules(cls) -> tuple[type[ASTValidationRule], ...]:
        """The rules an operation is validated by: Strawberry's (graphql's specified rules,
        those of an ``ExecutionContext``) and ours (``on_operation`` adds them)."""
        bare = ExecutionContext(None, None, ())  # type: ignore[arg-type]  # read for its rules only
        return (*bare.validation_rules, *cls.rules)

    @classmethod
    def check(cls, schema: GraphQLSchema, document: DocumentNode) -> bool:
        """Whether ``document`` passes every check of ``on_validate``, checked here when the
        slow path has not checked it yet (the same checks, rules and cache)."""
        found: _Refusal | tuple[GraphQLError, ...] | None = cls._problems.get(document)
        if found is None:
            found = cls._problems.put(
                document, cls._verdict(schema, document, cls.validation_rules())
            )
        return found == ()

    async def on_execute(self) -> AsyncIterator[None]:
        """Refuses an operation whose cost is over the bound, before it runs, and counts it
        against the caller's rate limits (``admit``)."""
        ctx = self.execution_context
        if ctx.graphql_document is not None:
            cost = self.cost(
                graphql_schema(ctx.schema), ctx.graphql_document, ctx.operation_name, ctx.variables
            )
            await self.admit(ctx.context, cost, ctx.operation_type.value == "mutation")
        yield

    @classmethod
    async def admit(cls, context: Any, cost: int, mutation: bool) -> None:
        """Count an operation of this cost against the caller's rate limits: past
        ``COST_PER_REQUEST`` as one request more per ``COST_PER_REQUEST`` (its address was
        counted once at the edge), and a mutation against its token too.

        Raises:
            ApiError: ``RATE_LIMITED``.
        """
        extra = cost // COST_PER_REQUEST
        guard = getattr(getattr(context, "services", None), "guard", None)
        client = getattr(context, "client", None)
        token = context.token if mutation else None
        if (extra or token) and guard is not None and client is not None:
            wait = await guard.admit(client, token, extra, 1 + extra)
            if wait > 0:
                raise ApiError("RATE_LIMITED", f"too many requests; retry in {wait:.2f} s")

    @classmethod
    def cost(
        cls,
        schema: GraphQLSchema,
        document: DocumentNode,
        operation_name: str | None,
        variables: Any,
        coerced: Any = None,
    ) -> int:
        """The operation's cost: it depends on the document, the operation and the values
        its ``Int`` variables (page sizes) take once coerced, as the executor coerces them
        (``coerced``: the variables coerced already, by a caller that has them).

        Raises:
            ApiError: ``QUERY_TOO_COMPLEX`` over the bound.
        """
        operation = chosen_operation(document, operation_name)
        values, sizes = size_variables(schema, operation, variables, coerced)
        key = (operation_name, sizes)
        found = cls._costs.get(document, key)
        if found is None:
            try:
                found = operation_cost(
                    schema, document, operation_name, values, cls.max_cost, cls.max_mutations
                )
            except ApiError as exc:
                found = exc.message
            cls._costs.put(document, found, key)
        if isinstance(found, str):
            raise ApiError("QUERY_TOO_COMPLEX", found)
        return int(found)
