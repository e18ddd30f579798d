# tickwork: run `make test` for everything; see README.md.
GO ?= go
STATICCHECK := $(GO) tool staticcheck

.PHONY: test unit lint bench simulate mutants chaos

# test: lint, every package's tests (PostgreSQL through DATABASE_URL), then
# the simulator over 10,000 seeds, and the planted-bug check.
test: lint unit simulate mutants

unit:
	$(GO) test -count=1 -timeout 10m ./...

lint:
	$(GO) vet ./...
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./...

# bench: figures, not assertions. store/pg: bulk enqueue (COPY) and
# reserve+complete; worker: (a) 100,000 no-op jobs, one worker, 100
# concurrent, (b) four workers, (c) enqueue-to-start latency; then the
# in-memory store, the checker and the simulator.
bench:
	$(GO) test -run '^$$' -bench . -count 1 ./store/pg/
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./worker/
	$(GO) test -run '^$$' -bench . -count 1 ./store/mem/ ./props/ ./sim/

simulate:
	$(GO) run ./cmd/simulate -seeds 10000

# mutants: plant each known bug in turn and show the simulator catches it,
# printing seeds-to-first-failure per bug.
mutants:
	$(GO) run -tags mutants ./cmd/simulate -mutants -seeds 10000
