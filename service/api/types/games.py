"""GraphQL types of what is installed: games, their house rules, the plugins.

No ``from __future__ import annotations`` here: Strawberry reads these annotations.
"""

import strawberry
from strawberry.scalars import JSON

from tablestate.api.context import Context
from tablestate.api.types.nodes import Node
from tablestate.engine.game import HouseRuleDef
from tablestate.engine.lobby import EVENT_TYPES as SOCIAL_EVENT_TYPES
from tablestate.engine.options import table_schema
from tablestate.engine.schema import global_id, resolver
from tablestate.engine.table import CORE_EVENT_TYPES
from tablestate.plugins import PluginInfo, Registry
from tablestate.webviews import url_of

Info = strawberry.Info[Context, None]


@strawberry.type(description="An on/off variant of one game, enabled per table.")
class HouseRule(Node):
    id: strawberry.ID = strawberry.field(description="`<game id>/<rule>` (also its global id).")
    game_id: strawberry.ID = strawberry.field(description="The game it changes.")
    name: str = strawberry.field(description="Display name.")
    description: str = strawberry.field(description="Exactly what changes.")
    conflicts_with: list[strawberry.ID] = strawberry.field(
        description="Rules that cannot be on together with this one."
    )
    min_players: int | None = strawberry.field(description="Fewest players it allows.")
    max_players: int | None = strawberry.field(description="Most players it allows.")

    @classmethod
    def of(cls, rule: HouseRuleDef, registry: Registry) -> "HouseRule":
        return cls(
            id=strawberry.ID(rule.id),
            game_id=strawberry.ID(rule.game_id),
            name=rule.name,
            description=rule.description,
            conflicts_with=[strawberry.ID(c) for c in registry.conflicts(rule.id)],
            min_players=rule.min_players,
            max_players=rule.max_players,
        )


@strawberry.type(description="A game's sentence for one type of event.")
class EventText:
    type: str = strawberry.field(description="The event type, e.g. card.played.")
    text: str = strawberry.field(
        description=(
            "A sentence with the event's public data fields in braces and {player} for "
            "the seat that acted, e.g. '{player} played {card}'."
        )
    )


@strawberry.type(description="An installed game.")
class Game(Node):
    id: strawberry.ID = strawberry.field(
        description="The game id, e.g. five-crowns (also its global id)."
    )
    name: str = strawberry.field(description="Display name.")
    summary: str = strawberry.field(description="A sentence or two for a lobby.")
    min_players: int = strawberry.field(description="Fewest seats.")
    max_players: int = strawberry.field(description="Most seats.")
    options: JSON = strawberry.field(description="JSON Schema of the table options.")
    event_types: list[str] = strawberry.field(
        description="Every event type this game emits, core ones included."
    )
    view_module: str | None = strawberry.field(
        description=(
            "The URL path on this server of the game's own ES-module view for the web page "
            "(/games/<game id>/<file>); null: the game has none."
        )
    )
    uses_chance: bool = strawberry.field(
        description="Whether the game shuffles or rolls (false: no fair-shuffle proof to show)."
    )
    event_texts: list[EventText] = strawberry.field(
        description="The game's sentence per event type, for the types it words (by type)."
    )

    @resolver(description="The house rules installed for this game.")
    def house_rules(self, info: Info) -> list[HouseRule]:
        reg = info.context.services.registry
        return [HouseRule.of(r, reg) for r in reg.rules_of(str(self.id))]

    @classmethod
    def of(cls, game_id: str, registry: Registry) -> "Game":
        g = registry.games[game_id]
        types = list(dict.fromkeys([*CORE_EVENT_TYPES, *SOCIAL_EVENT_TYPES, *g.event_types]))
        return cls(
            id=strawberry.ID(g.id),
            name=g.name,
            summary=g.summary,
            min_players=g.min_players,
            max_players=g.max_players,
            options=JSON(table_schema(g.options)),
            event_types=types,
            view_module=url_of(g.id, g.web_view),
            uses_chance=g.uses_chance,
            event_texts=[EventText(type=k, text=v) for k, v in sorted(g.event_texts.items())],
        )


@strawberry.type(description="A loaded plugin.")
class Plugin:
    id: strawberry.ID = strawberry.field(description="This plugin's id.")
    name: str = strawberry.field(description="The plugin's name (its entry point).")
    source: str = strawberry.field(description="Where it was found.")
    hooks: list[str] = strawberry.field(description="The hooks it implements.")
    games: list[str] = strawberry.field(description="Games it provides.")
    house_rules: list[str] = strawberry.field(description="House rules it provides.")

    @classmethod
    def of(cls, p: PluginInfo) -> "Plugin":
        return cls(
            id=strawberry.ID(global_id("Plugin", p.name)),
            name=p.name,
            source=p.source,
            hooks=list(p.hooks),
            games=list(p.games),
            house_rules=list(p.house_rules),
        )
