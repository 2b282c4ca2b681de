#!/usr/bin/env bash
# What the browser playground costs a reader (bench/playground.mjs) on the built lesson site, served without
# compression by Python's http.server (a host that gzips sends the .wasm and .data smaller: the gzip -9 sizes are
# printed too): cold first click, a later snippet (warm), an edited re-run, the first result on a further page;
# medians of ROUNDS rounds (default 3), each in a fresh browser profile. Needs Node (npm) and Debian's chromium
# (apt-get install -y chromium); README's commands need neither.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
# READ_MS, OPEN_MS, EARLY, NEXT_WAIT_MS: how the reader reads and what they chose (bench/playground.mjs says).
# SITE=folder benchmarks a site built elsewhere (e.g. the same build with another engine's kensho-run*.js).
site=${SITE:-target/site}
[ -n "${SITE:-}" ] || [ -f target/site/index.html ] || bin/kensho build
pw=/tmp/kensho-bench-pw
[ -d "$pw/node_modules/playwright-core" ] || npm install --no-save --no-audit --no-fund --prefix "$pw" playwright-core@1 > /dev/null
port=${PORT:-8791}
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" > /dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
cp bench/playground.mjs "$pw/playground.mjs"
# The machine may be shared: its load beside the figures.
echo "load before: $(uptime)"
node "$pw/playground.mjs" "http://127.0.0.1:$port/" idempotency/keyset/ idempotency/payments/ "$rounds"
# payments reads the clock: there an edited run replays from the page's start (README, the playground).
[ -n "${KEYSET_ONLY:-}" ] || node "$pw/playground.mjs" "http://127.0.0.1:$port/" idempotency/payments/ idempotency/retention/ "$rounds"
echo "load after: $(uptime)"
engine=$(ls -d "$site"/assets/pglite/*/)
echo "engine files: $(du -cb "$engine"* | tail -1 | cut -f1) bytes; gzip -9: $(cat "$engine"* | gzip -9 | wc -c) bytes (pglite.wasm $(gzip -9c "$engine/pglite.wasm" | wc -c), pglite.data $(gzip -9c "$engine/pglite.data" | wc -c))"
