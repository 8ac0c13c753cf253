"""graphql-http's audit suite of the GraphQL over HTTP spec (tests/node/http-audit.test.mjs)
against the real server: no MUST fails and no SHOULD warns, save those kept with their
reason in docs/clients.md."""

from __future__ import annotations


def test_graphql_over_http_audit(run_node, server_url):
    run_node("http-audit.test.mjs", {"TABLESTATE_URL": server_url}, timeout=120)
