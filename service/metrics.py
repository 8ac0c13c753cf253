"""A small Prometheus registry: counters and gauges, no table ids in labels."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Final

_HELP: Final = {
    "tablestate_requests_total": ("counter", "GraphQL operations executed, by type."),
    "tablestate_errors_total": ("counter", "Refused or failed operations, by code."),
    "tablestate_commits_total": ("counter", "Commits that landed, by kind."),
    "tablestate_commit_conflicts_total": ("counter", "Commits lost to a newer version."),
    "tablestate_bot_moves_total": ("counter", "Moves made by bots."),
    "tablestate_events_delivered_total": ("counter", "Events sent to subscribers."),
    "tablestate_slow_consumers_total": ("counter", "Subscribers dropped as too slow."),
    "tablestate_subscribers": ("gauge", "Open tableEvents subscriptions on this replica."),
    "tablestate_watched_tables": ("gauge", "Tables this replica follows for subscribers."),
}


class Metrics:
    """Process-local metrics; ``render()`` gives the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = defaultdict(float)

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        assert name in _HELP, name
        with self._lock:
            self._values[(name, tuple(sorted(labels.items())))] += amount

    def set(self, name: str, value: float, **labels: str) -> None:
        assert name in _HELP, name
        with self._lock:
            self._values[(name, tuple(sorted(labels.items())))] = value

    def get(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._values.get((name, tuple(sorted(labels.items()))), 0.0)

    def render(self) -> str:
        lines: list[str] = []
        with self._lock:
            values = dict(self._values)
        for name, (kind, help_text) in sorted(_HELP.items()):
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            rows = [(lb, v) for (n, lb), v in values.items() if n == name]
            if not rows:
                lines.append(f"{name} 0")
            for labels, value in sorted(rows):
                tag = ",".join(f'{k}="{v}"' for k, v in labels)
                lines.append(f"{name}{{{tag}}} {value:g}" if tag else f"{name} {value:g}")
        return "\n".join(lines) + "\n"
