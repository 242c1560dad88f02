# The one test command (README, .ci/run): vet, every test, the live Spark
# scenarios, then each fuzz target briefly.
GO        ?= go
FUZZTIME  ?= 10s
# The real-Spark scenario runs (internal/test/scenario), a phase of their own.
LIVE      := ^(TestLive|TestWhatIfAgainstReality)$$

# The packages whose tests take longest (the History Server and its
# clients, Delta, real JVMs), longest first: go test starts packages in the
# order given, one per core, so these start at once and the short ones fill
# the cores to the end instead of a long one starting last.
SLOW      := ./cmd/sparkdx ./internal/historyapi ./internal/export/delta ./internal/agent ./internal/server ./internal/jvm/hprof

# The OpenTelemetry Collector components (deploy/otelcol's distribution),
# each a Go module of its own.
COLLECTOR := exporter/deltaexporter receiver/sparksinksreceiver

.PHONY: check test vet unit live fuzz build bench

# The inner loop (~2 minutes): vet, and every test that starts no real
# program (sparktest.Live skips those under -short).
check: vet
	$(GO) test -short ./...
	for m in $(COLLECTOR); do (cd $$m && $(GO) test -short ./...) || exit 1; done

test: vet unit live fuzz

# The collector's components are Go modules of their own (the collector's
# API): vet and test them too.
vet:
	$(GO) vet ./...
	for m in $(COLLECTOR); do (cd $$m && $(GO) vet ./...) || exit 1; done

# unit and live leave vet to the vet target (make test runs it first): go
# vet ./... checks the test files too, with every analyzer go test's vet
# step runs, and a second pass per test package costs CPU on a cold cache.
# The collector module's tests (its own go command: a module of its own)
# run beside the main module's instead of after them, when only the last
# of those still ran and a core sat idle.
unit: build
	for m in $(COLLECTOR); do (cd $$m && SPARKDX_BIN=$(CURDIR)/bin/sparkdx $(GO) test -vet=off -count=1 -timeout 60m ./...) || exit 1; done & delta=$$!; \
	SPARKDX_BIN=$(CURDIR)/bin/sparkdx $(GO) test -vet=off -count=1 -timeout 60m -skip '$(LIVE)' $(SLOW) ./...; rc=$$?; \
	wait $$delta || rc=1; exit $$rc

live:
	$(GO) test -vet=off -count=1 -timeout 60m -run '$(LIVE)' ./internal/test/scenario

fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

# The static binary, built as the Dockerfile builds it (deploy's
# TestDockerfileBuild checks they agree); make test's packages share it
# (SPARKDX_BIN, sparktest.Binary) instead of each building its own.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags=-s -buildvcs=auto -o bin/sparkdx ./cmd/sparkdx

# The hot paths' benchmarks (replay, event decoding, codecs, redaction,
# analysis; docs/performance.md), each run BENCH_COUNT times into
# BENCH_OUT, a file benchstat (golang.org/x/perf/cmd/benchstat) compares
# with another: make bench BENCH_OUT=old.txt on the base, then on the
# change, then benchstat old.txt bench.txt. BENCH picks benchmarks by
# name; BENCH_PKGS=./... runs every package's (the live side-by-sides too).
BENCH       ?= .
BENCH_COUNT ?= 6
BENCH_OUT   ?= bench.txt
BENCH_PKGS  ?= ./internal/replay ./internal/sparkevent ./internal/eventlog/... ./internal/redact ./internal/analyze
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCH_COUNT) $(BENCH_PKGS) > $(BENCH_OUT) || { cat $(BENCH_OUT); exit 1; }
	@grep -c '^Benchmark' $(BENCH_OUT) | xargs printf '%s benchmark lines in $(BENCH_OUT)\n'
