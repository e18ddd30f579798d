package storetest

import "testing"

// testCase is one conformance check; it gets a fresh store.
type testCase struct {
	name string
	fn   func(h *harness)
}

// suites lists the groups of checks in the order Run runs them.
var suites = []struct {
	name  string
	cases []testCase
}{
	{"Time", timeCases},
	{"Tx", txCases},
	{"Workers", workerCases},
	{"Lease", leaseCases},
	{"Insert", insertCases},
	{"Unique", uniqueCases},
	{"Reserve", reserveCases},
	{"Priority", priorityCases},
	{"Backlog", backlogCases},
	{"Queues", queueCases},
	{"PauseAll", pauseAllCases},
	{"KeyLimits", keyLimitCases},
	{"Sequences", sequenceCases},
	{"Dependencies", dependencyCases},
	{"Batches", batchCases},
	{"Rates", rateCases},
	{"Results", resultCases},
	{"JobPass", jobPassCases},
	{"Output", outputCases},
	{"Retry", retryCases},
	{"DeadLetters", deadLetterCases},
	{"History", historyCases},
	{"Snooze", snoozeCases},
	{"MaxAttempts", maxAttemptsCases},
	{"Rescue", rescueCases},
	{"Promote", promoteCases},
	{"Cancel", cancelCases},
	{"Delete", deleteCases},
	{"Bulk", bulkCases},
	{"List", listCases},
	{"Filter", filterCases},
	{"Retention", retentionCases},
	{"Schedules", scheduleCases},
	{"Notify", notifyCases},
	{"Vacuum", vacuumCases},
}

// Run runs the conformance suite against the stores open returns, one fresh
// store per subtest, one subtest after another.
func Run(t *testing.T, open Opener) { RunInLanes(t, open) }

// RunInLanes runs the conformance suite with its groups of checks (Time,
// Tx, ...) in parallel, each group on one of the openers, which no two
// groups use at once: a store/pg opener recycles one schema, so as many
// groups run together as there are openers (and go test -parallel
// allows). The checks of a group run one after another. With one opener
// it is Run.
func RunInLanes(t *testing.T, openers ...Opener) {
	lanes := make(chan Opener, len(openers))
	for _, o := range openers {
		lanes <- o
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			if len(openers) > 1 {
				t.Parallel()
			}
			open := <-lanes
			defer func() { lanes <- open }()
			for _, c := range s.cases {
				t.Run(c.name, func(t *testing.T) { c.fn(newHarness(t, open)) })
			}
		})
	}
}
