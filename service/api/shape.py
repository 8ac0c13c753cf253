"""The shape of a document, checked before validation: how many selections, how many of one
name, fragments (spreads, cycles, chains, how much they expand to) and aliases. A document
refused here is ``QUERY_TOO_COMPLEX`` or ``BAD_INPUT`` (``api/checks.py``); its cost, once
valid, is ``api/cost.py``'s.
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
    InlineFragmentNode,
    SelectionSetNode,
    parse,
)

MAX_SELECTIONS: Final = 1000  # fields, fragment spreads and inline fragments in a document
MAX_SAME_NAME: Final = 10  # fields answering under one name in one selection set
MAX_SPREADS: Final = 30  # fragment spreads and inline fragments in one selection set
MAX_FRAGMENT_DEPTH: Final = 16  # fragments spread inside fragments
MAX_EXPANDED: Final = 10_000  # selections once every fragment spread is written out


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
            inner = getattr(sel, "selection_set", None)  # a field's or inline fragment's
            if inner is not None:
                stack.append(inner)
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
                elif (inner := getattr(sel, "selection_set", None)) is not None:
                    stack.append(inner)
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


# One parsed document per query text: the checks key their verdicts by its identity.
cached_parse = lru_cache(maxsize=512)(parse)
