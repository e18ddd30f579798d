package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
)

// The overview shows each queue's history setting, in HTML and JSON: none
// for a queue set to delete its completed rows, keep for the others.
func TestQueueHistoryIsShown(t *testing.T) {
	f := newFixture(t)
	f.insertTwo(t, func(a, b ulid.ULID) []store.NewJob {
		return []store.NewJob{{ID: a, Queue: "digest", Payload: json.RawMessage(`{}`)}, {ID: b, Queue: "mail", Payload: json.RawMessage(`{}`)}}
	})
	f.controlQueue(t, func(ctx context.Context, tx store.Tx) error { return tx.SetQueueHistory(ctx, "digest", false) })
	srv := f.server(t, "")
	var o Overview
	getJSON(t, srv.URL+"/api/", &o)
	got := map[string]string{}
	for _, q := range o.Queues {
		got[q.Queue] = q.History
	}
	if got["digest"] != "none" || got["mail"] != "keep" {
		t.Errorf("overview's histories = %v, want digest none and mail keep", got)
	}
	if _, body := get(t, srv.URL+"/"); !strings.Contains(body, `class="history"><span title="each completion deletes its job's row">none</span>`) {
		t.Errorf("the overview does not show digest's history")
	}
}
