#!/usr/bin/env bash
# Cold check time of the lesson site on one PostgreSQL version against five (issue 34: 5 versions <= 2.5 x one).
#   bash bench/postgres-versions.sh [RUNS]      (default 3; runs alternate one version, five versions)
# Two copies of content/: site.yml naming [18] and naming [14, 15, 16, 17, 18]. Each run is `bin/kensho check
# --no-cache --postgres embedded` (default --jobs 4): every page's SQL runs, no cache entry is read. The binaries are
# already in ~/.cache/kensho/postgres (the first run on a machine downloads them; not measured here).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d /tmp/kensho-versions-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
for n in 1 5; do
  cp -r content "$work/content-$n"
  # The site.yml without its postgres: block, then the versions this copy names.
  sed -i '/^postgres:/,/^  versions:/d' "$work/content-$n/site.yml"
  if [ "$n" = 1 ]; then
    printf 'postgres:\n  versions: [18]\n' >> "$work/content-$n/site.yml"
  else
    printf 'postgres:\n  versions: [14, 15, 16, 17, 18]\n' >> "$work/content-$n/site.yml"
  fi
done
echo "versions,run,checked_s,wall_s"
for run in $(seq 1 "$runs"); do
  for n in 1 5; do
    start=$(date +%s.%N)
    bin/kensho check --no-cache --postgres embedded --content "$work/content-$n" --theme site \
      --report "$work/report-$n.json" > "$work/log-$n.txt" 2>&1 || { cat "$work/log-$n.txt" >&2; exit 1; }
    end=$(date +%s.%N)
    checked=$(sed -n 's/^checked [0-9]* page(s) in \([0-9.]*\) s$/\1/p' "$work/log-$n.txt")
    echo "$n,$run,$checked,$(echo "$end - $start" | bc)"
  done
done
