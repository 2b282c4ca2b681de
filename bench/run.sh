#!/usr/bin/env bash
# Kensho's benchmark harness (a CLI harness, not timed unit tests). Each measurement is a fresh process
# (bin/kensho, the way README builds: C1 JIT, serial GC, class-data-sharing archive) timed by /usr/bin/time:
#   - builds without SQL of 1, 1,000, 4,000 and 10,000 pages in one folder, and 4,000 pages in 40 folders of
#     100, beside Hugo with a theme whose pages list every page (a sidebar) and with one that does not: a first
#     build into an empty folder, then rebuilds (wall, CPU = user + system, peak RSS), output bytes and the
#     largest page;
#   - cold verification of 10,000 snippets on 1,000 pages (server start included) with --jobs 1, 2 and 4;
#   - the preview's edit-to-served latency and a fully cached build of the lesson site.
# usage: bench/run.sh [RUNS] [BIG_RUNS]   (medians of RUNS runs, default 3; BIG_RUNS for 4,000+ pages, default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
big_runs=${2:-1}
work=$(mktemp -d /tmp/kensho-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -f generator/target/kensho.jar ] || mvn -q -B -DskipTests package
jar=$PWD/generator/target/kensho.jar
kensho=$PWD/bin/kensho
theme=$PWD/site

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f", m }'; }

# time_runs N CMD...: runs CMD N times; prints "median_wall_s median_cpu_s median_maxrss_MiB"
time_runs() {
  local n=$1; shift
  local secs=() cpu=() rss=()
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
    read -r s u y m < "$work/time"
    secs+=("$s"); cpu+=("$(awk -v u="$u" -v y="$y" 'BEGIN { print u + y }')"); rss+=("$m")
  done
  printf '%s %s %s\n' "$(printf '%s\n' "${secs[@]}" | median)" "$(printf '%s\n' "${cpu[@]}" | median)" \
    "$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')"
}

# site_size DIR: "total_MB largest_KB largest_path"
site_size() {
  local total largest
  total=$(find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1e6 }')
  largest=$(find "$1" -name '*.html' -printf '%s %P\n' | sort -n | tail -1)
  printf '%s %s %s\n' "$total" "$(echo "$largest" | awk '{ printf "%.1f", $1 / 1000 }')" "$(echo "$largest" | cut -d' ' -f2)"
}

# The first run of a new jar writes the class-data-sharing archive (from the classes a build loads): done here,
# outside the timings, as a reader's first build would.
python3 bench/corpus.py "$work/warm" 1 > /dev/null
"$kensho" build --content "$work/warm/kensho/content" --theme "$theme" --out "$work/warm/out" --report "$work/warm/report.json" \
    --no-cache > /dev/null 2>&1

