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
    "tablestate_clock_timeouts_total": (
        "counter",
        "Moves the bot made for a seat whose clock ran out.",
    ),
    "tablestate_events_delivered_total": ("counter", "Events sent to subscribers."),
    "tablestate_slow_consumers_total": ("counter", "Subscribers dropped as too slow."),
    "tablestate_subscribers": ("gauge", "Open tableEvents subscriptions on this replica."),
    "tablestate_watched_tables": ("gauge", "Tables this replica follows for subscribers."),
    "tablestate_store_seconds": ("histogram", "Latency of store calls (Redis round trips)."),
}
BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """Process-local metrics; ``render()`` gives the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[tuple[str, tuple[tuple[str, str], ...]], float] = defaultdict(float)
        self._hist: dict[tuple[str, tuple[tuple[str, str], ...]], list[float]] = {}

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        assert name in _HELP, name
        with self._lock:
            self._values[(name, tuple(sorted(labels.items())))] += amount

    def set(self, name: str, value: float, **labels: str) -> None:
        assert name in _HELP, name
        with self._lock:
            self._values[(name, tuple(sorted(labels.items())))] = value

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        """One observation of a histogram: bucket counts, then sum and count."""
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            row = self._hist.get(key)
            if row is None:
                row = self._hist[key] = [0.0] * (len(BUCKETS) + 2)
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    row[i] += 1
            row[-2] += seconds
            row[-1] += 1

    def get(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._values.get((name, tuple(sorted(labels.items()))), 0.0)

    def render(self) -> str:
        lines: list[str] = []
        with self._lock:
            values = dict(self._values)
            hists = {k: list(v) for k, v in self._hist.items()}
        for name, (kind, help_text) in sorted(_HELP.items()):
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            if kind == "histogram":
                for (n, labels), row in sorted(hists.items()):
                    if n != name:
                        continue
                    tag = "".join(f'{k}="{v}",' for k, v in labels)
                    for bound, count in zip(BUCKETS, row, strict=False):
                        lines.append(f'{name}_bucket{{{tag}le="{bound:g}"}} {count:g}')
                    lines.append(f'{name}_bucket{{{tag}le="+Inf"}} {row[-1]:g}')
                    plain = f"{{{tag[:-1]}}}" if tag else ""
                    lines.append(f"{name}_sum{plain} {row[-2]:.6f}")
                    lines.append(f"{name}_count{plain} {row[-1]:g}")
                continue
            rows = [(lb, v) for (n, lb), v in values.items() if n == name]
            if not rows:
                lines.append(f"{name} 0")
            for labels, value in sorted(rows):
                tag = ",".join(f'{k}="{v}"' for k, v in labels)
                lines.append(f"{name}{{{tag}}} {value:g}" if tag else f"{name} {value:g}")
        return "\n".join(lines) + "\n"
