#!/usr/bin/env bash
# The newcomer's path, timed: README's "Use Kensho in your repository" followed from an empty folder outside the
# project, on this machine (JDK and Maven installed, Maven's local repository warm).
#
#   bench/newcomer.sh [WORK_DIR]
#
# 1. install from a checkout (the clone stands in for GitHub: no release is tagged yet) and link bin/kensho onto PATH;
# 2. kensho init notes --lang en, then kensho serve until the first page is served with its verified mark;
# 3. a five-page English site (bench/job-queue: SKIP LOCKED queue, scenarios, logo and custom CSS, no theme folder):
#    kensho check, cold (no verification cache; PostgreSQL binaries unpacked into a fresh temp folder) and warm;
# 4. the action's steps as a local script (bin/kensho-action with GITHUB_ACTIONS=true), also with a broken link;
# 5. the Maven plugin in a project of its own (kensho:check bound to verify), with a private local repository.
# The container image is not built: this machine has no Docker engine and no registry for the base image.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/kensho-newcomer.XXXXXX)}
chmod 755 "$work"          # the embedded server runs as nobody when Kensho runs as root: it must reach the binaries
port=${KENSHO_BENCH_PORT:-4399}
now() { date +%s.%N; }
report() { printf '%-64s %7.2f s\n' "$1" "$(echo "$3 - $2" | bc)"; }

t0=$(now)
git clone -q "$repo" "$work/kensho"
(cd "$work/kensho" && mvn -B -q -o -DskipTests package)
mkdir -p "$work/bin" && ln -sf "$work/kensho/bin/kensho" "$work/bin/kensho"
export PATH="$work/bin:$PATH"
t1=$(now); report "install: clone, mvn package, link onto PATH" "$t0" "$t1"

cd "$work" && kensho init notes --lang en > /dev/null && cd notes
t2=$(now); report "kensho init notes --lang en" "$t1" "$t2"

setsid kensho serve --port "$port" > "$work/serve.log" 2>&1 &
serve=$!
trap 'kill -- -$serve 2> /dev/null || true' EXIT
until curl -fs "http://127.0.0.1:$port/" 2> /dev/null | grep -q "Verified on PostgreSQL 18.6"; do sleep 0.1; done
t3=$(now); report "kensho serve: first page live with its verified mark" "$t2" "$t3"
report "  install to first page live (target < 60 s)" "$t0" "$t3"
kill -- -$serve; wait $serve 2> /dev/null || true
trap - EXIT

site="$work/job-queue" && cp -r "$repo/bench/job-queue" "$site" && cd "$site"
mkdir -p "$work/tmp" && chmod 1777 "$work/tmp"
t4=$(now)
KENSHO_JAVA_OPTS="-Djava.io.tmpdir=$work/tmp" kensho check --no-cache > "$work/check-cold.log" 2>&1
t5=$(now); report "five pages, cold check (no cache, binaries unpacked anew)" "$t4" "$t5"
kensho check > "$work/check.log" 2>&1
t6=$(now); report "five pages, check (binaries unpacked; fills the cache)" "$t5" "$t6"
kensho check > "$work/check-warm.log" 2>&1
t7=$(now); report "five pages, check again (every page from the cache)" "$t6" "$t7"
tail -2 "$work/check.log" | sed 's/^/    /'

t8=$(now)
GITHUB_ACTIONS=true INPUT_COMMAND=check INPUT_VERSION=source "$work/kensho/bin/kensho-action" > "$work/action.log" 2>&1
t9=$(now); report "action steps (bin/kensho-action, check, cache restored)" "$t8" "$t9"
sed -i 's|(queue/retry.md)|(queue/retries.md)|' content/index.md
GITHUB_ACTIONS=true INPUT_COMMAND=check INPUT_VERSION=source "$work/kensho/bin/kensho-action" > "$work/action-broken.log" 2>&1 || true
grep '^::error' "$work/action-broken.log" | sed 's/^/    /'
sed -i 's|(queue/retries.md)|(queue/retry.md)|' content/index.md

# The plugin and its SNAPSHOT dependencies go to a private copy of the local repository (hard links), so that no
# other checkout's install on this machine can stand in for this one's.
cp -al "$HOME/.m2/repository" "$work/m2"
t10=$(now)
(cd "$work/kensho" && mvn -B -q -o -Dmaven.repo.local="$work/m2" -DskipTests install)
t11=$(now); report "mvn install of Kensho (plugin into the local repository)" "$t10" "$t11"
cat > pom.xml <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>job-queue-notes</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <build>
    <plugins>
      <plugin>
        <groupId>dev.kensho</groupId>
        <artifactId>kensho-maven-plugin</artifactId>
        <version>0.1.0-SNAPSHOT</version>
        <executions><execution><goals><goal>check</goal></goals></execution></executions>
      </plugin>
    </plugins>
  </build>
</project>
POM
mvn -B -o -Dmaven.repo.local="$work/m2" verify > "$work/maven.log" 2>&1
t12=$(now); report "mvn verify with kensho:check in a project of its own" "$t11" "$t12"
grep -E "kensho-maven-plugin|passed|BUILD" "$work/maven.log" | sed 's/^/    /'
# 6. The release jar (-P release: every platform's PostgreSQL binaries), alone in a folder, linked onto PATH.
t13=$(now)
(cd "$work/kensho" && mvn -B -q -o -Dmaven.repo.local="$work/m2" -P release -DskipTests package)
mkdir -p "$work/release/bin" && cp "$work/kensho/generator/target/kensho.jar" "$work/kensho/bin/kensho" "$work/release/"
ln -sf "$work/release/kensho" "$work/release/bin/kensho"
t14=$(now); report "mvn -P release package ($(du -m "$work/release/kensho.jar" | cut -f1) MB jar)" "$t13" "$t14"
cd "$work" && PATH="$work/release/bin:$PATH" kensho init released > /dev/null && cd released && PATH="$work/release/bin:$PATH" kensho check > "$work/release.log" 2>&1
t15=$(now); report "release jar through a link on PATH: init and check" "$t14" "$t15"
tail -1 "$work/release.log" | sed 's/^/    /'
echo "work folder: $work"
