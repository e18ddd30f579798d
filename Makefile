# tickwork: run `make test` for everything; see README.md.
GO ?= go
STATICCHECK := $(GO) tool staticcheck

.PHONY: test check race build unit lint bench bench-compare bench-bulk simulate simulate-pg simulate-pg-ci mutants mutants-mem mutants-pg mutants-pg-search chaos chaos-ci chaos-failover chaos-failover-ci pg-auto-failover chaos-net chaos-net-ci

# test: lint, every package's tests (PostgreSQL: DATABASE_URL, else the local
# server, else Docker; see store/pg/pgtest), the simulator over 10,000 seeds,
# 200 seeds with transactions interleaved on PostgreSQL, the planted-bug
# check, a short live chaos run (which restarts PostgreSQL only under CI
# or with TICKWORK_CHAOS_RESTART_PG=1) and a short one with network faults.
# The race detector is a target of its own (make race), which CI runs after
# this one (.ci/run). The steps run one after another:
# run side by side on two cores they starved each other (store/pg passed
# its 10-minute timeout, the interleaved seeds took 720 s instead of about
# 60, timing-bound end-to-end tests failed, and a live chaos run beside
# the in-memory seeds logged a worker's fenced result before the rescue
# that fenced it: property 6, since mended in the history log, which
# stamped the refusal with its pass's transaction start). Each step
# prints its time, and the total comes last.
TEST_STEPS = lint unit simulate simulate-pg-ci mutants chaos-ci chaos-net-ci
test:
	@t0=$$(date +%s); rc=0; \
	for step in $(TEST_STEPS); do $(MAKE) --no-print-directory timed-$$step || { rc=1; break; }; done; \
	echo "make test: $$(( $$(date +%s) - t0 )) s in all$$([ $$rc = 0 ] || echo ', FAILED')"; exit $$rc

# timed-STEP runs make STEP and prints how long it took.
timed-%:
	@t0=$$(date +%s); rc=0; $(MAKE) --no-print-directory $* || rc=$$?; \
	echo "== $*: $$(( $$(date +%s) - t0 )) s$$([ $$rc = 0 ] || echo ', FAILED')"; exit $$rc

# check: the fast loop, before each commit: lint, then every package's tests
# with -short (the long ones skip themselves, saying why: internal/long).
check: lint
	@t0=$$(date +%s); \
	$(GO) test -short -count=1 -timeout 10m -p $(TEST_P) ./... && \
	(cd bench && $(GO) test -short -count=1 -timeout 6m ./...) && \
	echo "make check: tests $$(( $$(date +%s) - t0 )) s"

# race: the race detector on every package that starts goroutines, its own
# or its libraries' (pgx, net/http, chromedp), with -short: the long tests
# are the same code run longer, at ten times the cost under -race. Then 20
# seeds of the simulator interleaving transactions on PostgreSQL, which
# -short leaves out: actors' goroutines, pgx's reader and the controller.
# Seeds 81 to 100, since they reach every mark of interleaving (a deadlock
# broken, a resign beside a lease transaction, each fault), so that the
# detector watches each of those paths; seeds 1 to 20 reached neither of
# those two. A change to what seeds draw can move the marks: the run's
# GAP line then names what no seed reached.
RACE_PKGS = ./worker/... ./store/... ./console/... ./cmd/... ./tickworktest/... ./sim/... ./internal/browser/...
race:
	@t0=$$(date +%s); \
	$(GO) test -race -short -count=1 -timeout 10m -p $(TEST_P) $(RACE_PKGS) && \
	$(GO) run -race ./cmd/simulate -store pg -interleave -seeds 20 -from 81 -duration 5s -parallel 2 && \
	echo "make race: $$(( $$(date +%s) - t0 )) s"

# TEST_P: packages tested at once. Most wait on PostgreSQL or on timers
# more than they compute, so more than the 2 cores' default.
TEST_P ?= 4

# build: the production binary, into bin/ (ignored by git).
build:
	$(GO) build -o bin/worker ./cmd/worker

# unit: every package's tests, the long ones too, TEST_P packages at once;
# bench/'s (a module of its own) beside them, since the last minute of
# ./... is mostly store/pg's million-row plan tests alone (bench/'s after
# them added 27 s to a fresh-clone CI run). bench/'s take 25 s alone and
# up to two minutes beside the others on a loaded machine: their timeout
# only catches a hang.
unit:
	@(cd bench && $(GO) test -count=1 -timeout 6m ./...) & bench=$$!; \
	$(GO) test -count=1 -timeout 15m -p $(TEST_P) ./...; rc=$$?; \
	wait $$bench || rc=1; exit $$rc

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

# bench-compare: tickwork beside River and graphile-worker (bench/, a
# module of its own; graphile-worker from npm in bench/graphile, installed
# on first use, run with the machine's Node.js) on the database at
# DATABASE_URL: throughput at 100 and 1,000 jobs in flight with 100,000 and
# 1,000,000 jobs waiting, processor time per job, bulk enqueue,
# enqueue-to-start on an idle worker; durable commits; three alternating
# rounds of each figure, their medians and round ratios. Then the cost of
# a job at 0, 1,000,000 and 10,000,000 finished rows (bench history
# -finished, the rows inserted with SQL), with the server's autovacuum off
# and then on: ALTER SYSTEM, which needs a superuser and is put back as it
# was when each run ends. Takes a long while: graphile-unbatched alone
# runs up to a minute a round, and each history run inserts ten million
# rows (1 to 2 minutes here); see bench/README.md.
bench-compare:
	cd bench && $(GO) run . compare
	cd bench && $(GO) run . history -jobs 0 -sweep 0 -finished 0,1000000,10000000 -vacuum off -autovacuum off
	cd bench && $(GO) run . history -jobs 0 -sweep 0 -finished 0,1000000,10000000 -vacuum off -autovacuum on

