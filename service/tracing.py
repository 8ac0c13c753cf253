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


def configure(mode: str, exporter: Any = None) -> None:
    """Turn spans on (``otlp``, ``console``) or off (``off``). ``exporter``: a span
    exporter to use instead (the tests' in-memory one).

    Raises:
        ConfigError: spans asked for without the ``otel`` extra installed.
    """
    global _tracer, _extract, _server
    if mode == "off" and exporter is None:
        _tracer = _extract = _server = None
        return
    try:
        _start(mode, exporter)
    except ImportError as exc:
        raise ConfigError(
            f"TABLESTATE_TRACING={mode} needs OpenTelemetry: pip install 'tablestate[otel]' "
            f"({exc.name} is missing)"
        ) from exc


def _start(mode: str, exporter: Any) -> None:
    global _tracer, _extract, _server
    from opentelemetry import propagate
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )
    from opentelemetry.trace import SpanKind

    provider = TracerProvider(resource=Resource.create({"service.name": "tablestate"}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif mode == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    _tracer = provider.get_tracer("tablestate")
    _extract, _server = propagate.extract, SpanKind.SERVER


def enabled() -> bool:
    return _tracer is not None


def span(name: str, attributes: Mapping[str, Any] | None = None) -> AbstractContextManager[Any]:
    """A span of this name, the child of the current one, while the block runs."""
    if _tracer is None:
        return _OFF
    found: AbstractContextManager[Any] = _tracer.start_as_current_span(name, attributes=attributes)
    return found


def request(headers: Mapping[str, str], name: str) -> AbstractContextManager[Any]:
    """The server span of an HTTP request: the child of its ``traceparent``, if any."""
    if _tracer is None:
        return _OFF
    found: AbstractContextManager[Any] = _tracer.start_as_current_span(
        name, context=_extract(headers), kind=_server
    )
    return found
