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
	{"KeyLimits", keyLimitCases},
	{"Sequences", sequenceCases},
	{"Dependencies", dependencyCases},
	{"Batches", batchCases},
	{"Rates", rateCases},
	{"Results", resultCases},
	{"JobPass", jobPassCases},
	{"Output", outputCases},
	{"Retry", retryCases},
	{"Snooze", snoozeCases},
	{"MaxAttempts", maxAttemptsCases},
	{"Rescue", rescueCases},
	{"Promote", promoteCases},
	{"Cancel", cancelCases},
	{"List", listCases},
	{"Retention", retentionCases},
	{"Schedules", scheduleCases},
	{"Notify", notifyCases},
	{"Vacuum", vacuumCases},
}

// Run runs the conformance suite against the stores open returns, one fresh
// store per subtest. Subtests do not run in parallel: a store/pg opener may
// give each its own schema, and the machine is small.
func Run(t *testing.T, open Opener) {
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range s.cases {
				t.Run(c.name, func(t *testing.T) { c.fn(newHarness(t, open)) })
			}
		})
	}
}
