# The one test command (README, .ci/run): vet, every test, the live Spark
# scenarios, then each fuzz target briefly.
GO        ?= go
FUZZTIME  ?= 10s
# The real-Spark scenario runs (internal/scenario), a phase of their own.
LIVE      := ^(TestLive|TestWhatIfAgainstReality)$$

# The packages whose tests take longest (the History Server and its
# clients, Delta, real JVMs), longest first: go test starts packages in the
# order given, one per core, so these start at once and the short ones fill
# the cores to the end instead of a long one starting last.
SLOW      := ./cmd/sparkdx ./internal/historyapi ./internal/export/delta ./internal/agent ./internal/server ./internal/jvm/hprof

.PHONY: check test vet unit live fuzz build bench

# The inner loop (~2 minutes): vet, and every test that starts no real
# program (sparktest.Live skips those under -short).
check: vet
	$(GO) test -short ./...
	cd exporter/deltaexporter && $(GO) test -short ./...

test: vet unit live fuzz

# exporter/deltaexporter is its own Go module (the collector's API): vet and
# test it too.
vet:
	$(GO) vet ./...
	cd exporter/deltaexporter && $(GO) vet ./...

unit: build
	SPARKDX_BIN=$(CURDIR)/bin/sparkdx $(GO) test -count=1 -timeout 60m -skip '$(LIVE)' $(SLOW) ./...
	cd exporter/deltaexporter && SPARKDX_BIN=$(CURDIR)/bin/sparkdx $(GO) test -count=1 -timeout 60m ./...

live:
	$(GO) test -count=1 -timeout 60m -run '$(LIVE)' ./internal/scenario

fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

# The static binary, built as the Dockerfile builds it (deploy's
# TestDockerfileBuild checks they agree); make test's packages share it
# (SPARKDX_BIN, sparktest.Binary) instead of each building its own.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags=-s -buildvcs=auto -o bin/sparkdx ./cmd/sparkdx

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
