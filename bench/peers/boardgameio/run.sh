#!/usr/bin/env bash
# Usage: [STORE=memory] [PORT=8100] bash bench/peers/boardgameio/run.sh [load.js args, e.g. --clients 50 --seconds 10]
set -euo pipefail
cd "$(dirname "$0")"
PORT="${PORT:-8100}"
STORE="${STORE:-postgres}"
export NODE_ENV="${NODE_ENV:-production}"   # boardgame.io: no dev-only checks/info logs

[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error   # package-lock.json pins all

if [ "$STORE" != "memory" ]; then
  psql -q -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c 'DROP DATABASE IF EXISTS bgio_bench WITH (FORCE)' -c 'CREATE DATABASE bgio_bench'
fi

PORT="$PORT" STORE="$STORE" node server.js > server.log 2>&1 &
SPID=$!
trap 'kill "$SPID" 2>/dev/null || true; wait "$SPID" 2>/dev/null || true' EXIT

for i in $(seq 1 100); do   # wait up to ~10 s for the Lobby API
  if curl -fs -o /dev/null "http://127.0.0.1:$PORT/games"; then break; fi
  if ! kill -0 "$SPID" 2>/dev/null; then echo "server died:"; cat server.log; exit 1; fi
  sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/games" || { echo "server not answering"; cat server.log; exit 1; }

echo "server pid $SPID, STORE=$STORE, port $PORT"
node load.js --url "http://127.0.0.1:$PORT" --server-pid "$SPID" "$@"
if [ -s server.log ] && grep -q ERROR server.log; then
  echo "server.log has $(grep -c ERROR server.log) ERROR lines (first 3):"; grep ERROR server.log | head -3
fi
