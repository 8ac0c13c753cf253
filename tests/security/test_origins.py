"""Cross-origin: browsers' requests (HTTP and WebSocket) from other origins only from
``TABLESTATE_ALLOWED_ORIGINS``; CORS answers that let exactly those read the API with a
token; security headers on the web client's page and on the API."""

from __future__ import annotations

import pytest
from support.server import make_settings, serve, ws_init
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tablestate.store.memory import MemoryStore

GAMES = {"query": "{ games { id } }"}
ALLOWED = "https://play.example"
EVIL = "https://evil.example"


@pytest.fixture
async def api(registry):
    async with serve(make_settings(allowed_origins=(ALLOWED,)), registry, MemoryStore()) as c:
        yield c


async def test_http_requests_from_other_origins(api):
    c = api
    own = c.url  # the page served by this very server
    for origin, allowed in [
        (None, True),
        (own, True),
        (ALLOWED, True),
        (ALLOWED.upper(), True),
        (EVIL, False),
        ("null", False),
        (ALLOWED + ".evil.example", False),
        ("http://play.example", False),
    ]:
        headers = {"Origin": origin} if origin else {}
        r = await c.http.post("/graphql", json=GAMES, headers=headers)
        if allowed:
            assert r.status_code == 200 and r.json()["data"]["games"], origin
        else:
            assert r.status_code == 403, origin
            assert r.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
            assert "access-control-allow-origin" not in r.headers
    r = await c.http.post("/graphql", json=GAMES, headers={"Origin": ALLOWED})
    assert r.headers["access-control-allow-origin"] == ALLOWED
    assert "access-control-allow-credentials" not in r.headers  # tokens, never cookies
    assert "origin" in r.headers["vary"].lower()


async def test_cors_preflight(api):
    c = api
    ask = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }
    r = await c.http.options("/graphql", headers={"Origin": ALLOWED, **ask})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == ALLOWED
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed_headers = r.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed_headers and "content-type" in allowed_headers
    assert "access-control-allow-credentials" not in r.headers
    r = await c.http.options("/graphql", headers={"Origin": EVIL, **ask})
    assert r.status_code == 400 and "access-control-allow-origin" not in r.headers
    r = await c.http.options(
        "/graphql", headers={"Origin": ALLOWED, "Access-Control-Request-Method": "DELETE"}
    )
    assert r.status_code == 400


async def test_websocket_origins(api):
    c = api
    url = c.url.replace("http", "ws") + "/graphql"
    for origin in (EVIL, "null", "http://play.example"):
        with pytest.raises(InvalidStatus) as info:
            async with connect(url, subprotocols=["graphql-transport-ws"], origin=origin):  # type: ignore[arg-type,list-item]
                pass
        assert info.value.response.status_code == 403, origin
    for origin in (ALLOWED, c.url, None):
        async with connect(url, subprotocols=["graphql-transport-ws"], origin=origin) as conn:  # type: ignore[arg-type,list-item]
            assert (await ws_init(conn))["type"] == "connection_ack", origin


async def test_any_origin_when_configured(registry):
    async with serve(make_settings(allowed_origins=("*",)), registry, MemoryStore()) as c:
        r = await c.http.post("/graphql", json=GAMES, headers={"Origin": EVIL})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
        url = c.url.replace("http", "ws") + "/graphql"
        async with connect(url, subprotocols=["graphql-transport-ws"], origin=EVIL) as conn:  # type: ignore[arg-type,list-item]
            assert (await ws_init(conn))["type"] == "connection_ack"


async def test_security_headers_on_the_page_and_the_api(api):
    c = api
    page = await c.http.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    csp = {
        d.split()[0]: d.split()[1:]
        for d in page.headers["content-security-policy"].split(";")
        if d.strip()
    }
    host = c.url.split("//", 1)[1]
    assert csp["default-src"] == ["'none'"]
    assert csp["script-src"] == ["'self'"]  # its own ES modules, nothing inline
    assert csp["style-src"] == ["'self'"]
    assert csp["connect-src"] == ["'self'", f"ws://{host}", f"wss://{host}"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    for r in (page, await c.http.get("/js/app.js"), await c.http.post("/graphql", json=GAMES)):
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert "javascript" in (await c.http.get("/js/app.js")).headers["content-type"]
    # a forged Host header cannot write into the policy
    forged = await c.http.get("/", headers={"Host": "x; script-src *"})
    assert "script-src *" not in forged.headers["content-security-policy"]
    assert "connect-src 'self';" in forged.headers["content-security-policy"]


LOCAL = ("http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080", "http://localhost")
NOT_LOCAL = ("https://localhost:5173", "http://localhost.evil.example", "http://127.0.0.2:5173")


async def test_a_development_server_on_this_machine_may_call_by_default(api):
    """http://localhost:PORT and http://127.0.0.1:PORT: HTTP, the CORS preflight and WebSockets;
    nothing else that merely looks local."""
    c = api
    url = c.url.replace("http", "ws") + "/graphql"
    ask = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    for origin in LOCAL:
        r = await c.http.post("/graphql", json=GAMES, headers={"Origin": origin})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == origin, origin
        r = await c.http.options("/graphql", headers={"Origin": origin, **ask})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == origin, origin
        async with connect(url, subprotocols=["graphql-transport-ws"], origin=origin) as conn:  # type: ignore[arg-type,list-item]
            assert (await ws_init(conn))["type"] == "connection_ack", origin
    for origin in NOT_LOCAL:
        r = await c.http.post("/graphql", json=GAMES, headers={"Origin": origin})
        assert r.status_code == 403, origin
        r = await c.http.options("/graphql", headers={"Origin": origin, **ask})
        assert r.status_code == 400 and "access-control-allow-origin" not in r.headers, origin
        with pytest.raises(InvalidStatus):
            async with connect(url, subprotocols=["graphql-transport-ws"], origin=origin):  # type: ignore[arg-type,list-item]
                pass


async def test_local_origins_refused_when_turned_off(registry):
    settings = make_settings(allowed_origins=(ALLOWED,), local_origins=False)
    async with serve(settings, registry, MemoryStore()) as c:
        url = c.url.replace("http", "ws") + "/graphql"
        r = await c.http.post("/graphql", json=GAMES, headers={"Origin": LOCAL[0]})
        assert r.status_code == 403
        with pytest.raises(InvalidStatus) as info:
            async with connect(url, subprotocols=["graphql-transport-ws"], origin=LOCAL[0]):  # type: ignore[arg-type,list-item]
                pass
        assert info.value.response.status_code == 403
        r = await c.http.post("/graphql", json=GAMES, headers={"Origin": ALLOWED})
        assert r.status_code == 200


def test_the_setting_reads_from_the_environment():
    from tablestate.config import Settings

    assert Settings.from_env({}).local_origins is True
    assert Settings.from_env({"TABLESTATE_LOCAL_ORIGINS": "0"}).local_origins is False
