"""The cost of an operation, refused with ``QUERY_TOO_COMPLEX`` past a bound.

Depth, aliases and tokens are bounded by Strawberry's limiters; they do not see that a
list inside a list multiplies the work (``tables(first: 100) { nodes { events(first: 1000)
{ table { events(first: 1000) ... } } } }`` is shallow and costs 10^8). Here each field
costs 1, a field that reads the store costs more, a mutation much more, and a list
multiplies what is selected under it by its page size (``first``/``last``, variables
included) or by a fixed bound. Fragments count every time they are spread. Introspection
is bounded by nesting: at most ``MAX_INTROSPECTION_LISTS`` of its lists inside each other
(a standard introspection query needs 3). The extension that applies these checks to each
operation is ``api/checks.py``.

A page size is read as the executor will read it: the field's arguments as graphql-core
coerces them (``get_argument_values``), from the variables as graphql-core coerces them
(``get_variable_values``: ``1000.0`` is the ``Int`` 1000, a variable's default counts
when it is not sent), never from the raw JSON.
"""

from collections import Counter
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, Final

from graphql import (
    DocumentNode,
    ExecutableDefinitionNode,
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
    parse,
)
from graphql.execution.values import get_argument_values, get_variable_values

from service.errors import ApiError

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
        ("Table", "cursor"),
        ("Table", "events"),
        ("TableEvent", "table"),
        ("Subscription", "tableEvents"),
        ("Subscription", "lobbyEvents"),
        ("LobbyEvent", "table"),
    }
)
FIXED_SIZES: Final = {("Query", "games"): 20, ("Query", "plugins"): 100}
INTROSPECTION_LISTS: Final = frozenset(
    {"types", "fields", "args", "inputFields", "enumValues", "interfaces", "possibleTypes",
     "directives"}
)  # fmt: skip


# The shape of a document, checked before validation: GraphQL's validation compares fields
# that share a response name pairwise (OverlappingFieldsCanBeMerged), so 300 copies of one
# field take it half a second; these bounds keep it to milliseconds.
MAX_SELECTIONS: Final = 1000  # fields, fragment spreads and inline fragments in a document
MAX_SAME_NAME: Final = 10  # fields answering under one name in one selection set
MAX_SPREADS: Final = 30  # fragment spreads and inline fragments in one selection set
MAX_FRAGMENT_DEPTH: Final = 16  # fragments spread inside fragments
MAX_EXPANDED: Final = 10_000  # selections once every fragment spread is written out


class TooComplex(Exception):
    pass


def _field_map(selection_set: SelectionSetNode) -> tuple[dict[str, int], list[str], list[Any], int]:
    """A selection set with its inline fragments merged, as validation compares it: the
    count of each response name, the fragments spread, the sub-selections, the size."""
    names: dict[str, int] = {}
    spreads: list[str] = []
    children: list[Any] = []
    size = 0
    merged = [selection_set]
    while merged:
        for sel in merged.pop().selections:
            size += 1
            if isinstance(sel, FieldNode):
                name = (sel.alias or sel.name).value
                names[name] = names.get(name, 0) + 1
                if sel.selection_set is not None:
                    children.append(sel.selection_set)
            elif isinstance(sel, InlineFragmentNode):
                spreads.append("")  # counted as a fragment, merged here
                merged.append(sel.selection_set)
            elif isinstance(sel, FragmentSpreadNode):
                spreads.append(sel.name.value)
    return names, spreads, children, size


def aliases(document: DocumentNode) -> int:
    """Aliases written in a document (each fragment once: a lower bound of what the alias
    limiter counts, so refusing on it early refuses nothing that limiter would pass)."""
    count = 0
    stack = [
        d.selection_set for d in document.definitions if isinstance(d, ExecutableDefinitionNode)
    ]
    while stack:
        for sel in stack.pop().selections:
            if isinstance(sel, FieldNode) and sel.alias is not None:
                count += 1
            if getattr(sel, "selection_set", None) is not None:
                stack.append(sel.selection_set)
    return count


