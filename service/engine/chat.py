"""Chat at a table: what a message may be, pure (the service sends it, rate-limited).

A message is NFC-normalized and trimmed; it is 1 to ``MAX_CHAT`` characters, on one line,
with no control characters and no bidirectional overrides (which could make a message
look like another). Emoji sequences (zero-width joiners, variation selectors) are fine.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_CHAT: Final = 500

SEAT_MESSAGE: Final = "chat.message"  # from a seat: seen by everyone
SPECTATOR_MESSAGE: Final = "chat.spectator"  # from a viewer without a seat: spectators only

# U+202A..U+202E (embeddings, overrides) and U+2066..U+2069 (isolates).
_BIDI: Final = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))


def clean_text(text: str, limit: int = MAX_CHAT) -> str | None:
    """The message as it is stored, or None when it may not be sent."""
    text = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(text) <= limit:
        return None
    for c in text:
        if c in _BIDI or unicodedata.category(c) in ("Cc", "Cs", "Co", "Zl", "Zp"):
            return None
    return text
