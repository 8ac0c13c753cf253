"""The service's Prometheus metrics, on ``prometheus_client``: no table ids in labels.

Each ``Metrics`` has a registry of its own (several services may share a process in the
tests). With ``--workers N``, ``tablestate serve`` names a folder in
``PROMETHEUS_MULTIPROC_DIR`` before the workers start (``multiprocess_dir``): each worker
then writes its values there, and a scrape, whichever worker answers it, adds up every
worker's counts (``render``). The process and garbage-collector metrics are those of the
worker that answers.

Labelled children are made once and kept (``child``). In one process (the default), the
values are plain numbers of our own, read by a collector at each scrape: an increment per
event delivered or per store call costs a dict lookup and an addition, where
``prometheus_client``'s own values take a lock and a check each. Workers that write their
values for a multi-worker scrape use ``prometheus_client``'s values, which do.
"""

from __future__ import annotations

import bisect
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST

_COUNTERS: Final = {
    "tablestate_requests_total": ("GraphQL operations executed, by type.", ("type",)),
    "tablestate_errors_total": ("Refused or failed operations, by code.", ("code",)),
    "tablestate_commits_total": ("Commits that landed, by kind.", ("kind",)),
    "tablestate_commit_conflicts_total": ("Commits lost to a newer version.", ()),
    "tablestate_bot_moves_total": ("Moves made by bots.", ()),
    "tablestate_clock_timeouts_total": (
        "Moves the bot made for a seat whose clock ran out.",
        (),
    ),
    "tablestate_events_delivered_total": ("Events sent to subscribers.", ()),
    "tablestate_slow_consumers_total": ("Subscribers dropped as too slow.", ()),
    "tablestate_archived_total": ("Finished or cancelled tables archived, by status.", ("status",)),
    "tablestate_archive_failures_total": (
        "Tries to archive a table that the database refused or did not answer.",
        (),
    ),
}
_GAUGES: Final = {
    "tablestate_subscribers": "Open tableEvents subscriptions (of every live worker).",
    "tablestate_watched_tables": "Tables followed for subscribers (of every live worker).",
    "tablestate_archive_degraded": "1 while the archive's database fails (tables wait).",
}
_HISTOGRAMS: Final = {
    "tablestate_store_seconds": ("Latency of store calls (Redis round trips).", ("op",)),
}
BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

# The ``*_created`` series say when each counter was made: noise next to these counts.
disable_created_metrics()


def multiprocess() -> bool:
    """Whether this process writes its values for a multi-worker scrape."""
    return bool(os.environ.get(MULTIPROC_ENV))


def multiprocess_dir(folder: str | None = None) -> str:
    """Prepare the folder the workers of ``tablestate serve --workers N`` write their
    values to (``folder``, or a new temporary one), emptied of an earlier run's files, and
    name it in the environment the workers inherit. Call it before they start."""
    found = folder or tempfile.mkdtemp(prefix="tablestate-metrics-")
    os.makedirs(found, exist_ok=True)
    for name in os.listdir(found):
        if name.endswith(".db"):
            os.remove(os.path.join(found, name))
    os.environ[MULTIPROC_ENV] = found
    return found


def remove_dir(folder: str) -> None:
    """Remove a folder that ``multiprocess_dir`` made."""
    shutil.rmtree(folder, ignore_errors=True)


class _Count:
    """A counter's (or a gauge's) value in this process."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def set(self, value: float) -> None:
        self.value = value


class _Spread:
    """A histogram's observations in this process: a count per bucket, and their sum."""

    __slots__ = ("counts", "sum")

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)  # the last: past every bound (+Inf)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, amount)] += 1
        self.sum += amount


