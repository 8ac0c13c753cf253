"""``tablestate.metrics``: the values held in one process read, at a scrape, exactly as
``prometheus_client``'s own metrics of the same names would show them."""

from __future__ import annotations

import random

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from tablestate import metrics as m


def _ours(text: bytes) -> list[str]:
    return [line for line in text.decode().splitlines() if "tablestate_" in line]


def test_values_in_process_render_as_prometheus_clients_own() -> None:
    ours = m.Metrics()
    registry = CollectorRegistry()
    theirs: dict[str, object] = {}
    for name, (text, labels) in m._COUNTERS.items():
        theirs[name] = Counter(name, text, labels, registry=registry)
    for name, text in m._GAUGES.items():
        theirs[name] = Gauge(name, text, registry=registry)
    for name, (text, labels) in m._HISTOGRAMS.items():
        theirs[name] = Histogram(name, text, labels, registry=registry, buckets=m.BUCKETS)

    def same(name: str, **labels: str) -> object:
        metric = theirs[name]
        return metric.labels(**labels) if labels else metric  # type: ignore[attr-defined]

    rng = random.Random(7)
    for _ in range(500):
        kind = rng.choice(["counter", "gauge", "histogram"])
        if kind == "counter":
            name = rng.choice(list(m._COUNTERS))
            labels = {k: rng.choice(["a", "b"]) for k in m._COUNTERS[name][1]}
            ours.inc(name, **labels)
            same(name, **labels).inc()  # type: ignore[attr-defined]
        elif kind == "gauge":
            name, value = rng.choice(list(m._GAUGES)), rng.randint(0, 9)
            ours.set(name, value)
            same(name).set(value)  # type: ignore[attr-defined]
        else:
            name = next(iter(m._HISTOGRAMS))
            seconds = rng.choice([0.0, 0.0005, 0.001, 0.3, 2.5, 9.0, rng.random() / 50])
            op = rng.choice(["commit", "load"])
            ours.observe(name, seconds, op=op)
            same(name, op=op).observe(seconds)  # type: ignore[attr-defined]
    assert _ours(ours.render()) == _ours(generate_latest(registry))
    assert ours.get("tablestate_subscribers") == same("tablestate_subscribers")._value.get()  # type: ignore[attr-defined]


def test_an_unknown_metric_is_a_programmer_error() -> None:
    with pytest.raises(KeyError):
        m.Metrics().inc("tablestate_no_such_total")
