#!/usr/bin/env bash
# The dashboard's CPU per request, from /proc/<pid>/task/*/stat of its threads (es-dashboard-*), while `eventspace demo`
# runs: N back-to-back GETs of each path on one kept connection (curl), less what the same threads took over the same
# wall time with no request (the sampler). Each path is measured after a warm-up pass of N GETs; cost and health are
# measured twice, the first pass of a run is the least warmed.
# Usage: ui/scripts/dashboard-request-cost.sh [N=1000] [JAR=cli/target/eventspace.jar]
# docs/BENCHMARKS.md ("The dashboard's own cost") has the figures of the development machine.
set -euo pipefail
n=${1:-1000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar=${2:-$here/cli/target/eventspace.jar}
out=$(mktemp)
java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED -jar "$jar" \
  demo --port 0 --duration 180 >"$out" 2>&1 &
pid=$!
cleanup() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$out"; }
trap cleanup EXIT
for _ in $(seq 150); do grep -q "http://" "$out" && break; sleep 0.2; done
url=$(grep -o "http://[^ ]*" "$out" | head -1); url=${url%/}
source "$(dirname "${BASH_SOURCE[0]}")/dashboard-ticks.sh"
sleep 8
for path in /api/v1/cost /api/v1/health /api/v1/cost /api/v1/health /api/v1/loadbalance /api/v1/frame; do
  args=(); for _ in $(seq "$n"); do args+=("$url$path"); done
  curl -s "${args[@]}" >/dev/null
  a=$(ticks "$pid"); t0=$(date +%s%N); curl -s "${args[@]}" >/dev/null; t1=$(date +%s%N); b=$(ticks "$pid")
  wall=$(( (t1 - t0) / 1000000 ))
  c=$(ticks "$pid"); sleep "$(awk -v w="$wall" 'BEGIN { print w / 1000 }')"; d=$(ticks "$pid")
  awk -v x=$((b - a)) -v y=$((d - c)) -v n="$n" -v w="$wall" -v p="$path" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%-22s %d GETs in %d ms: %.0f µs of the dashboard'"'"'s CPU per request (%.0f less the idle sampler)\n", p, n, w, x / hz * 1e6 / n, (x - y) / hz * 1e6 / n }'
done
