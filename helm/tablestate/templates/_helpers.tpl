{{/* The chart's name (nameOverride wins). */}}
{{- define "tablestate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the prefix of every object's name. */}}
{{- define "tablestate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tablestate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "tablestate.labels" -}}
helm.sh/chart: {{ include "tablestate.chart" . }}
app.kubernetes.io/name: {{ include "tablestate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: tablestate
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector of the service's pods (the component keeps the bundled Redis out). */}}
{{- define "tablestate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tablestate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end }}

{{- define "tablestate.redis.fullname" -}}
{{- printf "%s-redis" (include "tablestate.fullname" . | trunc 57 | trimSuffix "-") }}
{{- end }}

{{- define "tablestate.redis.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tablestate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "tablestate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tablestate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag, or repository@digest. */}}
{{- define "tablestate.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret of REDIS_URL, TABLESTATE_SECRET and DATABASE_URL: the user's or the chart's. */}}
{{- define "tablestate.secretName" -}}
{{- default (include "tablestate.fullname" .) .Values.existingSecret.name }}
{{- end }}

{{/* Whether there is an archive: a DATABASE_URL in the chart's Secret or the user's. */}}
{{- define "tablestate.database.enabled" -}}
{{- if or .Values.database.url (and .Values.existingSecret.name .Values.existingSecret.databaseUrlKey) }}true{{ end }}
{{- end }}

{{/* The Secret's key of DATABASE_URL: the user's Secret's, or the chart's. */}}
{{- define "tablestate.database.urlKey" -}}
{{- if .Values.existingSecret.name }}{{ .Values.existingSecret.databaseUrlKey }}{{ else }}DATABASE_URL{{ end }}
{{- end }}

{{/* The migrate hook's Job, and its Secret (see migrate-job.yaml). */}}
{{- define "tablestate.migrate.fullname" -}}
{{- printf "%s-migrate" (include "tablestate.fullname" . | trunc 55 | trimSuffix "-") }}
{{- end }}

{{/* The URL of the bundled Redis. */}}
{{- define "tablestate.redis.url" -}}
{{- printf "redis://%s:6379/0" (include "tablestate.redis.fullname" .) }}
{{- end }}

{{/*
A setting as the service reads it: whole numbers without an exponent (Helm reads numbers
in values files as floats, and 604800 would otherwise print as 6.048e+05).
*/}}
{{- define "tablestate.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) }}
{{- int64 . | toString }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/* Settings that cannot work together: refuse them at render time, naming the fix. */}}
{{- define "tablestate.validate" -}}
{{- $redis := .Values.redis }}
{{- if and $redis.bundled.enabled $redis.url }}
{{- fail "redis.url and redis.bundled.enabled exclude each other: use one Redis" }}
{{- end }}
{{- if and $redis.bundled.enabled $redis.cluster }}
{{- fail "redis.cluster needs a Redis Cluster; the bundled Redis is a single server" }}
{{- end }}
{{- if not (or $redis.bundled.enabled $redis.url .Values.existingSecret.name) }}
{{- fail "Tablestate needs Redis: set redis.url (an external Redis), existingSecret.name (a Secret holding REDIS_URL), or redis.bundled.enabled=true (for trying it out)" }}
{{- end }}
{{- if and .Values.existingSecret.name .Values.database.url }}
{{- fail "database.url goes into the chart's Secret, which existingSecret.name replaces: put DATABASE_URL into your Secret and name its key in existingSecret.databaseUrlKey" }}
{{- end }}
{{- if not (or .Values.secret .Values.existingSecret.name) }}
{{- fail "set secret (TABLESTATE_SECRET: a long random string, the same for the life of the tables, e.g. openssl rand -hex 32) or existingSecret.name" }}
{{- end }}
{{- if and (or .Values.ingress.enabled .Values.httpRoute.enabled) (kindIs "invalid" .Values.config.TABLESTATE_TRUSTED_PROXIES) }}
{{- fail "with ingress or httpRoute, set config.TABLESTATE_TRUSTED_PROXIES to the addresses or network of your ingress controller's or gateway's pods (e.g. 10.244.0.0/16): only then is the client's address taken from X-Forwarded-For (\"none\" to count every client as the proxy)" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail "autoscaling.minReplicas must not exceed autoscaling.maxReplicas" }}
{{- end }}
{{- end }}

{{/*
What the Ingress and the HTTPRoute let in: what the public needs, and nothing else. The API
(HTTP and WebSocket), the web client (its page, styles, code and vendored libraries: the
files of web/ in the image) and the liveness check. /metrics and /readyz stay inside the
cluster: Prometheus scrapes the pods (serviceMonitor), the kubelet probes them. An allow-list,
so that a path the service gains later stays inside until it is added here (deploy/nginx.conf
only turns /metrics away). Checked through a real nginx: tests/deploy/test_chart_routes.py.
*/}}
{{- define "tablestate.publicPaths" -}}
- {path: /graphql, pathType: Exact}
- {path: /, pathType: Exact}
- {path: /style.css, pathType: Exact}
- {path: /js, pathType: Prefix}
- {path: /vendor, pathType: Prefix}
- {path: /healthz, pathType: Exact}
{{- end }}

{{/*
The paths of one route (a YAML list of {path, pathType}): the public ones, /metrics with
exposeMetrics, then the extra ones given, without repeats. An extra path that would reach
/metrics (Exact /metrics, Prefix /metrics or Prefix /, a trailing slash or not: Kubernetes
and the Gateway API match a prefix by whole path elements) is refused unless exposeMetrics
is true. Called with (dict "root" $ "extra" <list> "where" <the values' key, for messages>).
*/}}
{{- define "tablestate.routePaths" -}}
{{- $paths := include "tablestate.publicPaths" .root | fromYamlArray }}
{{- if .root.Values.exposeMetrics }}
{{- $paths = append $paths (dict "path" "/metrics" "pathType" "Exact") }}
{{- end }}
{{- range $i, $p := .extra }}
{{- $base := regexReplaceAll "/+$" $p.path "" }}
{{- if and (not $.root.Values.exposeMetrics) (or (eq $base "/metrics") (and (eq $p.pathType "Prefix") (eq $base ""))) }}
{{- fail (printf "%s[%d] (%s %s) would route /metrics out of the cluster. The chart routes what the public needs itself (/graphql, the web client, /healthz): drop this path, and scrape the pods from inside (serviceMonitor.enabled=true); or set exposeMetrics=true to publish /metrics on purpose" $.where $i $p.pathType $p.path) }}
{{- end }}
{{- $paths = append $paths (dict "path" $p.path "pathType" $p.pathType) }}
{{- end }}
{{- toYaml (uniq $paths) }}
{{- end }}
