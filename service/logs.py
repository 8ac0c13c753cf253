"""JSON log lines carrying the request and table they belong to; tokens are never logged.

``request_id`` and ``table_id`` are context variables: set where a request begins and
where a table is loaded, they follow the work into every task it starts.
"""

from __future__ import annotations

import contextvars
import json
import logging
from typing import Final

request_id: Final[contextvars.ContextVar[str | None]] = contextvars.ContextVar(
    "request_id", default=None
)
table_id: Final[contextvars.ContextVar[str | None]] = contextvars.ContextVar(
    "table_id", default=None
)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: level, logger, message, request and table ids."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": self.formatTime(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid, tid = request_id.get(), table_id.get()
        if rid is not None:
            out["request_id"] = rid
        if tid is not None:
            out["table_id"] = tid
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out)


def configure(level: str) -> None:
    """JSON lines on stderr for the service's own loggers and uvicorn's."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