def document_shape(document: DocumentNode) -> str | None:
    """Why a document is too large to validate cheaply, or None."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    tops = {name: _field_map(f.selection_set) for name, f in fragments.items()}
    maps: list[tuple[dict[str, int], list[str]]] = []
    graph: dict[str, set[str]] = {}
    weights: dict[str, tuple[int, Counter[str]]] = {}
    total = 0
    for n, definition in enumerate(document.definitions):
        if not isinstance(definition, ExecutableDefinitionNode):
            continue
        if isinstance(definition, FragmentDefinitionNode):
            key = f"f:{definition.name.value}"
        else:
            key = f"op:{n}"
        stack = [definition.selection_set]
        spread_here: set[str] = set()
        own, counted = 0, Counter[str]()
        while stack:
            names, spreads, children, size = _field_map(stack.pop())
            total += size
            own += size
            stack.extend(children)
            named = [s for s in spreads if s]
            spread_here.update(named)
            counted.update(f"f:{n}" for n in named)
            maps.append((names, named))
            if total > MAX_SELECTIONS:
                return f"more than {MAX_SELECTIONS} selections"
            if len(spreads) > MAX_SPREADS:
                return f"more than {MAX_SPREADS} fragments in one selection"
        graph[key] = {f"f:{name}" for name in spread_here}
        weights[key] = (own, counted)
    if _longest_chain(graph) > MAX_FRAGMENT_DEPTH:
        return f"fragments nest more than {MAX_FRAGMENT_DEPTH} deep"
    memo: dict[str, int] = {}
    if any(_expanded(k, weights, memo, set()) > MAX_EXPANDED for k in weights if k[:3] == "op:"):
        return f"more than {MAX_EXPANDED} selections once its fragments are spread"
    reach: dict[str, dict[str, int]] = {}
    for names, named in maps:
        counts = dict(names)
        for frag in named:
            if frag not in reach:
                reach[frag] = _names_of(frag, tops)
            for name, n in reach[frag].items():
                counts[name] = counts.get(name, 0) + n
        if counts and max(counts.values()) > MAX_SAME_NAME:
            return f"more than {MAX_SAME_NAME} fields answer under one name"
    return None


def _names_of(
    fragment: str,
    tops: Mapping[str, tuple[dict[str, int], list[str], list[Any], int]],
) -> dict[str, int]:
    """The response names a fragment's spread adds to a field map (through the fragments
    it spreads in turn), each counted up to ``MAX_SAME_NAME + 1``."""
    order: list[str] = []
    stack, seen = [fragment], {fragment}
    while stack:  # every fragment reachable at the top of the map, each once
        name = stack.pop()
        order.append(name)
        for child in tops.get(name, ({}, [], [], 0))[1]:
            if child and child not in seen:
                seen.add(child)
                stack.append(child)
    counts: dict[str, int] = {}
    for name in order:
        for field, n in tops.get(name, ({}, [], [], 0))[0].items():
            counts[field] = min(counts.get(field, 0) + n, MAX_SAME_NAME + 1)
    return counts


def _expanded(
    key: str,
    weights: Mapping[str, tuple[int, Counter[str]]],
    memo: dict[str, int],
    visiting: set[str],
) -> int:
    """Selections of a definition with its spreads written out (a cycle counts nothing:
    validation refuses it); at most ``MAX_EXPANDED + 1``, and no deeper than the chain
    bound already checked."""
    if key in memo:
        return memo[key]
    if key in visiting or key not in weights:
        return 0
    visiting.add(key)
    own, spreads = weights[key]
    total = own
    for child, times in spreads.items():
        total += times * _expanded(child, weights, memo, visiting)
        if total > MAX_EXPANDED:
            break
    visiting.discard(key)
    memo[key] = min(total, MAX_EXPANDED + 1)
    return memo[key]


def fragment_problem(document: DocumentNode) -> str | None:
    """A spread of a fragment the document does not define, or fragments spread within
    themselves: refused before validation, whose depth limiter fails on both."""
    defined = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    graph: dict[str, set[str]] = {}
    for definition in document.definitions:
        if not isinstance(definition, ExecutableDefinitionNode):
            continue
        spreads: set[str] = set()
        stack = [definition.selection_set]
        while stack:
            for sel in stack.pop().selections:
                if isinstance(sel, FragmentSpreadNode):
                    if sel.name.value not in defined:
                        return f"Unknown fragment '{sel.name.value}'."
                    spreads.add(sel.name.value)
                elif sel.selection_set is not None:
                    stack.append(sel.selection_set)
        if isinstance(definition, FragmentDefinitionNode):
            graph[definition.name.value] = spreads
    done: set[str] = set()
    for start in graph:
        if start in done:
            continue
        path, on_path = [(start, iter(sorted(graph[start])))], {start}
        while path:
            node, children = path[-1]
            child = next(children, None)
            if child is None:
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                return f"Cannot spread fragment '{child}' within itself."
            elif child not in done:
                on_path.add(child)
                path.append((child, iter(sorted(graph[child]))))
    return None


def _longest_chain(graph: Mapping[str, set[str]]) -> int:
    """The longest chain of spreads (cycles are left to validation)."""
    depth: dict[str, int] = {}
    for start in graph:
        if start in depth:
            continue
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(graph.get(start, ())))]
        on_path = {start}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                depth[node] = 1 + max((depth.get(c, 0) for c in graph.get(node, ())), default=0)
            elif child not in depth and child not in on_path and child in graph:
                on_path.add(child)
                stack.append((child, iter(graph[child])))
    return max(depth.values(), default=0)


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
        size = self._size(node, parent.name, definition) if is_list else 1
        return own + size * inner

    def _size(self, node: FieldNode, parent: str, definition: Any) -> int:
        fixed = FIXED_SIZES.get((parent, node.name.value))
        if fixed is not None:
            return fixed
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
cached_parse = lru_cache(maxsize=512)(parse)
