"""The cost of an operation, refused with ``QUERY_TOO_COMPLEX`` past a bound.

Depth, aliases and tokens are bounded by Strawberry's limiters; they do not see that a
list inside a list multiplies the work (``tables(first: 100) { nodes { events(first: 1000)
{ table { events(first: 1000) ... } } } }`` is shallow and costs 10^8). Here each field
costs 1, a field that reads the store costs more, a mutation much more, and a list
multiplies what is selected under it by its page size (``first``/``last``, variables
included) or by a fixed bound; a connection's page size multiplies what its ``edges`` and
``nodes`` select. Fragments count every time they are spread. Introspection
is bounded by nesting: at most ``MAX_INTROSPECTION_LISTS`` of its lists inside each other
(a standard introspection query needs 3). The extension that applies these checks to each
operation is ``api/checks.py``.

A page size is read as the executor will read it: the field's arguments as graphql-core
coerces them (``get_argument_values``), from the variables as graphql-core coerces them
(``get_variable_values``: ``1000.0`` is the ``Int`` 1000, a variable's default counts
when it is not sent), never from the raw JSON.
"""

from collections.abc import Iterator, Mapping
from typing import Any, Final

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
)
from graphql.execution.values import get_argument_values, get_variable_values

from tablestate.errors import ApiError

LIST_SIZE: Final = 10  # a list without a page size: seats, players, house rules, ...
PAGE_DEFAULT: Final = 100
PAGE_ARGS: Final = ("first", "last")  # the arguments that size a list
STORE_COST: Final = 100  # a field that reads the store
COST_PER_REQUEST: Final = 1000  # past this, every 1000 more count as one more request
MUTATION_COST: Final = 50  # a root mutation field: a commit
MAX_INTROSPECTION_LISTS: Final = 3
STORE_FIELDS: Final = frozenset(
    {
        ("Query", "table"),
        ("Query", "tables"),
        ("Query", "myTables"),
        ("Table", "cursor"),
        ("Table", "events"),
        ("Table", "eventsConnection"),
        ("Query", "node"),
        ("Query", "nodes"),
        ("TableEvent", "table"),
        ("Subscription", "tableEvents"),
        ("Subscription", "lobbyEvents"),
        ("LobbyEvent", "table"),
        ("Subscription", "quickPlayEvents"),
        # the archive's database
        ("Query", "leaderboard"),
        ("User", "ratings"),
    }
)
FIXED_SIZES: Final = {("Query", "games"): 20, ("Query", "plugins"): 100, ("Query", "nodes"): 100}
# A connection's page size (``first``/``last`` of the field that returns it) multiplies what
# its ``edges`` and ``nodes`` select, once.
PAGE_LISTS: Final = frozenset({"edges", "nodes"})
INTROSPECTION_LISTS: Final = frozenset(
    {"types", "fields", "args", "inputFields", "enumValues", "interfaces", "possibleTypes",
     "directives"}
)  # fmt: skip


# The shape of a document, checked before validation: GraphQL's validation compares fields
# that share a response name pairwise (OverlappingFieldsCanBeMerged), so 300 copies of one
# field take it half a second; these bounds keep it to milliseconds.


class TooComplex(Exception):
    pass


def _unwrap(tp: Any) -> tuple[GraphQLNamedType, bool]:
    """The named type under NonNull/List wrappers, and whether there was a list."""
    is_list = False
    while isinstance(tp, GraphQLNonNull | GraphQLList):
        is_list = is_list or isinstance(tp, GraphQLList)
        tp = tp.of_type
    return tp, is_list


