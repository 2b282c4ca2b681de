#!/usr/bin/env bash
# One Kensho command timed with several jars (and, optionally, Hugo on the same Markdown), the runs alternating
# so that a shared machine's drift falls on all of them alike. Each jar has a cache home of its own (verification
# cache, secret, class-data-sharing archive), warmed by one untimed run of the same command first. Prints every run
# and, per program, the median wall time, CPU (user + system, the PostgreSQL server's included: it is a child) and
# peak RSS, with the load average at the start and the end.
# usage: bench/ab.sh RUNS JAR [JAR…] -- KENSHO_ARGS…
#   HUGO_SOURCE=DIR also times `hugo --quiet --source DIR` in every round (a rebuild over its earlier output).
#   KENSHO_TIMINGS=1 is passed through: the phase lines of the last run of each jar are printed.
#   BEFORE_RUN='SHELL COMMAND' is run before every Kensho run (warm-ups included), untimed: e.g. a line appended to
#   one page, so that a cached build renders that page instead of being skipped by the up-to-date record.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=$1; shift
jars=()
while [ "$1" != "--" ]; do jars+=("$1"); shift; done
shift
work=$(mktemp -d /tmp/kensho-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'; }
# timed NAME CMD…: one run, appended to NAME's lists
timed() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$@" > "$work/$name.out" 2>&1 || { cat "$work/$name.out"; exit 1; }
  read -r s u y m < "$work/$name.time"
  echo "$s" >> "$work/$name.wall"; awk -v u="$u" -v y="$y" 'BEGIN { print u + y }' >> "$work/$name.cpu"
  echo "$((m / 1024))" >> "$work/$name.rss"
  echo "  $name: wall $s s, user $u s, sys $y s, RSS $((m / 1024)) MiB"
}
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
before() { if [ -n "${BEFORE_RUN:-}" ]; then sh -c "$BEFORE_RUN"; fi; }
for i in "${!jars[@]}"; do
  before
  XDG_CACHE_HOME="$work/xdg$i" KENSHO_JAR="${jars[$i]}" bin/kensho "$@" > /dev/null 2>&1 || true
done
[ -n "${HUGO_SOURCE:-}" ] && hugo --quiet --source "$HUGO_SOURCE" --destination "$work/hugo-out" > /dev/null
for run in $(seq "$runs"); do
  echo "round $run"
  for i in "${!jars[@]}"; do
    before
    timed "jar$i" env XDG_CACHE_HOME="$work/xdg$i" KENSHO_JAR="${jars[$i]}" bin/kensho "$@"
  done
  if [ -n "${HUGO_SOURCE:-}" ]; then
    timed hugo hugo --quiet --source "$HUGO_SOURCE" --destination "$work/hugo-out"
  fi
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!jars[@]}"; do
  echo "${jars[$i]}: median wall $(median < "$work/jar$i.wall") s, CPU $(median < "$work/jar$i.cpu") s, RSS $(median < "$work/jar$i.rss") MiB ($runs runs)"
  grep -E '^(timing|Kensho: verified|checked|built)' "$work/jar$i.out" | sed 's/^/    /' || true
done
if [ -n "${HUGO_SOURCE:-}" ]; then
  echo "hugo: median wall $(median < "$work/hugo.wall") s, CPU $(median < "$work/hugo.cpu") s, RSS $(median < "$work/hugo.rss") MiB ($runs runs)"
fi
