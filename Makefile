# The one test command (README, .ci/run): vet, every test, then each fuzz
# target briefly.
GO        ?= go
FUZZTIME  ?= 10s

.PHONY: test vet unit fuzz build bench

test: vet unit fuzz

# exporter/deltaexporter is its own Go module (the collector's API): vet and
# test it too.
vet:
	$(GO) vet ./...
	cd exporter/deltaexporter && $(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 60m ./...
	cd exporter/deltaexporter && $(GO) test -count=1 -timeout 60m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

build:
	CGO_ENABLED=0 $(GO) build -o bin/sparkdx ./cmd/sparkdx

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
