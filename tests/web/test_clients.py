"""The client stacks frontend teams use, unmodified, at the versions of
``tests/node/package-lock.json``, against the real server (docs/clients.md): Apollo Client,
urql with Graphcache, Relay (its compiler and runtime), graphql-sse, and GraphQL Code
Generator with ``tsc``. Each fails when its Node test fails."""

from __future__ import annotations

import pytest

CLIENTS = [
    pytest.param("apollo.test.mjs", id="apollo-client"),
    pytest.param("urql.test.mjs", id="urql-graphcache"),
    pytest.param("relay.test.mjs", id="relay"),
    pytest.param("sse.test.mjs", id="graphql-sse"),
]


@pytest.mark.parametrize("test_file", CLIENTS)
def test_client_stack_against_the_server(run_node, server_url, test_file):
    run_node(test_file, {"TABLESTATE_URL": server_url}, timeout=240)


def test_generated_types_compile(run_node):
    run_node("typed.test.mjs", {}, timeout=120)
