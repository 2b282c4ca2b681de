#!/usr/bin/env bash
# Builds the Kensho image (a Java runtime, kensho.jar and its launcher) without any registry, the way
# docker/postgres-offline/build.sh builds PostgreSQL's: a root filesystem assembled from host files and
# loaded with `docker import`. The Dockerfile (FROM eclipse-temurin) needs a registry; this does not.
#
#   docker/kensho-offline/build.sh [IMAGE ...]     default tag: kensho/kensho:dev
#   docker run --rm -v "$PWD:/work" kensho/kensho:dev check
#
# It needs generator/target/kensho.jar (mvn -B -q -DskipTests package), a JDK (JAVA_HOME, else the
# `java` on PATH), a running Docker engine and a Linux x86-64 host. The image holds:
# - a Java runtime made by jlink with the modules the jar uses (found by jdeps), or, where the JDK has
#   no jmods, the host's runtime copied without its development files;
# - /bin/sh (dash), dirname (the launcher's), cat (the embedded server's watchdog) and setsid;
# - the libraries all of these and the PostgreSQL binaries inside the jar link against, as ldd finds them;
# - the unprivileged account kensho (uid 1000), which the image runs as: the embedded PostgreSQL
#   refuses root and, as anyone else, runs as that account itself. `docker run --user UID:GID` works
#   too (entrypoint.sh names the account); --user 0 is refused with a message. The cluster goes to /tmp
#   unless /dev/shm holds 1 GiB (docker run --shm-size=1g).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
jar=$repo/generator/target/kensho.jar
tags=("$@")
[ ${#tags[@]} -gt 0 ] || tags=(kensho/kensho:dev)
[ -f "$jar" ] || { echo "build.sh: no $jar; run 'mvn -B -q -DskipTests package' first" >&2; exit 2; }
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
mkdir -p "$rootfs/bin" "$rootfs/etc" "$rootfs/tmp" "$rootfs/opt/kensho" "$rootfs/home/kensho" "$rootfs/work"

# The Java runtime, in /opt/java.
if [ -x "$java_home/bin/jlink" ] && [ -d "$java_home/jmods" ]; then
  # jdeps reads the jar's classes as one class path (the jar holds other libraries' module-info files,
  # which would make jdeps take it for one of them). Locale data, charsets and elliptic curves are
  # reached through services, which jdeps cannot see.
  mkdir "$work/classes"
  (cd "$work/classes" && unzip -q "$jar" -x '*module-info.class' 'META-INF/versions/*')
  modules=$("$java_home/bin/jdeps" --print-module-deps --ignore-missing-deps -q "$work/classes")
  rm -rf "$work/classes"
  "$java_home/bin/jlink" --add-modules "$modules,jdk.localedata,jdk.charsets,jdk.crypto.ec,jdk.zipfs" \
    --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive \
    --output "$rootfs/opt/java"
else
  # Links are followed (Debian's runtime links its configuration to /etc); sources, compiler symbols
  # and the libraries of a desktop (X11) session are left out.
  mkdir -p "$rootfs/opt/java"
  (cd "$java_home" && tar -ch --exclude=src.zip --exclude=ct.sym --exclude=libawt_xawt.so --exclude=libsplashscreen.so \
      --exclude=libjawt.so --exclude=libatk-wrapper.so bin lib conf release) | tar -x -C "$rootfs/opt/java"
fi
[ -x "$rootfs/opt/java/bin/java" ] || { echo "build.sh: no Java runtime at $java_home" >&2; exit 2; }

install -m 0644 "$jar" "$rootfs/opt/kensho/kensho.jar"
install -m 0755 "$repo/bin/kensho" "$rootfs/opt/kensho/kensho"
install -m 0755 "$here/entrypoint.sh" "$rootfs/opt/kensho/entrypoint.sh"
cp -L /bin/dash "$rootfs/bin/sh"
for tool in dirname cat setsid; do cp -L "$(command -v "$tool")" "$rootfs/bin/$tool"; done
mkdir -p "$rootfs/usr/bin" && ln -s ../../bin/setsid "$rootfs/usr/bin/setsid"   # where Kensho looks for it

# The PostgreSQL binaries Kensho unpacks at run time, unpacked here only to ask ldd what they need.
mkdir "$work/pg"
unzip -q -o "$jar" postgres-linux-x86_64.txz -d "$work"
tar -xJf "$work/postgres-linux-x86_64.txz" -C "$work/pg"
for elf in "$rootfs"/bin/* "$rootfs"/opt/java/bin/* "$rootfs"/opt/java/lib/*.so "$rootfs"/opt/java/lib/*/*.so \
           "$work"/pg/bin/* "$work"/pg/lib/*.so*; do
  ldd "$elf" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }'
done | sort -u | while read -r lib; do
  case "$lib" in "$rootfs"*|"$work"*) continue ;; esac
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
kensho:x:1000:1000:Kensho:/home/kensho:/bin/sh
PASSWD
cat > "$rootfs/etc/group" <<'GROUP'
root:x:0:
kensho:x:1000:
GROUP
chmod 1777 "$rootfs/tmp"
chmod 0666 "$rootfs/etc/passwd"   # entrypoint.sh names an account given with docker run --user
chown 1000:1000 "$rootfs/home/kensho" "$rootfs/work"

# The entrypoint and the launcher are run by sh, since the image has no /usr/bin/env for the #! line.
# KENSHO_CDS=off: the launcher would otherwise write a class-data archive at the end of every run of a
# throw-away container (docker run --rm); the runtime's own archive (jlink --generate-cds-archive) is used.
# The label is the jar's digest, so that KenshoImageTest can tell an image of an older jar from a current one.
digest=$(sha256sum "$jar" | cut -d' ' -f1)
first=${tags[0]}
replaced=$(docker image inspect --format '{{.Id}}' "$first" 2>/dev/null || true)
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change 'USER kensho' \
  --change 'WORKDIR /work' \
  --change 'ENV PATH=/opt/java/bin:/bin HOME=/home/kensho KENSHO_CDS=off' \
  --change 'ENTRYPOINT ["/bin/sh", "/opt/kensho/entrypoint.sh"]' \
  --change 'CMD ["check"]' \
  --change "LABEL dev.kensho.jar-sha256=$digest" \
  - "$first" > /dev/null
for tag in "${tags[@]:1}"; do
  docker tag "$first" "$tag"
done
# The image this one replaces would stay behind untagged (150 MB each, more under the vfs driver).
if [ -n "$replaced" ] && [ "$replaced" != "$(docker image inspect --format '{{.Id}}' "$first")" ]; then
  docker image rm "$replaced" > /dev/null 2>&1 || true   # still used by a container, or tagged otherwise
fi
echo "built ${tags[*]} ($(docker image inspect --format '{{.Size}}' "$first" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
