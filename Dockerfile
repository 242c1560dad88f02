# The sparkdx image: one static binary (serve, agent, analyze, heap,
# profile, ...) and the CA certificates its TLS clients (S3, Azure, GCS,
# OTLP) verify servers with. No JDK: the agent's heap dumps and `sparkdx
# profile` speak HotSpot's attach protocol themselves (internal/jvm/attach).
# deploy/docker_test.go checks what this file promises on machines without
# a Docker engine: the build command makes a static binary, the Go version
# is go.mod's, and the runtime package puts the CA bundle where Go's
# crypto/x509 reads it.
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
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/sparkdx /usr/local/bin/sparkdx
LABEL org.opencontainers.image.source=https://github.com/sparkdx/sparkdx
ENTRYPOINT ["/usr/local/bin/sparkdx"]