class _Local:
    """The collector of the values held in this process, as ``prometheus_client``'s own
    metrics of the same names, help and labels would show them."""

    def __init__(self) -> None:
        self.values: dict[str, dict[tuple[str, ...], Any]] = {}

    def value(self, name: str, labels: tuple[str, ...]) -> Any:
        found = self.values.setdefault(name, {}).get(labels)
        if found is None:
            found = _Spread() if name in _HISTOGRAMS else _Count()
            self.values[name][labels] = found
        return found

    def collect(self) -> Iterator[Metric]:
        family: Any
        for name, (text, names) in _COUNTERS.items():
            family = CounterMetricFamily(name, text, labels=names)
            counts = self.values.get(name, {})
            if not names and not counts:  # a counter without labels shows its zero
                counts = {(): _Count()}
            for labels, count in counts.items():
                family.add_metric(labels, count.value)
            yield family
        for name, text in _GAUGES.items():
            family = GaugeMetricFamily(name, text, labels=())
            family.add_metric((), self.values.get(name, {}).get((), _Count()).value)
            yield family
        for name, (text, names) in _HISTOGRAMS.items():
            family = HistogramMetricFamily(name, text, labels=names)
            for labels, spread in self.values.get(name, {}).items():
                running, buckets = 0, []
                for bound, count in zip((*BUCKETS, float("inf")), spread.counts, strict=True):
                    running += count
                    buckets.append((_bound(bound), float(running)))
                family.add_metric(labels, buckets, spread.sum)
            yield family


def _bound(value: float) -> str:
    """A bucket's ``le`` label, as ``prometheus_client`` writes it."""
    if value == float("inf"):
        return "+Inf"
    return repr(float(value))


class Metrics:
    """The metrics of one service; ``render()`` gives the Prometheus text format."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._metrics: dict[str, Any] = {}
        self._local: _Local | None = None
        if multiprocess():
            for name, (text, labels) in _COUNTERS.items():
                self._metrics[name] = Counter(name, text, labels, registry=self.registry)
            for name, text in _GAUGES.items():
                self._metrics[name] = Gauge(
                    name, text, registry=self.registry, multiprocess_mode="livesum"
                )
            for name, (text, labels) in _HISTOGRAMS.items():
                self._metrics[name] = Histogram(
                    name, text, labels, registry=self.registry, buckets=BUCKETS
                )
        else:
            self._local = _Local()
            self.registry.register(self._local)
        self._children: dict[tuple[str, tuple[tuple[str, str], ...]], Any] = {}
        ProcessCollector(registry=self.registry)
        GCCollector(registry=self.registry)

    def child(self, name: str, **labels: str) -> Any:
        """The metric ``name`` with these labels (made once, then kept): hold it where a
        value changes often."""
        key = (name, tuple(labels.items()))
        found = self._children.get(key)
        if found is None:
            if self._local is not None:
                if name not in _COUNTERS and name not in _GAUGES and name not in _HISTOGRAMS:
                    raise KeyError(name)
                found = self._local.value(name, tuple(labels.values()))
            else:
                metric = self._metrics[name]
                found = metric.labels(**labels) if labels else metric
            self._children[key] = found
        return found

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        self.child(name, **labels).inc(amount)

    def set(self, name: str, value: float, **labels: str) -> None:
        self.child(name, **labels).set(value)

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        """One observation of a histogram."""
        self.child(name, **labels).observe(seconds)

    def get(self, name: str, **labels: str) -> float:
        """The value this process holds (a counter's count, a gauge's value)."""
        sample = name if name in _GAUGES or name.endswith("_total") else f"{name}_count"
        found = self.registry.get_sample_value(sample, labels)
        return found or 0.0

    def render(self) -> bytes:
        """The text a scrape reads: every worker's values when they write them for a
        multi-worker scrape, this process's otherwise."""
        if not multiprocess():
            return generate_latest(self.registry)
        scrape = CollectorRegistry()
        _multiprocess.MultiProcessCollector(scrape)
        ProcessCollector(registry=scrape)
        GCCollector(registry=scrape)
        return generate_latest(scrape)

    def close(self) -> None:
        """This worker stops: its live gauges no longer count (its counters still do)."""
        if multiprocess():
            _multiprocess.mark_process_dead(os.getpid())
