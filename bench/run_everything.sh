#!/usr/bin/env bash
# Every figure and chart of docs/performance.md, in one command (on 2 vCPUs about 30 minutes
# with REPEATS=1, about an hour with the default 3; most of it the peer runs and quiet waits).
#
# Usage: bash bench/run_everything.sh
# Environment:
#   REPEATS     repetitions of the side-by-side phases A, B, C (default 3, as the peers' RESULTS.md)
#   PEERS_RUN   reuse this finished run folder of run_all.sh instead of running the peers again
#   SERVERS     servers of the side-by-side run (default "bgio colyseus tablestate")
#   TRANSPORTS  Tablestate's move transports there (default "ws http")
#   PEERS_DIR   the peers' benchmark (see bench/peers/run_all.sh)
#   OUT         folder of the JSON lines and printed tables (default bench/results)
# Steps (each prints its figures; all land in $OUT, the charts in docs/performance/):
#   1. bench/peers/run_all.sh      phases A, B, C: Tablestate beside boardgame.io and Colyseus
#   2. bench/scaling.py            1..1,000 tables; 10..5,000 subscribers; bytes per subscription
#   3. bench/games.py              bundled games with bots: games/s; Redis bytes per table
#   4. bench/profile_move.py       py-spy under phase A: a move's server time by layer
#   5. bench/scaling.py --only workers   1 and 2 workers, interleaved: CPU per move (in $OUT/workers/)
#   6. bench/commit_cost.py        redis-server's cost of a commit by snapshot size
#   7. bench/charts.py             the PNGs
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${OUT:-$ROOT/bench/results}"
mkdir -p "$OUT"
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f "$ROOT/.venv/bin/activate" ]; then
  # shellcheck disable=SC1091
  . "$ROOT/.venv/bin/activate"
fi
cd "$ROOT"
{
  echo "started $(date -u +%FT%TZ); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); load: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/machine.txt"

if [ -z "${PEERS_RUN:-}" ]; then
  PEERS_RUN="$ROOT/bench/peers/results/$(date -u +%Y%m%dT%H%M%SZ)"
  RESULTS="$PEERS_RUN" SERVERS="${SERVERS:-bgio colyseus tablestate}" TRANSPORTS="${TRANSPORTS:-ws http}" \
    bash "$HERE/peers/run_all.sh" "A B C" "${REPEATS:-3}"
fi
echo "peer run: $PEERS_RUN" | tee -a "$OUT/machine.txt"

# A step that fails (e.g. a scaling point the server could not take) is reported, and the
# other steps still run; the exit status says whether all went well.
FAILED=""
step() { local name="$1"; shift; "$@" || { FAILED="$FAILED $name"; echo "!! $name failed" >&2; }; }
step scaling bash -c 'python "$1/scaling.py" --out-dir "$2" | tee "$2/scaling.txt"' _ "$HERE" "$OUT"
rm -f "$OUT/games.jsonl" "$OUT/profile.jsonl"
step games bash -c 'python "$1/games.py" --games 20 --out "$2/games.jsonl" | tee "$2/games.txt"' _ "$HERE" "$OUT"
step profile bash -c 'python "$1/profile_move.py" --out "$2/profile.jsonl" | tee "$2/profile.txt"' _ "$HERE" "$OUT"
step workers bash -c 'python "$1/scaling.py" --only workers --runs 3 --out-dir "$2/workers" | tee "$2/workers.txt"' _ "$HERE" "$OUT"
step commit_cost bash -c 'python "$1/commit_cost.py" | tee "$2/commit_cost.txt"' _ "$HERE" "$OUT"
step charts python "$HERE/charts.py" --peers-run "$PEERS_RUN" --scaling "$OUT/scaling.jsonl" \
  --out "$ROOT/docs/performance"
echo "finished $(date -u +%FT%TZ); load: $(cut -d' ' -f1-3 /proc/loadavg); failed:${FAILED:- none}" \
  | tee -a "$OUT/machine.txt"
[ -z "$FAILED" ]
