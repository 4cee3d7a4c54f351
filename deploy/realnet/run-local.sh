#!/bin/sh
# Runs one real execution with one node per process on this machine: N
# 'macepc live --node I --peers ...' processes on loopback, all until the
# same instant, DURATION seconds from now (no process sees the other nodes'
# states, so the stopping condition cannot end the run; a common end keeps
# a process that ends first from breaking the connections of one still
# running), then replays the gathered traces, which
# checks the system's properties after every event and finds the step
# where its stopping condition held.
#
# Usage: deploy/realnet/run-local.sh [N]   (default 4 nodes)
# Environment (defaults in brackets):
#   MACEPC      the macepc binary [macepc]
#   SYSTEM      system [pingpong]; its service must list its MessageTypes
#   VARIANT     variant [the system's default]
#   OUT         trace directory; must not hold this run's traces [macepc-live-peers]
#   HOST        address the nodes use [127.0.0.1]
#   PORT        node I listens on PORT+10*I (transport t on that plus t) [47000]
#   DURATION    seconds until the common end, whole [3]
#   TIME_SCALE  real seconds per scenario second [1]
#   SEED        seed of the driver and the nodes' ctx.Rand, the same for all [1]
set -eu
N=${1:-4}
MACEPC=${MACEPC:-macepc}
SYSTEM=${SYSTEM:-pingpong}
VARIANT=${VARIANT:-}
OUT=${OUT:-macepc-live-peers}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-47000}
DURATION=${DURATION:-3}
TIME_SCALE=${TIME_SCALE:-1}
SEED=${SEED:-1}

peers=""
i=0
while [ "$i" -lt "$N" ]; do
  peers="${peers:+$peers,}$HOST:$((PORT + 10 * i))"
  i=$((i + 1))
done
until=$(($(date +%s) + DURATION))
set -- --system "$SYSTEM" --peers "$peers" --until "$until" --time-scale "$TIME_SCALE" --seed "$SEED" --out "$OUT"
if [ -n "$VARIANT" ]; then
  set -- "$@" --variant "$VARIANT"
fi

mkdir -p "$OUT"
pids=""
i=0
while [ "$i" -lt "$N" ]; do
  "$MACEPC" live --node "$i" "$@" >"$OUT/node-$i.log" 2>&1 &
  pids="$pids $!"
  i=$((i + 1))
done
failed=0
i=0
for pid in $pids; do
  if ! wait "$pid"; then
    echo "run-local.sh: node $i failed:" >&2
    cat "$OUT/node-$i.log" >&2
    failed=1
  fi
  i=$((i + 1))
done
if [ "$failed" -ne 0 ]; then
  exit 2
fi
echo "run-local.sh: $N processes ended; their traces are in $OUT/run-000"
exec "$MACEPC" replay --trace "$OUT/run-000"
