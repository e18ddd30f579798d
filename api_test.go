package tickwork

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPublicAPI pins the names go doc shows for the packages an
// application imports, so that a helper of the stores or of the engine
// cannot creep into them unnoticed. A name added on purpose is added to
// the list below, where a reviewer sees it.
func TestPublicAPI(t *testing.T) {
	for dir, want := range publicAPI {
		t.Run(dir, func(t *testing.T) {
			got := exportedNames(t, dir)
			if extra, missing := diffNames(got, want); len(extra)+len(missing) > 0 {
				t.Errorf("go doc ./%s changed:\n  not in the list: %s\n  listed but gone: %s\n"+
					"a store's or the engine's helper belongs in an internal package; a name meant for users goes in publicAPI",
					dir, strings.Join(extra, " "), strings.Join(missing, " "))
			}
		})
	}
}

// exportedNames lists what go doc shows for the package in dir: its
// exported constants, variables, functions and types, and the exported
// methods and fields of its exported types, as Type.Name.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "main" && !hasBuildTag(f) {
			files = append(files, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/tickwork/tickwork/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(prefix string, vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, prefix+strings.Join(v.Names, ","))
		}
	}
	values("", p.Consts)
	values("", p.Vars)
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, ty := range p.Types {
		names = append(names, ty.Name)
		values("", ty.Consts)
		values("", ty.Vars)
		for _, f := range ty.Funcs {
			names = append(names, f.Name)
		}
		for _, m := range ty.Methods {
			names = append(names, ty.Name+"."+m.Name)
		}
	}
	slices.Sort(names)
	return names
}

// hasBuildTag reports a file built only under a tag (such as mutants),
// which go doc does not show.
func hasBuildTag(f *ast.File) bool {
	for _, c := range f.Comments {
		if c.Pos() >= f.Package {
			break
		}
		if strings.HasPrefix(c.Text(), "go:build") || strings.HasPrefix(c.List[0].Text, "//go:build") {
			return true
		}
	}
	return false
}

// diffNames returns the names in got and not in want, and the reverse.
func diffNames(got, want []string) (extra, missing []string) {
	for _, n := range got {
		if !slices.Contains(want, n) {
			extra = append(extra, n)
		}
	}
	for _, n := range want {
		if !slices.Contains(got, n) {
			missing = append(missing, n)
		}
	}
	return extra, missing
}

