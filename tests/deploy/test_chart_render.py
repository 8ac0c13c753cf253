"""The Helm chart, rendered and linted by a real helm (`helm lint`, `helm template`), every
manifest parsed and checked. Without helm on PATH these tests say so and are skipped:
nothing here imitates helm."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tablestate.config import Settings

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "tablestate"
RELEASE = "ts"
FULLNAME = "ts-tablestate"
# The stable API of each kind (none deprecated in Kubernetes 1.25 and later).
API_VERSIONS = {
    "ServiceAccount": "v1",
    "Secret": "v1",
    "ConfigMap": "v1",
    "Service": "v1",
    "Pod": "v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "Job": "batch/v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "PodDisruptionBudget": "policy/v1",
    "Ingress": "networking.k8s.io/v1",
    "HTTPRoute": "gateway.networking.k8s.io/v1",
    "ServiceMonitor": "monitoring.coreos.com/v1",
}
NAMESPACE = "games"
SECRET = "a-long-random-test-secret"
REDIS_URL = "redis://redis.example:6379/0"
DATABASE_URL = "postgresql://ts:pw@db.example:5432/tablestate"
MIGRATE = f"{FULLNAME}-migrate"
BASE = ["--set", f"secret={SECRET}", "--set", f"redis.url={REDIS_URL}"]
FULL = [
    "--set", f"secret={SECRET}",
    "--set", "redis.bundled.enabled=true",
    "--set", "ingress.enabled=true",
    "--set", "ingress.className=nginx",
    "--set", "ingress.tls[0].secretName=ts-tls",
    "--set", "ingress.tls[0].hosts[0]=tablestate.example.com",
    "--set", "httpRoute.enabled=true",
    "--set", "autoscaling.enabled=true",
    "--set", "autoscaling.maxReplicas=7",
    "--set", "serviceMonitor.enabled=true",
    "--set", "allowedOrigins={https://play.example.com,https://tv.example.com}",
    "--set", "config.TABLESTATE_BOT_DELAY=0.5",
    "--set", "config.TABLESTATE_GRAPHIQL=false",
    "--set", "config.TABLESTATE_TRUSTED_PROXIES=10.244.0.0/16\\,10.245.0.7",
    "--set", "image.digest=sha256:" + "b" * 64,
    "--set", f"database.url={DATABASE_URL}",
]  # fmt: skip
# A values file as well: helm reads its numbers as floats (604800 must stay 604800).
FULL_VALUES = """
config:
  TABLESTATE_IDLE_TTL: 604800
  TABLESTATE_REDIS_TIMEOUT: 1.5
  TABLESTATE_LOG_LEVEL: warning
resources:
  requests: {cpu: 500m, memory: 300Mi}
