#!/bin/sh
# Entrypoint of the offline PostgreSQL image. It honours the part of the official postgres image's
# contract that Testcontainers and CI rely on: POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB,
# a "postgres -c ..." command, and the official image's start-up log, in which "database system is
# ready to accept connections" appears twice (a temporary server during initialisation, then the
# real one); Testcontainers waits for the second. The image runs as an unprivileged user throughout.
# Only shell builtins and the PostgreSQL binaries are available here.
set -e
export PATH=/usr/local/pgsql/bin:$PATH
PGDATA=${PGDATA:-/var/lib/postgresql/data}
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}

if [ "${1#-}" != "$1" ]; then
  set -- postgres "$@"
fi

if [ "$1" = "postgres" ]; then
  shift
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "$POSTGRES_PASSWORD" ]; then
      echo "error: POSTGRES_PASSWORD must be set (this image never starts an open server)" >&2
      exit 1
    fi
    umask 077
    printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile -E UTF8 --locale=C \
      --auth-local=trust --auth-host=scram-sha-256
    : > /tmp/pwfile
    printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != "postgres" ]; then
      printf 'CREATE DATABASE "%s";\n' "$POSTGRES_DB" | postgres --single -D "$PGDATA" -j postgres > /dev/null
    fi
    # The official image initialises through a temporary server reachable only on its socket.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /tmp" -w start
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo
    echo "PostgreSQL init process complete; ready for start up."
    echo
  fi
  exec postgres -D "$PGDATA" -c listen_addresses='*' -k /tmp "$@"
fi

exec "$@"