echo "# Kensho benchmark ($(date -u +%Y-%m-%d), $(nproc) cores; medians of $runs runs, $big_runs for 4,000 pages and more)"
echo
# Two figures per tool: a first build into an empty output folder, and a rebuild over the output of earlier builds
# (what an author's next build, the preview's first one and a CI job with a kept target/ do). Hugo rewrites its
# files in place; Kensho builds beside the site and recycles the site it replaced (the spare), so its rebuilds are
# timed from the third build on. New files and folders are the expensive part on this machine (~0.7 ms each).
echo "| corpus | Kensho first build | rebuild: wall | CPU | peak RSS | output | largest page | Hugo, sidebar theme (first / rebuild) | Hugo, no sidebar (first / rebuild) |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec in 1:1 1000:1 4000:1 10000:1 4000:40; do
  pages=${spec%:*}; folders=${spec#*:}
  n=$runs; [ "$pages" -ge 4000 ] && n=$big_runs
  dir="$work/md-$pages-$folders"
  python3 bench/corpus.py "$dir" "$pages" 0 "$folders"
  kbuild=("$kensho" build --content "$dir/kensho/content" --theme "$theme" --out "$dir/out" --report "$dir/report.json" \
      --no-cache --postgres embedded)
  read -r f_s f_c f_m < <(time_runs 1 "${kbuild[@]}")
  "${kbuild[@]}" > /dev/null 2>&1   # the second build leaves the first site as the spare
  read -r k_s k_c k_m < <(time_runs "$n" "${kbuild[@]}")
  read -r total largest largest_path < <(site_size "$dir/out")
  if command -v hugo > /dev/null; then
    if [ "$pages" -ge 10000 ]; then
      # Every page of that theme lists every page: quadratic (96 s at 4,000 pages), about ten minutes here.
      hugo_side="not run (quadratic)"
    else
      read -r hf_s hf_c hf_m < <(time_runs 1 hugo --quiet --source "$dir/hugo" --destination "$dir/hugo-out")
      read -r h_s h_c h_m < <(time_runs "$n" hugo --quiet --source "$dir/hugo" --destination "$dir/hugo-out")
      hugo_side="${hf_s} s / ${h_s} s, ${h_m} MiB"
    fi
    read -r pf_s pf_c pf_m < <(time_runs 1 hugo --quiet --source "$dir/hugo-plain" --destination "$dir/hugo-plain-out")
    read -r p_s p_c p_m < <(time_runs "$n" hugo --quiet --source "$dir/hugo-plain" --destination "$dir/hugo-plain-out")
    hugo_plain="${pf_s} s / ${p_s} s, ${p_m} MiB"
  else
    hugo_side="n/a (hugo not installed)"; hugo_plain="n/a"
  fi
  layout=$([ "$folders" = 1 ] && echo "one folder" || echo "$folders folders")
  echo "| $pages pages, $layout, no SQL | ${f_s} s | ${k_s} s | ${k_c} s | ${k_m} MiB | ${total} MB | ${largest} KB ($largest_path) | $hugo_side | $hugo_plain |"
  rm -rf "$dir"
done

python3 bench/corpus.py "$work/sql-1000" 1000 10 10
echo
echo "| verification, 1,000 pages × 10 snippets, cold (server start included) | wall | CPU | snippets/s | peak RSS |"
echo "|---|---|---|---|---|"
for jobs in 1 2 4; do
  read -r s_s s_c s_m < <(time_runs "$big_runs" "$kensho" check --content "$work/sql-1000/kensho/content" --theme "$theme" \
      --report "$work/sql-1000/report.json" --postgres embedded --no-cache --jobs "$jobs")
  snippets=$(python3 -c "import json; print(json.load(open('$work/sql-1000/report.json'))['totals']['passed'])")
  echo "| --jobs $jobs ($snippets snippets passed) | ${s_s} s | ${s_c} s | $(awk -v n="$snippets" -v s="$s_s" 'BEGIN { printf "%.0f", n / s }') | ${s_m} MiB |"
done

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
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/page/" > /dev/null 2>&1 && break; sleep 0.2; done
latencies=()
for n in $(seq 1 "$((runs * 2))"); do
  sed -i "s/^version .*/version $n/; s/VALUES ([0-9]*)/VALUES ($n)/" "$work/serve/content/page.md"
  start=$(date +%s%N)
  until curl -fs "http://127.0.0.1:$port/page/" | grep -q "version $n"; do sleep 0.005; done
  latencies+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  sleep 0.3
done
kill -TERM "$serve_pid"; wait "$serve_pid" 2> /dev/null || true  # a background job ignores SIGINT
echo
echo "| preview (serve), one page with two snippets edited | median $(printf '%s\n' "${latencies[@]}" | median) ms from save to the new page served | $((runs * 2)) edits |"
echo "|---|---|---|"

# Filled by the command the timed runs use: a build with other options (another --postgres) is not the same site, and
# every timed run rendered again (4.1 s on 2026-12-05 against 0.85 s from bench/cached-lesson.sh).
for _ in 1 2; do
  "$kensho" build --out "$work/lesson" --report "$work/lesson.json" --cache "$work/lesson-cache" > /dev/null 2>&1
done
read -r c_s c_c c_m < <(time_runs "$runs" "$kensho" build --out "$work/lesson" --report "$work/lesson.json" --cache "$work/lesson-cache")
echo
echo "| lesson site (content/), every page cached, no server | ${c_s} s wall | ${c_c} s CPU | peak RSS ${c_m} MiB |"
echo "|---|---|---|---|"
