#!/usr/bin/env bash
# Measures how long `relock status` takes from its launch to its first command reaching Redis, and
# to its exit, as the README reports it:
#
#   relock-cli/src/test/sh/startup-time.sh [runs] [launcher...]
#
# runs: how many launches (default 10; the median is reported). launcher: the command to measure
# (default: relock-cli/target/relock). Needs redis-server and redis-cli on the PATH; starts a
# redis-server of its own on a free port and stops it afterwards.
set -euo pipefail
runs="${1:-10}"
shift || true
here="$(cd "$(dirname "$0")/../../.." && pwd)"
if [ "$#" -eq 0 ]; then set -- "$here/target/relock"; fi
port=$(( 20000 + RANDOM % 20000 ))
work="$(mktemp -d)"
redis-server --port "$port" --save "" --appendonly no --daemonize yes --logfile "$work/redis.log" \
  --pidfile "$work/redis.pid"
trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null; kill "$monitor" 2>/dev/null; rm -rf "$work"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
redis-cli -p "$port" monitor >> "$work/monitor.txt" &
monitor=$!
sleep 0.3
first=()
total=()
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$@" status startup-probe --uri "redis://127.0.0.1:$port" > /dev/null
  end=$(date +%s.%N)
  sleep 0.2
  seen=$(awk -v t="$start" '$1 ~ /^[0-9]+\.[0-9]+$/ && $1 + 0 >= t + 0 { print $1; exit }' "$work/monitor.txt")
  first+=("$(echo "($seen - $start) * 1000" | bc -l)")
  total+=("$(echo "($end - $start) * 1000" | bc -l)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "%.0f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "launch to first Redis command: median $(median "${first[@]}") ms; launch to exit: median $(median "${total[@]}") ms ($runs runs of: $* status)"
