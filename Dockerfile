# Kensho for CI systems other than GitHub Actions: a JRE and the released jar (the theme and PostgreSQL 18.6
# binaries inside). Build it after `mvn -B -P release -DskipTests package`, or let the release workflow do it.
#
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" ghcr.io/kensho-docs/kensho:0.1.0 check
#
# The embedded PostgreSQL refuses to run as root; the image runs as the unprivileged user kensho.
# Where no registry is reachable, docker/kensho-offline/build.sh builds the same image from host files.
FROM eclipse-temurin:21-jre
RUN useradd --create-home kensho
COPY generator/target/kensho.jar bin/kensho /opt/kensho/
RUN ln -s /opt/kensho/kensho /usr/local/bin/kensho
USER kensho
WORKDIR /work
ENTRYPOINT ["kensho"]
CMD ["check"]