"""


@pytest.fixture(scope="module")
def helm(tool) -> str:
    return tool("helm", "the Helm chart (helm lint, helm template)")


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> list[str]:
    values = tmp_path_factory.mktemp("values") / "full.yaml"
    values.write_text(FULL_VALUES)
    return [*FULL, "-f", str(values)]


class Rendered:
    """The manifests of one `helm template`, by kind and name, with their source file."""

    def __init__(self, text: str) -> None:
        self.docs: list[dict[str, Any]] = []
        self.sources: dict[tuple[str, str], str] = {}
        for chunk in text.split("\n---"):
            doc = yaml.safe_load(chunk)
            if not doc:
                continue
            source = next(
                (ln.split("templates/", 1)[1] for ln in chunk.splitlines() if "# Source:" in ln),
                "?",
            )
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in self.sources, f"{key} rendered twice"
            self.docs.append(doc)
            self.sources[key] = source

    def kinds(self) -> set[str]:
        return {d["kind"] for d in self.docs}

    def get(self, kind: str, name: str = FULLNAME) -> dict[str, Any]:
        found = [d for d in self.docs if d["kind"] == kind and d["metadata"]["name"] == name]
        assert found, f"no {kind} {name}; have {sorted(self.sources)}"
        return found[0]


def sets(*assignments: str) -> list[str]:
    return [word for a in assignments for word in ("--set", a)]


def template(helm: str, *args: str) -> Rendered:
    done = subprocess.run(
        [helm, "template", RELEASE, str(CHART), "--namespace", NAMESPACE, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return Rendered(done.stdout)


def refused(helm: str, *args: str) -> str:
    done = subprocess.run(
        [helm, "template", RELEASE, str(CHART), *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0, f"helm rendered what it should refuse: {args}"
    return done.stderr


def container(deploy: dict[str, Any]) -> dict[str, Any]:
    (c,) = deploy["spec"]["template"]["spec"]["containers"]
    return c


def env_of(c: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in c["env"]}


def check_common(r: Rendered) -> None:
    """What every manifest of the release carries."""
    for doc in r.docs:
        meta = doc["metadata"]
        assert meta["name"].startswith(FULLNAME), meta["name"]
        labels = meta["labels"]
        assert labels["app.kubernetes.io/name"] == "tablestate", doc["kind"]
        assert labels["app.kubernetes.io/instance"] == RELEASE
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
        assert labels["helm.sh/chart"] == "tablestate-0.1.0"
        assert labels["app.kubernetes.io/component"] in ("server", "redis", "test", "migrate")
        assert doc["apiVersion"] in API_VERSIONS[doc["kind"]], doc["apiVersion"]


def check_server_pods(r: Rendered) -> dict[str, Any]:
    """The Deployment's pods: probes, security, shutdown, and selectors that find them."""
    deploy = r.get("Deployment")
    spec = deploy["spec"]
    pod = spec["template"]
    pod_labels = pod["metadata"]["labels"]
    selector = spec["selector"]["matchLabels"]
    assert selector.items() <= pod_labels.items()
    assert selector["app.kubernetes.io/component"] == "server"
    assert r.get("Service")["spec"]["selector"] == selector
    assert r.get("PodDisruptionBudget")["spec"]["selector"]["matchLabels"] == selector

    ps = pod["spec"]
    assert ps["automountServiceAccountToken"] is False
    assert ps["serviceAccountName"] == FULLNAME
    assert ps["securityContext"]["runAsNonRoot"] is True
    assert ps["securityContext"]["runAsUser"] == 10001
    assert ps["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert ps["terminationGracePeriodSeconds"] == 30

    c = container(deploy)
    assert c["command"] == [
        "tablestate", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "1",
    ]  # fmt: skip
    assert c["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert c["livenessProbe"]["periodSeconds"] == 10
    assert c["lifecycle"]["preStop"] == {"exec": {"command": ["sleep", "5"]}}
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["runAsNonRoot"] is True
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert c["resources"]["limits"] == {"memory": "512Mi"}
    assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"]
    assert {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}} in ps["volumes"]
    assert c["envFrom"] == [{"configMapRef": {"name": FULLNAME}}]
    assert env_of(c)["TABLESTATE_PORT"] == "8000"
    annotations = pod["metadata"]["annotations"]
    assert len(annotations["checksum/config"]) == 64
    return deploy


def test_helm_lint_passes_strict(helm, full):
    for args in (BASE, full):
        done = subprocess.run(
            [helm, "lint", str(CHART), "--strict", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "0 chart(s) failed" in done.stdout


def test_default_release_with_an_external_redis(helm):
    r = template(helm, *BASE)
    check_common(r)
    assert r.kinds() == {
        "ServiceAccount", "Secret", "ConfigMap", "Service", "Deployment",
        "PodDisruptionBudget", "Pod",
    }  # fmt: skip
    deploy = check_server_pods(r)
    assert deploy["spec"]["replicas"] == 2
    assert deploy["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    c = container(deploy)
    assert c["image"] == "tablestate:0.1.0"
    assert c["resources"]["requests"] == {"cpu": "250m", "memory": "256Mi"}
    env = env_of(c)
    assert env["REDIS_URL"] == {"secretKeyRef": {"name": FULLNAME, "key": "REDIS_URL"}}
    assert env["TABLESTATE_SECRET"] == {
        "secretKeyRef": {"name": FULLNAME, "key": "TABLESTATE_SECRET"}
    }
    assert "checksum/secret" in deploy["spec"]["template"]["metadata"]["annotations"]

    secret = r.get("Secret")
    assert secret["type"] == "Opaque"
    decoded = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert decoded == {"TABLESTATE_SECRET": SECRET, "REDIS_URL": REDIS_URL}

    config = r.get("ConfigMap")["data"]
    assert config == {
        "TABLESTATE_ALLOWED_ORIGINS": "",
        "TABLESTATE_REDIS_CLUSTER": "false",
        "TABLESTATE_LOG_LEVEL": "info",
        # the kubelet probes from its node: never limited (docs/security.md, "Probes")
        "TABLESTATE_PROBE_EXEMPT": "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.1/32",
    }
    assert Settings.from_env(config).probe_exempt[-1] == "127.0.0.1/32"
    service = r.get("Service")["spec"]
    assert service["type"] == "ClusterIP"
    assert service["ports"] == [
        {"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}
    ]
    assert r.get("PodDisruptionBudget")["spec"]["maxUnavailable"] == 1
    assert r.get("ServiceAccount")["automountServiceAccountToken"] is False

    test_pod = r.get("Pod", f"{FULLNAME}-test")
    assert test_pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    (check,) = test_pod["spec"]["containers"]
    assert check["securityContext"]["readOnlyRootFilesystem"] is True
    assert f"http://{FULLNAME}:80" in check["command"][-1]
    assert "/readyz" in check["command"][-1] and "games" in check["command"][-1]


def test_every_option_on_with_the_bundled_redis(helm, full):
    r = template(helm, *full)
    check_common(r)
    assert r.kinds() == {
        "ServiceAccount", "Secret", "ConfigMap", "Service", "Deployment", "StatefulSet",
        "HorizontalPodAutoscaler", "PodDisruptionBudget", "Ingress", "HTTPRoute",
        "ServiceMonitor", "Pod", "Job",
    }  # fmt: skip
    templates = {p.name for p in (CHART / "templates").rglob("*.yaml")}
    assert {Path(s).name for s in r.sources.values()} == templates, "a template never rendered"

    deploy = check_server_pods(r)
    assert "replicas" not in deploy["spec"], "the HPA owns the replica count"
    c = container(deploy)
    assert c["image"] == "tablestate@sha256:" + "b" * 64
    assert c["resources"]["requests"] == {"cpu": "500m", "memory": "300Mi"}
    redis_name = f"{FULLNAME}-redis"
    assert env_of(c)["REDIS_URL"] == f"redis://{redis_name}:6379/0"
    secret = r.get("Secret")
    assert set(secret["data"]) == {"TABLESTATE_SECRET", "DATABASE_URL"}

    config = r.get("ConfigMap")["data"]
    assert config["TABLESTATE_ALLOWED_ORIGINS"] == "https://play.example.com,https://tv.example.com"
    assert config["TABLESTATE_IDLE_TTL"] == "604800"  # not 6.048e+05
    assert config["TABLESTATE_BOT_DELAY"] == "0.5"
    assert config["TABLESTATE_REDIS_TIMEOUT"] == "1.5"
    assert config["TABLESTATE_LOG_LEVEL"] == "warning"
    assert config["TABLESTATE_GRAPHIQL"] == "false"
    assert config["TABLESTATE_TRUSTED_PROXIES"] == "10.244.0.0/16,10.245.0.7"  # the ingress's
    assert all(isinstance(v, str) for v in config.values())

    hpa = r.get("HorizontalPodAutoscaler")["spec"]
    assert hpa["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": FULLNAME,
    }
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (2, 7)
    assert hpa["metrics"][0]["resource"]["name"] == "cpu"
    assert hpa["metrics"][0]["resource"]["target"]["averageUtilization"] == 70

    ingress = r.get("Ingress")
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
    assert annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"
    assert annotations["haproxy.org/timeout-tunnel"] == "3600s"
    # table affinity: the controller hashes the routing key ?table=ID (docs/clients.md)
    assert annotations["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$arg_table"
    assert annotations["haproxy.org/load-balance"] == "url_param table"
    spec = ingress["spec"]
    assert spec["ingressClassName"] == "nginx"
    assert spec["tls"] == [{"hosts": ["tablestate.example.com"], "secretName": "ts-tls"}]
    (rule,) = spec["rules"]
    assert rule["host"] == "tablestate.example.com"
    for path in rule["http"]["paths"]:
        assert path["backend"] == {"service": {"name": FULLNAME, "port": {"name": "http"}}}

    route = r.get("HTTPRoute")["spec"]
    assert route["parentRefs"] == [{"name": "gateway"}]
    assert route["hostnames"] == ["tablestate.example.com"]
    for route_rule in route["rules"]:
        assert route_rule["backendRefs"] == [{"name": FULLNAME, "port": 80}]

    monitor = r.get("ServiceMonitor")["spec"]
    assert monitor["endpoints"] == [
        {"port": "http", "path": "/metrics", "interval": "30s", "scrapeTimeout": "10s"}
    ]
    assert monitor["selector"]["matchLabels"] == deploy["spec"]["selector"]["matchLabels"]

    # The bundled Redis: official image, AOF, a volume, non-root, and out of the selectors.
    sts = r.get("StatefulSet", redis_name)
    (rc,) = sts["spec"]["template"]["spec"]["containers"]
    assert rc["image"] == "redis:7.4-alpine"
    assert "bitnami" not in yaml.safe_dump(r.docs)
    args = rc["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--appendfsync") + 1] == "everysec"
    assert args[args.index("--dir") + 1] == "/data"
    assert args[args.index("--maxmemory") + 1] == "384mb"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    assert {"name": "data", "mountPath": "/data"} in rc["volumeMounts"]
    (claim,) = sts["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "data"
    assert claim["spec"]["resources"]["requests"]["storage"] == "1Gi"
    assert rc["readinessProbe"]["exec"]["command"] == ["redis-cli", "ping"]
    assert rc["securityContext"]["readOnlyRootFilesystem"] is True
    assert sts["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    redis_labels = sts["spec"]["template"]["metadata"]["labels"]
    assert redis_labels["app.kubernetes.io/component"] == "redis"
    server_selector = deploy["spec"]["selector"]["matchLabels"]
    assert not server_selector.items() <= redis_labels.items()
    redis_service = r.get("Service", redis_name)["spec"]
    assert redis_service["selector"] == sts["spec"]["selector"]["matchLabels"]
    assert redis_service["ports"][0]["port"] == 6379


def test_table_affinity_can_be_left_to_the_operator(helm, full):
    r = template(helm, *full, *sets("ingress.tableAffinity=false"))
    annotations = r.get("Ingress")["metadata"]["annotations"]
    assert "nginx.ingress.kubernetes.io/upstream-hash-by" not in annotations
    assert "haproxy.org/load-balance" not in annotations
    assert annotations["haproxy.org/timeout-tunnel"] == "3600s"


def test_bundled_redis_without_persistence_uses_an_empty_dir(helm):
    r = template(
        helm, "--set", f"secret={SECRET}", "--set", "redis.bundled.enabled=true",
        "--set", "redis.bundled.persistence.enabled=false",
    )  # fmt: skip
    sts = r.get("StatefulSet", f"{FULLNAME}-redis")
    assert "volumeClaimTemplates" not in sts["spec"]
    assert sts["spec"]["template"]["spec"]["volumes"] == [{"name": "data", "emptyDir": {}}]


def test_existing_secret_and_a_redis_cluster(helm):
    r = template(
        helm,
        "--set", "existingSecret.name=creds",
        "--set", "existingSecret.redisUrlKey=url",
        "--set", "existingSecret.secretKey=seed",
        "--set", "redis.cluster=true",
        "--set", "podDisruptionBudget.minAvailable=1",
        "--set", "replicaCount=3",
    )  # fmt: skip
    assert "Secret" not in r.kinds()
    deploy = r.get("Deployment")
    assert deploy["spec"]["replicas"] == 3
    assert "checksum/secret" not in deploy["spec"]["template"]["metadata"]["annotations"]
    env = env_of(container(deploy))
    assert env["REDIS_URL"] == {"secretKeyRef": {"name": "creds", "key": "url"}}
    assert env["TABLESTATE_SECRET"] == {"secretKeyRef": {"name": "creds", "key": "seed"}}
    assert r.get("ConfigMap")["data"]["TABLESTATE_REDIS_CLUSTER"] == "true"
    pdb = r.get("PodDisruptionBudget")["spec"]
    assert pdb["minAvailable"] == 1 and "maxUnavailable" not in pdb


def test_a_sign_in_secret_comes_from_a_secret_and_nothing_else(helm):
    jwt_secret = "a-shared-sign-in-secret-of-32-bytes+"
    r = template(
        helm, *BASE,
        "--set", f"signIn.jwtSecret={jwt_secret}",
        "--set", "config.TABLESTATE_JWT_ISSUER=https://play.example.com",
        "--set", "config.TABLESTATE_JWT_AUDIENCE=tablestate",
        "--set", "config.TABLESTATE_REQUIRE_SIGN_IN=true",
    )  # fmt: skip
    env = env_of(container(r.get("Deployment")))
    assert env["TABLESTATE_JWT_SECRET"] == {
        "secretKeyRef": {"name": FULLNAME, "key": "TABLESTATE_JWT_SECRET"}
    }
    data = r.get("Secret")["data"]
    assert base64.b64decode(data["TABLESTATE_JWT_SECRET"]).decode() == jwt_secret
    config = r.get("ConfigMap")["data"]
    assert jwt_secret not in json.dumps(config) and config["TABLESTATE_REQUIRE_SIGN_IN"] == "true"
    own = template(
        helm,
        "--set", "existingSecret.name=creds",
        "--set", "existingSecret.jwtSecretKey=jwt",
    )  # fmt: skip
    env = env_of(container(own.get("Deployment")))
    assert env["TABLESTATE_JWT_SECRET"] == {"secretKeyRef": {"name": "creds", "key": "jwt"}}
    assert "TABLESTATE_JWT_SECRET" not in env_of(container(template(helm, *BASE).get("Deployment")))


def hook(doc: dict[str, Any]) -> tuple[str, int, str]:
    """A hook's events, weight and delete policy."""
    annotations = doc["metadata"]["annotations"]
    return (
        annotations["helm.sh/hook"],
        int(annotations["helm.sh/hook-weight"]),
        annotations["helm.sh/hook-delete-policy"],
    )


def test_an_archive_comes_from_a_secret_and_its_schema_is_migrated_first(helm):
    r = template(helm, *BASE, "--set", f"database.url={DATABASE_URL}")
    check_common(r)
    deploy = check_server_pods(r)
    env = env_of(container(deploy))
    assert env["DATABASE_URL"] == {"secretKeyRef": {"name": FULLNAME, "key": "DATABASE_URL"}}
    data = r.get("Secret")["data"]
    assert base64.b64decode(data["DATABASE_URL"]).decode() == DATABASE_URL
    assert DATABASE_URL not in json.dumps(r.get("ConfigMap")["data"])
    # The pods do not migrate a PostgreSQL archive themselves (several start at once)...
    config = {**r.get("ConfigMap")["data"], "REDIS_URL": REDIS_URL, "DATABASE_URL": DATABASE_URL}
    assert not Settings.from_env({**config, "TABLESTATE_SECRET": SECRET}).migrate
    # ...a hook Job does, before the Deployment: pre-install and pre-upgrade hooks run
    # before any ordinary resource of the release is made or changed.
    job = r.get("Job", MIGRATE)
    assert hook(job) == ("pre-install,pre-upgrade", -5, "before-hook-creation,hook-succeeded")
    pod = job["spec"]["template"]
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "migrate"
    selector = deploy["spec"]["selector"]["matchLabels"]
    assert not selector.items() <= pod["metadata"]["labels"].items(), "the Service's pod"
    ps = pod["spec"]
    assert ps["restartPolicy"] == "Never" and ps["automountServiceAccountToken"] is False
    # The chart's ServiceAccount is an ordinary resource: at pre-install it does not exist.
    assert "serviceAccountName" not in ps
    assert ps["securityContext"]["runAsNonRoot"] is True
    (c,) = ps["containers"]
    assert c["image"] == container(deploy)["image"]
    assert c["command"] == ["tablestate", "migrate"]
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    # Nor does the chart's Secret exist yet at pre-install: the Job reads the URL from a
    # hook Secret of its own, made before it (a lower weight).
    assert env_of(c) == {"DATABASE_URL": {"secretKeyRef": {"name": MIGRATE, "key": "DATABASE_URL"}}}
    own = r.get("Secret", MIGRATE)
    assert hook(own) == ("pre-install,pre-upgrade", -10, "before-hook-creation,hook-succeeded")
    assert {k: base64.b64decode(v).decode() for k, v in own["data"].items()} == {
        "DATABASE_URL": DATABASE_URL
    }

    # database.migrate=false: the URL still reaches the pods, and no hook runs.
    r = template(helm, *BASE, *sets(f"database.url={DATABASE_URL}", "database.migrate=false"))
    assert "DATABASE_URL" in env_of(container(r.get("Deployment")))
    assert "Job" not in r.kinds() and ("Secret", MIGRATE) not in r.sources

    # No database: no archive, no DATABASE_URL anywhere, no Job.
    r = template(helm, *BASE)
    assert "DATABASE_URL" not in env_of(container(r.get("Deployment")))
    assert "DATABASE_URL" not in r.get("Secret")["data"]
    assert "Job" not in r.kinds() and ("Secret", MIGRATE) not in r.sources


def test_an_archive_from_an_existing_secret(helm):
    r = template(helm, *sets("existingSecret.name=creds", "existingSecret.databaseUrlKey=db"))
    check_common(r)
    assert "Secret" not in r.kinds(), "the user's Secret exists beforehand: no hook Secret"
    ref = {"secretKeyRef": {"name": "creds", "key": "db"}}
    assert env_of(container(r.get("Deployment")))["DATABASE_URL"] == ref
    (c,) = r.get("Job", MIGRATE)["spec"]["template"]["spec"]["containers"]
    assert env_of(c) == {"DATABASE_URL": ref}
    # Without the key, the user's Secret holds no archive.
    r = template(helm, *sets("existingSecret.name=creds"))
    assert "DATABASE_URL" not in env_of(container(r.get("Deployment")))
    assert "Job" not in r.kinds()


def test_a_settings_change_rolls_the_pods(helm):
    def checksum(*args: str) -> str:
        deploy = template(helm, *BASE, *args).get("Deployment")
        return deploy["spec"]["template"]["metadata"]["annotations"]["checksum/config"]

    assert checksum() != checksum("--set", "config.TABLESTATE_LOG_LEVEL=debug")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", f"secret={SECRET}"], "Tablestate needs Redis"),
        (["--set", f"redis.url={REDIS_URL}"], "set secret (TABLESTATE_SECRET"),
        ([*BASE, "--set", "redis.bundled.enabled=true"], "exclude each other"),
        (
            sets(f"secret={SECRET}", "redis.bundled.enabled=true", "redis.cluster=true"),
            "needs a Redis Cluster",
        ),
        (
            [
                *BASE,
                *sets(
                    "autoscaling.enabled=true",
                    "autoscaling.minReplicas=5",
                    "autoscaling.maxReplicas=3",
                ),
            ],
            "must not exceed",
        ),
        # behind an ingress or a gateway, its address must be named: only it may name the
        # client's
        (
            [*BASE, "--set", "ingress.enabled=true"],
            "set config.TABLESTATE_TRUSTED_PROXIES",
        ),
        (
            [*BASE, "--set", "httpRoute.enabled=true"],
            "set config.TABLESTATE_TRUSTED_PROXIES",
        ),
        # values.schema.json, enforced by helm itself:
        ([*BASE, "--set", "replicaCount=two"], "replicaCount"),
        ([*BASE, "--set", "config.TABLESTATE_SECRET=oops"], "TABLESTATE_SECRET"),
        ([*BASE, "--set", "config.TABLESTATE_IDLE_TTL=0"], "TABLESTATE_IDLE_TTL"),
        ([*BASE, "--set", "image.pullPolicy=Sometimes"], "pullPolicy"),
        ([*BASE, "--set", "typo=1"], "typo"),
        ([*BASE, "--kube-version", "1.24.0"], "kubeVersion"),
        # database.url would go into the chart's Secret, which an existing one replaces
        (
            sets("existingSecret.name=creds", f"database.url={DATABASE_URL}"),
            "existingSecret.databaseUrlKey",
        ),
        ([*BASE, "--set", "database.url=sqlite:///data/tablestate.db"], "/database/url"),
    ],
)
def test_helm_refuses_what_cannot_work(helm, args, message):
    assert message in refused(helm, *args)


def test_notes_tell_how_to_reach_it(helm):
    done = subprocess.run(
        [helm, "install", RELEASE, str(CHART), "--dry-run=client", "--namespace", NAMESPACE,
         "--set", f"secret={SECRET}", "--set", "redis.bundled.enabled=true",
         "--set", "redis.bundled.persistence.enabled=false"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if done.returncode and "cluster unreachable" in done.stderr:
        pytest.skip(f"this helm needs a cluster for install --dry-run=client: {done.stderr}")
    assert done.returncode == 0, done.stderr
    notes = done.stdout.split("NOTES:", 1)[1]
    assert f"port-forward service/{FULLNAME} 8080:80" in notes
    assert "NO PERSISTENCE" in notes
    assert f"helm test {RELEASE}" in notes


# --- Routes: what the Ingress and the HTTPRoute let in from outside the cluster -----------

WEB = REPO / "web"
# In web/ but not files of the page: the npm manifests (the page itself is served at /).
WEB_NOT_SERVED = {"index.html", "package.json", "package-lock.json"}
# Left out of the image by deploy/Dockerfile.dockerignore.
WEB_NOT_SHIPPED = {"node_modules", "test", "tests"}
# What no route takes: the scrape and the kubelet's readiness probe stay inside the
# cluster, and the npm manifest is no file of the page.
NOT_ROUTED = ("/metrics", "/metrics/", "/readyz", "/package.json")


def page_files() -> list[str]:
    """The request path of every file the web client loads (its code, styles, vendored
    libraries), as the image ships them."""
    found = []
    for file in WEB.rglob("*"):
        rel = file.relative_to(WEB)
        if (
            file.is_file()
            and rel.parts[0] not in WEB_NOT_SHIPPED
            and rel.name not in WEB_NOT_SERVED
        ):
            found.append("/" + rel.as_posix())
    return sorted(found)


PUBLIC = ("/", "/graphql", "/healthz", *page_files())


def matches(path_type: str, path: str, request: str) -> bool:
    """Whether a route's path takes a request's path: Kubernetes' rules for an Ingress
    (Exact, Prefix) and the Gateway API's for an HTTPRoute (Exact, PathPrefix). Exact is
    the same string; a prefix matches whole path elements, its trailing slash ignored
    (/js takes /js and /js/app.js, not /json). Any other kind of path (a regular
    expression, ImplementationSpecific) cannot be judged here, so it fails the test."""
    if path_type == "Exact":
        return request == path
    assert path_type in ("Prefix", "PathPrefix"), f"a {path_type} path: what does it match?"
    base = path.rstrip("/")
    return request == base or request.startswith(base + "/")


def routes(r: Rendered) -> dict[str, list[tuple[str, str]]]:
    """Each way in (an Ingress host, the HTTPRoute) with its (path type, path) pairs."""
    found: dict[str, list[tuple[str, str]]] = {}
    if "Ingress" in r.kinds():
        for rule in r.get("Ingress")["spec"]["rules"]:
            paths = rule["http"]["paths"]
            found[f"Ingress {rule['host']}"] = [(p["pathType"], p["path"]) for p in paths]
    if "HTTPRoute" in r.kinds():
        pairs = []
        for rule in r.get("HTTPRoute")["spec"]["rules"]:
            # A rule without matches, or a match without a path, takes every path.
            for match in rule.get("matches") or [{}]:
                path = match.get("path", {"type": "PathPrefix", "value": "/"})
                pairs.append((path.get("type", "PathPrefix"), path.get("value", "/")))
        found["HTTPRoute"] = pairs
    return found


def routed(pairs: list[tuple[str, str]], request: str) -> bool:
    return any(matches(kind, path, request) for kind, path in pairs)


def test_the_web_client_is_what_the_routes_are_checked_against():
    files = page_files()
    assert "/style.css" in files and "/js/app.js" in files, files
    assert "/vendor/graphql-ws/client.js" in files, files
    page = (WEB / "index.html").read_text()
    assert 'href="style.css"' in page and 'src="js/app.js"' in page


def test_routes_let_the_public_in_and_keep_metrics_inside_the_cluster(helm, full, tmp_path):
    two_hosts = tmp_path / "two-hosts.yaml"
    two_hosts.write_text(
        "ingress:\n  hosts:\n    - host: play.example.com\n    - host: tv.example.com\n"
    )
    for args, count in ((full, 2), ([*full, "-f", str(two_hosts)], 3)):
        ways = routes(template(helm, *args))
        assert len(ways) == count and "HTTPRoute" in ways, ways
        for way, pairs in ways.items():
            for request in NOT_ROUTED:
                assert not routed(pairs, request), f"{way} routes {request} out: {pairs}"
            for request in PUBLIC:
                assert routed(pairs, request), f"{way} does not route {request}: {pairs}"


def test_expose_metrics_routes_them_on_purpose(helm, full):
    ways = routes(template(helm, *full, *sets("exposeMetrics=true")))
    for way, pairs in ways.items():
        assert routed(pairs, "/metrics"), way
        assert not routed(pairs, "/readyz"), way


def test_extra_paths_are_routed_beside_the_public_ones(helm, full):
    extra = sets(
        "ingress.hosts[0].host=play.example.com",
        "ingress.hosts[0].paths[0].path=/docs",
        "ingress.hosts[0].paths[0].pathType=Prefix",
        "httpRoute.paths[0].path=/docs",
        "httpRoute.paths[0].pathType=Prefix",
    )
    ways = routes(template(helm, *full, *extra))
    assert set(ways) == {"Ingress play.example.com", "HTTPRoute"}
    for way, pairs in ways.items():
        assert routed(pairs, "/docs/index.html") and routed(pairs, "/graphql"), way
        assert not routed(pairs, "/metrics"), way
    # An extra path that reaches /metrics is taken when exposeMetrics says so.
    opened = sets(
        "exposeMetrics=true", "ingress.hosts[0].host=h", "ingress.hosts[0].paths[0].path=/"
    )
    pairs = routes(
        template(helm, *full, *opened, *sets("ingress.hosts[0].paths[0].pathType=Prefix"))
    )
    assert routed(pairs["Ingress h"], "/anything")


ROUTED = [*BASE, *sets("ingress.enabled=true", "httpRoute.enabled=true")]
ROUTED += sets("config.TABLESTATE_TRUSTED_PROXIES=10.244.0.0/16")


def ingress_path(path: str, path_type: str) -> list[str]:
    return sets(
        "ingress.hosts[0].host=play.example.com",
        f"ingress.hosts[0].paths[0].path={path}",
        f"ingress.hosts[0].paths[0].pathType={path_type}",
    )


def route_path(path: str, path_type: str) -> list[str]:
    return sets(f"httpRoute.paths[0].path={path}", f"httpRoute.paths[0].pathType={path_type}")


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        pytest.param(ingress_path("/", "Prefix"), "ingress.hosts[0].paths[0]", id="ingress-root"),
        pytest.param(
            ingress_path("/metrics", "Exact"), "ingress.hosts[0].paths[0]", id="ingress-exact"
        ),
        pytest.param(
            ingress_path("/metrics/", "Prefix"), "ingress.hosts[0].paths[0]", id="ingress-prefix"
        ),
        pytest.param(
            ingress_path("/metrics/", "Exact"), "ingress.hosts[0].paths[0]", id="ingress-slash"
        ),
        pytest.param(route_path("/", "Prefix"), "httpRoute.paths[0]", id="route-root"),
        pytest.param(route_path("/metrics", "Exact"), "httpRoute.paths[0]", id="route-exact"),
    ],
)
def test_an_extra_path_to_metrics_is_refused(helm, extra, where):
    message = refused(helm, *ROUTED, *extra)
    assert where in message and "/metrics" in message and "exposeMetrics" in message, message


@pytest.mark.parametrize(
    "extra",
    [
        # Only paths whose reach the chart can judge: no regular expressions.
        ingress_path("/m.*", "ImplementationSpecific"),
        route_path("/m.*", "RegularExpression"),
    ],
    ids=["implementation-specific", "regular-expression"],
)
def test_only_paths_the_chart_can_judge(helm, extra):
    message = refused(helm, *ROUTED, *extra)
    assert "pathType" in message, message
