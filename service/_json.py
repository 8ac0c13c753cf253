"""JSON text of values on the hot paths (snapshots, events, answers): orjson, several
times faster, when it is installed, and the standard library otherwise or whenever
orjson refuses a value (integers past 64 bits, lone surrogates).

The text differs from ``json.dumps``'s in spacing, in writing non-ASCII characters as
UTF-8 rather than ``\\u`` escapes, and in writing NaN and infinities as ``null`` (which
``json.dumps`` writes as ``NaN``, a text no JSON parser must accept); nothing compares
these texts (the hash of a move uses ``json.dumps`` with sorted keys, unchanged).
Reading stays with ``json.loads``, which keeps every integer exact.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; this keeps it optional
    orjson = None  # type: ignore[assignment]  # json's functions below stand in

loads = json.loads


def _std_dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


if orjson is not None:
    _OPTIONS = orjson.OPT_NON_STR_KEYS

    def dumps(value: Any) -> str:
        """Compact JSON text of ``value`` (non-string keys become strings, as in json)."""
        try:
            return orjson.dumps(value, option=_OPTIONS).decode()
        except (TypeError, orjson.JSONEncodeError):
            return _std_dumps(value)

else:  # pragma: no cover
    dumps = _std_dumps
