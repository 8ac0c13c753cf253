"""JSON text of values on the hot paths (snapshots, events, answers): orjson, several
times faster, when it is installed, and the standard library otherwise or whenever
orjson refuses a value (integers past 64 bits, lone surrogates).

The text differs from ``json.dumps``'s in spacing, in writing non-ASCII characters as
UTF-8 rather than ``\\u`` escapes, and in writing NaN and infinities as ``null`` (which
``json.dumps`` writes as ``NaN``, a text no JSON parser must accept); nothing compares
these texts (the hash of a move uses ``json.dumps`` with sorted keys, unchanged).
Reading is orjson's too, and ``json.loads``'s for a text orjson refuses (a NaN, a lone
surrogate escape, invalid JSON) or would read otherwise (an integer past 64 bits, which
orjson makes a float and ``json.loads`` keeps exact): the same values either way, and
``json.loads``'s error for a text neither reads.
"""

from __future__ import annotations

import json
import re
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; this keeps it optional
    orjson = None  # type: ignore[assignment]


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

    # orjson reads an integer past 64 bits as a float: a text with 19 digits in a row (it
    # may hold one: 2**63 has 19) goes to ``json.loads``.
    _LONG = re.compile(r"\d{19}")
    _LONG_BYTES = re.compile(rb"\d{19}")

    def loads(text: str | bytes) -> Any:
        """The value of a JSON text, as ``json.loads`` gives it."""
        long = _LONG_BYTES if isinstance(text, bytes) else _LONG
        if long.search(text) is None:  # type: ignore[arg-type]
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                pass
        return json.loads(text)

else:  # pragma: no cover
    dumps = _std_dumps
    loads = json.loads
