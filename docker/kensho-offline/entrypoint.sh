#!/bin/sh
# The image's entrypoint: gives the account the container runs as a name, chooses where the
# PostgreSQL cluster lives, then runs the launcher.
# PostgreSQL's initdb looks its user up by id and stops where /etc/passwd has none, as with
# `docker run --user "$(id -u):$(id -g)"` (so that target/ belongs to the host's user); /etc/passwd
# is writable for that, as OpenShift's images do it. Only sh built-ins: the image has no coreutils.
uid= gid=
while read -r key real rest; do
  case $key in
    Uid:) uid=$real ;;
    Gid:) gid=$real ;;
  esac
done < /proc/self/status
if [ "$uid" = 0 ]; then
  echo "kensho: the image runs Kensho as an unprivileged user (PostgreSQL refuses root); drop --user 0," >&2
  echo "or pass --user with your own id: docker run --user \"\$(id -u):\$(id -g)\" ..." >&2
  exit 2
fi
known=
while IFS=: read -r name password id rest; do
  [ "$id" = "$uid" ] && known=yes
done < /etc/passwd
if [ -z "$known" ]; then
  echo "user$uid:x:$uid:$gid:Kensho:/tmp:/bin/sh" >> /etc/passwd
fi
# Kensho keeps its PostgreSQL cluster on /dev/shm, which Docker makes 64 MB: too small for a site of
# some pages ("No space left on device"). Below 1 GiB (docker run --shm-size=1g) the cluster goes to /tmp.
if [ -z "${KENSHO_PG_CLUSTER_ROOT:-}" ]; then
  shm_kib=0
  while read -r device point type options rest; do
    [ "$point" = /dev/shm ] || continue
    case ",$options," in
      *,size=*k,*) shm_kib=${options#*size=}; shm_kib=${shm_kib%%k*} ;;
    esac
  done < /proc/mounts
  if [ "$shm_kib" -lt 1048576 ]; then
    export KENSHO_PG_CLUSTER_ROOT=/tmp
  fi
fi
exec /bin/sh /opt/kensho/kensho "$@"
