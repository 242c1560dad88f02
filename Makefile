# The one test command (README, .ci/run): vet, every test, then each fuzz
# target briefly.
GO        ?= go
FUZZTIME  ?= 10s

.PHONY: test vet unit fuzz build bench

test: vet unit fuzz

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 40m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) ./.ci/fuzz

build:
	CGO_ENABLED=0 $(GO) build -o bin/sparkdx ./cmd/sparkdx

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
