"""Spans of a commit's steps and of store calls, with OpenTelemetry, when
``TABLESTATE_TRACING`` asks for them (docs/operations.md, "Tracing").

Off by default, and then free: nothing imports ``opentelemetry`` (the ``otel`` extra need
not be installed), and every ``span`` is one shared no-op. On, each HTTP request is a
server span, the child of the trace its ``traceparent`` header names (W3C Trace Context);
a commit (``tablestate.commit``) holds its steps ``load``, ``rules``, ``write`` and
``fan_out``, and every store call (``tablestate.store``, its ``op`` an attribute) is a
span where it happens. ``otlp`` exports over OTLP/HTTP, configured by the SDK's own
``OTEL_EXPORTER_OTLP_*`` variables; ``console`` prints the spans.

The tracer is the process's, as a logger is: configured once at start-up
(``configure``), read by the code that makes spans.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Final

from tablestate.config import ConfigError

_OFF: Final = contextlib.nullcontext()  # reusable: the one no-op span
_tracer: Any = None
_extract: Any = None
_server: Any = None
_client: Any = None
_error: Any = None  # opentelemetry.trace.StatusCode.ERROR
_current: Any = None  # opentelemetry.trace.get_current_span


def configure(mode: str, exporter: Any = None) -> None:
    """Turn spans on (``otlp``, ``console``) or off (``off``). ``exporter``: a span
    exporter to use instead (the tests' in-memory one).

    Raises:
        ConfigError: spans asked for without the ``otel`` extra installed.
    """
    global _tracer, _extract, _server
    if mode == "off" and exporter is None:
        _tracer = _extract = _server = _client = _error = _current = None
        return
    try:
        _start(mode, exporter)
    except ImportError as exc:
        raise ConfigError(
            f"TABLESTATE_TRACING={mode} needs OpenTelemetry: pip install 'tablestate[otel]' "
            f"({exc.name} is missing)"
        ) from exc


def _start(mode: str, exporter: Any) -> None:
    global _tracer, _extract, _server, _client, _error, _current
    from opentelemetry import propagate
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )
    from opentelemetry.trace import SpanKind, StatusCode, get_current_span

    provider = TracerProvider(resource=Resource.create({"service.name": "tablestate"}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif mode == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    _tracer = provider.get_tracer("tablestate")
    _extract, _server, _client = propagate.extract, SpanKind.SERVER, SpanKind.CLIENT
    _error, _current = StatusCode.ERROR, get_current_span


def enabled() -> bool:
    return _tracer is not None


def span(name: str, attributes: Mapping[str, Any] | None = None) -> AbstractContextManager[Any]:
    """A span of this name, the child of the current one, while the block runs."""
    if _tracer is None:
        return _OFF
    found: AbstractContextManager[Any] = _tracer.start_as_current_span(name, attributes=attributes)
    return found


def request(
    headers: Mapping[str, str], method: str, route: str, path: str, scheme: str
) -> AbstractContextManager[Any]:
    """The server span of an HTTP request, named and described by OpenTelemetry's HTTP
    conventions (``{method} {route}``, ``http.request.method``, ``http.route``, ``url.path``,
    ``url.scheme``): the child of its ``traceparent``, if any. ``http_status`` adds its
    answer's status; ``graphql_operation`` and ``graphql_errors`` what GraphQL made of it."""
    if _tracer is None:
        return _OFF
    attributes = {
        "http.request.method": method,
        "http.route": route,
        "url.path": path,
        "url.scheme": scheme,
    }
    found: AbstractContextManager[Any] = _tracer.start_as_current_span(
        f"{method} {route}", context=_extract(headers), kind=_server, attributes=attributes
    )
    return found


def http_status(span: Any, status: int) -> None:
    """The status code of the answer to a server span's request; a 5xx is an error (a 4xx
    is the client's: left unset, as the HTTP conventions say for a server)."""
    span.set_attribute("http.response.status_code", status)
    if status >= 500:
        span.set_status(_error)


def graphql_operation(kind: str, name: str | None) -> None:
    """The GraphQL operation the current request runs (``graphql.operation.type``: query,
    mutation or subscription; ``graphql.operation.name`` when it has one)."""
    if _tracer is None:
        return
    span = _current()
    span.set_attribute("graphql.operation.type", kind)
    if name:
        span.set_attribute("graphql.operation.name", name)


def graphql_errors(codes: list[str]) -> None:
    """The current request's GraphQL answer carried errors (their ``extensions.code``): an
    error status, described by the first code, which ``error.type`` also names. A GraphQL
    answer is an HTTP 200 whatever went wrong, so this is how a trace tells a failed
    operation from a good one."""
    if _tracer is None or not codes:
        return
    span = _current()
    span.set_attribute("error.type", codes[0])
    span.set_status(_error, codes[0])


def store_span(op: str, system: str | None) -> AbstractContextManager[Any]:
    """The client span of one store call, named by the call (``db.operation.name``: commit,
    load, ...: one Lua script or pipeline of Redis commands each), with ``db.system`` (and
    the newer ``db.system.name``) where the store is a database."""
    if _tracer is None:
        return _OFF
    attributes: dict[str, str] = {"db.operation.name": op}
    if system is not None:
        attributes["db.system"] = attributes["db.system.name"] = system
    found: AbstractContextManager[Any] = _tracer.start_as_current_span(
        op, kind=_client, attributes=attributes
    )
    return found
