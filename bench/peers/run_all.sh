#!/usr/bin/env bash
# ONE command for the side-by-side benchmark of issue 9: boardgame.io 0.50.2, Colyseus 0.16
# (immediate patch) and Tablestate (moves over WebSocket, and over HTTP) play the phases of
# WORKLOAD.md in turn, repetition by repetition, on this machine; then compare.js prints every
# figure side by side with the ratios of Tablestate to each peer and the goals of issue 9.
#
# Usage: bash bench/peers/run_all.sh [PHASES] [REPEATS]          default: "A B C" 3
# Environment:
#   PEERS_DIR  the peers' benchmark (runners, loadgens, setup.sh); default: shared/bench/peers
#              beside the checkout (../shared/bench/peers). Its setup.sh installs
#              boardgame.io and Colyseus from npm under /tmp/peerbench (outside the repo).
#   SERVERS    which to run, default "bgio colyseus tablestate"
#   RESULTS    folder of this run's JSON lines; default bench/peers/results/<UTC time>
#   CHARTS=1   also hand the runs to charts.js (chart data / PNGs into $RESULTS/charts)
#   WORKERS, TRANSPORTS, LOG_LEVEL: passed to run_tablestate.sh
# Raw latency samples of every run (Tablestate and, through lib/capture_samples.js, the peers)
# go to $RESULTS/samples (SAMPLES_DIR), for the latency-distribution charts.
# Each runner waits for a quiet machine before every run, starts a fresh server per (phase,
# repetition), bounds every loop and wait, and talks to 127.0.0.1 only. Repetitions are
# interleaved (rep 1 of every server, then rep 2, ...) so that slow drifts of the machine
# touch every server alike. A runner that fails is reported and the others go on.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PHASES="${1:-A B C}"
REPEATS="${2:-3}"
SERVERS="${SERVERS:-bgio colyseus tablestate}"
PEERS_DIR="${PEERS_DIR:-$(cd "$ROOT/.." && pwd)/shared/bench/peers}"
RESULTS="${RESULTS:-$HERE/results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$RESULTS"
case " $SERVERS " in *" bgio "*|*" colyseus "*)
  [ -f "$PEERS_DIR/run_bgio.sh" ] || { echo "no peer benchmark at $PEERS_DIR (set PEERS_DIR)" >&2; exit 1; } ;;
esac
export SAMPLES_DIR="${SAMPLES_DIR:-$RESULTS/samples}"
# The peers' loadgens keep their raw latency samples there too (lib/capture_samples.js, preloaded).
PEER_NODE_OPTIONS="--require $HERE/lib/capture_samples.js ${NODE_OPTIONS:-}"

{
  echo "started $(date -u +%FT%TZ) on $(nproc) CPUs, $(uname -r); node $(node --version)"
  echo "phases: $PHASES; repetitions: $REPEATS; servers: $SERVERS; peers: $PEERS_DIR"
  grep -m1 'model name' /proc/cpuinfo || true
} | tee "$RESULTS/run_info.txt" >&2

for rep in $(seq 1 "$REPEATS"); do
  for s in $SERVERS; do
    echo "== repetition $rep/$REPEATS: $s ($PHASES)" >&2
    case "$s" in
      bgio) PEER_SAMPLES_DIR="$SAMPLES_DIR" NODE_OPTIONS="$PEER_NODE_OPTIONS" OUT="$RESULTS/bgio.jsonl" timeout 1800 bash "$PEERS_DIR/run_bgio.sh" "$PHASES" 1 >&2 ;;
      colyseus) PEER_SAMPLES_DIR="$SAMPLES_DIR" NODE_OPTIONS="$PEER_NODE_OPTIONS" OUT="$RESULTS/colyseus.jsonl" timeout 1800 bash "$PEERS_DIR/run_colyseus.sh" "$PHASES" 1 >&2 ;;
      tablestate) OUT="$RESULTS/tablestate.jsonl" timeout 1800 bash "$HERE/run_tablestate.sh" "$PHASES" 1 >&2 ;;
      *) echo "unknown server $s" >&2; false ;;
    esac
    rc=$?
    [ $rc -eq 0 ] || echo "!! $s repetition $rep failed (rc=$rc); going on" | tee -a "$RESULTS/run_info.txt" >&2
  done
done

shopt -s nullglob
FILES=("$RESULTS"/*.jsonl)
[ ${#FILES[@]} -gt 0 ] || { echo "no results" >&2; exit 1; }
CHART_ARGS=()
[ "${CHARTS:-0}" = 1 ] && CHART_ARGS=(--charts "$RESULTS/charts")
node "$HERE/compare.js" --per-run "${CHART_ARGS[@]}" "${FILES[@]}" | tee "$RESULTS/summary.md"
echo "results: $RESULTS" >&2
