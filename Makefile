# The one test command (README, .ci/run): vet, every test, the live Spark
# scenarios, then each fuzz target briefly.
GO        ?= go
FUZZTIME  ?= 10s
# The real-Spark scenario runs (internal/scenario), a phase of their own.
LIVE      := ^(TestLive|TestWhatIfAgainstReality)$$

.PHONY: test vet unit live fuzz build bench

test: vet unit live fuzz

# exporter/deltaexporter is its own Go module (the collector's API): vet and
# test it too.
vet:
	$(GO) vet ./...
	cd exporter/deltaexporter && $(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 60m -skip '$(LIVE)' ./...
	cd exporter/deltaexporter && $(GO) test -count=1 -timeout 60m ./...

live:
	$(GO) test -count=1 -timeout 60m -run '$(LIVE)' ./internal/scenario

fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

build:
	CGO_ENABLED=0 $(GO) build -o bin/sparkdx ./cmd/sparkdx

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
