#!/bin/sh
# The image's entrypoint: gives the account the container runs as a name, then runs the launcher.
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
exec /bin/sh /opt/kensho/kensho "$@"
