"""Bad input: ``bench/fuzz.py`` for a bounded time (``TABLESTATE_FUZZ_SECONDS``, 10 by
default): operations generated from the schema, well- and ill-typed, over HTTP and
WebSocket; no 5xx, no ``INTERNAL``, no error without its code, every table intact."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .kit import REPORT

FUZZ = Path(__file__).resolve().parents[2] / "bench" / "fuzz.py"
SECONDS = float(os.environ.get("TABLESTATE_FUZZ_SECONDS", "10"))


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("tablestate_bench_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_fuzzed_operations_never_break_the_service(registry):
    fuzz = _fuzz_module()
    figures = fuzz.run(SECONDS, registry=registry)
    REPORT.append("fuzz: " + figures.report())
    assert not figures.failures, "\n\n".join(figures.failures)
    assert figures.operations > 100 and figures.tables_checked >= 6
    assert figures.codes["OK"] > 0 and figures.codes["BAD_INPUT"] > 0
