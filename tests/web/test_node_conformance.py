"""The Node.js conformance test (tests/node/conformance.test.mjs: graphql-ws and graphql
from npm) against the real server: full games of each bundled game, a resumed
subscription, the error codes. It fails when the Node test fails."""

from __future__ import annotations


def test_node_graphql_ws_client_conforms(run_node, server_url):
    run_node("conformance.test.mjs", {"TABLESTATE_URL": server_url}, timeout=300)
