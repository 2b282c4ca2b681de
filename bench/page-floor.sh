#!/usr/bin/env bash
# What a page's database and session cost the server, apart from Kensho (issue 36 §2): on a fresh stock cluster in
# /dev/shm with the embedded server's settings (initdb's, fsync=off), run as an unprivileged account, server CPU by
# /usr/bin/time around postgres (its children included):
#   1. N × (CREATE DATABASE … TEMPLATE template1 STRATEGY FILE_COPY; DROP DATABASE) from one session, and the same
#      with WAL_LOG, with the checkpoints each requested (pg_stat_checkpointer);
#   2. N connections to an existing database (pgbench -C, SELECT 1): a backend's start;
#   3. per-query latency of the session set-up's reads (pgbench, one client, 2,000 each).
# usage: bench/page-floor.sh PG_BIN_DIR [N]   (PG_BIN_DIR holds initdb, postgres, pg_ctl of 15 or later; psql and
#        pgbench come from PATH; the account is KENSHO_PG_ACCOUNT, default nobody)
set -euo pipefail
bin=$1 n=${2:-50} account=${KENSHO_PG_ACCOUNT:-nobody}
# cluster START|STOP: a fresh cluster in $dir (port $port), its server's CPU written to $dir/time on stop
cluster() {
  if [ "$1" = start ]; then
    dir=$(mktemp -d /dev/shm/kensho-floor.XXXXXX); chown "$account" "$dir"; port=$((20000 + RANDOM % 5000))
    runuser -u "$account" -- "$bin/initdb" -D "$dir/data" -U kensho --auth=trust --locale-provider=builtin --locale=C.UTF-8 \
        --encoding=UTF8 > /dev/null
    runuser -u "$account" -- /usr/bin/time -f "%U %S" -o "$dir/time" "$bin/postgres" -D "$dir/data" -p "$port" -k "$dir" \
        -c fsync=off -c listen_addresses= > "$dir/log" 2>&1 &
    for _ in $(seq 50); do psql -h "$dir" -p "$port" -U kensho -d postgres -qAtc 'SELECT 1' > /dev/null 2>&1 && break; sleep 0.2; done
    # As Kensho does once per server: template1's relation-cache file exists, so FILE_COPY copies it.
    psql -h "$dir" -p "$port" -U kensho -d template1 -qAtc 'SELECT 1' > /dev/null
  else
    runuser -u "$account" -- "$bin/pg_ctl" -D "$dir/data" -m fast stop > /dev/null; sleep 0.5
    server_cpu=$(awk '{ print $1 + $2 }' "$dir/time"); rm -rf "$dir"
  fi
}
q() { psql -h "$dir" -p "$port" -U kensho -d postgres -qAt "$@"; }
queries=$(mktemp -d /tmp/kensho-floor-queries.XXXXXX)
trap 'rm -rf "$queries"' EXIT
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for strategy in FILE_COPY WAL_LOG; do
  cluster start
  for i in $(seq "$n"); do echo "CREATE DATABASE d$i TEMPLATE template1 STRATEGY $strategy; DROP DATABASE d$i;"; done > "$dir/cd.sql"
  t0=$(date +%s%N); q -f "$dir/cd.sql" > /dev/null; t1=$(date +%s%N)
  checkpoints=$(q -c "SELECT num_requested FROM pg_stat_checkpointer")
  cluster stop
  echo "$strategy: $n × create + drop: wall $(( (t1 - t0) / 1000000 )) ms, server CPU $server_cpu s, checkpoints requested $checkpoints"
done
cluster start
echo 'SELECT 1;' > "$queries/one.sql"
latency=$(pgbench -n -C -h "$dir" -p "$port" -U kensho -f "$queries/one.sql" -t "$((2 * n))" postgres 2> /dev/null | grep 'latency average')
cat > "$queries/settings.sql" <<'Q'
SELECT name, boot_val FROM pg_catalog.pg_settings WHERE (category LIKE 'Query Tuning%' OR name IN ('work_mem', 'hash_mem_multiplier')) AND context = 'user' AND setting IS DISTINCT FROM boot_val;
Q
cat > "$queries/stock.sql" <<'Q'
SELECT name, boot_val, setting FROM pg_catalog.pg_settings WHERE context = 'user' AND (source IN ('database', 'user', 'database user') OR (source IN ('configuration file', 'command line', 'environment variable') AND (category LIKE 'Client Connection Defaults%' OR category LIKE 'Version and Platform Compatibility%')));
Q
cat > "$queries/locale.sql" <<'Q'
SELECT pg_catalog.pg_encoding_to_char(encoding), datlocprovider, datcollate, datctype FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database();
Q
cluster stop
echo "$((2 * n)) connections (pgbench -C, SELECT 1): $latency, server CPU $server_cpu s (server start and stop included)"
cluster start
for query in settings stock locale one; do
  echo "set-up read '$query': $(pgbench -n -h "$dir" -p "$port" -U kensho -f "$queries/$query.sql" -t 2000 postgres 2> /dev/null | grep 'latency average')"
done
cluster stop
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
