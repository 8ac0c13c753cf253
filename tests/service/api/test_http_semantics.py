"""GraphQL over HTTP's rules as the spec gives them: answers in
``application/graphql-response+json`` to a client that takes it, where a request error (a
document that does not parse or validate, variables that do not coerce) is a 400 without
``data`` and a field error a 200 with it; ``application/json`` as before to everyone else;
multipart's Content-Type as one media type; graphql-sse's single connection mode refused
with a message that says which mode is served."""

from __future__ import annotations

import pytest
from support.server import make_settings, serve
from support.streams import MULTIPART, subscribe

from tablestate.api.view import RESPONSE_JSON, answer_type
from tablestate.store.memory import MemoryStore

MODERN = {"Accept": "application/graphql-response+json, application/json;q=0.9"}
LEGACY = {"Accept": "application/json"}
TABLE = "query($t: ID!) { table(id: $t) { id } }"
REQUEST_ERRORS = [
    pytest.param({"query": "{ games { id "}, id="does not parse"),
    pytest.param({"query": "{ games { noSuchField } }"}, id="does not validate"),
    pytest.param({"query": TABLE, "variables": {"t": {"an": "object"}}}, id="variables"),
    pytest.param({"query": TABLE}, id="a required variable missing"),
]


@pytest.fixture
async def c(registry):
    async with serve(make_settings(), registry, MemoryStore()) as client:
        yield client


@pytest.mark.parametrize("body", REQUEST_ERRORS)
async def test_a_request_error_is_a_400_without_data_to_a_modern_client(c, body):
    r = await c.http.post("/graphql", json=body, headers=MODERN)
    assert r.status_code == 400 and r.headers["content-type"].startswith(RESPONSE_JSON)
    answer = r.json()
    assert "data" not in answer and answer["errors"][0]["message"]
    # to a client of application/json: the answer it had before, a 200
    r = await c.http.post("/graphql", json=body, headers=LEGACY)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.json()["errors"]


async def test_data_and_field_errors_are_200s_in_the_type_asked_for(c):
    r = await c.http.post("/graphql", json={"query": "{ games { id } }"}, headers=MODERN)
    assert r.status_code == 200 and r.headers["content-type"] == RESPONSE_JSON
    assert r.json()["data"]["games"]
    # a field's error: the document executed, so a 200 with its data
    bad = {"query": 'mutation { startGame(tableId: "nope") { id } }'}
    r = await c.http.post("/graphql", json=bad, headers=MODERN)
    assert r.status_code == 200 and "data" in r.json() and r.json()["errors"][0]["path"]
    # refused before GraphQL (no JSON body): the type asked for too
    r = await c.http.post(
        "/graphql", content=b"{not json", headers={**MODERN, "Content-Type": "application/json"}
    )
    assert r.status_code == 400 and r.headers["content-type"] == RESPONSE_JSON
    r = await c.http.post("/graphql", json={"query": "{ games { id } }"})
    assert r.headers["content-type"] == "application/json"


def test_the_answer_type_follows_the_clients_q_values():
    assert answer_type("") == "application/json"
    assert answer_type("*/*") == "application/json"
    assert answer_type("application/graphql-response+json") == RESPONSE_JSON
    assert answer_type("application/json, application/graphql-response+json") == RESPONSE_JSON
    assert answer_type("application/graphql-response+json;q=0.5, application/json") == (
        "application/json"
    )
    assert answer_type("application/graphql-response+json;q=0") == "application/json"
    assert answer_type("application/graphql-response+json;q=x") == "application/json"


async def test_multipart_answers_with_one_media_type(c):
    sub = "subscription { lobbyEvents { type } }"
    async with subscribe(c.http, sub, MULTIPART) as stream:
        assert stream.response.status_code == 200
        kind = stream.response.headers["content-type"]
    assert kind.startswith("multipart/mixed") and "subscriptionSpec=1.0" in kind
    assert "application/json" not in kind and "boundary=graphql" in kind


async def test_graphql_sse_single_connection_mode_is_refused_naming_the_mode_served(c):
    r = await c.http.put("/graphql")
    assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
    error = r.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_INPUT"
    assert "single connection mode" in error["message"]
    assert "distinct connections mode" in error["message"]
    r = await c.http.post(
        "/graphql",
        json={"query": "subscription { lobbyEvents { type } }"},
        headers={"x-graphql-event-stream-token": "abc", "Accept": "text/event-stream"},
    )
    assert r.status_code == 400 and "distinct connections mode" in r.json()["errors"][0]["message"]