class Cost:
    """The cost of one operation of a document, given its coerced variables."""

    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: Any,
        limit: int,
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables
        self.limit = limit
        self._visited = 0

    def operation(self, op: OperationDefinitionNode, max_mutations: int) -> int:
        root = self.schema.get_root_type(op.operation)
        if root is None:
            return 0
        if op.operation is OperationType.MUTATION:
            fields = sum(1 for _ in self._fields(op.selection_set, root))
            if fields > max_mutations:
                raise TooComplex(f"at most {max_mutations} mutations in one request")
        return self.selection(op.selection_set, root)

    def _fields(
        self, selection_set: SelectionSetNode, parent: GraphQLNamedType
    ) -> Iterator[tuple[FieldNode, GraphQLNamedType]]:
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                yield sel, parent
            elif isinstance(sel, InlineFragmentNode):
                tp = parent
                if sel.type_condition is not None:
                    tp = self.schema.get_type(sel.type_condition.name.value) or parent
                yield from self._fields(sel.selection_set, tp)
            elif isinstance(sel, FragmentSpreadNode):
                frag = self.fragments.get(sel.name.value)
                if frag is not None:
                    tp = self.schema.get_type(frag.type_condition.name.value) or parent
                    yield from self._fields(frag.selection_set, tp)

    def selection(self, selection_set: SelectionSetNode, parent: GraphQLNamedType) -> int:
        total = 0
        for node, tp in self._fields(selection_set, parent):
            total += self.field(node, tp)
            if total > self.limit:
                raise TooComplex(f"the operation costs more than {self.limit}")
        return total

    def field(self, node: FieldNode, parent: GraphQLNamedType) -> int:
        name = node.name.value
        if name.startswith("__"):
            if node.selection_set is not None:
                self._introspection(node.selection_set, 0)
            return 1
        if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return 1
        definition = parent.fields.get(name)
        if definition is None:
            return 1
        own = 1
        if (parent.name, name) in STORE_FIELDS:
            own += STORE_COST
        if parent is self.schema.mutation_type:
            own += MUTATION_COST
        if node.selection_set is None:
            return own
        named, is_list = _unwrap(definition.type)
        inner = self.selection(node.selection_set, named)
        paged = not is_list and named.name.endswith("Connection")
        size = self._size(node, parent.name, definition) if is_list or paged else 1
        return own + size * inner

    def _size(self, node: FieldNode, parent: str, definition: Any) -> int:
        fixed = FIXED_SIZES.get((parent, node.name.value))
        if fixed is not None:
            return fixed
        if parent.endswith("Connection") and node.name.value in PAGE_LISTS:
            return 1  # the connection's field counted its page size
        if "first" not in definition.args and "last" not in definition.args:
            return LIST_SIZE
        # What the resolver gets for its page size (literals, variables and the arguments'
        # defaults), the field's other arguments left out: they take no part in the cost,
        # nor need their variables.
        pages = GraphQLField(
            definition.type, {k: v for k, v in definition.args.items() if k in PAGE_ARGS}
        )
        try:
            given = get_argument_values(pages, node, self.variables)
        except GraphQLError:
            given = {}  # the executor refuses the operation: nothing runs
        for arg in ("last", "first"):
            value = given.get(arg)
            if isinstance(value, int) and not isinstance(value, bool):
                return max(0, value)
        return PAGE_DEFAULT

    def _introspection(self, selection_set: SelectionSetNode, lists: int) -> None:
        self._visited += len(selection_set.selections)
        if self._visited > self.limit:
            raise TooComplex(f"the operation costs more than {self.limit}")
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                if sel.selection_set is None:
                    continue
                nested = lists + (sel.name.value in INTROSPECTION_LISTS)
                if nested > MAX_INTROSPECTION_LISTS:
                    raise TooComplex("introspection nested too deeply")
                self._introspection(sel.selection_set, nested)
            elif isinstance(sel, InlineFragmentNode):
                self._introspection(sel.selection_set, lists)
            elif isinstance(sel, FragmentSpreadNode):
                frag = self.fragments.get(sel.name.value)
                if frag is not None:
                    self._introspection(frag.selection_set, lists)


def chosen_operation(document: Any, operation_name: str | None) -> OperationDefinitionNode | None:
    """The operation of a document that will run (the first of that name, or the first)."""
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode) and (
            operation_name is None
            or (definition.name is not None and definition.name.value == operation_name)
        ):
            return definition
    return None


def size_variables(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode | None,
    variables: Any,
    coerced: Any = None,
) -> tuple[Any, tuple[tuple[str, Any], ...]]:
    """The variables a page size is read from, as graphql-core's ``get_argument_values``
    takes them, and what of them the cost depends on: the values of the operation's
    ``Int`` variables (the only ones a page size can take: validation sees to that),
    sorted. ``coerced``: the variables coerced by the caller already; else the ``Int`` ones
    are coerced here, by graphql-core as the executor does. Variables that do not coerce
    count as none sent (the executor then runs nothing)."""
    if operation is None:
        return None, ()
    ints = []
    for definition in operation.variable_definitions or ():
        tp = definition.type
        if isinstance(tp, NonNullTypeNode):
            tp = tp.type
        if isinstance(tp, NamedTypeNode) and tp.name.value == "Int":
            ints.append(definition)
    if not ints:
        return None, ()
    if coerced is None:
        coerced = get_variable_values(
            schema, ints, variables if isinstance(variables, dict) else {}
        )
        if isinstance(coerced, list):
            return None, ()
    values = getattr(coerced, "coerced", coerced)  # graphql-core 3.3 wraps them
    names = {d.variable.name.value for d in ints}
    return coerced, tuple(sorted((k, v) for k, v in values.items() if k in names))


def operation_cost(
    schema: GraphQLSchema,
    document: Any,
    operation_name: str | None,
    variables: Any,
    limit: int,
    max_mutations: int,
) -> int:
    """The cost of the operation that will run, given its variables as the executor coerces
    them (``size_variables``: what ``get_argument_values`` takes). Raises ``ApiError``
    (``QUERY_TOO_COMPLEX``) past ``limit`` or ``max_mutations``."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    chosen = chosen_operation(document, operation_name)
    cost = Cost(schema, fragments, variables, limit)
    try:
        return cost.operation(chosen, max_mutations) if chosen is not None else 0
    except TooComplex as exc:
        raise ApiError("QUERY_TOO_COMPLEX", str(exc)) from None
    except RecursionError:
        raise ApiError("QUERY_TOO_COMPLEX", "the operation is nested too deeply") from None


# One parsed document per query text: the checks of ``api/checks.py`` cache per document
# by identity, and the fan-out shares results per operation (``api/fanout.py``).