# bench-bulk: do the workers' ticks suffer while `worker jobs retry` runs
# over a million rows (Client.Bulk)? Two workers on a steady load of no-op
# jobs, a minute without the bulk action, then during it: tick p50, p99,
# max and their ratios, the action's time and rows/s. Takes about as long
# as the action (see bench/README.md and bench/RESULTS.md).
bench-bulk:
	cd bench && $(GO) run . bulk -baseline 60s

simulate:
	$(GO) run ./cmd/simulate -seeds 10000

# simulate-pg-ci: the workers' transactions interleaved on PostgreSQL, round
# trip by round trip in an order drawn from each seed (docs/INTERLEAVING.md);
# short chaos phases, so that it takes about two minutes (114 s in a
# fresh-clone CI run). Fails if a mark of interleaving (overlap, lock wait,
# deadlock, faults) is not reached.
# An interleaved seed waits on PostgreSQL's round trips more than it
# computes (a third of its wall time on the processor), so more seeds run
# at once than there are cores: on a loaded machine 8 took a fifth less
# time than 4; on a quiet one, the same.
simulate-pg-ci:
	$(GO) run ./cmd/simulate -store pg -interleave -seeds 200 -duration 10s -parallel 8

# simulate-pg: more interleaved seeds, with the chaos phases drawn.
simulate-pg:
	$(GO) run ./cmd/simulate -store pg -interleave -seeds 2000 -parallel 4

# mutants: plant each known bug in turn and show the simulator catches it,
# printing seeds-to-first-failure per bug; then draw a caught seed with
# -html and check the picture in Chromium (UPDATE_DOCS=1 refreshes
# docs/seed-picture.png). The in-memory run searches from seed 1 for every
# bug. store/pg's bugs (those of its SQL need concurrent transactions:
# -store pg -interleave; those of its pool the serial -store pg) cost
# seconds a seed and some need dozens of seeds, so mutants-pg replays the
# seed testdata/mutant_seeds.txt records for each and searches only when
# that seed no longer catches its bug, printing the line to record;
# mutants-pg-search searches for every one from seed 1, with kill rates.
mutants: mutants-mem mutants-pg

mutants-mem:
	$(GO) run -tags mutants ./cmd/simulate -mutants -seeds 10000

MUTANTS_PG_FLAGS = -duration 10s -mutants -seeds 600 -parallel 8

mutants-pg:
	$(GO) run -tags mutants ./cmd/simulate -store pg -interleave $(MUTANTS_PG_FLAGS) -mutant-seeds testdata/mutant_seeds.txt
	$(GO) run -tags mutants ./cmd/simulate -store pg $(MUTANTS_PG_FLAGS) -mutant-seeds testdata/mutant_seeds.txt
	$(GO) test -tags mutants -count=1 -run 'TestPictureOfAFailingSeed|TestRecordedMutantSeeds' ./cmd/simulate/
	$(GO) test -tags mutants -count=1 -run TestReservationWithoutSkipLockedIsCaught ./store/pg/interleave/
	$(GO) test -tags mutants -count=1 -run 'TestSelectedBugRewritesItsStatements|TestPlantPanicsOnAnEditThatFindsNothing' ./store/pg/

mutants-pg-search:
	$(GO) run -tags mutants ./cmd/simulate -store pg -interleave $(MUTANTS_PG_FLAGS)
	$(GO) run -tags mutants ./cmd/simulate -store pg $(MUTANTS_PG_FLAGS)

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

# chaos-failover: the workers against a pg_auto_failover cluster of the
# run's own (a monitor and two nodes on free loopback ports, synchronous
# replication, data under /tmp, run as the postgres user), through a
# multi-host URL with target_session_attrs=read-write, while it meets a
# planned failover, kill -9 of the primary's postmaster and the primary
# stopped for 20 s; three seeds on one cluster, each history checked with
# props. It never touches the server on 127.0.0.1:5432. See docs/FAILOVER.md.
chaos-failover: pg-auto-failover
	$(GO) run ./cmd/chaos -failover -failover-stop 20s -duration 10s -workers 3 -seed 1 -seeds 3

# chaos-failover-ci: its short form, one seed and a 10 s stop.
chaos-failover-ci: pg-auto-failover
	$(GO) run ./cmd/chaos -failover -failover-stop 10s -duration 10s -workers 3 -seed 1

# pg-auto-failover installs Debian's pg_auto_failover when it is missing.
pg-auto-failover:
	@command -v pg_autoctl >/dev/null && ls /usr/lib/postgresql/*/lib/pgautofailover.so >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq postgresql-15-auto-failover pg-auto-failover-cli; }

# chaos-net: network faults through a Toxiproxy proxy per worker (latency,
# a blackhole past the dead threshold, reset_peer, bandwidth, slicer, a
# silent LISTEN connection), three seeds; prints detection and recovery
# times (docs/OPERATIONS.md). About two and a half minutes.
chaos-net:
	for seed in 1 2 3; do $(GO) run ./cmd/chaos -net-faults -duration 40s -workers 3 -seed $$seed || exit 1; done

# chaos-net-ci: its short form, one seed, 20 s: every kind of network
# fault once. Fails, as chaos-net does, on a violation or on a fault the
# workers did not come through (a blackholed worker never declared dead or
# never back, a silent listener never noticed or never reconnected).
chaos-net-ci:
	$(GO) run ./cmd/chaos -net-faults -duration 20s -workers 3 -seed 1 -skip-without-database
