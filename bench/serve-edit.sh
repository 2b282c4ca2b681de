#!/usr/bin/env bash
# The preview's edit-to-served latency on the lesson site: a copy of content/ is served by bin/kensho serve, then one
# page's prose is edited N times and the page polled until the new text is served. Prints each latency (ms), the
# preview's own "rebuilt …" lines, and the median.
# usage: bench/serve-edit.sh [EDITS] [PAGE]   (default 5 edits of idempotency/fingerprint.md)
set -euo pipefail
cd "$(dirname "$0")/.."
edits=${1:-5}
page=${2:-idempotency/fingerprint.md}
work=$(mktemp -d /tmp/kensho-serve.XXXXXX)
cp -r content "$work/content"
port=$((20000 + RANDOM % 20000))
url="http://127.0.0.1:$port/${page%.md}/"
setsid env ${KENSHO_TIMINGS:+KENSHO_TIMINGS=1} bin/kensho serve --port "$port" --content "$work/content" --cache "$work/cache" > "$work/log" 2>&1 &
serve=$!
# The whole process group: on a jar's first run bin/kensho does not exec java (it moves the archive into place after).
# The folder goes only once every process of the group is gone: a JVM still ending writes into it after the kill. Under
# set -e, a trap's failing command ends the trap: wait gives the killed server's status (143), hence the || true.
trap 'kill -TERM -- -$serve 2> /dev/null || true; wait $serve 2> /dev/null || true
  for _ in $(seq 100); do kill -0 -- -$serve 2> /dev/null || break; sleep 0.1; done; rm -rf "$work"' EXIT
for _ in $(seq 600); do curl -fs "$url" > /dev/null 2>&1 && break; sleep 0.5; done
sleep 1
latencies=()
for n in $(seq "$edits"); do
  printf '\nbench edit %s\n' "$n" >> "$work/content/$page"
  start=$(date +%s%N)
  until curl -fs "$url" | grep -q "bench edit $n<"; do sleep 0.005; done
  latencies+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  sleep 0.5
done
grep -E "rebuilt|timing" "$work/log" || true
echo "latencies ms: ${latencies[*]}"
printf '%s\n' "${latencies[@]}" | sort -n | awk '{ a[NR] = $1 } END { print "median ms:", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
