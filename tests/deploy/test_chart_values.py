"""The chart's values.yaml against its values.schema.json (with the jsonschema package, no
helm needed): the defaults are valid, bad values are refused, and the schema knows every
setting of the README."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "tablestate"

SCHEMA = json.loads((CHART / "values.schema.json").read_text())
VALUES = yaml.safe_load((CHART / "values.yaml").read_text())
# Settings the chart sets itself rather than through `config`.
SET_BY_CHART = {
    "REDIS_URL",
    "TABLESTATE_SECRET",
    "TABLESTATE_HOST",
    "TABLESTATE_PORT",
    "TABLESTATE_WORKERS",
    "TABLESTATE_ALLOWED_ORIGINS",
    "TABLESTATE_REDIS_CLUSTER",
    # Sentinel through the chart: redis.url is redis+sentinel://, which names them both
    "TABLESTATE_REDIS_SENTINEL",
    "TABLESTATE_REDIS_SENTINEL_MASTER",
    "TABLESTATE_JWT_SECRET",  # a secret: from the chart's Secret (signIn.jwtSecret)
    "DATABASE_URL",  # a secret too: from the chart's Secret (database.url)
}


def validate(values: dict[str, Any]) -> None:
    jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(values)


def changed(path: str, value: Any) -> dict[str, Any]:
    """The default values with one entry (a dotted path) set."""
    values = copy.deepcopy(VALUES)
    *parents, last = path.split(".")
    node = values
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return values


def test_schema_is_a_valid_draft7_schema():
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_default_values_are_valid():
    validate(VALUES)


def test_a_host_needs_no_paths_of_its_own():
    """The chart routes the public paths itself: a host alone is a whole entry."""
    validate(changed("ingress.hosts", [{"host": "play.example.com"}]))
    validate(changed("httpRoute.paths", [{"path": "/docs", "pathType": "Prefix"}]))


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("redis.url", "redis://redis.example:6379/0"),
        ("redis.url", "rediss://:pw@redis.example:6380/0"),
        ("redis.bundled.enabled", True),
        ("existingSecret.name", "tablestate-credentials"),
        ("allowedOrigins", ["https://play.example.com", "*"]),
        ("config.TABLESTATE_IDLE_TTL", 3600),
        ("config.TABLESTATE_REDIS_TIMEOUT", 0.5),
        ("redis.url", "redis+sentinel://sentinel-0:26379,sentinel-1:26379/mymaster"),
        ("config.TABLESTATE_REDIS_ACK", "replica"),
        ("config.TABLESTATE_REDIS_ACK_TIMEOUT", 250),
        ("config.TABLESTATE_GRAPHIQL", False),
        ("config.TABLESTATE_LOG_LEVEL", None),
        ("config.TABLESTATE_TABLES_PER_ADDRESS", 0),
        ("config.TABLESTATE_CHAT_KEPT", 50),
        ("redis.bundled.maxmemory", "2gb"),
        ("podDisruptionBudget.minAvailable", "50%"),
        ("image.digest", "sha256:" + "a" * 64),
        ("autoscaling.targetMemoryUtilizationPercentage", 80),
        ("config.TABLESTATE_JWT_JWKS_URL", "https://issuer.example.com/.well-known/jwks.json"),
        ("config.TABLESTATE_JWT_ALGORITHMS", "RS256,EdDSA"),
        ("config.TABLESTATE_SPECTATORS", "signed-in"),
        ("signIn.jwtSecret", "s" * 32),
        ("existingSecret.jwtSecretKey", "jwt"),
        ("database.url", "postgresql://ts:pw@db.example:5432/tablestate"),
        ("database.url", "postgres://ts@db.example/tablestate?sslmode=require"),
        ("database.migrate", False),
        ("existingSecret.databaseUrlKey", "database-url"),
        ("config.TABLESTATE_MIGRATE", True),
        ("config.TABLESTATE_ARCHIVE", False),
        ("config.TABLESTATE_DATA_DIR", "/var/lib/tablestate"),
    ],
)
def test_good_values_are_accepted(path, value):
    validate(changed(path, value))


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("replicaCount", "two"),
        ("replicaCount", 0),
        ("replicaSount", 2),  # a typo is refused, not ignored
        ("image.pullPolicy", "Sometimes"),
        ("image.digest", "latest"),
        ("containerPort", 80),  # the container runs as a non-root user
        ("redis.url", "localhost:6379"),
        ("redis.cluster", "yes"),
        ("redis.bundled.appendfsync", "never"),
        ("redis.bundled.persistence.size", "lots"),
        ("redis.bundled.maxmemory", "0"),  # no limit: Redis would grow until killed
        ("redis.bundled.maxmemory", "lots"),
        ("config.TABLESTATE_IDEMPOTENCY_KEPT", 0),
        ("secret", 12345),
        ("allowedOrigins", "https://play.example.com"),
        ("allowedOrigins", ["play.example.com"]),
        ("config.TABLESTATE_SECRET", "in-a-configmap"),
        ("config.REDIS_URL", "redis://r:6379/0"),
        ("config.TABLESTATE_WORKERS", 4),
        ("config.TABLESTATE_IDLE_TTL", 0),
        ("config.TABLESTATE_IDLE_TTL", "a week"),
        ("config.TABLESTATE_MAX_DEPTH", 1),
        ("config.TABLESTATE_REDIS_TIMEOUT", 0),
        ("config.TABLESTATE_REDIS_ACK", "quorum"),
        ("config.TABLESTATE_REDIS_ACK_TIMEOUT", 0),
        ("config.TABLESTATE_LOG_LEVEL", "loud"),
        ("config.TABLESTATE_GRAPHIQL", "maybe"),
        ("resources.limits.memory", "a lot"),
        ("livenessProbe.periodSeconds", 0),
        ("livenessProbe.httpGet", {"path": "/readyz"}),  # liveness stays on /healthz
        ("service.type", "Headless"),
        ("ingress.hosts", [{"host": "x.example", "paths": [{"path": "api"}]}]),
        # extra routes only of kinds whose reach the chart can judge (never /metrics by
        # accident): no regular expressions, no dot segments or escapes
        (
            "ingress.hosts",
            [{"host": "x", "paths": [{"path": "/", "pathType": "ImplementationSpecific"}]}],
        ),
        (
            "ingress.hosts",
            [{"host": "x", "paths": [{"path": "/js/../metrics", "pathType": "Prefix"}]}],
        ),
        ("ingress.hosts", [{"host": "x", "paths": [{"path": "/%6Detrics", "pathType": "Exact"}]}]),
        ("httpRoute.paths", [{"path": "/m.*", "pathType": "RegularExpression"}]),
        ("httpRoute.paths", [{"path": "//metrics", "pathType": "Exact"}]),
        ("exposeMetrics", "yes"),
        ("autoscaling.targetCPUUtilizationPercentage", 150),
        ("podDisruptionBudget.maxUnavailable", "half"),
        ("serviceMonitor.interval", "often"),
        ("config.TABLESTATE_JWT_JWKS_URL", "http://issuer.example.com/jwks.json"),
        ("config.TABLESTATE_JWT_ALGORITHMS", "RS256,none"),
        ("config.TABLESTATE_JWT_SECRET", "in-a-configmap-" * 4),
        ("config.TABLESTATE_SPECTATORS", "friends"),
        ("signIn.jwtSecret", "short"),
        # the replicas share one archive: a SQLite file would be each pod's own
        ("database.url", "sqlite:///data/tablestate.db"),
        ("database.url", "mysql://db.example/tablestate"),
        ("database.migrate", "yes"),
        ("config.DATABASE_URL", "postgresql://ts:pw@db.example/tablestate"),
        ("config.TABLESTATE_MIGRATE", "maybe"),
        ("config.TABLESTATE_DATA_DIR", 7),
    ],
)
def test_bad_values_are_refused(path, value):
    with pytest.raises(jsonschema.ValidationError):
        validate(changed(path, value))


def readme_settings() -> set[str]:
    """Every variable in the README's settings table."""
    text = (REPO / "README.md").read_text()
    table = text.split("## Settings", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in table.splitlines():
        if row.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1]))
    return names


def test_every_readme_setting_is_configurable_or_set_by_the_chart():
    settings = readme_settings()
    assert {"REDIS_URL", "TABLESTATE_SECRET", "TABLESTATE_LOG_LEVEL"} <= settings
    in_config = set(SCHEMA["properties"]["config"]["properties"])
    assert settings - SET_BY_CHART == in_config, (
        "the chart's config (values.schema.json) and the README's settings differ: "
        f"missing {sorted(settings - SET_BY_CHART - in_config)}, "
        f"unknown {sorted(in_config - settings)}"
    )


def test_values_yaml_names_every_configurable_setting():
    """Each config setting appears in values.yaml (set, or commented with its default)."""
    text = (CHART / "values.yaml").read_text()
    missing = [k for k in SCHEMA["properties"]["config"]["properties"] if k not in text]
    assert not missing, missing
