# bucma: scheduling decision process for Batsim, embedded engine, campaigns.
#
#   make image                      (docker build with the version of the checkout)
#   docker build -t bucma:local .   (the same, version "0.1.0-dev")
#   docker run --rm bucma:local list
#   mkdir -p results && docker run --rm -u "$(id -u):$(id -g)" -v "$PWD/results:/results" \
#       bucma:local expe run walltime-trust --quick --out /results/wt --report
#
# Offline builds: where the Go module proxy is out of reach from the build,
# run `go mod vendor` first; the build then uses ./vendor and downloads
# nothing. Where Docker Hub is out of reach, scripts/local-images builds the
# two base images from Debian's packages (they already hold libzmq, so the
# apt-get steps below are skipped).
#
# Build stage: bucma links libzmq through cgo (github.com/pebbe/zmq4).
ARG GO_VERSION=1.26
ARG DEBIAN=bookworm

FROM golang:${GO_VERSION}-${DEBIAN} AS build
RUN if ! dpkg -s libzmq3-dev pkg-config >/dev/null 2>&1; then \
      apt-get update \
      && apt-get install -y --no-install-recommends libzmq3-dev pkg-config \
      && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
COPY . .
# Compile once without the version: builds that differ only by VERSION then
# reuse this layer's Go build cache and only link again.
ENV CGO_ENABLED=1
RUN if [ -f vendor/modules.txt ]; then echo "Go modules: from ./vendor"; else go mod download; fi \
 && go build -trimpath -o /dev/null ./cmd/bucma
# VERSION: what `bucma --version` prints (make image passes the checkout's
# scripts/version: git describe).
ARG VERSION=0.1.0-dev
RUN go build -trimpath -ldflags "-s -w -X github.com/bucma-sched/bucma/cli.version=${VERSION}" -o /out/bucma ./cmd/bucma \
 && /out/bucma --version
# Data shipped with the image: the bundled platforms and any bundled
# workload file (JSON outside test data).
RUN mkdir -p /out/data/platforms /out/data/workloads \
 && cp platforms/*.xml /out/data/platforms/ \
 && find workloads -name '*.json' -not -path '*/testdata/*' -exec cp {} /out/data/workloads/ \; \
 && if [ -e workloads/README.md ]; then cp workloads/README.md /out/data/workloads/; fi

# Runtime stage: the binary, libzmq and the data, run as an unprivileged
# user (uid 10001; docker run -u "$(id -u):$(id -g)" to write files owned
# by you in a mounted folder).
FROM debian:${DEBIAN}-slim
ARG DEBIAN
RUN if ! dpkg -s libzmq5 >/dev/null 2>&1; then \
      apt-get update \
      && apt-get install -y --no-install-recommends libzmq5 \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
 && groupadd --gid 10001 bucma \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /data --shell /usr/sbin/nologin bucma
COPY --from=build /out/bucma /usr/local/bin/bucma
COPY --from=build /out/data/ /data/
ARG VERSION=0.1.0-dev
ARG CREATED=
ARG REVISION=
LABEL org.opencontainers.image.title="bucma" \
      org.opencontainers.image.description="Scheduling decision process for the Batsim simulator (FCFS, EASY, MIN-MIN, MAX-MIN, BUCMA, OSEP, ...), with an embedded Batsim-compatible engine and the papers' campaigns" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="https://github.com/bucma-sched/bucma" \
      org.opencontainers.image.base.name="debian:${DEBIAN}-slim"
WORKDIR /data
USER 10001:10001
# Batsim connects to the scheduler: bucma run binds this port.
EXPOSE 28000
ENTRYPOINT ["bucma"]
CMD ["--help"]
