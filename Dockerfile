# The sparkdx image: one static binary (serve, agent, analyze, heap, ...)
# and, for the agent's heap dumps, a JDK's jcmd (`jcmd <pid> GC.heap_dump`
# goes through HotSpot's attach API; Spark 3.5 and 4.x run on Java 17).
# deploy/docker_test.go checks what this file promises on machines without
# a Docker engine: the build command makes a static binary, the Go version
# is go.mod's, and the runtime package puts jcmd on PATH.
#
#   docker build -t ghcr.io/sparkdx/sparkdx:0.1.0 .

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
COPY docs ./docs
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/sparkdx ./cmd/sparkdx

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/sparkdx /usr/local/bin/sparkdx
LABEL org.opencontainers.image.source=https://github.com/sparkdx/sparkdx
ENTRYPOINT ["/usr/local/bin/sparkdx"]
