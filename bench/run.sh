#!/usr/bin/env bash
# Kensho's benchmark harness (a CLI harness, not timed unit tests). Reports medians of several cold
# runs, each in a fresh JVM:
#   - build time and ms per page without SQL, for 100, 1,000 and 4,000 pages, beside Hugo on the same Markdown;
#   - peak memory (max RSS);
#   - cold time to verify 1,000 snippets on 100 pages, server start included, and snippets per second;
#   - a fully cached build of the lesson site.
# usage: bench/run.sh [RUNS]     (default 5; needs python3 and, for the comparison, Debian's hugo)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d /tmp/kensho-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -f generator/target/kensho.jar ] || mvn -q -B -DskipTests package
jar=$PWD/generator/target/kensho.jar
theme=$PWD/site

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'; }

# time_runs CMD...: runs CMD $runs times; prints "median_seconds median_maxrss_MB"
time_runs() {
  local secs=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
    read -r s m < "$work/time"
    secs+=("$s"); rss+=("$m")
  done
  printf '%s %s\n' "$(printf '%s\n' "${secs[@]}" | median)" "$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')"
}

echo "# Kensho benchmark ($(date -u +%Y-%m-%d), $(nproc) cores, $runs runs each, medians)"
echo
echo "| corpus | Kensho build | ms/page | Kensho max RSS | Hugo build | Hugo max RSS | Kensho / Hugo |"
echo "|---|---|---|---|---|---|---|"
for pages in 100 1000 4000; do
  python3 bench/corpus.py "$work/md-$pages" "$pages"
  read -r k_s k_m < <(time_runs java -jar "$jar" build --content "$work/md-$pages/kensho/content" --theme "$theme" \
      --out "$work/md-$pages/out" --report "$work/md-$pages/report.json" --no-cache --postgres embedded)
  if command -v hugo > /dev/null; then
    read -r h_s h_m < <(time_runs hugo --quiet --source "$work/md-$pages/hugo" --destination "$work/md-$pages/hugo-out")
    ratio=$(awk -v k="$k_s" -v h="$h_s" 'BEGIN { printf "%.2f", k / h }')
  else
    h_s="n/a"; h_m="n/a"; ratio="n/a (hugo not installed)"
  fi
  per_page=$(awk -v k="$k_s" -v p="$pages" 'BEGIN { printf "%.2f", k * 1000 / p }')
  echo "| $pages pages, no SQL | ${k_s} s | $per_page | ${k_m} MB | ${h_s} s | ${h_m} MB | $ratio |"
done

python3 bench/corpus.py "$work/sql-100" 100 10
read -r s_s s_m < <(time_runs java -jar "$jar" check --content "$work/sql-100/kensho/content" --theme "$theme" \
    --report "$work/sql-100/report.json" --postgres embedded --no-cache)
snippets=$(python3 -c "import json; print(json.load(open('$work/sql-100/report.json'))['totals']['passed'])")
echo
echo "| verification | cold wall time (server start included) | snippets | snippets/s | max RSS |"
echo "|---|---|---|---|---|"
echo "| 100 pages × 10 snippets | ${s_s} s | $snippets | $(awk -v n="$snippets" -v s="$s_s" 'BEGIN { printf "%.0f", n / s }') | ${s_m} MB |"

# Warm preview: save a page with two snippets, then poll until the preview serves the new text.
mkdir -p "$work/serve/content"
cat > "$work/serve/content/page.md" <<'PAGE'
---
title: Edit me
---

```sql
CREATE TABLE t (id int PRIMARY KEY);
```

```sql
INSERT INTO t VALUES (1) RETURNING id;
```

version 0
PAGE
port=$((20000 + RANDOM % 20000))
java -jar "$jar" serve --port "$port" --content "$work/serve/content" --theme "$theme" --postgres embedded \
    --cache "$work/serve/cache" > "$work/serve/log" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/page.html" > /dev/null 2>&1 && break; sleep 0.2; done
latencies=()
for n in $(seq 1 "$((runs * 2))"); do
  sed -i "s/^version .*/version $n/; s/VALUES ([0-9]*)/VALUES ($n)/" "$work/serve/content/page.md"
  start=$(date +%s%N)
  until curl -fs "http://127.0.0.1:$port/page.html" | grep -q "version $n"; do sleep 0.005; done
  latencies+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  sleep 0.3
done
kill -TERM "$serve_pid"; wait "$serve_pid" 2> /dev/null || true  # a background job ignores SIGINT
echo
echo "| preview (serve), one page with two snippets edited | median $(printf '%s\n' "${latencies[@]}" | median) ms from save to the new page served | $((runs * 2)) edits |"
echo "|---|---|---|"

java -jar "$jar" build --out "$work/lesson" --report "$work/lesson.json" --cache "$work/lesson-cache" --postgres embedded > /dev/null 2>&1
read -r c_s c_m < <(time_runs java -jar "$jar" build --out "$work/lesson" --report "$work/lesson.json" --cache "$work/lesson-cache")
read -r f_s f_m < <(time_runs java -XX:TieredStopAtLevel=1 -jar "$jar" build --out "$work/lesson" --report "$work/lesson.json" --cache "$work/lesson-cache")
echo
echo "| lesson site (content/), every page cached, no server | default JVM ${c_s} s | with -XX:TieredStopAtLevel=1 ${f_s} s | max RSS ${c_m} MB |"
echo "|---|---|---|---|"
