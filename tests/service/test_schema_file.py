"""schema/schema.graphql is the SDL of the bundled plugins; this fails when it is stale."""

from __future__ import annotations

from pathlib import Path

from tablestate.cli import export_sdl

SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "schema.graphql"


def test_exported_schema_is_current():
    assert SCHEMA.read_text(encoding="utf-8") == export_sdl(), (
        "schema/schema.graphql is stale: run `tablestate export-schema -o schema/schema.graphql`"
    )


def test_api_names_are_in_the_schema():
    sdl = export_sdl()
    for name in (
        "type Query",
        "tables(gameId: ID",
        "type TableConnection",
        "interface GameState",
        "input MoveInput @oneOf",
        "tableEvents(tableId: ID!, after: String",
        "makeMove(tableId: ID!, move: MoveInput!",
        "shuffleCommitment: String!",
        "enum SeatKind",
    ):
        assert name in sdl, name
