# bucma: scheduling decision process for Batsim, embedded engine, campaigns.
#
#   docker build -t bucma:local .
#   docker run --rm bucma:local list
#   docker run --rm -v "$PWD/results:/results" bucma:local expe run walltime-trust --quick --out /results/wt --report
#
# Build stage: bucma links libzmq through cgo (github.com/pebbe/zmq4).
ARG GO_VERSION=1.26
ARG DEBIAN=bookworm

FROM golang:${GO_VERSION}-${DEBIAN} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libzmq3-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/bucma ./cmd/bucma \
 && /out/bucma --version
# Data shipped with the image: the bundled platforms and any bundled
# workload file (JSON outside test data).
RUN mkdir -p /out/data/platforms /out/data/workloads \
 && cp platforms/*.xml /out/data/platforms/ \
 && find workloads -name '*.json' -not -path '*/testdata/*' -exec cp {} /out/data/workloads/ \; \
 && if [ -e workloads/README.md ]; then cp workloads/README.md /out/data/workloads/; fi

# Runtime stage: the binary, libzmq and the data.
FROM debian:${DEBIAN}-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libzmq5 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/bucma /usr/local/bin/bucma
COPY --from=build /out/data/ /data/
WORKDIR /data
# Batsim connects to the scheduler: bucma run binds this port.
EXPOSE 28000
ENTRYPOINT ["bucma"]
CMD ["--help"]
