# Sourced by the dashboard cost scripts: ticks PID prints the CPU time (user + system, in clock ticks) that the
# dashboard's own threads (named es-dashboard*) of process PID have used so far, read from /proc/PID/task/*/stat.
ticks() {
  local t=0 d c s
  for d in /proc/"$1"/task/*; do
    c=$(cat "$d/comm" 2>/dev/null || true)
    if [[ $c == es-dashboard* ]]; then s=$(awk '{print $14 + $15}' "$d/stat" 2>/dev/null || echo 0); t=$((t + s)); fi
  done
  echo "$t"
}
