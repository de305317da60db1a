#!/usr/bin/env bash
# What the dashboard's own threads (es-dashboard-sampler, es-dashboard-http-*) cost, from /proc, while
# `eventspace demo` runs: with no client, then with N clients each polling PATH every 500 ms (curl, a new connection
# each time). Usage: ui/scripts/dashboard-cost.sh [SECONDS=30] [CLIENTS=50] [PATH=/api/v1/frame]
# docs/BENCHMARKS.md ("The dashboard's own cost") has the figures of the development machine.
set -euo pipefail
secs=${1:-30}; clients=${2:-50}; path=${3:-/api/v1/frame}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out=$(mktemp); pollers=()
"$here/eventspace" demo --port 0 --duration $((2 * secs + 30)) >"$out" 2>&1 &
demo=$!
cleanup() { for p in "${pollers[@]}"; do kill "$p" 2>/dev/null || true; done; kill -TERM "$demo" 2>/dev/null || true; rm -f "$out"; }
trap cleanup EXIT
for _ in $(seq 100); do grep -q "dashboard: http" "$out" && break; sleep 0.2; done
url=$(grep -o "http://[^ ]*" "$out" | head -1)
pid=$(pgrep -P "$demo" java || echo "$demo")
source "$(dirname "${BASH_SOURCE[0]}")/dashboard-ticks.sh"
measure() {
  local a b; a=$(ticks "$pid"); sleep "$secs"; b=$(ticks "$pid")
  awk -v d=$((b - a)) -v hz="$(getconf CLK_TCK)" -v s="$secs" -v what="$1" \
    'BEGIN { printf "%-40s %6.2f %% of one core\n", what, 100 * d / hz / s }'
}
sleep 5
measure "no client"
for _ in $(seq "$clients"); do
  (while true; do curl -s -o /dev/null "${url%/}$path"; sleep 0.5; done) & pollers+=($!)
done
sleep 2
measure "$clients clients polling $path"
