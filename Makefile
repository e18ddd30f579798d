# tickwork: run `make test` for everything; see README.md.
GO ?= go
STATICCHECK := $(GO) tool staticcheck

.PHONY: test build unit lint bench bench-river simulate simulate-pg simulate-pg-ci mutants chaos chaos-ci

# test: lint, every package's tests (PostgreSQL: DATABASE_URL, else the local
# server, else Docker; see store/pg/pgtest), the simulator over 10,000 seeds,
# 200 seeds with transactions interleaved on PostgreSQL, the planted-bug
# check, and a short live chaos run (which restarts PostgreSQL only under CI
# or with TICKWORK_CHAOS_RESTART_PG=1).
test: lint unit simulate simulate-pg-ci mutants chaos-ci

# build: the production binary, into bin/ (ignored by git).
build:
	$(GO) build -o bin/worker ./cmd/worker

unit:
	$(GO) test -count=1 -timeout 10m ./...
	cd bench && $(GO) test -count=1 -timeout 2m ./...

lint:
	$(GO) vet ./...
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./...
	cd bench && $(GO) vet ./...

# bench: figures, not assertions. store/pg: bulk enqueue (COPY) and
# reserve+complete; worker: (a) 100,000 no-op jobs, one worker, 100
# concurrent, (b) four workers, (c) enqueue-to-start latency; then the
# in-memory store, the checker and the simulator; the console's jobs page
# on a million rows (keyset against OFFSET).
bench:
	$(GO) test -run '^$$' -bench . -count 1 ./store/pg/
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./worker/
	$(GO) test -run '^$$' -bench . -count 1 ./store/mem/ ./props/ ./sim/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 1 ./console/

# bench-river: tickwork beside River (bench/, a module of its own) on the
# database at DATABASE_URL: throughput at 100 and 1,000 jobs in flight with
# 100,000 and 1,000,000 jobs waiting, bulk enqueue, enqueue-to-start on an
# idle worker; durable commits; three alternating rounds of each figure,
# their medians and round ratios. Takes several minutes (see bench/README.md).
bench-river:
	cd bench && $(GO) run . compare

simulate:
	$(GO) run ./cmd/simulate -seeds 10000

# simulate-pg-ci: the workers' transactions interleaved on PostgreSQL, round
# trip by round trip in an order drawn from each seed (docs/INTERLEAVING.md);
# short chaos phases, so that it takes about a minute. Fails if a
# mark of interleaving (overlap, lock wait, deadlock, faults) is not reached.
simulate-pg-ci:
	$(GO) run ./cmd/simulate -store pg -interleave -seeds 200 -duration 10s -parallel 4

# simulate-pg: more interleaved seeds, with the chaos phases drawn.
simulate-pg:
	$(GO) run ./cmd/simulate -store pg -interleave -seeds 2000 -parallel 4

# mutants: plant each known bug in turn and show the simulator catches it,
# printing seeds-to-first-failure per bug (store/pg's, which need concurrent
# transactions, with -store pg -interleave); then draw a caught seed with
# -html and check the picture in Chromium (UPDATE_DOCS=1 refreshes
# docs/seed-picture.png).
mutants:
	$(GO) run -tags mutants ./cmd/simulate -mutants -seeds 10000
	$(GO) run -tags mutants ./cmd/simulate -store pg -interleave -mutants -seeds 250 -duration 10s -parallel 4
	$(GO) test -tags mutants -count=1 -run TestPictureOfAFailingSeed ./cmd/simulate/
	$(GO) test -tags mutants -count=1 -run TestReservationWithoutSkipLockedIsCaught ./store/pg/interleave/

# chaos: worker processes against PostgreSQL in real time, killed, stopped
# past the dead threshold and cut off with pg_terminate_backend; the history
# is then checked with props. The database is DATABASE_URL, else the local
# server on 127.0.0.1:5432 (user postgres, database test). PostgreSQL itself
# is restarted once mid-run only when CI is set or TICKWORK_CHAOS_RESTART_PG=1.
chaos:
	$(GO) run ./cmd/chaos -duration 75s -workers 4

# chaos-ci: the same, shortened, with a fixed seed for the fault schedule.
# Without a database it fails under CI and is skipped otherwise.
chaos-ci:
	$(GO) run ./cmd/chaos -duration 25s -workers 3 -seed 1 -skip-without-database
