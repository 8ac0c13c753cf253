"""One execution and one encoding per audience of a live event, shared by its subscribers.

The hub hands every subscriber of a table the same ``Delivery``, and the subscription
resolver turns it into one ``TableEvent`` per viewer seat (a seat, or the spectators), kept
on the delivery. Without help, graphql-core would then execute the subscription's
selection set on that event once per subscriber, and the view would encode each result as
JSON once per subscriber; with 200 spectators that is 200 equal executions and encodings
per event.

``SharingExecutor`` keeps the result of an event per (operation, variables, sight) on the
delivery, so every subscriber of that sight that sent the same document and variables gets
the first one's result; ``SharedData`` marks such a result, and ``encode_message`` encodes
it once and splices it into each subscriber's own ``next`` message (only the operation id
differs; over an HTTP stream, ``encode_result``).

Which subscribers share a result is decided in code, from their rights, by their
``Sight`` (``engine/views.py``: the seat whose private parts a viewer sees, and its host
rights), the one thing a viewer is shown anything by. An operation that selects only the
event's own fields (``EVENT_FIELDS``: no ``table``) is shown its redacted data alone: its
results are kept per ``Sight.of_event`` (``TableEvent.shared``), so the seats without a
private part in this event and the spectators share one (in a game without secrets,
everyone). Any other operation's results are shared under ``Sight.whole_key``: by the
spectators, whose ``table`` is shown as a spectator sees it; a seat's or a host's are its
own. A result with errors is never shared: each subscriber then executes on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, Final

from graphql import ExecutionResult, FieldNode
from graphql.execution import Executor
from strawberry.schema.name_converter import NameConverter
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.base import get_object_definition

from tablestate import _json
from tablestate.api.types import TableEvent

_UNSET: Final = object()
_PLAIN: Final = (str, int, float, bool, type(None))


def event_fields() -> frozenset[str]:
    """The fields of ``TableEvent`` whose values are the same for every viewer who sees the
    same redacted data: its plain data fields, those without a resolver of their own
    (``table``, for one, resolves the table as the viewer's seat sees it)."""
    names = NameConverter(auto_camel_case=True)
    definition = get_object_definition(TableEvent, strict=True)
    plain = {names.get_graphql_name(f) for f in definition.fields if f.base_resolver is None}
    return frozenset({*plain, "__typename"})


EVENT_FIELDS: Final = event_fields()


class SharedData(dict[str, Any]):
    """The ``data`` of a result shared by several subscribers; ``text`` is its JSON once
    encoded."""

    __slots__ = ("text",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.text: str | None = None


def _event_fields_only(executor: Executor[Any]) -> bool:
    """Whether the operation selects nothing but ``EVENT_FIELDS`` of its one root field
    (written out as fields: a fragment counts as more)."""
    roots = executor.operation.selection_set.selections
    if len(roots) != 1 or not isinstance(roots[0], FieldNode):
        return False
    inner = roots[0].selection_set
    return inner is not None and all(
        isinstance(s, FieldNode) and s.name.value in EVENT_FIELDS and s.selection_set is None
        for s in inner.selections
    )


def _operation_key(executor: Executor[Any]) -> tuple[Any, bool] | None:
    """What identifies an operation's results for one event: the operation (one parsed
    document per query text, see ``api.shape.cached_parse``) and its variables, and
    whether it selects past the event's own fields; None when a variable is not a plain
    value (then nothing is shared)."""
    coerced = executor.variable_values.coerced
    if any(type(v) not in _PLAIN for v in coerced.values()):
        return None
    key = (id(executor.operation), tuple(sorted(coerced.items())))
    return key, not _event_fields_only(executor)


def result_key(key: Any, whole: bool, event: Any) -> Any:
    """The key of the result of operation ``key`` for the viewer of ``event`` (a
    ``TableEvent`` as its sight sees it; None: not shared): the operation's alone among the
    results of the viewer's ``Sight.of_event``, else (``whole``: it selects past the
    event's own fields) with its sight's ``whole_key``."""
    if not whole:
        return key
    sight = event.sight.whole_key()
    return None if sight is None else (key, sight)


def _event_key(operation: tuple[Any, bool], payload: Any) -> Any:
    key, whole = operation
    return result_key(key, True, payload) if whole else key


class _Done:
    """Stands for a per-event executor whose result is known already."""

    __slots__ = ("result",)

    def __init__(self, result: ExecutionResult) -> None:
        self.result = result

    def execute_operation(self, serially: bool | None = None) -> ExecutionResult:
        return self.result


class SharingExecutor(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's executor, sharing a subscription event's result (see the module)."""

    _share_key: Any = _UNSET

    def build_per_event_executor(self, payload: Any) -> Any:
        operation = self._share_key
        if operation is _UNSET:
            operation = self._share_key = _operation_key(self)
        results = getattr(payload, "shared", None)
        if results is not None and operation is not None:
            key = _event_key(operation, payload)
            found = results.get(key) if key is not None else None
            if found is not None and found[0] is self.operation:
                return _Done(found[1])  # no per-event copy of the executor to make
        return super().build_per_event_executor(payload)

    def execute_operation(self, serially: bool | None = None) -> Any:
        results = getattr(self.root_value, "shared", None)
        operation = self._share_key
        if results is None or operation is None or operation is _UNSET:
            return super().execute_operation(serially)
        key = _event_key(operation, self.root_value)
        if key is None:
            return super().execute_operation(serially)
        found = results.get(key)
        if found is not None and found[0] is self.operation:
            return found[1]
        result = super().execute_operation(serially)
        if self.is_awaitable(result):
            return self._keep_later(results, key, result)
        return self._keep(results, key, result)

    def _keep(self, results: dict[Any, Any], key: Any, result: Any) -> Any:
        if not isinstance(result, ExecutionResult) or result.errors or result.data is None:
            return result
        shared = ExecutionResult(SharedData(result.data), None, result.extensions)
        results[key] = (self.operation, shared)
        return shared

    async def _keep_later(self, results: dict[Any, Any], key: Any, result: Awaitable[Any]) -> Any:
        done = await result
        found = results.get(key)
        if found is not None and found[0] is self.operation:
            return found[1]  # another subscriber's execution finished first
        return self._keep(results, key, done)


def shared_payload(message: Any) -> SharedData | None:
    """The shared data of a ``next`` (graphql-transport-ws) or ``data`` (graphql-ws)
    message that carries nothing else, or None."""
    if type(message) is not dict or message.get("type") not in ("next", "data"):
        return None
    payload = message.get("payload")
    if type(payload) is not dict or len(payload) != 1:
        return None
    data = payload.get("data")
    return data if type(data) is SharedData else None


def shared_result(value: Any) -> SharedData | None:
    """The shared data of a result sent as it is over an HTTP stream: ``{"data": ...}``
    (graphql-sse) or ``{"payload": {"data": ...}}`` (multipart), or None."""
    if type(value) is not dict or len(value) != 1:
        return None
    if "payload" in value:
        value = value["payload"]
        if type(value) is not dict or len(value) != 1:
            return None
    data = value.get("data")
    return data if type(data) is SharedData else None


def encode_result(value: Mapping[str, Any], data: SharedData) -> str:
    """The JSON text of ``shared_result``'s ``value``; ``data`` is encoded at its first use
    only."""
    if data.text is None:
        data.text = _dumps(data)
    body = f'{{"data":{data.text}}}'
    return f'{{"payload":{body}}}' if "payload" in value else body


def _dumps(value: Any) -> str:
    return _json.dumps(value)


def encode_message(message: Mapping[str, Any], data: SharedData) -> str:
    """The JSON text of ``message`` whose payload is ``{"data": data}``; ``data`` is encoded
    at its first use only."""
    head = _dumps({k: v for k, v in message.items() if k != "payload"})
    return f'{head[:-1]},"payload":{{"data":{text_of(data)}}}}}'


def text_of(data: SharedData) -> str:
    """The JSON text of ``data``, encoded at its first use only."""
    text = data.text
    if text is None:
        text = data.text = _dumps(data)
    return text


def next_head(operation_id: str) -> str:
    """The text of a ``next`` message of ``operation_id`` up to its data: with the data's
    text and ``}}`` after it, the message ``encode_message`` makes of ``{"id":
    operation_id, "type": "next", "payload": {"data": data}}``, for one subscription's
    every event."""
    head = _dumps({"id": operation_id, "type": "next"})
    return f'{head[:-1]},"payload":{{"data":'
