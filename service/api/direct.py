"""The hottest operations, run without the per-operation machinery: ``makeMove`` over
graphql-transport-ws and HTTP POST, ``tableEvents`` over graphql-transport-ws.

Every move of a game is a ``makeMove`` mutation and every live event a ``tableEvents``
result; on a WebSocket both went through Strawberry's streaming execution: extension hooks
entered and left at every phase, an execution context, graphql-core's executor walking the
selection with a resolve-info object per field. That machinery was about a third of the
server CPU of a move (docs/performance-history.md). Here an operation whose document is
one of those two fields, selecting only plain fields, runs straight through: the same
variable and argument coercion (graphql-core's own functions), the same checks
(``Checks.cost`` and ``Checks.admit``), the same resolver bodies (``make_move_payload``,
``event_stream``), the same error handling (``located_error`` and the schema's
``process_errors``), and a result built from a plan made once per document.

What an operation must be to run here (``plan_of``): a document that passes every check of
the slow path (``Checks.check``: the same checks and rules, and the same verdict by
document, whichever path asks first); one operation, without directives, whose one root field is
``makeMove`` or ``tableEvents`` (aliases are fine); below it fields only (no fragments,
directives or arguments, no response key twice), each read as the schema declares it: the
object's attribute, or the field's own resolver when it needs nothing but the object
(``reader``; a field whose resolver is async or takes ``info`` or arguments needs the
executor). There is no second list of fields: a field added to a type is read the same way
here as there. Anything
else, and any operation whose variables or arguments do not coerce or whose cost is over
the bound (nothing has happened yet), goes the slow path, which answers it as before.
``TABLESTATE_DIRECT_OPERATIONS=0`` sends every operation the slow path; the tests compare
the two paths message by message (tests/service/api/test_direct.py).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from graphql import (
    GraphQLError,
    GraphQLFormattedError,
    GraphQLSchema,
    OperationType,
    located_error,
)
from graphql.execution.values import get_argument_values, get_variable_values
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import Operation

from tablestate.api import fanout
from tablestate.api.checks import Checks
from tablestate.api.plans import SLOW, Plan, plan_of, render
from tablestate.api.resolvers.events import event_stream
from tablestate.api.resolvers.moves import make_move_payload, plain_input
from tablestate.api.shape import cached_parse
from tablestate.api.upstream import answer, graphql_schema

CACHE_SIZE: Final = 512
MEMO_SIZE: Final = 1024  # coerced arguments kept per plan
_PLAIN: Final = (str, int, float, bool, type(None))


class Direct:
    """The plans of one schema, by (query, operation name), and the runs."""

    def __init__(self, schema: Any, checks: type[Checks], enabled: bool = True) -> None:
        self.schema = schema
        self.graphql: GraphQLSchema = graphql_schema(schema)
        self.checks = checks
        self.enabled = enabled
        self._plans: dict[tuple[str, str | None], Any] = {}
        self.runs = 0  # operations run here (tests read it)

    def plan(self, query: Any, operation_name: Any) -> Plan | None:
        if not self.enabled or type(query) is not str:
            return None
        if operation_name is not None and type(operation_name) is not str:
            return None
        key = (query, operation_name)
        found = self._plans.get(key)
        if found is None:
            try:
                document = cached_parse(query, max_tokens=self.checks.max_tokens)
            except GraphQLError:
                found = SLOW
            else:
                passed = self.checks.check(self.graphql, document)
                found = plan_of(self.schema, document, operation_name) if passed else SLOW
            if len(self._plans) >= CACHE_SIZE:
                self._plans.clear()
            self._plans[key] = found
        return found if isinstance(found, Plan) else None

    def prepare(
        self, plan: Plan, variables: Any, operation_name: str | None
    ) -> tuple[dict[str, Any], int] | None:
        """The root field's coerced arguments and the operation's cost, or None when the
        slow path must answer (variables or arguments that do not coerce, a cost over the
        bound): nothing has happened yet. The arguments are shared: read them only."""
        if variables is not None and type(variables) is not dict:
            return None
        memo = None
        if variables is None or all(type(v) in _PLAIN for v in variables.values()):
            # with each value's type: True == 1, and 1.0 == 1, yet they coerce apart
            items = variables.items() if variables else ()
            memo = (operation_name, tuple((k, type(v), v) for k, v in items))
            found = plan.prepared.get(memo)
            if found is not None:
                return found
        coerced = get_variable_values(
            self.graphql, plan.operation.variable_definitions or (), variables or {}
        )
        if isinstance(coerced, list):
            return None
        parent = self.graphql.get_root_type(plan.operation.operation)
        try:
            defined = parent.fields[plan.root.name.value]  # type: ignore[union-attr]  # validated
            args = get_argument_values(defined, plan.root, coerced)
            cost = self.checks.cost(self.graphql, plan.document, operation_name, variables, coerced)
        except Exception:
            return None
        prepared = (args, cost)
        if memo is not None:
            if len(plan.prepared) >= MEMO_SIZE:
                plan.prepared.clear()
            plan.prepared[memo] = prepared
        return prepared

    def _graphql_error(self, exc: Exception, plan: Plan, located: bool) -> GraphQLError:
        if located:
            error = located_error(exc, [plan.root], [plan.root_key])
        else:
            error = (
                exc if isinstance(exc, GraphQLError) else GraphQLError(str(exc), original_error=exc)
            )
        self.schema.process_errors([error])
        return error

    def _error(self, exc: Exception, plan: Plan, located: bool) -> GraphQLFormattedError:
        return self._graphql_error(exc, plan, located).formatted

    def _count(self, kind: str) -> None:
        self.runs += 1
        metrics = self.checks.metrics
        if metrics is not None:
            metrics.inc("tablestate_requests_total", type=kind)

    async def run(self, operation: Operation[Any, Any]) -> bool:
        """Run an operation of a WebSocket here and answer it there, if it can run here
        (False: nothing has happened, the executor must run it)."""
        plan = self.plan(operation.query, operation.operation_name)
        prepared = None
        if plan is not None:
            prepared = self.prepare(plan, operation.variables, operation.operation_name)
        if plan is None or prepared is None:
            return False
        if plan.operation.operation is OperationType.MUTATION:
            await self._mutation(operation, plan, *prepared)
        else:
            await self._subscription(operation, plan, *prepared)
        return True

    async def move(
        self, context: Any, plan: Plan, args: dict[str, Any], cost: int
    ) -> tuple[bool, list[GraphQLError], dict[str, Any] | None]:
        """Run a prepared ``makeMove``: whether it ran (False: refused before it ran, as
        the executor refuses an operation its checks stop), its errors (classified), and
        its data."""
        self._count("mutation")
        try:
            await self.checks.admit(context, cost, True)
        except Exception as exc:  # as the slow path: an error before execution
            return False, [self._graphql_error(exc, plan, located=False)], None
        try:
            moved = await make_move_payload(
                context,
                str(args["tableId"]),
                plain_input(args["move"]),
                args.get("expectedVersion"),
                args.get("idempotencyKey"),
            )
            data = {plan.root_key: render(plan.fields, moved)}
        except Exception as exc:  # located and classified, as graphql-core's
            return True, [self._graphql_error(exc, plan, located=True)], None
        # The move's events went to this replica's subscribers (the mover's first, see
        # Hub._deliver): what a subscription took where they were delivered is framed
        # already; what waits in a queue goes out first after a turn of the loop, before
        # the mover's answer, since they are what every player's screen shows.
        if not context.services.hub.settled(str(args["tableId"])):
            await asyncio.sleep(0)
        return True, [], data

    async def _mutation(
        self, operation: Operation[Any, Any], plan: Plan, args: dict[str, Any], cost: int
    ) -> None:
        ran, errors, data = await self.move(operation.handler.context, plan, args, cost)
        formatted = [e.formatted for e in errors]
        if not ran:
            await operation.send_operation_message(
                {"id": operation.id, "type": "error", "payload": formatted}
            )
            return
        await answer(operation, {"data": data, "errors": formatted} if errors else {"data": data})

    async def _subscription(
        self, operation: Operation[Any, Any], plan: Plan, args: dict[str, Any], cost: int
    ) -> None:
        context = operation.handler.context
        self._count("subscription")
        share = plan.share
        try:
            await self.checks.admit(context, cost, False)
        except Exception as exc:
            payload = {"data": None, "errors": [self._error(exc, plan, located=False)]}
            await _next(operation, payload)
            await _complete(operation)
            return

        def shared(event: Any) -> fanout.SharedData:
            """The event's result for this selection, made once per sight that shares it
            (``fanout.result_key``)."""
            results = event.shared
            if plan.events_only:
                key = share
            else:
                key = fanout.result_key(share, True, event)
                if key is None:
                    results = None  # this viewer's own
            data = results.get(key) if results is not None else None
            if data is None:
                data = fanout.SharedData({plan.root_key: render(plan.fields, event)})
                if results is not None:
                    results[key] = data
            return data

        handler = operation.handler
        send_now = getattr(handler.websocket, "send_text_now", None)
        head = fanout.next_head(operation.id)  # the message of each event: head, data, "}}"

        def take(event: Any) -> bool:
            """A live event sent where it is delivered, if the socket takes it now."""
            if operation.completed or handler.operations.get(operation.id) is not operation:
                return True  # stopped: nothing more is sent for it
            text = head + fanout.text_of(shared(event)) + "}}"
            sent: bool = send_now(text)  # type: ignore[misc]  # take is used when it is set
            return sent

        live = take if send_now is not None else None
        stream = event_stream(context, str(args["tableId"]), args.get("after"), live)
        try:
            async for event in stream:
                await _next(operation, {"data": shared(event)})
                del event  # while it waits, the subscription holds no event
        except Exception as exc:
            payload = {"data": None, "errors": [self._error(exc, plan, located=False)]}
            await _next(operation, payload)
        finally:
            await stream.aclose()
        await _complete(operation)


async def _next(operation: Operation[Any, Any], payload: dict[str, Any]) -> None:
    message: Any = {"id": operation.id, "type": "next", "payload": payload}
    await operation.send_operation_message(message)


async def _complete(operation: Operation[Any, Any]) -> None:
    await operation.send_operation_message({"id": operation.id, "type": "complete"})
