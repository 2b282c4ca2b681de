#!/usr/bin/env bash
# The browser run plan's bounds (issue 30, section 5): builds the issue's page (ten fences, 1.3 KB of SQL, each
# returning 1,000 rows of 12,000 characters) and a page of fifteen ~94 KB results that fills the page's budget,
# under /usr/bin/time -v, and lists the plan files. Usage: bash bench/run-plan.sh [DIR] (default /tmp/kensho-run-plan).
set -euo pipefail
dir=${1:-/tmp/kensho-run-plan}
kensho="$(cd "$(dirname "$0")/.." && pwd)/bin/kensho"
rm -rf "$dir" && mkdir -p "$dir/content" && cd "$dir"
printf 'title: Run plan bounds\nlang: en\n' > content/site.yml
{ printf -- '---\ntitle: Huge results\n---\n\n'
  for _ in $(seq 10); do
    printf '```sql\nSELECT g, repeat('"'x'"', 4000) AS a, repeat('"'y'"', 4000) AS b, repeat('"'z'"', 4000) AS c FROM generate_series(1, 1000) g;\n```\n\n'
  done; } > content/huge.md
{ printf -- '---\ntitle: Filling the budget\n---\n\n'
  for _ in $(seq 15); do
    printf '```sql\nSELECT g, repeat('"'x'"', 90) AS v FROM generate_series(1, 900) g;\n```\n\n'
  done; } > content/filling.md
/usr/bin/time -v "$kensho" build --no-cache --postgres=embedded 2> time.log | tail -3
grep -E "Elapsed|Maximum resident" time.log
wc -c content/huge.md
ls -l target/site/huge target/site/filling | grep -E 'run|html'
