#!/usr/bin/env bash
# The lesson site with every page cached: `bin/kensho build` of content/, timed from the third build on (the first fills
# the verification cache and writes the class-data-sharing archive). With two jars, runs alternate between them, each
# with a cache home of its own (its own verification cache, secret and archive), and medians are printed per jar.
# CHANGE=PAGE (a path below content/, e.g. idempotency/fingerprint.md): that page gets a line of prose before every
# timed build (in place, in this checkout's git work tree, as an author's edit; restored at the end), so each build
# renders (its SQL still from the cache) instead of being skipped by the up-to-date record.
# usage: [CHANGE=PAGE] bench/cached-lesson.sh RUNS JAR [JAR2]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=$1; shift
work=$(mktemp -d /tmp/kensho-cached.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -n "${CHANGE:-}" ]; then
  cp "content/$CHANGE" "$work/changed.md"
  trap 'cp "$work/changed.md" "content/$CHANGE"; rm -rf "$work"' EXIT
fi
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'; }
i=0
for jar in "$@"; do
  i=$((i + 1))
  mkdir -p "$work/$i"
  for _ in 1 2; do
    XDG_CACHE_HOME="$work/$i/xdg" KENSHO_JAR="$jar" bin/kensho build --out "$work/$i/site" --report "$work/$i/report.json" > "$work/$i/warm.log" 2>&1
  done
done
for run in $(seq "$runs"); do
  i=0
  for jar in "$@"; do
    i=$((i + 1))
    [ -n "${CHANGE:-}" ] && printf '\nbench change %s %s\n' "$run" "$i" >> "content/$CHANGE"
    XDG_CACHE_HOME="$work/$i/xdg" KENSHO_JAR="$jar" /usr/bin/time -f "%e %U %S %M" -o "$work/$i/time" \
        bin/kensho build --out "$work/$i/site" --report "$work/$i/report.json" > "$work/$i/out" 2>&1
    read -r s u y m < "$work/$i/time"
    echo "$s" >> "$work/$i/wall"; awk -v u="$u" -v y="$y" 'BEGIN { print u + y }' >> "$work/$i/cpu"
    echo "run $run $jar: wall $s s, CPU $(tail -1 "$work/$i/cpu") s, RSS $((m / 1024)) MiB; $(head -1 "$work/$i/out" | cut -c1-120)"
  done
done
i=0
for jar in "$@"; do
  i=$((i + 1))
  echo "$jar: median wall $(median < "$work/$i/wall") s, median CPU $(median < "$work/$i/cpu") s ($runs runs)"
done
