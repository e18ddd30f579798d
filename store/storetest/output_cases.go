package storetest

import (
	"encoding/json"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// completeWith completes jobs of w with outputs and returns the fenced ids.
func (h *harness) completeWith(w ulid.ULID, ids []ulid.ULID, outputs ...json.RawMessage) ([]ulid.ULID, error) {
	var fenced []ulid.ULID
	err := h.tx(func(tx store.Tx) (err error) {
		fenced, err = tx.CompleteJobs(h.ctx, store.Completion{Worker: w, IDs: ids, Outputs: outputs})
		return err
	})
	return fenced, err
}

// wantOutput fails the test unless job id keeps output byte for byte.
func (h *harness) wantOutput(id ulid.ULID, output string) {
	h.t.Helper()
	got := h.job(id)
	if string(got.Output) != output || (output == "") != (got.Output == nil) {
		h.t.Fatalf("job %s: output %q (nil %t), want %q", id, got.Output, got.Output == nil, output)
	}
}

var outputCases = []testCase{
	{"CompletedRowKeepsItsOutput", func(h *harness) {
		w := h.worker()
		a, b, c := h.running(w, "q"), h.running(w, "q"), h.running(w, "q")
		out := json.RawMessage(` {"sent": [1, 2]} `)
		if fenced, err := h.completeWith(w, []ulid.ULID{a, b}, out, nil); err != nil || len(fenced) != 0 {
			h.t.Fatalf("complete: fenced %v, %v", fenced, err)
		}
		h.complete(w, c)
		h.wantOutput(a, ` {"sent": [1, 2]} `)
		h.wantOutput(b, "")
		h.wantOutput(c, "")
	}},
	{"FencedCompletionWritesNoOutput", func(h *harness) {
		w, other := h.worker(), h.worker()
		id := h.running(w, "q")
		fenced, err := h.completeWith(other, []ulid.ULID{id}, json.RawMessage(`1`))
		if err != nil || len(fenced) != 1 {
			h.t.Fatalf("complete by another worker: fenced %v, %v", fenced, err)
		}
		if j := h.job(id); j.Status != store.Running || j.Output != nil {
			h.t.Fatalf("fenced completion changed the row: %s", store.FormatJob(j))
		}
	}},
	{"IDGivenTwiceKeepsItsFirstOutput", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		if _, err := h.completeWith(w, []ulid.ULID{id, id}, json.RawMessage(`"first"`), json.RawMessage(`"second"`)); err != nil {
			h.t.Fatal(err)
		}
		h.wantOutput(id, `"first"`)
	}},
	{"BadOutputChangesNothing", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		for name, outputs := range map[string][]json.RawMessage{
			"not JSON":      {json.RawMessage(`{"a":`)},
			"invalid UTF-8": {json.RawMessage("\"\xff\"")},
			"too large":     {json.RawMessage(`"` + strings.Repeat("x", store.MaxPayloadBytes) + `"`)},
			"empty":         {json.RawMessage{}},
			"one too many":  {nil, nil},
		} {
			_, err := h.completeWith(w, []ulid.ULID{id}, outputs...)
			h.wantErr(err, store.ErrInvalid, name)
		}
		if j := h.job(id); j.Status != store.Running {
			h.t.Fatalf("a refused completion changed the row: %s", store.FormatJob(j))
		}
	}},
	{"JobPassCarriesOutputs", func(h *harness) {
		w := h.worker()
		id := h.running(w, "q")
		res := h.pass(store.JobPass{Worker: w, Complete: []store.Completion{{Worker: w, IDs: []ulid.ULID{id}, Outputs: []json.RawMessage{json.RawMessage(`{"n":1}`)}}}})
		if len(res.Fenced) != 0 {
			h.t.Fatalf("pass fenced %v", res.Fenced)
		}
		h.wantOutput(id, `{"n":1}`)
	}},
}