// publicAPI is what go doc shows of each package an application uses.
var publicAPI = map[string][]string{
	"store": {
		"Batch", "Batch.Ended", "Batch.String", "JobBatch", "MaxBatchFailedIDs", "Channel", "ChannelAvailable,ChannelStepdown,ChannelCancel", "Commit", "Completion",
		"Completion.Output", "Completion.ValidateOutputs", "DefaultListLimit", "Duplicate",
		"ErrNotFound,ErrFenced,ErrConflict,ErrUnavailable,ErrInvalid", "FormatJob", "Job",
		"Job.Halts", "Job.Holds", "Job.HoldsSequence", "JobChange", "JobChange.ID", "JobFilter", "JobFilter.Match", "JobPass",
		"JobPass.Empty", "JobPass.Heartbeats", "JobPass.Reserves", "JobPassResult", "JobPasser",
		"Jobs", "Lease", "LeaseChange", "Leases", "LiveStatuses", "MaxJobAttempts",
		"MaxParents", "MaxPartitionKeyBytes", "MaxPayloadBytes", "MaxQueueLimit", "MaxQueueNameBytes", "MaxQueueRate",
		"MaxSequenceKeyBytes", "Sequence", "Sequence.String", "SequenceWait",
		"MaxUniqueKeyBytes", "MinPriority,MaxPriority", "MinRatePeriod,MaxRatePeriod",
		"MinTime,MaxTime", "NewJob", "NewJob.CoveredStatuses", "Notification", "Queue",
		"Queue.Controlled", "Queue.NeedsRow", "Queue.History", "HistoryKeep,HistoryNone", "ParseHistory", "RedrivePage", "AllQueues", "QueueChange", "QueueChange.Name", "QueueChange.Wakes", "QueueStats",
		"Queues", "RunJobPass", "Schedule", "ScheduleChange", "ScheduleChange.Name",
		"Scheduled,Available,Running,Completed,Failed,Lost,Cancelled,Snoozed,Waiting", "Schedules",
		"Snapshot", "State", "State.Equal", "State.JobsIn", "State.String", "Status",
		"Status.Terminal", "Status.Valid", "StatusSet", "StatusSet.Has", "StatusSet.MarshalText",
		"StatusSet.String", "Statuses", "StatusesOf", "Store", "Tx", "Vacuum", "Vacuumer",
		"Vacuums", "ValidateNewJob", "ValidateOutput", "Worker", "WorkerChange",
		"WorkerChange.ID", "Workers",
	},
	"encryption": {
		"KeySize", "Key", "Key.String", "Key.GoString", "Ring", "NewRing", "ParseRing", "Ring.WithNonces", "Ring.Newest", "Ring.IDs",
		"Ring.String", "Ring.GoString", "Ring.Seal", "Ring.Open", "PayloadField,OutputField", "MetadataField", "Ring.SealJob",
		"Opened", "Ring.OpenJob", "Ring.SealOutput",
	},
	"worker": {
		"After", "AfterInBatch", "BulkAction", "BulkFilter", "BulkRequest", "BulkResult", "BulkRetry,BulkCancel,BulkDelete",
		"DefaultBulkBatch,MaxBulkBatch", "MaxBulkRefusals", "CallbackOptions", "EnqueueBatch", "Client", "Client.Bulk", "Client.Cancel", "Client.DeleteJob", "Client.Retry", "Client.ListQueues", "Client.OnEnqueue",
		"Client.PauseAll", "Client.ResumeAll", "Client.PausedAll", "Client.SetEncryption", "Encrypted",
		"Client.PauseQueue", "Client.ResumeQueue", "Client.SetQueueKeyLimit", "Client.SetQueueLimit",
		"Client.Redrive", "Client.SetQueueDeadLetter", "DeadLetter", "Client.SetQueueHistory",
		"Client.SetQueueRate", "Client.SkipJob", "SequenceContinuesOnFailure", "SequenceKey", "Config", "Decision", "DecisionOf", "DefaultConfig", "Enqueue", "PartitionKey", "PartitionKeyFrom",
		"EnqueueHook", "EnqueueMany", "EnqueueOption", "EnqueueTx", "EnqueuePgxTx", "ErrJobCancelled", "ErrShutdownCancel",
		"ErrJobLost,ErrReleased", "FailJob", "Handle", "HandlerOption", "Job",
		"Job.MetadataValue", "MaxLanes", "NoRetries,NoSnoozes,NoJitter,NoDrain", "Middleware", "New", "NewClient",
		"Options", "PendingJob", "Queuer", "RawJob", "ReasonShutdown",
		"RecordOutput", "RegisterQueue", "RetryJob",
		"RetryPolicy", "RunAnyway", "ScheduleSpec", "Snooze", "SnoozeOf", "Snoozed", "Succeed,Retry,Fail",

		"WithMaxAttempts", "WithOnDuplicate", "WithQueue", "WithQueueMaxAttempts", "WithRetryBackoff", "WithRetryDelay", "WithScheduledAt", "WithUniqueByPayload", "WithUniqueKey", "WithUniquePeriod", "WithUniqueWhile", "WithMetadata", "WithMiddleware", "WithPriority", "WithTimeout",
		"Worker", "Worker.HandleDeprecated", "Worker.HandledQueues", "Worker.Run", "Worker.AddQueue", "Worker.RemoveQueue", "ErrNotRunning",
	},
}
