#!/usr/bin/env bash
# The server's per-page floor of verification: a private server from the PostgreSQL binaries Kensho unpacked
# (initdb's defaults, fsync=off as Kensho's embedded server has it, on /dev/shm), then bench/PageFloor.java:
# per page a role, CREATE DATABASE (FILE_COPY, as Kensho uses on its own server, and WAL_LOG), one session,
# DROP DATABASE; without and with the bench corpus' 30 statements. CPU from /proc (ticks of 10 ms).
# usage: bench/page-floor.sh [PAGES]   (default 200); needs a jar (mvn package) and a run of Kensho that unpacked
# its binaries (/tmp/kensho-postgres-*); runs the server as 'nobody' when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-200}
bin=$(ls -d /tmp/kensho-postgres-linux-*/bin 2>/dev/null | while read -r d; do echo "$("$d/postgres" --version | awk '{print $3}') $d"; done \
    | sort -V | tail -1 | cut -d' ' -f2)
[ -n "$bin" ] || { echo "no unpacked PostgreSQL binaries under /tmp; run bin/kensho check once" >&2; exit 2; }
dir=$(mktemp -d /dev/shm/kensho-floor.XXXXXX)
as=(); [ "$(id -u)" = 0 ] && { chown nobody "$dir"; as=(runuser -u nobody --); }
port=$((20000 + RANDOM % 20000))
trap '"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true; rm -rf "$dir"' EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C > /dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/log" \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start > /dev/null
postmaster=$(head -1 "$dir/data/postmaster.pid")
echo "# $("$bin/postgres" --version), $pages pages, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for statements in 0 1; do
  for strategy in FILE_COPY WAL_LOG; do
    java -cp generator/target/kensho.jar bench/PageFloor.java "$postmaster" "$port" "$strategy" "$pages" "$statements"
  done
done
