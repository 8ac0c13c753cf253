"""The rules in force at one table: the house rules enabled there, and the game's hooks
called on them only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class HookNamespace:
    """Hook callers by name, each calling only the plugins a rule set allows.

    ``rules.hook.five_crowns_meld_allowed(meld=..., wild=...)`` calls that hook on the
    game's plugins and on the house rules enabled at the table, and on no other rule.
    """

    __slots__ = ("_cache", "_factory")

    def __init__(self, factory: Callable[[str], Callable[..., Any]]) -> None:
        self._factory = factory
        self._cache: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        caller = self._cache.get(name)
        if caller is None:
            caller = self._cache[name] = self._factory(name)
        return caller


def _no_hooks(name: str) -> Callable[..., list[Any]]:
    def call(**kwargs: Any) -> list[Any]:
        return []

    return call


@dataclass(frozen=True, eq=False)
class RuleSet:
    """The house rules enabled at a table, and the game's hooks called on them.

    Args:
        enabled: ids of the house rules on at the table.
        hook: the game's hooks, called on the enabled rules only (results in pluggy's
            order: last registered first; sort where order matters).
    """

    enabled: frozenset[str] = frozenset()
    hook: Any = field(default_factory=lambda: HookNamespace(_no_hooks))

    def is_on(self, rule_id: str) -> bool:
        """Whether a house rule is enabled here."""
        return rule_id in self.enabled
