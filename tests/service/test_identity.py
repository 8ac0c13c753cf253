"""Signing in without a server: JWTs verified with keys made here (service/identity), the
key set kept and refreshed within bounds, and the sign-in settings checked at start-up."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from support.jwts import AUDIENCE, ISSUER, Issuer, Key, claims, sign, sign_in_settings, token

from tablestate.config import ConfigError, Settings
from tablestate.errors import ApiError
from tablestate.identity import Identity, KeySet, looks_like_jwt
from tablestate.identity.keys import reader

SECRET = "s" * 40


@pytest.fixture
def issuer(tmp_path: Path) -> Issuer:
    found = Issuer(tmp_path)
    found.publish(Key.rsa("rsa-1"), Key.ec("ec-1"), Key.ed25519("ed-1"))
    return found


def identity(issuer: Issuer, **overrides: Any) -> Identity:
    return Identity(Settings(**sign_in_settings(str(issuer.file), **overrides)))


async def refusal(check: Identity, text: str) -> str:
    with pytest.raises(ApiError) as info:
        await check.verify(text)
    assert info.value.code == "UNAUTHENTICATED"
    assert text not in info.value.message
    for part in text.split("."):
        assert not part or part not in info.value.message, "a refusal repeats the token"
    return info.value.message


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def test_rsa_ec_and_eddsa_tokens_give_their_user(issuer: Issuer):
    check = identity(issuer)
    for key in issuer.keys:
        user = await check.verify(token(key, "ann"))
        assert user.id == f"{ISSUER}#ann" and user.name == "Ann"
        assert 590 < user.remaining() <= 600


async def test_the_name_comes_from_the_configured_claim(issuer: Issuer):
    check = identity(issuer, jwt_name_claim="nickname")
    user = await check.verify(token(issuer.keys[0], "ann", nickname="Annie\x00 "))
    assert user.name == "Annie"
    assert (await check.verify(token(issuer.keys[0], "bob"))).name is None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        # times as seconds from now, taken when the test runs (not when it is collected)
        pytest.param({"exp": -5}, "(exp)", id="expired"),
        pytest.param({"nbf": 300}, "(nbf)", id="not-before-in-the-future"),
        pytest.param({"iat": 300}, "(iat)", id="issued-in-the-future"),
        pytest.param({"iss": "https://other.test"}, "(iss)", id="wrong-issuer"),
        pytest.param({"aud": "another-service"}, "(aud)", id="wrong-audience"),
        pytest.param({"sub": ""}, "(sub)", id="empty-subject"),
        pytest.param({"sub": 42}, "(sub)", id="subject-not-text"),
    ],
)
async def test_a_token_failing_a_check_is_refused_naming_it(issuer: Issuer, change, named):
    now = int(time.time())
    change = {k: now + v if k in ("exp", "nbf", "iat") else v for k, v in change.items()}
    text = sign(issuer.keys[0], {**claims("ann"), **change})
    assert named in await refusal(identity(issuer), text)


@pytest.mark.parametrize("claim", ["exp", "iss", "aud", "sub"])
async def test_a_token_without_a_required_claim_is_refused(issuer: Issuer, claim):
    payload = claims("ann")
    del payload[claim]
    assert claim in await refusal(identity(issuer), sign(issuer.keys[0], payload))


async def test_alg_none_and_unaccepted_algorithms_are_refused(issuer: Issuer):
    unsigned = jwt.encode(claims("ann"), None, algorithm="none")
    assert "(alg)" in await refusal(identity(issuer), unsigned)
    for alg in ("None", "NONE", "HS256", "RS384"):
        header = b64(json.dumps({"alg": alg, "kid": "rsa-1"}).encode())
        forged = f"{header}.{b64(json.dumps(claims('ann')).encode())}."
        assert "(alg)" in await refusal(identity(issuer), forged)


def hs256_with(secret: bytes, payload: dict[str, Any], kid: str) -> str:
    """A token "signed" with HMAC-SHA256 and any bytes as the secret, made by hand as an
    attacker makes it (PyJWT refuses a PEM key as an HMAC secret)."""
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    body = b64(json.dumps(payload).encode())
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(mac)}"


async def test_an_hs256_token_signed_with_the_public_key_is_refused(issuer: Issuer):
    rsa = issuer.keys[0]
    forged = hs256_with(rsa.public_pem(), claims("ann"), rsa.kid)
    assert "(alg)" in await refusal(identity(issuer), forged)  # HS256 is not accepted
    # even where a shared secret makes HS256 acceptable, the public key is not that secret
    both = identity(issuer, jwt_secret=SECRET.encode(), jwt_algorithms=("RS256", "HS256"))
    assert "signature" in await refusal(both, forged)
    as_jwk = hs256_with(json.dumps(rsa.jwk()).encode(), claims("ann"), rsa.kid)
    assert "signature" in await refusal(both, as_jwk)


async def test_a_token_whose_alg_is_not_its_keys_is_refused(issuer: Issuer):
    other = Key.rsa("ec-1")  # an RSA signature naming the EC key's id
    assert "is not its key's" in await refusal(identity(issuer), token(other, "ann"))


async def test_a_shared_secret_signs_users_in_when_configured(tmp_path: Path):
    settings = Settings(
        jwt_secret=SECRET.encode(), jwt_issuer=ISSUER, jwt_audience=(AUDIENCE,), jwt_leeway=0
    )
    check = Identity(settings)
    good = jwt.encode(claims("ann"), SECRET, algorithm="HS256")
    assert (await check.verify(good)).id == f"{ISSUER}#ann"
    bad = jwt.encode(claims("ann"), "t" * 40, algorithm="HS256")
    assert "signature" in await refusal(check, bad)


async def test_leeway_allows_a_clock_a_little_behind(issuer: Issuer):
    late = sign(issuer.keys[0], {**claims("ann"), "exp": int(time.time()) - 5})
    user = await identity(issuer, jwt_leeway=30.0).verify(late)
    assert 20 < user.remaining() <= 25  # the sign-in ends at exp + leeway


async def test_unknown_and_missing_key_ids(issuer: Issuer):
    check = identity(issuer)
    stranger = Key.rsa("rsa-unknown")
    assert "(kid)" in await refusal(check, token(stranger, "ann"))
    no_kid = jwt.encode(claims("ann"), issuer.keys[0].private, algorithm="RS256")
    assert "(kid)" in await refusal(check, no_kid)  # three keys: which one?
    issuer.publish(issuer.keys[0])
    only = identity(issuer)
    assert (await only.verify(no_kid)).id == f"{ISSUER}#ann"  # the set's only key


def test_what_looks_like_a_jwt():
    assert looks_like_jwt("a.b.c") and not looks_like_jwt("table.secret")


# -- the key set ---------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def counted(issuer: Issuer, fail: list[bool]) -> tuple[Any, list[int]]:
    reads = [0]
    inner = reader(str(issuer.file))

    def read() -> dict[str, Any]:
        reads[0] += 1
        if fail[0]:
            raise OSError("the issuer is away")
        return inner()

    return read, reads


async def test_an_unknown_kid_reads_the_set_at_most_once_per_cooldown(issuer: Issuer):
    clock, fail = Clock(), [False]
    read, reads = counted(issuer, fail)
    keys = KeySet(read, lifespan=300, cooldown=10, clock=clock)
    assert await keys.key("rsa-1") is not None and reads == [1]
    for _ in range(50):  # made-up key ids within the cooldown: no read at all
        assert await keys.key("made-up") is None
    assert reads == [1]
    clock.now += 10
    assert await keys.key("made-up") is None and reads == [2]  # one read, then refused
    assert await keys.key("made-up-2") is None and reads == [2]
    rotated = Key.ec("ec-2")
    issuer.publish(issuer.keys[0], rotated)
    clock.now += 10
    assert (await keys.key("ec-2")) is not None and reads == [3]  # the new key picked up
    assert await keys.key("ed-1") is None  # and the dropped one gone


async def test_the_set_is_read_again_after_its_lifespan(issuer: Issuer):
    clock, fail = Clock(), [False]
    read, reads = counted(issuer, fail)
    keys = KeySet(read, lifespan=60, cooldown=10, clock=clock)
    await keys.key("rsa-1")
    clock.now += 59
    await keys.key("rsa-1")
    assert reads == [1]
    clock.now += 1
    await keys.key("rsa-1")
    assert reads == [2]


async def test_a_failed_read_keeps_the_keys_held_and_waits_for_the_cooldown(issuer: Issuer):
    from tablestate.identity import KeysUnavailable

    clock, fail = Clock(), [True]
    read, reads = counted(issuer, fail)
    keys = KeySet(read, lifespan=60, cooldown=10, clock=clock)
    with pytest.raises(KeysUnavailable):
        await keys.key("rsa-1")
    with pytest.raises(KeysUnavailable):
        await keys.key("rsa-1")
    assert reads == [1], "a failed read is not tried again within the cooldown"
    fail[0] = False
    clock.now += 10
    assert await keys.key("rsa-1") is not None and reads == [2]
    fail[0] = True
    clock.now += 100  # past the lifespan: read again, fails, the keys held stay
    assert await keys.key("rsa-1") is not None and reads == [3]
    assert await keys.key("rsa-1") is not None and reads == [3]


async def test_concurrent_callers_share_one_read(issuer: Issuer):
    import asyncio

    clock, fail = Clock(), [False]
    read, reads = counted(issuer, fail)
    keys = KeySet(read, lifespan=60, cooldown=10, clock=clock)
    found = await asyncio.gather(*(keys.key("ec-1") for _ in range(20)))
    assert all(k is not None for k in found) and reads == [1]


async def test_a_shared_secret_in_a_key_set_is_never_a_key(issuer: Issuer, tmp_path: Path):
    oct_key = {"kty": "oct", "kid": "oct-1", "k": b64(b"k" * 40), "alg": "HS256"}
    issuer.file.write_text(json.dumps({"keys": [*issuer.jwks()["keys"], oct_key]}))
    keys = KeySet(reader(str(issuer.file)), lifespan=60, cooldown=10)
    assert await keys.key("oct-1") is None
    assert await keys.key("rsa-1") is not None


async def test_the_set_is_read_over_http_on_loopback(issuer: Issuer):
    with issuer.serve() as url:
        check = identity(issuer, jwt_jwks_url=url)
        assert (await check.verify(token(issuer.keys[2], "ann"))).id == f"{ISSUER}#ann"
    assert issuer.reads == 1


# -- the settings ----------------------------------------------------------------------------


BASE = {
    "TABLESTATE_JWT_JWKS_URL": "https://issuer.test/jwks.json",
    "TABLESTATE_JWT_ISSUER": ISSUER,
    "TABLESTATE_JWT_AUDIENCE": AUDIENCE,
}


def test_sign_in_settings_and_their_defaults():
    s = Settings.from_env(BASE)
    assert s.sign_in and s.jwt_algorithms == ("RS256", "ES256", "EdDSA")
    assert s.jwt_leeway == 30 and s.jwt_name_claim == "name" and s.spectators == "anyone"
    assert not Settings.from_env({}).sign_in
    with_secret = Settings.from_env({**BASE, "TABLESTATE_JWT_SECRET": SECRET})
    assert with_secret.jwt_algorithms == ("RS256", "ES256", "EdDSA", "HS256")
    for path in ("/etc/tablestate/jwks.json", "file:///etc/tablestate/jwks.json"):
        found = Settings.from_env({**BASE, "TABLESTATE_JWT_JWKS_URL": path})
        assert found.jwt_jwks_url == "/etc/tablestate/jwks.json"
    loop = Settings.from_env({**BASE, "TABLESTATE_JWT_JWKS_URL": "http://127.0.0.1:9/k"})
    assert loop.jwt_jwks_url == "http://127.0.0.1:9/k"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"TABLESTATE_JWT_JWKS_URL": "http://issuer.test/jwks.json"}, "loopback"),
        ({"TABLESTATE_JWT_JWKS_URL": "http://localhost/jwks.json"}, "loopback"),
        ({"TABLESTATE_JWT_JWKS_URL": "jwks.json"}, "absolute"),
        ({"TABLESTATE_JWT_JWKS_URL": "ftp://issuer.test/jwks.json"}, "https"),
        ({"TABLESTATE_JWT_ISSUER": ""}, "TABLESTATE_JWT_ISSUER"),
        ({"TABLESTATE_JWT_AUDIENCE": ""}, "TABLESTATE_JWT_AUDIENCE"),
        ({"TABLESTATE_JWT_ALGORITHMS": "RS256,none"}, "none"),
        ({"TABLESTATE_JWT_ALGORITHMS": "HS256"}, "TABLESTATE_JWT_SECRET"),
        ({"TABLESTATE_JWT_ALGORITHMS": "XS256"}, "unknown"),
        ({"TABLESTATE_JWT_SECRET": "short"}, "at least"),
        ({"TABLESTATE_SPECTATORS": "friends"}, "TABLESTATE_SPECTATORS"),
    ],
)
def test_sign_in_settings_that_cannot_work_stop_start_up(env, named):
    with pytest.raises(ConfigError, match=named):
        Settings.from_env({**BASE, **env})


def test_requiring_sign_in_needs_a_way_to_sign_in():
    for env in ({"TABLESTATE_REQUIRE_SIGN_IN": "1"}, {"TABLESTATE_SPECTATORS": "signed-in"}):
        with pytest.raises(ConfigError, match="need sign-in"):
            Settings.from_env(env)
        assert Settings.from_env({**BASE, **env})
    with pytest.raises(ConfigError, match="TABLESTATE_JWT_JWKS_URL"):
        Settings.from_env({"TABLESTATE_JWT_SECRET": SECRET, "TABLESTATE_JWT_ALGORITHMS": "RS256",
                           "TABLESTATE_JWT_ISSUER": ISSUER, "TABLESTATE_JWT_AUDIENCE": AUDIENCE})  # fmt: skip
    assert repr(SECRET) not in repr(Settings.from_env({**BASE, "TABLESTATE_JWT_SECRET": SECRET}))
