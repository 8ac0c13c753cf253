"""An issuer of the tests' own: keys made here (RSA, EC, Ed25519, with ``cryptography``),
its JWKS served from a file or from an HTTP server on loopback, and JWTs signed by PyJWT."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

ISSUER = "https://issuer.test"
AUDIENCE = "tablestate-tests"


@dataclass
class Key:
    """A signing key of the issuer: its private half, its algorithm and its key id."""

    kid: str
    alg: str
    private: Any

    @classmethod
    def rsa(cls, kid: str) -> Key:
        return cls(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def ec(cls, kid: str) -> Key:
        return cls(kid, "ES256", ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def ed25519(cls, kid: str) -> Key:
        return cls(kid, "EdDSA", ed25519.Ed25519PrivateKey.generate())

    def jwk(self) -> dict[str, Any]:
        """The public half as a JWK, as an issuer publishes it."""
        public = self.private.public_key()
        make = {"RS256": RSAAlgorithm, "ES256": ECAlgorithm, "EdDSA": OKPAlgorithm}[self.alg]
        found: dict[str, Any] = make.to_jwk(public, as_dict=True)
        return {**found, "kid": self.kid, "use": "sig", "alg": self.alg}

    def public_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private.public_key().public_bytes(  # type: ignore[no-any-return]
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


def claims(sub: str, *, lifetime: float = 600, **extra: Any) -> dict[str, Any]:
    """A user's claims: issued now, for ``lifetime`` seconds, for the tests' audience."""
    now = int(time.time())
    base = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + lifetime}
    return {**base, "name": sub.title(), **extra}


def sign(key: Key, payload: dict[str, Any], **header: Any) -> str:
    """A JWT of ``payload`` signed with ``key`` (``header``: more or other header fields)."""
    return jwt.encode(payload, key.private, algorithm=key.alg, headers={"kid": key.kid, **header})


def token(key: Key, sub: str, **extra: Any) -> str:
    return sign(key, claims(sub, **extra))


@dataclass
class Issuer:
    """The issuer's key set, published in a file and over HTTP on loopback (``serve``)."""

    folder: Path
    keys: list[Key] = field(default_factory=list)
    reads: int = 0  # JWKS requests the HTTP server answered

    def jwks(self) -> dict[str, Any]:
        return {"keys": [k.jwk() for k in self.keys]}

    @property
    def file(self) -> Path:
        return self.folder / "jwks.json"

    def publish(self, *keys: Key) -> None:
        """Publish exactly these keys (a rotation drops the others)."""
        self.keys = list(keys)
        self.file.write_text(json.dumps(self.jwks()))

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """Serve the key set on a free loopback port; its URL."""
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.reads += 1
                body = json.dumps(issuer.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(5)


def sign_in_settings(jwks_url: str, **overrides: Any) -> dict[str, Any]:
    """The settings of a server that signs in the tests' issuer's users."""
    base: dict[str, Any] = {
        "jwt_jwks_url": jwks_url,
        "jwt_issuer": ISSUER,
        "jwt_audience": (AUDIENCE,),
        "jwt_leeway": 0.0,
        "jwt_jwks_refresh": 1.0,
    }
    return {**base, **overrides}
